"""The Prefect server our watcher runs: Prefect's own app under uvicorn, retrying the
requests that met a locked SQLite database itself before any client sees a 503.

Why: on SQLite, Prefect's server answers 503 ("database is locked") when a request's
deferred transaction collides with a commit of one of the server's own services. SQLite
fails such a transaction at once (the busy timeout does not apply to it); the
transaction is rolled back, so the request can simply run again. Prefect's client does
exactly that, but only after `2**attempt` seconds plus jitter: a 2 s stall about once
every 20 cycles, most of the orchestration cost of a session. The collision is over in
milliseconds, so `RetryLocked` replays the request in the server after 10 ms, doubling
up to a quarter second, for up to `PATIENCE_S`; a client still gets the 503 (and backs
off as Prefect designed) only when the database stays locked that long. Each absorbed
collision is one line in the server log.

Everything else is what `prefect server start` runs in the foreground: the same app
factory, host, port and keep-alive and websocket settings. uvicorn runs it on uvloop
with httptools' parser (both dependencies of ours; uvicorn picks them when installed):
Prefect's server spends most of its time in per-request Python, and a no-op agent cycle
makes about ten requests. A new home's SQLite database is first copied from a migrated
template (`agentcycle.prefect_db`), which saves the migrations' 8 s of CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

MODULE = "agentcycle.prefect_app"
FIRST_RETRY_S = 0.01
MAX_RETRY_S = 0.25
# How long the server keeps replaying one request before handing its client the 503
# (whose own back-off then starts at 2 s): well past any service commit, short of the
# client's 60 s request timeout.
PATIENCE_S = 10.0

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]

log = logging.getLogger(MODULE)


class RetryLocked:
    """ASGI middleware: run an HTTP request again while the app answers it with 503."""

    def __init__(
        self,
        app: ASGIApp,
        patience_s: float = PATIENCE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.patience_s = patience_s
        self.clock = clock

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = await _read_request(receive)
        started = self.clock()
        delay = FIRST_RETRY_S
        tries = 1
        while True:
            replaying = self.clock() + delay - started <= self.patience_s
            held = await self._attempt(scope, request, receive, send, hold_503=replaying)
            if not held:
                break
            await asyncio.sleep(delay)
            delay = min(MAX_RETRY_S, delay * 2)
            tries += 1
        if tries > 1:
            log.info(
                "%s %s: database locked, answered on try %d after %.0f ms",
                scope.get("method"), scope.get("path"), tries, (self.clock() - started) * 1000,
            )  # fmt: skip

    async def _attempt(
        self, scope: MutableMapping[str, Any], request: list[Message], receive: Receive,
        send: Send, *, hold_503: bool,
    ) -> bool:  # fmt: skip
        """Run the app once on the buffered request; True when it answered 503 and that
        answer was held back (not sent) so the request can run again."""
        pending = list(request)
        held = False

        async def replay() -> Message:
            return pending.pop(0) if pending else await receive()

        async def forward(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start":
                held = hold_503 and message["status"] == 503
            if not held:
                await send(message)

        try:
            # A copy each try: Starlette's routing rewrites the scope's path as it mounts.
            await self.app(dict(scope), replay, forward)
        except Exception:
            # Starlette raises the error again after its handler sent the 503; when that
            # answer was held back, the error is the lock this request is tried again for.
            if not held:
                raise
        return held


async def _read_request(receive: Receive) -> list[Message]:
    """The request's body messages, read once so that every try can be given them."""
    messages = [await receive()]
    while messages[-1]["type"] == "http.request" and messages[-1].get("more_body", False):
        messages.append(await receive())
    return messages


def main() -> None:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s: %(message)s"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False

    import prefect
    import uvicorn
    from prefect.server.api.server import create_app
    from prefect.settings import (
        PREFECT_API_DATABASE_CONNECTION_URL,
        PREFECT_SERVER_API_KEEPALIVE_TIMEOUT,
        PREFECT_SERVER_API_WEBSOCKET_PING_INTERVAL,
        PREFECT_SERVER_API_WEBSOCKET_PING_TIMEOUT,
    )

    from agentcycle.prefect_db import log as seed_log
    from agentcycle.prefect_db import seed_database

    seed_log.addHandler(handler)
    seed_log.setLevel(logging.INFO)
    seed_database(PREFECT_API_DATABASE_CONNECTION_URL.value(), prefect.__version__)

    uvicorn.run(
        RetryLocked(create_app(final=True)),
        host=args.host,
        port=args.port,
        timeout_keep_alive=PREFECT_SERVER_API_KEEPALIVE_TIMEOUT.value(),
        ws_ping_interval=PREFECT_SERVER_API_WEBSOCKET_PING_INTERVAL.value(),
        ws_ping_timeout=PREFECT_SERVER_API_WEBSOCKET_PING_TIMEOUT.value(),
        log_level=os.environ.get("PREFECT_SERVER_LOGGING_LEVEL", "WARNING").lower(),
    )


if __name__ == "__main__":
    main()

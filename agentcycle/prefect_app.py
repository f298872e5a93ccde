"""The Prefect server our watcher runs: Prefect's own app under uvicorn, with a short,
adaptive `Retry-After` on the 503s its clients retry.

Why: on SQLite, Prefect's server answers 503 ("database is locked") when a request's
deferred transaction collides with a commit of one of the server's own services. SQLite
fails such a transaction at once (the busy timeout does not apply to it), and without a
`Retry-After` header Prefect's client waits `2**1` s plus jitter before trying again: a
2 s stall about once every 20 cycles, most of the orchestration cost of a session. The
collision is over in milliseconds, so clients are told to come back after 50 ms,
doubling for every other 503 of the last second up to Prefect's own 2 s, so that a
real overload still backs off as before. Prefect's client honours the header (RFC 9110
delay-seconds) and still counts the attempt against its retry limit.

Everything else is what `prefect server start` runs in the foreground: the same app
factory, host, port and keep-alive and websocket settings. uvicorn runs it on uvloop
with httptools' parser (both dependencies of ours; uvicorn picks them when installed):
Prefect's server spends most of its time in per-request Python, and a no-op agent cycle
makes about ten requests.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

MODULE = "agentcycle.prefect_app"
FIRST_RETRY_S = 0.05
MAX_RETRY_S = 2.0  # Prefect's own first back-off
# A collision with a service's commit is a lone event (about one every few seconds in a
# busy session); several 503s within one second are an overload worth backing off from.
RECENT_WINDOW_S = 1.0

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[MutableMapping[str, Any], Receive, Send], Awaitable[None]]


class RetrySoon:
    """ASGI middleware: give every 503 without a `Retry-After` a short, adaptive one."""

    def __init__(self, app: ASGIApp, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.clock = clock
        self.recent: deque[float] = deque()

    def delay(self) -> float:
        """50 ms for a lone collision, doubled for each other 503 in the recent window."""
        now = self.clock()
        while self.recent and now - self.recent[0] > RECENT_WINDOW_S:
            self.recent.popleft()
        seconds = min(MAX_RETRY_S, FIRST_RETRY_S * 2 ** len(self.recent))
        self.recent.append(now)
        return seconds

    async def __call__(self, scope: MutableMapping[str, Any], receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_retry_after(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 503:
                headers = list(message.get("headers", []))
                if not any(name.lower() == b"retry-after" for name, _ in headers):
                    headers.append((b"retry-after", f"{self.delay():.3f}".encode()))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_retry_after)


def main() -> None:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    import uvicorn
    from prefect.server.api.server import create_app
    from prefect.settings import (
        PREFECT_SERVER_API_KEEPALIVE_TIMEOUT,
        PREFECT_SERVER_API_WEBSOCKET_PING_INTERVAL,
        PREFECT_SERVER_API_WEBSOCKET_PING_TIMEOUT,
    )

    uvicorn.run(
        RetrySoon(create_app(final=True)),
        host=args.host,
        port=args.port,
        timeout_keep_alive=PREFECT_SERVER_API_KEEPALIVE_TIMEOUT.value(),
        ws_ping_interval=PREFECT_SERVER_API_WEBSOCKET_PING_INTERVAL.value(),
        ws_ping_timeout=PREFECT_SERVER_API_WEBSOCKET_PING_TIMEOUT.value(),
        log_level=os.environ.get("PREFECT_SERVER_LOGGING_LEVEL", "WARNING").lower(),
    )


if __name__ == "__main__":
    main()

"""Our Prefect server's 503s carry a short Retry-After, and Prefect's own client obeys it.

The app behind the middleware here is a stand-in that answers 503 once (as Prefect's
server does when SQLite reports "database is locked"); the client is Prefect's real HTTP
client with its real retry loop. A real collision cannot be provoked on demand.
"""

from __future__ import annotations

import asyncio
import time

import httpx
from prefect.client.base import PrefectHttpxAsyncClient

from agentcycle.prefect_app import FIRST_RETRY_S, MAX_RETRY_S, RetrySoon


def _busy_once_app(statuses: list[int]):
    """An ASGI app answering 503 to its first request, 200 after; records each status."""

    async def app(scope, receive, send) -> None:
        status = 503 if not statuses else 200
        statuses.append(status)
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    return app


def test_a_locked_database_503_is_retried_in_milliseconds_not_seconds() -> None:
    statuses: list[int] = []

    async def ask() -> tuple[int, float]:
        transport = httpx.ASGITransport(app=RetrySoon(_busy_once_app(statuses)))
        async with PrefectHttpxAsyncClient(transport=transport, base_url="http://ours") as client:
            started = time.monotonic()
            response = await client.get("/api/task_runs/")
            return response.status_code, time.monotonic() - started

    status, elapsed = asyncio.run(ask())
    assert statuses == [503, 200] and status == 200
    assert elapsed < 0.5, f"retried after {elapsed:.2f} s (Prefect's own back-off is 2 s)"


def test_many_503s_back_off_to_prefects_own_delay() -> None:
    now = [0.0]
    middleware = RetrySoon(_busy_once_app([]), clock=lambda: now[0])
    delays = [middleware.delay() for _ in range(8)]
    assert delays[0] == FIRST_RETRY_S and delays == sorted(delays)
    assert delays[-1] == MAX_RETRY_S  # a real overload waits as long as before
    now[0] = 60.0  # the storm is over: the next lone collision is short again
    assert middleware.delay() == FIRST_RETRY_S


def test_a_retry_after_the_app_set_is_kept() -> None:
    sent: list[dict] = []

    async def app(scope, receive, send) -> None:
        headers = [(b"retry-after", b"30")]
        await send({"type": "http.response.start", "status": 503, "headers": headers})

    async def record(message) -> None:
        sent.append(message)

    asyncio.run(RetrySoon(app)({"type": "http"}, None, record))
    assert sent[0]["headers"] == [(b"retry-after", b"30")]

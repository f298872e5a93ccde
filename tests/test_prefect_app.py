"""Our Prefect server replays a request that met a locked database itself, so a client
sees the answer of the try that worked, not a 503 and Prefect's 2 s back-off.

The apps behind the middleware are small FastAPI apps wired with Prefect's own
exception handler, raising the error SQLite raises on a collision ("database is
locked"); the client is Prefect's real HTTP client with its real retry loop. A real
collision with one of the server's services cannot be provoked on demand.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time

import httpx
import sqlalchemy.exc
from fastapi import FastAPI, Request
from prefect.client.base import PrefectHttpxAsyncClient
from prefect.server.api.server import custom_internal_exception_handler

from agentcycle.prefect_app import RetryLocked


def _locked() -> sqlalchemy.exc.OperationalError:
    return sqlalchemy.exc.OperationalError(
        "INSERT INTO task_run ...", {}, sqlite3.OperationalError("database is locked")
    )


def _app_locked_for(tries: int, bodies: list[bytes], statuses: list[int]) -> FastAPI:
    """Answers its first `tries` requests as Prefect's server answers a locked database;
    its API is mounted under /api, as Prefect's is."""
    api = FastAPI(exception_handlers={Exception: custom_internal_exception_handler})
    app = FastAPI()
    app.mount("/api", api)

    @api.post("/task_runs/")
    async def create(request: Request) -> dict[str, int]:
        bodies.append(await request.body())
        if len(bodies) <= tries:
            statuses.append(503)
            raise _locked()
        statuses.append(201)
        return {"created": len(bodies)}

    return app


async def _post(app, client_class=httpx.AsyncClient) -> tuple[httpx.Response, float]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with client_class(transport=transport, base_url="http://ours") as client:
        started = time.monotonic()
        response = await client.post("/api/task_runs/", json={"name": "parse-toy"})
        return response, time.monotonic() - started


def test_a_locked_database_is_retried_in_the_server_with_the_same_body() -> None:
    bodies: list[bytes] = []
    statuses: list[int] = []
    app = RetryLocked(_app_locked_for(2, bodies, statuses))
    response, elapsed = asyncio.run(_post(app, PrefectHttpxAsyncClient))
    assert response.status_code == 200 and response.json() == {"created": 3}
    assert statuses == [503, 503, 201]
    assert bodies == [b'{"name":"parse-toy"}'] * 3  # every try read the whole request
    assert elapsed < 0.5, f"answered after {elapsed:.2f} s (Prefect's own back-off is 2 s)"


def test_a_lock_that_outlasts_the_patience_reaches_the_client_as_503() -> None:
    bodies: list[bytes] = []
    statuses: list[int] = []
    app = RetryLocked(_app_locked_for(1000, bodies, statuses), patience_s=0.2)
    response, elapsed = asyncio.run(_post(app))
    assert response.status_code == 503  # the client's own back-off takes over
    assert 3 <= len(statuses) < 20 and set(statuses) == {503}
    assert elapsed < 1.0


def test_other_answers_pass_through_untouched() -> None:
    calls: list[str] = []
    app = FastAPI(exception_handlers={Exception: custom_internal_exception_handler})

    @app.post("/api/task_runs/")
    async def broken() -> None:
        calls.append("broken")
        raise ValueError("a bug, not a lock")

    response, _ = asyncio.run(_post(RetryLocked(app)))
    assert response.status_code == 500 and calls == ["broken"]  # a bug is not retried

    ok = FastAPI()

    @ok.post("/api/task_runs/")
    async def fine(request: Request) -> dict[str, object]:
        return {"echo": await request.json()}

    response, _ = asyncio.run(_post(RetryLocked(ok)))
    assert response.status_code == 200 and response.json() == {"echo": {"name": "parse-toy"}}

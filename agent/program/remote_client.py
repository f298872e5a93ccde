"""The client of the decision service: a session's next decision, decided elsewhere.

`decide_next_remote` is `session.decide_next` with the `decide` call sent over HTTP:
the same arguments (`session.decision_inputs`), serialised by `remote_api.to_request`.
Every call has a timeout; connection failures and 502/503/504 are retried with a short
backoff; any other refusal becomes one clear `UserError` line (401: the token).
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

import httpx
from pydantic import ValidationError

from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.experience import Experience
from agentcycle.agent.program.remote_api import (
    API_VERSION,
    DecisionResponse,
    ErrorResponse,
    from_response,
    to_request,
)
from agentcycle.agent.program.session import decision_inputs
from agentcycle.agent.program.state import SessionState, load_session
from agentcycle.errors import UserError
from agentcycle.knowledge import load_pack

AGENT_URL_ENV = "AGENTCYCLE_AGENT_URL"
AGENT_TOKEN_ENV = "AGENTCYCLE_AGENT_TOKEN"
DECIDE_PATH = "/v1/decide"
HEALTH_PATH = "/v1/health"
TIMEOUT_S = 30.0
RETRIES = 2
RETRY_STATUSES = {502, 503, 504}


class RemoteDecisionError(UserError):
    """The decision service could not be reached or refused the request."""


@lru_cache(maxsize=4)
def _client(base_url: str, token: str | None, timeout_s: float) -> httpx.Client:
    """One keep-alive client per service: a new TCP connection per decision costs ms."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=base_url, headers=headers, timeout=timeout_s)


def _refusal(url: str, response: httpx.Response) -> RemoteDecisionError:
    if response.status_code == 401:
        return RemoteDecisionError(
            f"{url}: 401 unauthorized: the decision service refused the token "
            "(give the service's token with --agent-token)"
        )
    try:
        error = ErrorResponse.model_validate_json(response.content).error
        detail = f"{error.code}: {error.message}"
    except ValidationError:
        detail = response.text.strip().splitlines()[0][:200] if response.text.strip() else ""
    return RemoteDecisionError(f"{url}: {response.status_code} {detail}")


def post_decision(
    url: str,
    body: bytes,
    token: str | None = None,
    timeout_s: float = TIMEOUT_S,
    retries: int = RETRIES,
) -> DecisionResponse:
    """POST one serialised request; retry only what a retry can fix."""
    client = _client(url.rstrip("/"), token, timeout_s)
    for attempt in range(retries + 1):
        try:
            response = client.post(
                DECIDE_PATH, content=body, headers={"Content-Type": "application/json"}
            )
        except httpx.TransportError as exc:
            if attempt == retries:
                raise RemoteDecisionError(
                    f"{url}: decision service unreachable after {retries + 1} tries: {exc}"
                ) from None
        else:
            if response.status_code == 200:
                return DecisionResponse.model_validate_json(response.content)
            if response.status_code not in RETRY_STATUSES or attempt == retries:
                raise _refusal(url, response)
        time.sleep(0.5 * 2**attempt)
    raise AssertionError("unreachable")


def decide_remote(
    inputs: Mapping[str, object], pack_ref: str, url: str, token: str | None = None
) -> Decision:
    """`decide(**inputs)`, decided by the service at `url`."""
    request = to_request(inputs, pack_ref)
    return from_response(post_decision(url, request.model_dump_json().encode(), token))


def decide_next_remote(
    session_dir: Path,
    url: str,
    token: str | None = None,
    environ: Mapping[str, str] | None = None,
    experience: Experience | None = None,
) -> tuple[SessionState, Decision]:
    """`session.decide_next`, with the decision made by the service at `url`."""
    state = load_session(session_dir)
    pack = load_pack(state.pack)
    inputs = decision_inputs(session_dir, state, pack, environ)
    inputs.update(experience=experience, llm=state.llm)
    return state, decide_remote(inputs, state.pack, url, token)


def configured_service() -> tuple[str, str | None] | None:
    """The service (URL, token) the CLI or a worker set in the environment, if any."""
    url = os.environ.get(AGENT_URL_ENV)
    return (url, os.environ.get(AGENT_TOKEN_ENV) or None) if url else None


def check_service(url: str, token: str | None = None, timeout_s: float = 10.0) -> dict:
    """Ask the service who it is before a session relies on it: a wrong token, a wrong
    URL or another API version is one clear line now, not a failed flow run later."""
    try:
        response = _client(url.rstrip("/"), token, TIMEOUT_S).get(HEALTH_PATH, timeout=timeout_s)
    except httpx.TransportError as exc:
        raise RemoteDecisionError(f"{url}: decision service unreachable: {exc}") from None
    if response.status_code != 200:
        raise _refusal(url, response)
    info = response.json()
    if info.get("api_version") != API_VERSION:
        raise RemoteDecisionError(
            f"{url}: API version mismatch: service speaks {info.get('api_version')}, "
            f"client speaks {API_VERSION}"
        )
    return info

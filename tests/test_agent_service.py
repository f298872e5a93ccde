"""The decision service through real parts: `agentcycle agent serve` (uvicorn) on localhost.

Every replay scenario runs through the real Prefect flows with its decisions made by the
service, and must give the program sequence the in-process agent gives (the scenario's
expected sequence, which test_scenarios checks in process). Wrong tokens, other API
versions, other pack versions and oversized requests are refused with one clear line.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import PROJECT_ROOT, TESTS_DIR, cli_command

from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.record import finish_cycle, make_record, parse_run_log
from agentcycle.agent.program.remote_api import API_VERSION, to_request
from agentcycle.agent.program.remote_client import (
    AGENT_TOKEN_ENV,
    AGENT_URL_ENV,
    RemoteDecisionError,
    check_service,
    decide_remote,
)
from agentcycle.agent.program.session import create_session, decision_inputs, execute
from agentcycle.agent.program.state import load_session, utc_now
from agentcycle.knowledge import load_pack
from agentcycle.scenarios import (
    DEMO_DATA_ENV,
    assemble_inputs,
    list_scenarios,
    load_scenario,
    run_scenario,
)

SCENARIOS = list_scenarios(TESTS_DIR / "scenarios")
DEMO = PROJECT_ROOT / ".demo-data"
TOKEN = "test-token-7f3a"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    """`agentcycle agent serve` in its own process on a free localhost port."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [
            *cli_command(
                "agent", "serve", "--port", str(port), "--token", TOKEN, "--max-request-mb", "1"
            )
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"{url}/v1/health", timeout=2).status_code == 401:
                    break
            except httpx.TransportError:
                pass
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            assert time.monotonic() < deadline, "the decision service never answered"
            time.sleep(0.5)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _served(url: str) -> int:
    return check_service(url, TOKEN)["decisions"]


@pytest.mark.slow
@pytest.mark.parametrize("folder", SCENARIOS, ids=[f.name for f in SCENARIOS])
def test_scenario_decided_remotely_matches_in_process(
    prefect_api: str, service: str, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DEMO_DATA_ENV, str(DEMO))
    monkeypatch.setenv(AGENT_URL_ENV, service)
    monkeypatch.setenv(AGENT_TOKEN_ENV, TOKEN)
    before = _served(service)
    result = run_scenario(folder, tmp_path / "session")
    scenario = load_scenario(folder)
    assert result.programs == scenario.expected_programs, result.problems
    assert result.passed, result.problems
    stops_undone = 1 if scenario.zombie else 0  # the first part's STOP, reopened
    assert _served(service) - before == len(result.programs) + stops_undone  # all went there
    print(f"{folder.name}: {' → '.join(result.programs)} (decided by {service})")


def test_every_decision_of_a_session_is_identical_local_and_remote(
    service: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cycle by cycle (argv, files, events, recoveries and diagnoses included), every
    scenario driven by the plain session functions: failed runs' logs cross the wire,
    zombie and placement facts are read on the client."""
    monkeypatch.setenv(DEMO_DATA_ENV, str(DEMO))
    compared = 0
    for folder in SCENARIOS:
        scenario = load_scenario(folder)
        pack = load_pack(scenario.pack)
        session_dir = tmp_path / folder.name
        inputs = assemble_inputs(folder, scenario, tmp_path / f"{folder.name}.in")
        create_session(
            pack,
            scenario.pack,
            inputs,
            session_dir,
            scenario.goal,
            scenario.max_cycles,
            replay_dir=folder,
        )
        state = load_session(session_dir)
        while not state.finished:
            args = decision_inputs(session_dir, state, pack)
            local = decide(**args)
            assert decide_remote(args, state.pack, service, TOKEN) == local, folder.name
            compared += 1
            result = parsed = None
            if not local.stop:
                result = execute(session_dir, state.next_cycle, local, 60)
                parsed = parse_run_log(result.log_path, local.program, pack, result.exit_code)
            record = make_record(
                session_dir, state.next_cycle, local, result, parsed, pack, utc_now()
            )
            if local.recovery is not None:
                fixes = state.recoveries.setdefault(local.recovery.input_file, {})
                fixes.update(local.recovery.settings)
            state = finish_cycle(session_dir, state, record, pack, stop=local.stop)
        if scenario.zombie is None:  # the zombie scenario deletes files midway; not here
            assert [c.program for c in state.cycles] == scenario.expected_programs, folder.name
    print(f"{compared} decisions identical in process and through {service}")
    assert compared >= 2 * len(SCENARIOS)


def test_wrong_token_is_401_and_one_clear_line(prefect_api: str, service: str) -> None:
    answer = httpx.post(
        f"{service}/v1/decide", content=b"{}", headers={"Authorization": "Bearer x"}
    )
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "unauthorized"
    folder = SCENARIOS[0]
    out = subprocess.run(
        cli_command(
            "scenario", "run", str(folder), "--agent-url", service, "--agent-token", "nope"
        ),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PREFECT_API_URL": prefect_api},
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "401 unauthorized" in lines[0] and "--agent-token" in lines[0], lines
    with pytest.raises(RemoteDecisionError, match="401"):
        check_service(service, None)


def _request_body(tmp_path: Path) -> dict:
    folder = SCENARIOS[0]
    scenario = load_scenario(folder)
    pack = load_pack(scenario.pack)
    inputs = assemble_inputs(folder, scenario, tmp_path / "in")
    create_session(pack, scenario.pack, inputs, tmp_path / "s", replay_dir=folder)
    state = load_session(tmp_path / "s")
    args = decision_inputs(tmp_path / "s", state, pack)
    return {"local": decide(**args).program, **to_request(args, state.pack).model_dump()}


def test_version_pack_and_size_errors_are_structured(
    service: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DEMO_DATA_ENV, str(DEMO))
    body = _request_body(tmp_path)
    local = body.pop("local")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    ok = httpx.post(f"{service}/v1/decide", json=body, headers=auth, timeout=30)
    assert ok.status_code == 200 and ok.json()["api_version"] == API_VERSION
    assert ok.json()["program"] == local
    old = httpx.post(f"{service}/v1/decide", json={**body, "api_version": "0"}, headers=auth)
    assert old.status_code == 409 and old.json()["error"]["code"] == "api_version"
    assert "client speaks 0, service speaks 1" in old.json()["error"]["message"]
    other = httpx.post(f"{service}/v1/decide", json={**body, "pack_hash": "0" * 16}, headers=auth)
    assert other.status_code == 409 and "version hash differs" in other.json()["error"]["message"]
    broken = httpx.post(f"{service}/v1/decide", json={**body, "cycle": 0}, headers=auth)
    assert broken.status_code == 422 and broken.json()["error"]["message"].startswith("cycle:")
    huge = {**body, "goal": "x" * (1024 * 1024 + 1)}  # the service runs with a 1 MB limit
    refused = httpx.post(f"{service}/v1/decide", json=huge, headers=auth, timeout=30)
    assert refused.status_code == 413 and refused.json()["error"]["code"] == "too_large"
    with pytest.raises(RemoteDecisionError, match="unreachable"):
        check_service(f"http://127.0.0.1:{_free_port()}", TOKEN, timeout_s=2)

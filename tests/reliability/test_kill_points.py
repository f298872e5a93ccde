"""Kill points across a real toy session: after `resume`, datasets and session file agree.

The agent runs as the real CLI against the shared test Prefect server and is SIGKILLed
at a point of its cycle: at the start, in the middle of a program, just after a program
finished (before the cycle is recorded), and between the session-file write and the
Parquet appends (the rows of those cycles are then missing, as a kill there leaves
them). Each time `resume` must leave `cycles`, `metrics` and `events` holding exactly
what `session.json` holds: no cycle lost, none twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import TOY_PACK, cli_command
from reliability_helpers import print_tally

from agentcycle.agent.program.state import load_session
from agentcycle.storage.datasets import delete_cycle_rows
from agentcycle.storage.query import run_query
from agentcycle.tasks.reconcile import expected_rows

RESULTS: list[str] = []


@pytest.fixture(scope="module", autouse=True)
def tally(request: pytest.FixtureRequest):
    yield
    print_tally(request, f"kill points: {len(RESULTS)} tried / "
                         f"{sum(r == 'agree' for r in RESULTS)} agree after resume")


def _env(prefect_api: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PREFECT_API_URL": prefect_api}
    env.pop("TOY_REFINE_SLEEP", None)
    env.update(extra)
    return env


def _cli(prefect_api: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), capture_output=True, text=True,
                          env=_env(prefect_api, **extra), timeout=300)


def _stored(dataset: str, session_id: str) -> list[tuple]:
    columns = {"cycles": "cycle, program, exit_code, failed",
               "metrics": "cycle, metric, text_value",
               "events": "cycle, event, level, message"}[dataset]
    table = run_query(f"SELECT {columns} FROM {dataset} WHERE session_id = $s",
                      parameters={"s": session_id}, lancedb=False)
    return sorted(tuple(row.values()) for row in table.to_pylist())


def _implied(dataset: str, session: Path) -> list[tuple]:
    keys = {"cycles": ("cycle", "program", "exit_code", "failed"),
            "metrics": ("cycle", "metric", "text_value"),
            "events": ("cycle", "event", "level", "message")}[dataset]
    rows = expected_rows(load_session(session))[dataset]
    return sorted(tuple(getattr(row, k) for k in keys) for cycle in rows.values() for row in cycle)


def assert_agree(session: Path) -> None:
    state = load_session(session)
    for dataset in ("cycles", "metrics", "events"):
        assert _stored(dataset, state.session_id) == _implied(dataset, session), dataset
    count = run_query("SELECT count(*) AS n FROM cycles WHERE session_id = $s",
                      parameters={"s": state.session_id}, lancedb=False)["n"][0].as_py()
    assert count == len(state.cycles)
    events = sum(len(c.events) for c in state.cycles)
    assert len(_stored("events", state.session_id)) == events  # every event, not 6 of 7


def _wait(predicate: Callable[[], bool], timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the kill point"
        time.sleep(0.05)


def _finished_program(session: Path, cycle: int) -> Callable[[], bool]:
    """True once cycle `cycle`'s program has exited and the cycle is not yet recorded."""
    def check() -> bool:
        logs = list(session.glob(f"sub_{cycle:02d}_*/program.log"))
        return bool(logs) and "R-free" in logs[0].read_text(errors="replace") and not (
            session / ".running.json").exists()
    return check


def _running(session: Path, cycle: int) -> Callable[[], bool]:
    def check() -> bool:
        marker = session / ".running.json"
        try:
            return json.loads(marker.read_text())["cycle"] == cycle
        except (FileNotFoundError, json.JSONDecodeError):
            return False
    return check


KILL_POINTS: dict[str, tuple[dict[str, str], Callable[[Path], Callable[[], bool]]]] = {
    "at the start": ({}, lambda s: (lambda: (s / "session.json").exists())),
    "mid-program": ({"TOY_REFINE_SLEEP": "60"}, lambda s: _running(s, 2)),
    "just after a program finished": ({"TOY_REFINE_SLEEP": "1"},
                                      lambda s: _finished_program(s, 2)),
}


@pytest.mark.slow
@pytest.mark.parametrize("point", list(KILL_POINTS))
def test_sigkill_then_resume_datasets_agree(
    point: str, prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    extra, ready = KILL_POINTS[point]
    session = tmp_path / "session"
    agent = subprocess.Popen(
        cli_command("run", str(TOY_PACK), str(toy_inputs), "--session", str(session),
                    "--max-cycles", "3"),  # inspect, refine, refine: enough to kill in
        env=_env(prefect_api, **extra), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait(ready(session))
        agent.send_signal(signal.SIGKILL)
        agent.wait(timeout=30)
    finally:
        agent.kill()
    RESULTS.append("tried")
    resumed = _cli(prefect_api, "resume", str(session))
    assert resumed.returncode == 0, resumed.stderr
    assert load_session(session).finished
    assert_agree(session)
    RESULTS[-1] = "agree"


@pytest.mark.slow
def test_rows_a_kill_kept_from_the_datasets_are_written_by_resume_once(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    session = tmp_path / "session"
    done = _cli(prefect_api, "run", str(TOY_PACK), str(toy_inputs), "--session", str(session),
                "--max-cycles", "3")
    assert done.returncode == 0, done.stderr
    assert_agree(session)  # every event of session.json reached `events`
    state = load_session(session)
    last = len(state.cycles)
    # Killed between session.json and the appends of the last two cycles; cycle 1's
    # events lost with a quarantined file.
    for dataset in ("cycles", "metrics", "events"):
        delete_cycle_rows(dataset, state.session_id, {last - 1, last})
    delete_cycle_rows("events", state.session_id, {1})
    RESULTS.append("tried")
    resumed = _cli(prefect_api, "resume", str(session))
    assert resumed.returncode == 0, resumed.stderr
    assert "already finished" in resumed.stdout and "wrote cycles" in resumed.stderr
    assert_agree(session)
    again = _cli(prefect_api, "store", "check", "--session", str(session))
    assert again.returncode == 0, again.stdout + again.stderr
    assert "datasets agree" in again.stdout
    assert_agree(session)  # no duplicates
    RESULTS[-1] = "agree"

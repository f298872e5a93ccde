"""Experience across sessions, on real runs through the CLI and the real Prefect flows.

Each test gives its sessions a store of their own (AGENTCYCLE_HOME), so what one
session remembers comes from the session before it in the same test and nothing else.
The toy pack's `inspect` is a real subprocess (a stand-in program, not science) that
fails on data with several label choices unless `--labels` is given.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, TOY_PACK, cli_command

from agentcycle.agent.program.state import SessionState, load_session
from agentcycle.storage.query import run_query

DEMO = PROJECT_ROOT / ".demo-data"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "home"
    monkeypatch.setenv("AGENTCYCLE_HOME", str(path))  # this process reads the same store
    return path


def run_cli(prefect_api: str, home: Path, *args: str, timeout: int = 300) -> str:
    env = {**os.environ, "PREFECT_API_URL": prefect_api, "AGENTCYCLE_HOME": str(home)}
    # what is remembered, not how well it refines: 3 refinement cycles instead of 10
    env.setdefault("AGENTCYCLE_REFINE_NCYCLE", "3")
    done = subprocess.run(cli_command(*args), capture_output=True, text=True, env=env,
                          timeout=timeout)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def toy_session(prefect_api: str, home: Path, inputs: Path, session: Path) -> SessionState:
    run_cli(prefect_api, home, "run", str(TOY_PACK), str(inputs), "--session", str(session))
    return load_session(session)


def experience_events(state: SessionState) -> list[str]:
    return [e["message"] for c in state.cycles for e in c.events if e["event"] == "experience"]


def retrieval_cycles(session_id: str) -> set[int]:
    rows = run_query("SELECT DISTINCT cycle FROM retrievals WHERE session_id = ?",
                     parameters=[session_id], lancedb=False)
    return set(rows.column(0).to_pylist())


def stored_runs(session_id: str) -> list[dict]:
    return run_query(
        "SELECT cycle, program, outcome, error_kind, settings FROM runs "
        "WHERE session_id = ? ORDER BY cycle", parameters=[session_id]).to_pylist()


@pytest.mark.slow
def test_a_recovery_learnt_once_saves_a_cycle_the_next_time(
    prefect_api: str, home: Path, tmp_path: Path
) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "data.dat").write_text(f"1.8 AMBIGUOUS {uuid.uuid4().hex}\n")
    (inputs / "start.model").write_text("0.40\n")
    first = toy_session(prefect_api, home, inputs, tmp_path / "first")
    second = toy_session(prefect_api, home, inputs, tmp_path / "second")

    # The first session had to fail once and recover; the second applied the fix at once.
    assert [c.program for c in first.cycles][:2] == ["inspect", "inspect"]
    assert first.cycles[0].failed and not first.cycles[1].failed
    assert first.status == second.status == "stopped"
    assert len(second.cycles) == len(first.cycles) - 1
    assert second.cycles[0].program == "inspect" and not second.cycles[0].failed
    assert second.cycles[0].argv[-2:] == ["--labels", "IMEAN,SIGIMEAN"]
    # Why: the experience event of cycle 1 names the session and cycle the fix came from.
    why = [e["message"] for e in second.cycles[0].events if e["event"] == "experience"]
    assert any(
        f"session {first.session_id} cycle 2" in m and "ambiguous_data_labels" in m
        and "obs_labels=IMEAN,SIGIMEAN" in m for m in why
    ), why

    # Every finished cycle of both sessions is a `runs` row, with its outcome.
    rows = stored_runs(first.session_id)
    assert [r["cycle"] for r in rows] == [c.cycle for c in first.cycles]
    assert rows[0]["outcome"] == "failed" and rows[0]["error_kind"] == "ambiguous_data_labels"
    assert rows[1]["outcome"] == "recovered" and "IMEAN,SIGIMEAN" in rows[1]["settings"]
    assert [r["cycle"] for r in stored_runs(second.session_id)] == [
        c.cycle for c in second.cycles]
    # Every cycle of both sessions retrieved (the first found nothing, and says so).
    for state in (first, second):
        assert retrieval_cycles(state.session_id) == {c.cycle for c in state.cycles}
    assert not experience_events(first)

    # The summary quotes the case; `show` and `search runs` find it again.
    summary = (tmp_path / "second" / "summary.md").read_text()
    assert "## What memory contributed" in summary
    assert f"session {first.session_id} cycle 2: inspect recovered" in summary
    shown = run_cli(prefect_api, home, "show", str(tmp_path / "second"))
    assert "experience: " in shown and f"session {first.session_id} cycle 2" in shown
    found = run_cli(prefect_api, home, "search", "runs", "inspect ambiguous data labels failed")
    assert f"session {first.session_id} cycle 1: inspect failed" in found
    # Pruning a cycle makes memory forget it as well.
    run_cli(prefect_api, home, "prune", str(tmp_path / "second"), "--last", "1")
    assert [r["cycle"] for r in stored_runs(second.session_id)] == [
        c.cycle for c in second.cycles[:-1]]


@pytest.mark.slow
def test_a_corrupt_runs_table_is_reported_once_and_the_session_goes_on(
    prefect_api: str, home: Path, tmp_path: Path
) -> None:
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "data.dat").write_text(f"1.8 {uuid.uuid4().hex}\n")
    (inputs / "start.model").write_text("0.40\n")
    first = toy_session(prefect_api, home, inputs, tmp_path / "first")
    data_files = list((home / "lancedb" / "runs.lance" / "data").glob("*"))
    assert data_files, "the first session wrote no runs"
    for path in data_files:
        path.write_bytes(b"not a lance file")
    second = toy_session(prefect_api, home, inputs, tmp_path / "second")

    assert second.status == "stopped"
    assert [c.program for c in second.cycles] == [c.program for c in first.cycles]
    warnings = [e["message"] for c in second.cycles for e in c.events
                if "memory unavailable" in e["message"]]
    assert len(warnings) == 1 and "runs table" in warnings[0], warnings
    assert not experience_events(second)
    assert retrieval_cycles(second.session_id) == {c.cycle for c in second.cycles}


@pytest.mark.slow
@pytest.mark.skipif(not (DEMO / "5e5z").is_dir(), reason="demo data missing (make demo-data)")
def test_xtal_5e5z_twice_the_second_session_uses_the_first(
    prefect_api: str, home: Path, tmp_path: Path
) -> None:
    sessions = []
    for name in ("first", "second"):
        run_cli(prefect_api, home, "run", "xtal", str(DEMO / "5e5z"), "--goal",
                "stop after refinement", "--session", str(tmp_path / name), timeout=600)
        sessions.append(load_session(tmp_path / name))
    first, second = sessions
    assert first.status == second.status == "stopped"
    assert [c.program for c in second.cycles] == [c.program for c in first.cycles]
    assert retrieval_cycles(second.session_id) == {c.cycle for c in second.cycles}
    assert any(f"session {first.session_id} cycle" in m for m in experience_events(second))
    for state in (first, second):
        assert [r["cycle"] for r in stored_runs(state.session_id)] == [
            c.cycle for c in state.cycles]
    # The pack's documentation was retrieved too, and the summary cites both kinds.
    docs = run_query("SELECT DISTINCT file FROM retrievals WHERE session_id = ? "
                     "AND corpus = 'pack-xtal'", parameters=[second.session_id], lancedb=False)
    assert docs.num_rows >= 1
    summary = (tmp_path / "second" / "summary.md").read_text()
    assert f"session {first.session_id} cycle" in summary and "§" in summary

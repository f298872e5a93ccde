"""Whole sessions through the real Prefect flows, the CLI, Parquet and DuckDB (toy pack)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import TOY_PACK, cli_command

from agentcycle.agent.program.state import load_session
from agentcycle.errors import UserError

EXPECTED = ["inspect", "refine", "refine", "refine", "validate", "STOP"]


def cli_env(prefect_api: str, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PREFECT_API_URL": prefect_api, **extra}
    env.pop("TOY_REFINE_SLEEP", None)
    env.update(extra)
    return env


def run_cli(prefect_api: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cli_command(*args),
        capture_output=True,
        text=True,
        env=cli_env(prefect_api, **extra),
        timeout=300,
    )


def test_toy_session_end_to_end(prefect_api: str, toy_inputs: Path, tmp_path: Path) -> None:
    session = tmp_path / "session"
    done = run_cli(prefect_api, "run", str(TOY_PACK), str(toy_inputs), "--session", str(session))
    assert done.returncode == 0, done.stderr
    state = load_session(session)
    assert [c.program for c in state.cycles] == EXPECTED
    r_free = [c.metrics["r_free"] for c in state.cycles if c.program == "refine"]
    assert r_free == pytest.approx([0.32, 0.256, 0.2048])
    # Each refinement read the previous one's model: the best file moved forward.
    refine_inputs = [c.input_files[0] for c in state.cycles if c.program == "refine"]
    assert refine_inputs == [
        "inputs/start.model",
        "sub_02_refine/refine_002.model",
        "sub_03_refine/refine_003.model",
    ]
    assert state.best_files["model"] == "sub_04_refine/refine_004.model"
    assert (session / "sub_01_inspect" / "program.log").read_text().startswith("resolution: 1.8")
    assert "r_free=0.2048" in done.stdout  # the printed cycle table

    query = run_cli(
        prefect_api,
        "query",
        "--format",
        "json",
        "SELECT cycle, program, value FROM metrics WHERE session_id = "
        f"'{state.session_id}' AND metric = 'r_free' ORDER BY cycle",
    )
    assert query.returncode == 0, query.stderr
    rows = json.loads(query.stdout)
    assert [(r["cycle"], r["value"]) for r in rows] == [(2, 0.32), (3, 0.256), (4, 0.2048)]

    counted = run_cli(
        prefect_api,
        "query",
        "--format",
        "csv",
        f"SELECT count(*) AS n FROM cycles WHERE session_id = '{state.session_id}'",
    )
    assert counted.stdout.splitlines()[-1] == str(len(EXPECTED))


def test_flow_runs_and_artifacts_are_in_prefect(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    from agentcycle.agent.program.session import create_session
    from agentcycle.flows.agent_session import run_session
    from agentcycle.knowledge import load_pack

    session = tmp_path / "s"
    state = create_session(load_pack(TOY_PACK), str(TOY_PACK), toy_inputs, session, max_cycles=2)
    result = run_session(session)
    assert result["status"] == "max_cycles"
    from agentcycle.agent.program.session import raise_max_cycles

    reopened = raise_max_cycles(session, 3)
    assert reopened.status == "running" and [c.program for c in reopened.cycles] == [
        "inspect",
        "refine",
    ]
    with pytest.raises(UserError, match="not above"):
        raise_max_cycles(session, 2)
    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(like_=state.session_id)),
        )
        names = sorted(r.name for r in runs)
        assert f"session-{state.session_id}" in names
        assert f"{state.session_id}-cycle-01-inspect" in names
        assert f"{state.session_id}-cycle-02-refine" in names
        assert f"{state.session_id}-cycle-03-STOP" in names
        assert all(r.state.is_completed() for r in runs)
        session_run = next(r for r in runs if r.name.startswith("session-"))
        from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId

        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(
                flow_run_id=ArtifactFilterFlowRunId(any_=[session_run.id])
            )
        )
        assert any("| 2 | refine |" in (a.data or "") for a in artifacts), [
            a.data for a in artifacts
        ]
    assert (session / "summary.md").read_text().count("| refine |") == 1


def wait_for(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.2)


def pgid_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_kill_mid_program_then_resume(prefect_api: str, toy_inputs: Path, tmp_path: Path) -> None:
    session = tmp_path / "killed"
    agent = subprocess.Popen(
        cli_command("run", str(TOY_PACK), str(toy_inputs), "--session", str(session)),
        env=cli_env(prefect_api, TOY_REFINE_SLEEP="60"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    running = session / ".running.json"
    try:
        wait_for(lambda: running.exists() and json.loads(running.read_text())["cycle"] == 2)
        before = load_session(session)
        assert [c.program for c in before.cycles] == ["inspect"]
        orphan = json.loads(running.read_text())["pgid"]
        agent.send_signal(signal.SIGKILL)
        agent.wait(timeout=30)
    finally:
        agent.kill()
    assert pgid_alive(orphan), "the program outlives a SIGKILLed agent until resume reaps it"

    resumed = run_cli(prefect_api, "resume", str(session), TOY_REFINE_SLEEP="0")
    assert resumed.returncode == 0, resumed.stderr
    assert not pgid_alive(orphan)
    after = load_session(session)
    assert [c.program for c in after.cycles] == EXPECTED
    assert after.cycles[0] == before.cycles[0]  # the finished cycle was not repeated
    assert after.cycles[1].argv[-2:] == ["--sleep", "0"]  # the interrupted one was rerun
    assert not running.exists()
    rows = run_cli(
        prefect_api,
        "query",
        "--format",
        "json",
        f"SELECT cycle FROM cycles WHERE session_id = '{after.session_id}' ORDER BY cycle",
    )
    assert [r["cycle"] for r in json.loads(rows.stdout)] == [1, 2, 3, 4, 5, 6]

    again = run_cli(prefect_api, "resume", str(session))
    assert again.returncode == 0 and "already finished" in again.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", str(TOY_PACK), "/no/such/dir"], "input directory does not exist"),
        (
            ["run", str(TOY_PACK), "{inputs}", "--max-cycles", "0"],
            "--max-cycles: must be at least 1",
        ),
        (["run", "no-such-pack", "{inputs}"], "knowledge pack 'no-such-pack' not found"),
        (["show", "/no/such/session"], "no session here"),
        (["query", "SELEC nonsense"], "query failed: Parser Error"),
    ],
)
def test_bad_input_one_line_exit_2_nothing_written(
    args: list[str], message: str, toy_inputs: Path, tmp_path: Path
) -> None:
    session = tmp_path / "never"
    argv = [a.replace("{inputs}", str(toy_inputs)) for a in args]
    if argv[0] == "run":
        argv += ["--session", str(session)]
    done = subprocess.run(cli_command(*argv), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr
    assert not session.exists()


def test_broken_pack_writes_no_session(tmp_path: Path, toy_inputs: Path) -> None:
    import shutil

    pack = tmp_path / "pack"
    shutil.copytree(TOY_PACK, pack)
    (pack / "workflows.yaml").write_text(
        (pack / "workflows.yaml").read_text().replace("programs: [validate]", "programs: [validat]")
    )
    session = tmp_path / "never"
    done = subprocess.run(
        cli_command("run", str(pack), str(toy_inputs), "--session", str(session)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "unknown program 'validat'" in done.stderr
    assert not session.exists()


def test_help_does_not_import_heavy_libraries() -> None:
    probe = (
        "import sys; from agentcycle.cli.main import app; "
        "heavy = [m for m in ('prefect', 'torch', 'lancedb', 'langgraph') if m in sys.modules]; "
        "print(heavy)"
    )
    done = subprocess.run([cli_command()[0], "-c", probe], capture_output=True, text=True)
    assert done.stdout.strip() == "[]"


def test_default_session_directory_is_named_by_the_session_id(
    prefect_api: str, toy_inputs: Path
) -> None:
    done = run_cli(prefect_api, "run", str(TOY_PACK), str(toy_inputs), "--max-cycles", "1")
    assert done.returncode == 0, done.stderr
    session = Path(done.stdout.strip().splitlines()[-1].removeprefix("session: "))
    assert session.parent == Path(os.environ["AGENTCYCLE_HOME"]).resolve() / "sessions"
    assert load_session(session).session_id == session.name


def test_goal_directive_stops_the_real_session(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    session = tmp_path / "directed"
    done = run_cli(
        prefect_api,
        "run",
        str(TOY_PACK),
        str(toy_inputs),
        "--session",
        str(session),
        "--goal",
        "Refine once, then stop after refine.",
    )
    assert done.returncode == 0, done.stderr
    assert "directives: stop after refine" in done.stderr
    state = load_session(session)
    assert [c.program for c in state.cycles] == ["inspect", "refine", "STOP"]
    assert state.stop_reason == "directive: stop after refine"
    assert "directives: stop after refine" in (session / "summary.md").read_text()


@pytest.mark.slow
def test_show_detail_prune_and_resume_summary(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    session = tmp_path / "pruned"
    done = run_cli(
        prefect_api,
        "run",
        str(TOY_PACK),
        str(toy_inputs),
        "--session",
        str(session),
        "--verbosity",
        "verbose",
    )
    assert done.returncode == 0, done.stderr
    assert "[command_built] python3" in done.stderr  # verbose events reach the log
    detailed = run_cli(prefect_api, "show", str(session), "--detail", "detailed")
    assert "--- cycle 2: refine" in detailed.stdout and "[files_selected]" in detailed.stdout
    assert "locked" not in detailed.stdout  # the toy pack locks nothing

    html = (session / "summary.html").read_text()
    assert "<img alt='r_free per cycle' src='data:image/png;base64," not in html  # toy: no rules
    assert "<h2>Steps</h2>" in html and "refine" in html and "http" not in html

    pruned = run_cli(prefect_api, "prune", str(session), "--last", "2")
    assert pruned.returncode == 0, pruned.stderr
    state = load_session(session)
    assert [c.program for c in state.cycles] == EXPECTED[:4] and state.status == "running"
    assert (session / "pruned" / "sub_05_validate").is_dir()
    assert state.best_files["model"] == "sub_04_refine/refine_004.model"
    rows = run_cli(
        prefect_api,
        "query",
        "--format",
        "json",
        f"SELECT cycle FROM cycles WHERE session_id = '{state.session_id}' ORDER BY 1",
    )
    assert [r["cycle"] for r in json.loads(rows.stdout)] == [1, 2, 3, 4]
    resumed = run_cli(prefect_api, "resume", str(session))
    assert resumed.returncode == 0, resumed.stderr
    assert [c.program for c in load_session(session).cycles] == EXPECTED
    rows = run_cli(
        prefect_api,
        "query",
        "--format",
        "json",
        f"SELECT cycle FROM cycles WHERE session_id = '{state.session_id}' ORDER BY 1",
    )
    assert [r["cycle"] for r in json.loads(rows.stdout)] == [1, 2, 3, 4, 5, 6]

    too_many = run_cli(prefect_api, "prune", str(session), "--last", "99")
    assert too_many.returncode == 2 and "--last: must be between 1 and 6" in too_many.stderr

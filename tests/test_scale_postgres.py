"""agentcycle's Prefect server on a real PostgreSQL (Debian's package, started by the
test): a session, an `ask` and an `eval` through it, then 8 sessions at once with no
error and every row present, in Parquet and in PostgreSQL's own tables."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import SHARED, TOY_PACK, cli_command
from postgres import postgres_server, psql

from agentcycle.agent.program.state import load_session

DEV = SHARED / "data" / "qa" / "dev.yaml"
CONCURRENT_SESSIONS = 8


@pytest.fixture(scope="module")
def pg_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, str], str]]:
    """An agentcycle home whose server runs on PostgreSQL; stopped (both) at the end."""
    home = tmp_path_factory.mktemp("pg-home")
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["AGENTCYCLE_HOME"] = str(home)
    with postgres_server() as url:
        started = subprocess.run(
            cli_command("server", "start", "--database", url),
            capture_output=True, text=True, env=env, timeout=180,
        )  # fmt: skip
        try:
            assert started.returncode == 0, started.stderr
            yield env, url
        finally:
            subprocess.run(cli_command("server", "stop"), env=env, timeout=60,
                           capture_output=True)  # fmt: skip


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_command(*args), capture_output=True, text=True, env=env, timeout=600)


def _inputs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "data.dat").write_text("1.8\n")
    (folder / "start.model").write_text("0.40\n")
    return folder


@pytest.mark.slow
def test_session_ask_and_eval_through_a_postgres_server(
    pg_home: tuple[dict[str, str], str], tmp_path: Path
) -> None:
    env, url = pg_home
    session = tmp_path / "session"
    done = _cli(env, "run", str(TOY_PACK), str(_inputs(tmp_path / "in")), "--session",
                str(session))  # fmt: skip
    assert done.returncode == 0, done.stderr
    state = load_session(session)
    assert state.cycles and state.cycles[-1].program == "STOP"

    data = yaml.safe_load(DEV.read_text())
    seeds = (DEV.parent / data["corpus_root"]).resolve() / "seeds"
    assert _cli(env, "ingest", "pg-seeds", str(seeds)).returncode == 0
    asked = _cli(env, "ask", "pg-seeds", "What is the maximum number of tasks allowed in the "
                 "ToDo list (TODO_MAX_ITEMS)?")  # fmt: skip
    assert asked.returncode == 0 and asked.stdout.strip(), asked.stderr  # answer or refusal

    suite = tmp_path / "pg-suite.yaml"
    suite.write_text(yaml.safe_dump({
        "name": "pg-seeds-suite", "kind": "qa",
        "corpus_root": str((DEV.parent / data["corpus_root"]).resolve()),
        "corpus": ["seeds/*.md"],
        "questions": [q for q in data["questions"] if q["id"] in ("d012", "d013")],
    }))  # fmt: skip
    evaluated = _cli(env, "eval", str(suite), "--no-progress")
    assert evaluated.returncode == 0, evaluated.stderr

    # The runs are in PostgreSQL itself, not in a SQLite file beside it.
    names = psql(url, "SELECT name FROM flow_run").splitlines()
    assert any(state.session_id in n for n in names)
    assert any(n.startswith("eval-") for n in names)
    assert any("ask" in n for n in psql(url, "SELECT name FROM flow").splitlines())
    assert not list(Path(env["AGENTCYCLE_HOME"]).rglob("prefect.db"))


@pytest.mark.slow
def test_eight_sessions_at_once_lose_nothing(
    pg_home: tuple[dict[str, str], str], tmp_path: Path
) -> None:
    env, url = pg_home
    sessions = [tmp_path / f"s{i}" for i in range(CONCURRENT_SESSIONS)]
    processes = [
        subprocess.Popen(
            cli_command("run", str(TOY_PACK), str(_inputs(tmp_path / f"in{i}")),
                        "--session", str(session)),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for i, session in enumerate(sessions)
    ]
    outcomes = [(p.wait(timeout=900), p.stderr.read()) for p in processes]
    errors = [err for code, err in outcomes if code != 0]
    assert errors == [], errors[:1]

    states = [load_session(s) for s in sessions]
    expected_cycles = sum(len(s.cycles) for s in states)
    ids = ", ".join(f"'{s.session_id}'" for s in states)
    counted = _cli(env, "query", "--format", "csv",
                   f"SELECT count(*) FROM cycles WHERE session_id IN ({ids})")  # fmt: skip
    assert counted.stdout.splitlines()[-1] == str(expected_cycles), counted.stderr
    print(f"{CONCURRENT_SESSIONS} concurrent sessions: 0 errors, "
          f"{expected_cycles}/{expected_cycles} cycle rows")  # fmt: skip
    for state in states:  # every session's flow run, completed, in PostgreSQL
        rows = psql(url, "SELECT fr.state_type FROM flow_run fr JOIN flow f ON f.id = "
                    "fr.flow_id WHERE f.name = 'agent_session' AND fr.name LIKE "
                    f"'%{state.session_id}%'").splitlines()  # fmt: skip
        assert rows == ["COMPLETED"], (state.session_id, rows)


def test_a_bad_database_url_is_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "AGENTCYCLE_HOME": str(tmp_path / "h")}
    env.pop("PREFECT_API_URL", None)
    done = _cli(env, "server", "start", "--database", "mysql://u:secret@db/x")
    assert done.returncode == 2 and "--database" in done.stderr
    assert "secret" not in done.stderr and "Traceback" not in done.stderr

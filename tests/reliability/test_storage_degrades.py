"""Broken storage degrades, never blocks: one warning naming the path, the rest answers.

Each test works in its own agentcycle home, with real Parquet files, a real LanceDB
table and DuckDB, and damages them the way a full disk, a crash or a careless hand does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from reliability_helpers import _cli, cli_full

from agentcycle.storage.datasets import append_rows, dataset_dir, replace_rows
from agentcycle.storage.query import run_query


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    from agentcycle.storage.tables import forget_handles

    forget_handles()
    yield tmp_path / "home"
    forget_handles()


def _cycle(session: str, cycle: int) -> dict:
    return {"session_id": session, "pack": "toy", "cycle": cycle, "program": "refine",
            "reason": "", "failed": False}


def _sample(run_id: str, sample: str) -> dict:
    return {"run_id": run_id, "suite": "s", "sample_id": sample, "sample_type": "simple",
            "correct": True}


def test_a_corrupt_eval_samples_file_blocks_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    append_rows("cycles", [_cycle("s1", 1), _cycle("s1", 2)])
    good = append_rows("eval_samples", [_sample("r", "a")])
    bad = append_rows("eval_samples", [_sample("r", "b")])
    bad.write_bytes(bad.read_bytes()[:40])  # truncated, as by a full disk
    code, out, err = cli_full(["query", "--format", "json", "SELECT count(*) AS n FROM cycles"],
                              capsys)
    assert code == 0 and json.loads(out) == [{"n": 2}]
    assert str(bad) in err and "store check --repair" in err and len(err.splitlines()) == 1
    code, _ = _cli(["query", "SELECT count(*) FROM eval_samples"], capsys)
    assert code == 0  # the readable file still answers
    assert run_query("SELECT count(*) AS n FROM eval_samples", lancedb=False)["n"][0].as_py() == 1
    code, err = _cli(["query", "SELEC nonsense"], capsys)
    assert code == 2 and "Parser Error" in err  # bad SQL is still only bad SQL

    code, _ = _cli(["store", "check"], capsys)
    assert code == 1
    code, _ = _cli(["store", "check", "--repair"], capsys)
    assert code == 0
    assert not bad.exists() and good.exists()
    assert list((home / "quarantine").rglob(f"*{bad.name}"))
    code, _ = _cli(["store", "check"], capsys)
    assert code == 0


def test_store_check_names_the_corrupt_file(home: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    append_rows("cycles", [_cycle("s1", 1)])
    bad = dataset_dir("eval_samples") / "date=2026-01-01" / "junk.parquet"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"not parquet at all" * 10)
    env = {**__import__("os").environ, "AGENTCYCLE_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "agentcycle.cli.main", "store", "check"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1 and str(bad) in done.stdout
    query = subprocess.run([sys.executable, "-m", "agentcycle.cli.main", "query", "--format",
                            "json", "SELECT count(*) AS n FROM cycles"],
                           capture_output=True, text=True, env=env, timeout=120)
    assert query.returncode == 0 and json.loads(query.stdout) == [{"n": 1}]
    assert "Traceback" not in query.stderr and str(bad) in query.stderr


def test_a_dataset_folder_replaced_by_a_file_is_reported(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    append_rows("cycles", [_cycle("s1", 1)])
    folder = dataset_dir("metrics")
    folder.parent.mkdir(parents=True, exist_ok=True)
    folder.write_text("oops")
    code, err = _cli(["query", "SELECT count(*) FROM metrics"], capsys)
    assert code == 0 and str(folder) in err and "not a dataset folder" in err
    code, out, _ = cli_full(["query", "--format", "json", "SELECT count(*) AS n FROM cycles"],
                            capsys)
    assert code == 0 and json.loads(out) == [{"n": 1}]


def test_a_broken_lancedb_table_costs_a_warning_not_the_query(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentcycle.storage.tables import connect, forget_handles, lancedb_dir

    append_rows("cycles", [_cycle("s1", 1)])
    db = connect()
    db.create_table("corpus_docs", pa.table({"x": [1, 2]}))
    forget_handles()
    import shutil

    shutil.rmtree(lancedb_dir() / "corpus_docs.lance" / "_versions")  # version-less table
    code, out, err = cli_full(["query", "--format", "json", "SELECT count(*) AS n FROM cycles"],
                              capsys)
    assert code == 0 and json.loads(out) == [{"n": 1}]
    assert "corpus_docs" in err and "store check --repair" in err
    code, err = _cli(["search", "docs", "anything"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "store check" in err
    code, _ = _cli(["store", "check", "--repair"], capsys)
    assert code == 0 and not (lancedb_dir() / "corpus_docs.lance").exists()


def test_query_cannot_reach_the_machine(home: Path, tmp_path: Path) -> None:
    from agentcycle.errors import UserError

    append_rows("cycles", [_cycle("s1", 1)])
    target = tmp_path / "leak.csv"
    for sql in (f"COPY (SELECT 1) TO '{target}'", "SELECT * FROM read_text('/etc/hostname')",
                f"COPY cycles TO '{dataset_dir('cycles')}/x.csv'",
                "SET enable_external_access = true", "INSTALL httpfs",
                "SELECT * FROM read_csv('/etc/passwd')"):
        with pytest.raises(UserError):
            run_query(sql)
    assert not target.exists() and not list(dataset_dir("cycles").glob("*.csv"))


def test_files_and_folders_are_private(home: Path) -> None:
    path = append_rows("cycles", [_cycle("s1", 1)])
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_an_eval_run_has_one_row_however_often_it_is_resumed(home: Path) -> None:
    base = {"run_id": "r1", "suite": "s", "samples": 1}
    for samples in (1, 3, 5):  # killed, resumed, resumed again
        replace_rows("eval_runs", "run_id", "r1", [{**base, "samples": samples}])
    replace_rows("eval_runs", "run_id", "r2", [{**base, "run_id": "r2"}])
    rows = run_query("SELECT run_id, samples FROM eval_runs ORDER BY run_id",
                     lancedb=False).to_pylist()
    assert rows == [{"run_id": "r1", "samples": 5}, {"run_id": "r2", "samples": 1}]


def test_a_damaged_corpus_data_file_stops_ask_in_one_line_and_store_check_finds_it(
    home: Path, tmp_path: Path, prefect_api: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from agentcycle.storage.corpus import ingest
    from agentcycle.storage.tables import forget_handles, lancedb_dir

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Settings\n\nThe default number of macro cycles is 5.\n")
    ingest("docs", [docs])
    forget_handles()
    data = next((lancedb_dir() / "corpus_docs.lance" / "data").glob("*.lance"))
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])  # a torn write

    code, err = _cli(["ask", "docs", "How many macro cycles are run by default?"], capsys)
    assert code == 2 and "Traceback" not in err, err
    assert "corpus_docs" in err and "store check --repair" in err
    assert err.strip().splitlines()[-1].startswith("error:")

    code, out, _ = cli_full(["store", "check"], capsys)
    assert code == 1 and "corpus_docs" in out and "1 broken item" in out
    code, out, _ = cli_full(["store", "check", "--repair"], capsys)
    assert "agentcycle ingest docs" in out and not (lancedb_dir() / "corpus_docs.lance").exists()
    code, err = _cli(["ask", "docs", "How many macro cycles are run by default?"], capsys)
    assert code == 2 and "does not exist" in err

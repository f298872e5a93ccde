"""Parquet datasets, DuckDB views and reports, store maintenance, concurrent writers.

No embedding model here: LanceDB rows get synthetic unit vectors, so these tests are
fast while still running real LanceDB, Parquet and DuckDB on a temporary home.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import threading
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from agentcycle.storage import datasets, maintenance, query
from agentcycle.storage.corpus import (
    CHUNK_SCHEMA,
    TABLE_PREFIX,
    ensure_indexes,
    open_corpus,
    rows_to_table,
)
from agentcycle.storage.embedding import DIM
from agentcycle.storage.memory import RUN_LOGS_SCHEMA, append_rows, run_logs_table
from agentcycle.storage.search import search
from agentcycle.storage.tables import LockBusy, connect, file_lock, lancedb_dir, open_table

WRITERS = 4
BATCHES = 5
ROWS_PER_BATCH = 7


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def unit_vectors(n: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def run_rows(writer: int, batch: int) -> list[dict]:
    vectors = unit_vectors(ROWS_PER_BATCH, writer * 100 + batch)
    return [
        {
            "chunk_id": f"w{writer}-b{batch}-r{i}",
            "session_id": f"s{writer}",
            "program": "refine",
            "kind": "log",
            "cycle": batch,
            "file": "",
            "heading": "",
            "start_char": 0,
            "end_char": 10,
            "text": f"writer {writer} batch {batch} row {i} refinement log",
            "chunk_hash": f"h{writer}-{batch}-{i}",
            "vector": vectors[i],
        }
        for i in range(ROWS_PER_BATCH)
    ]


def _writer(home: str, writer: int) -> None:
    os.environ["AGENTCYCLE_HOME"] = home
    for batch in range(BATCHES):
        datasets.append_rows(
            "events",
            [
                {
                    "session_id": f"w{writer}-b{batch}-r{i}",
                    "cycle": batch,
                    "event": "test",
                    "level": "info",
                    "message": "m",
                }
                for i in range(ROWS_PER_BATCH)
            ],
        )
        append_rows(run_logs_table(), run_rows(writer, batch), RUN_LOGS_SCHEMA, full_text=True)


def test_parallel_writers_land_every_row_exactly_once(home: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(str(home), w)) for w in range(WRITERS)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [w.exitcode for w in workers] == [0] * WRITERS
    expected = sorted(
        f"w{w}-b{b}-r{i}"
        for w in range(WRITERS)
        for b in range(BATCHES)
        for i in range(ROWS_PER_BATCH)
    )
    events = query.run_query("SELECT session_id FROM events").column(0).to_pylist()
    runs = query.run_query("SELECT chunk_id FROM run_logs").column(0).to_pylist()
    assert sorted(events) == expected
    assert sorted(runs) == expected
    assert [c.index_type for c in run_logs_table().list_indices()] == ["FTS"]


def test_a_table_listed_mid_creation_opens_once_its_creator_is_done(home: Path) -> None:
    """Another process's creation lists the table's folder before its first version exists."""
    schema = pa.schema([("x", pa.int64())])
    (lancedb_dir() / "runs.lance").mkdir(parents=True)  # what creation writes first
    opened: dict[str, object] = {}

    def reader() -> None:
        try:
            opened["table"] = open_table("runs")
        except Exception as error:  # the assertion below names it
            opened["error"] = error

    with file_lock("create-runs"):  # the creator holds this until its version is written
        thread = threading.Thread(target=reader)
        thread.start()
        thread.join(timeout=0.5)
        assert thread.is_alive(), f"the reader did not wait for the creator: {opened}"
        connect().create_table("runs", pa.table({"x": [7]}, schema=schema))
    thread.join(timeout=30)
    assert "error" not in opened, opened.get("error")
    assert opened["table"].to_arrow().column("x").to_pylist() == [7]  # type: ignore[attr-defined]


def test_new_datasets_append_and_appear_as_views() -> None:
    datasets.append_rows(
        "answers",
        [
            {
                "question": "q",
                "answer": "a",
                "citations": ["f.md#1"],
                "confidence": 0.8,
                "insufficient": False,
            }
        ],
    )
    datasets.append_rows(
        "eval_runs", [{"run_id": "r1", "suite": "dev", "samples": 2, "correct": 1, "accuracy": 0.5}]
    )
    table = query.run_query(
        "SELECT a.citations, e.accuracy, a.schema_version FROM answers a, eval_runs e"
    )
    assert table.to_pylist() == [
        {"citations": ["f.md#1"], "accuracy": 0.5, "schema_version": datasets.SCHEMA_VERSION}
    ]
    empty = query.run_query("SELECT count(*) AS n FROM eval_samples, retrievals")
    assert empty.to_pylist() == [{"n": 0}]


def test_merge_small_files_keeps_every_row_and_finishes_after_a_crash() -> None:
    for i in range(6):
        datasets.append_rows(
            "metrics",
            [{"session_id": "s", "cycle": i, "program": "p", "metric": "m", "value": float(i)}],
        )
    assert datasets.merge_small_files("metrics") == (6, 1)
    assert datasets.row_count("metrics") == 6
    # A crash after the merged file landed but before its inputs were removed:
    datasets.append_rows("metrics", [{"session_id": "s", "cycle": 9, "metric": "m"}])
    merged, extra = datasets.data_files("metrics")[0], datasets.data_files("metrics")
    partition = merged.parent
    copy = partition / "copy.parquet"
    copy.write_bytes(merged.read_bytes())
    (partition / ".merge-copy.json").write_text(
        json.dumps({"output": copy.name, "inputs": [merged.name]})
    )
    assert len(extra) == 2
    datasets.merge_small_files("metrics")
    values = sorted(query.run_query("SELECT cycle FROM metrics").column(0).to_pylist())
    assert values == [0, 1, 2, 3, 4, 5, 9]


def _corpus_rows(n: int) -> list[dict]:
    vectors = unit_vectors(n, 7)
    return [
        {
            "chunk_id": f"c{i}",
            "source": "/src",
            "file": f"dir/file{i % 3}.md",
            "file_hash": f"fh{i % 3}",
            "heading": f"Guide > Part {i % 2}",
            "ordinal": i,
            "start_char": 10 * i,
            "end_char": 10 * i + 9,
            "text": f"chunk {i} about topic{i % 5}",
            "chunk_hash": f"h{i}",
            "vector": vectors[i],
        }
        for i in range(n)
    ]


def test_lancedb_tables_are_duckdb_views_and_reports_run() -> None:
    table = open_corpus("my-docs", create=True)
    table.add(rows_to_table(_corpus_rows(30), CHUNK_SCHEMA))
    ensure_indexes(table)
    assert TABLE_PREFIX == query.CORPUS_PREFIX
    result = query.run_query(
        "SELECT file, count(*) AS n FROM corpus_my_docs GROUP BY file ORDER BY file"
    )
    assert result.to_pylist() == [{"file": f"dir/file{i}.md", "n": 10} for i in range(3)]
    report = query.run_report("corpus", corpus="my-docs")
    assert report.column("chunks").to_pylist() == [10, 10, 10]
    assert query.run_report("corpus", corpus="other").num_rows == 0
    datasets.append_rows(
        "metrics",
        [
            {"session_id": "s1", "cycle": c, "program": "refine", "metric": "r_free", "value": v}
            for c, v in [(1, 0.36), (2, 0.30), (3, 0.28)]
        ],
    )
    datasets.append_rows(
        "cycles",
        [
            {
                "session_id": "s1",
                "pack": "xtal",
                "cycle": c,
                "program": "refine",
                "failed": c == 2,
                "duration_s": 2.0,
            }
            for c in (1, 2, 3)
        ],
    )
    trend = query.run_report("metric-trend", program="refine").to_pylist()
    assert trend[0]["first_value"] == 0.36 and trend[0]["last_value"] == 0.28
    assert query.run_report("metric-trend", program="xtriage").num_rows == 0
    sessions = query.run_report("sessions").to_pylist()
    assert sessions[0]["cycles"] == 3 and sessions[0]["failed"] == 1
    with pytest.raises(query.UserError, match="takes no --program"):
        query.run_report("sessions", program="refine")
    with pytest.raises(query.UserError, match="known reports"):
        query.run_report("nope")


def test_filters_and_text_search_on_a_small_corpus() -> None:
    table = open_corpus("small", create=True)
    table.add(rows_to_table(_corpus_rows(30), CHUNK_SCHEMA))
    ensure_indexes(table)
    hits = search("small", "topic3", mode="text", k=10)
    assert {h.chunk_id for h in hits} == {"c3", "c8", "c13", "c18", "c23", "c28"}
    hits = search("small", "topic3", mode="text", file="FILE0", heading="part 1")
    assert [h.chunk_id for h in hits] == ["c3"]
    vector = unit_vectors(30, 7)[4]
    assert search("small", "anything", mode="vector", k=1, query_vector=vector)[0].chunk_id == "c4"
    hybrid = search("small", "topic4", mode="hybrid", k=3, query_vector=vector)
    assert hybrid[0].chunk_id == "c4" and set(hybrid[0].scores) == {"vector", "text", "rrf"}


def test_bad_sql_gives_duckdbs_message() -> None:
    with pytest.raises(query.QueryError, match="syntax error"):
        query.run_query("SELEC 1")
    with pytest.raises(query.QueryError, match="nope"):
        query.run_query("SELECT * FROM nope")


def test_format_helper_renders_table_csv_and_json() -> None:
    table = pa.table({"name": ["a", None], "values": [[1, 2], []], "score": [0.5, 1.25]})
    assert query.format_table(table, "csv").splitlines() == [
        "name,values,score",
        'a,"[1, 2]",0.5',
        ",[],1.25",
    ]
    assert json.loads(query.format_table(table, "json"))[0] == {
        "name": "a",
        "values": [1, 2],
        "score": 0.5,
    }
    text = query.format_table(table, "table")
    assert text.splitlines()[0].split() == ["name", "values", "score"]
    assert text.endswith("(2 rows)")
    with pytest.raises(query.UserError, match="--format"):
        query.format_table(table, "xml")


def test_compact_merges_optimizes_and_never_runs_twice() -> None:
    for i in range(3):
        datasets.append_rows("events", [{"session_id": "s", "cycle": i, "event": "e"}])
    table = open_corpus("docs", create=True)
    rows = _corpus_rows(30)
    for i in range(0, 30, 10):
        table.add(rows_to_table(rows[i : i + 10], CHUNK_SCHEMA))
    report = maintenance.compact()
    assert report.parquet_files["events"] == (3, 1)
    assert report.lancedb_tables["corpus_docs"] == (3, 1)
    info = {row["name"]: row for row in maintenance.info()}
    assert info["events"]["rows"] == 3 and info["events"]["files"] == 1
    assert info["corpus_docs"]["rows"] == 30 and info["corpus_docs"]["bytes"] > 0
    with file_lock(maintenance.LOCK_NAME), pytest.raises(LockBusy, match="already running"):
        maintenance.compact()


def test_an_older_layout_is_read_and_merged_beside_the_new_one() -> None:
    """eval_runs files written before its columns were split out of the `config` JSON
    (schema version 1) stay readable next to new rows, and a merge keeps both layouts'
    columns: no row or value is lost to a schema change."""
    import pyarrow.parquet as pq

    old = pa.table(
        {
            "run_id": ["old-run"],
            "suite": ["dev"],
            "config": [json.dumps({"provider": "ollama", "se": 0.1})],
            "samples": pa.array([4], pa.int32()),
            "accuracy": [0.5],
            "schema_version": pa.array([1], pa.int16()),
        }
    )
    from datetime import UTC, datetime

    partition = datasets.dataset_dir("eval_runs") / f"date={datetime.now(UTC):%Y-%m-%d}"
    partition.mkdir(parents=True)  # where today's appends land: one merge takes both layouts
    pq.write_table(old, partition / "old.parquet")
    new_run = {"run_id": "new-run", "suite": "dev", "provider": "rules", "samples": 4}
    datasets.append_rows("eval_runs", [new_run, {**new_run, "run_id": "newer-run"}])
    datasets.append_rows("eval_runs", [{**new_run, "run_id": "newest-run"}])
    sql = (
        "SELECT run_id, provider, json_extract_string(config, '$.provider') AS old_provider,"
        " schema_version FROM eval_runs ORDER BY run_id"
    )
    before = query.run_query(sql).to_pylist()
    assert [(r["run_id"], r["provider"] or r["old_provider"]) for r in before] == [
        ("new-run", "rules"), ("newer-run", "rules"), ("newest-run", "rules"),
        ("old-run", "ollama"),
    ]  # fmt: skip
    assert {r["schema_version"] for r in before} == {1, datasets.SCHEMA_VERSIONS["eval_runs"]}
    assert maintenance.merge_datasets(["eval_runs"]) == {"eval_runs": (3, 1)}
    assert query.run_query(sql).to_pylist() == before
    (merged,) = partition.glob("*.parquet")
    assert {"config", "provider", "by_type"} <= set(pq.read_schema(merged).names)

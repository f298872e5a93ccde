"""The Parquet datasets: their Arrow schemas, where they live, and how rows are appended.

This module owns every dataset path and schema. Each append writes one new file,
`<home>/datasets/<name>/date=YYYY-MM-DD/<uuid>.parquet`, first under a temporary name
and then renamed into place, so concurrent writers never touch the same file and
readers never see half a file.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from agentcycle.config import datasets_dir

SCHEMA_VERSION = 1
# Datasets whose layout changed since version 1; DuckDB reads old and new files together
# (`union_by_name`), old rows showing NULL in the new columns.
SCHEMA_VERSIONS = {"eval_samples": 2, "eval_runs": 2}

# One scorer's verdict on one sample (agent.scorers.Score).
SCORE = pa.struct(
    [
        ("scorer", pa.string()),
        ("value", pa.string()),
        ("expected", pa.string()),
        ("score", pa.float64()),
        ("explanation", pa.string()),
    ]
)
# Accuracy of one question type within an evaluation run, with its binomial standard error.
TYPE_ACCURACY = pa.struct(
    [
        ("type", pa.string()),
        ("n", pa.int32()),
        ("correct", pa.int32()),
        ("accuracy", pa.float64()),
        ("se", pa.float64()),
    ]
)

SCHEMAS: dict[str, pa.Schema] = {
    "cycles": pa.schema(
        [
            ("session_id", pa.string()),
            ("pack", pa.string()),
            ("cycle", pa.int32()),
            ("program", pa.string()),
            ("reason", pa.string()),
            ("argv", pa.list_(pa.string())),
            ("exit_code", pa.int32()),
            ("failed", pa.bool_()),
            ("failure_reason", pa.string()),
            ("duration_s", pa.float64()),
            ("outputs", pa.list_(pa.string())),
            ("started_at", pa.string()),
            ("finished_at", pa.string()),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
    "metrics": pa.schema(
        [
            ("session_id", pa.string()),
            ("pack", pa.string()),
            ("cycle", pa.int32()),
            ("program", pa.string()),
            ("metric", pa.string()),
            ("value", pa.float64()),
            ("text_value", pa.string()),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
    "events": pa.schema(
        [
            ("session_id", pa.string()),
            ("cycle", pa.int32()),
            ("event", pa.string()),
            ("level", pa.string()),
            ("message", pa.string()),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
    # One row per retrieved passage of one search (rank 1 = best).
    "retrievals": pa.schema(
        [
            ("session_id", pa.string()),
            ("query_id", pa.string()),
            ("query", pa.string()),
            ("corpus", pa.string()),
            ("mode", pa.string()),
            ("k", pa.int32()),
            ("rank", pa.int32()),
            ("chunk_id", pa.string()),
            ("file", pa.string()),
            ("heading", pa.string()),
            ("score", pa.float64()),
            ("latency_ms", pa.float64()),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
    # One row per answer the research agent gave (cached answers included).
    "answers": pa.schema(
        [
            ("session_id", pa.string()),
            ("question_id", pa.string()),
            ("question", pa.string()),
            ("answer", pa.string()),
            ("citations", pa.list_(pa.string())),
            ("confidence", pa.float64()),
            ("insufficient", pa.bool_()),
            ("from_cache", pa.bool_()),
            ("latency_s", pa.float64()),
            ("corpus", pa.string()),
            ("question_type", pa.string()),
            ("refused", pa.bool_()),
            ("mc_letter", pa.string()),
            ("steps_completed", pa.int32()),
            ("llm_calls", pa.int32()),
            ("retrieval_calls", pa.int32()),
            ("chars_in", pa.int64()),
            ("chars_out", pa.int64()),
            ("parse_failures", pa.int32()),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
    # One row per question (per epoch) of one evaluation run; a retried sample adds a row
    # and readers take the newest per (run_id, sample_id).
    "eval_samples": pa.schema(
        [
            ("run_id", pa.string()),
            ("suite", pa.string()),
            ("sample_id", pa.string()),
            ("sample_type", pa.string()),
            ("epoch", pa.int32()),
            ("question", pa.string()),
            ("expected", pa.string()),
            ("accept", pa.list_(pa.string())),
            ("answer", pa.string()),
            ("correct", pa.bool_()),
            ("score", pa.float64()),
            ("scores", pa.list_(SCORE)),
            ("grounded", pa.bool_()),
            ("citations", pa.list_(pa.string())),
            ("llm_calls", pa.int32()),
            ("retrieval_calls", pa.int32()),
            ("latency_s", pa.float64()),
            ("error", pa.string()),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
    # One row per evaluation run (the aggregate of its samples); a resumed run adds a
    # row and readers take the newest per run_id.
    "eval_runs": pa.schema(
        [
            ("run_id", pa.string()),
            ("suite", pa.string()),
            ("suite_path", pa.string()),
            ("suite_hash", pa.string()),
            ("code_version", pa.string()),
            ("provider", pa.string()),
            ("model", pa.string()),
            ("corpus", pa.string()),
            ("kind", pa.string()),
            ("sample_limit", pa.int32()),
            ("epochs", pa.int32()),
            ("concurrency", pa.int32()),
            ("samples", pa.int32()),
            ("correct", pa.int32()),
            ("accuracy", pa.float64()),
            ("se", pa.float64()),
            ("by_type", pa.list_(TYPE_ACCURACY)),
            ("errors", pa.int32()),
            ("grounding_rate", pa.float64()),
            ("latency_p50", pa.float64()),
            ("latency_p95", pa.float64()),
            ("mean_latency_s", pa.float64()),
            ("calls_per_question", pa.float64()),
            ("llm_calls_per_question", pa.float64()),
            ("started_at", pa.timestamp("us", tz="UTC")),
            ("finished_at", pa.timestamp("us", tz="UTC")),
            ("recorded_at", pa.timestamp("us", tz="UTC")),
            ("schema_version", pa.int16()),
        ]
    ),
}


def dataset_dir(name: str, root: Path | None = None) -> Path:
    if name not in SCHEMAS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(SCHEMAS)}")
    return (root or datasets_dir()) / name


def append_rows(
    name: str, rows: Iterable[Mapping[str, Any]], root: Path | None = None
) -> Path | None:
    """Append rows as one new Parquet file; returns its path (None when there were no rows)."""
    schema = SCHEMAS[name]
    now = datetime.now(UTC)
    version = SCHEMA_VERSIONS.get(name, SCHEMA_VERSION)
    filled = []
    for row in rows:
        filled.append({"recorded_at": now, "schema_version": version, **dict(row)})
    if not filled:
        return None
    table = pa.Table.from_pylist(filled, schema=schema)
    partition = dataset_dir(name, root) / f"date={now:%Y-%m-%d}"
    partition.mkdir(parents=True, exist_ok=True)
    final = partition / f"{uuid.uuid4().hex}.parquet"
    _write_atomically(table, final)
    return final


def parquet_glob(name: str, root: Path | None = None) -> str:
    """The glob DuckDB reads for a dataset (temporary files start with a dot and are skipped)."""
    return str(dataset_dir(name, root) / "*" / "*.parquet")


def has_files(name: str, root: Path | None = None) -> bool:
    return any(dataset_dir(name, root).glob("*/*.parquet"))


def data_files(name: str, root: Path | None = None) -> list[Path]:
    """The dataset's visible Parquet files, oldest partition first."""
    return sorted(dataset_dir(name, root).glob("*/*.parquet"))


def row_count(name: str, root: Path | None = None) -> int:
    """Rows in a dataset, from the Parquet footers (no data is read)."""
    return sum(pq.ParquetFile(path).metadata.num_rows for path in data_files(name, root))


SMALL_FILE_BYTES = 8 * 1024 * 1024


def _write_atomically(table: pa.Table, final: Path) -> None:
    tmp = final.with_name(f".{final.name}.tmp")
    pq.write_table(table, tmp)
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, final)


def _finish_merges(partition: Path) -> None:
    """Complete merges a crash interrupted: the journal names inputs already merged."""
    for journal in partition.glob(".merge-*.json"):
        record = json.loads(journal.read_text())
        if (partition / record["output"]).exists():
            for name in record["inputs"]:
                (partition / name).unlink(missing_ok=True)
        journal.unlink()


def merge_small_files(
    name: str, root: Path | None = None, small_bytes: int = SMALL_FILE_BYTES
) -> tuple[int, int]:
    """Merge each partition's small files into one; returns (files before, files after).

    Only files that exist when the merge starts are touched, so writers may keep
    appending. The merged file is renamed into place before its inputs are removed,
    and a journal written first lets the next merge finish the job after a crash, so
    rows are never lost and never counted twice for longer than that one step. Callers
    must not run two merges at once (store maintenance holds a lock).
    """
    before = after = 0
    for partition in sorted(p for p in dataset_dir(name, root).glob("*") if p.is_dir()):
        _finish_merges(partition)
        files = sorted(partition.glob("*.parquet"))
        small = [f for f in files if f.stat().st_size < small_bytes]
        before += len(files)
        if len(small) < 2:
            after += len(files)
            continue
        # Each file as written: files of an older layout keep their columns (a column
        # one layout lacks is null there), so a merge never drops data.
        merged = pa.concat_tables([pq.read_table(f) for f in small], promote_options="default")
        final = partition / f"{uuid.uuid4().hex}.parquet"
        journal = partition / f".merge-{final.stem}.json"
        journal.write_text(json.dumps({"output": final.name, "inputs": [f.name for f in small]}))
        _write_atomically(merged, final)
        for path in small:
            path.unlink(missing_ok=True)
        journal.unlink()
        after += len(files) - len(small) + 1
    return before, after


def delete_session_rows(
    name: str, session_id: str, from_cycle: int, root: Path | None = None
) -> int:
    """Remove a session's rows from cycle `from_cycle` on (pruning); returns rows removed.

    Each affected file is rewritten without those rows (atomically) or removed when
    nothing is left; files of other sessions are only read.
    """
    import pyarrow.compute as pc

    removed = 0
    for path in data_files(name, root):
        table = pq.read_table(path)
        drop = pc.and_(
            pc.equal(table["session_id"], session_id),
            pc.greater_equal(table["cycle"], from_cycle),
        )
        count = pc.sum(drop).as_py() or 0
        if not count:
            continue
        kept = table.filter(pc.invert(drop))
        if kept.num_rows:
            _write_atomically(kept, path)
        else:
            path.unlink()
        removed += count
    return removed

"""Store maintenance: compaction (LanceDB optimize + Parquet small-file merge) and sizes.

Compaction rewrites files, so two compactions must never overlap: `compact` takes an
exclusive, non-blocking file lock and a second caller gets a clear error instead of
waiting. Writers (ingest, appends) may keep running; LanceDB resolves its commits and
the Parquet merge only touches files that existed when it started.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from agentcycle.storage.datasets import SCHEMAS, data_files, merge_small_files, row_count
from agentcycle.storage.health import all_dataset_problems, warn_once
from agentcycle.storage.tables import (
    LockBusy,
    connect,
    file_lock,
    lancedb_dir,
    lancedb_exists,
    table_names,
)

LOCK_NAME = "store-compact"
KEEP_VERSIONS_FOR = timedelta(hours=1)  # readers of an older version get this long


@dataclass
class CompactReport:
    parquet_files: dict[str, tuple[int, int]] = field(default_factory=dict)
    lancedb_tables: dict[str, tuple[int, int]] = field(default_factory=dict)  # fragments

    def lines(self) -> list[str]:
        lines = [f"dataset {name}: {before} -> {after} files"
                 for name, (before, after) in self.parquet_files.items() if before]
        lines += [f"table {name}: {before} -> {after} fragments"
                  for name, (before, after) in self.lancedb_tables.items()]
        return lines or ["nothing to compact"]


APPEND_FILE_BYTES = 64 * 1024  # larger than any one append of a run, smaller than a merge


def merge_datasets(names: Iterable[str]) -> dict[str, tuple[int, int]] | None:
    """Merge these datasets' per-append files, or do nothing (None) while a compaction runs.

    A writer that appends one file per row (an evaluation run) calls this when done, so
    reading a run back, and every later query, opens a handful of files instead of
    thousands. Only files under `APPEND_FILE_BYTES` are merged, so the cost is this
    run's rows, not the day's; `compact` folds the merged files together.
    """
    try:
        with file_lock(LOCK_NAME, blocking=False):
            return {name: merge_small_files(name, small_bytes=APPEND_FILE_BYTES) for name in names}
    except LockBusy:
        return None


def compact(older_than: timedelta = KEEP_VERSIONS_FOR) -> CompactReport:
    """Merge small Parquet files, then optimize every LanceDB table (files, versions, indexes)."""
    report = CompactReport()
    with file_lock(LOCK_NAME, blocking=False):
        for name in SCHEMAS:
            report.parquet_files[name] = merge_small_files(name)
        if lancedb_exists():
            db = connect()
            for name in table_names(db):
                table = db.open_table(name)
                before = len(table.to_lance().get_fragments())
                table.optimize(cleanup_older_than=older_than)
                table.checkout_latest()
                report.lancedb_tables[name] = (before, len(table.to_lance().get_fragments()))
    return report


def _dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def info() -> list[dict[str, Any]]:
    """One row per dataset and table: kind, name, rows, files or versions, bytes, indexes."""
    rows: list[dict[str, Any]] = []
    warn_once(all_dataset_problems())  # counted as 0 rows below: say why, once
    for name in SCHEMAS:
        files = data_files(name)
        rows.append({"kind": "parquet", "name": name, "rows": row_count(name),
                     "files": len(files), "bytes": sum(f.stat().st_size for f in files),
                     "indexes": ""})
    if lancedb_exists():
        db = connect()
        for name in table_names(db):
            table = db.open_table(name)
            indexes = ", ".join(f"{c.index_type}({c.columns[0]})" for c in table.list_indices())
            rows.append({"kind": "lancedb", "name": name, "rows": table.count_rows(),
                         "files": len(table.to_lance().get_fragments()),
                         "bytes": _dir_bytes(lancedb_dir() / f"{name}.lance"),
                         "indexes": indexes})
    return rows

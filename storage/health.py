"""Storage that degrades, never blocks: find broken files and tables, report each once.

A truncated Parquet file, a dataset folder replaced by a file or a LanceDB table whose
version is gone must cost one warning line naming the path and the repair command, not
every query. Readers skip what is broken (`readable_files`, `open_table_safely`);
`agentcycle store check --repair` moves broken files to `<home>/quarantine/` and
rebuilds what can be rebuilt.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcycle.config import home_dir
from agentcycle.storage import location
from agentcycle.storage.datasets import SCHEMAS, data_files, dataset_dir, file_problem
from agentcycle.storage.tables import (
    connect,
    forget_handles,
    lancedb_dir,
    lancedb_exists,
    table_names,
)

REPAIR_HINT = "run `agentcycle store check --repair`"
_reported: set[str] = set()


@dataclass(frozen=True)
class Problem:
    """One broken thing in the store: what it is, where, and why."""

    kind: str  # "parquet", "dataset", "lancedb"
    name: str  # dataset or table name
    path: Path
    detail: str

    def line(self) -> str:
        return f"{self.path}: {self.kind} {self.name}: {self.detail}; {REPAIR_HINT}"


def warn_once(problems: Iterable[Problem]) -> None:
    """Print each problem to stderr once per process (a query, a search, a run)."""
    for problem in problems:
        line = problem.line()
        if line not in _reported:
            _reported.add(line)
            print(f"warning: {line}", file=sys.stderr)


def dataset_problems(name: str, root: Path | None = None, deep: bool = False) -> list[Problem]:
    """A dataset folder that is not a folder, and files that cannot be read.

    `deep` reads every file whole (store check), not only its footer (every query).
    """
    folder = dataset_dir(name, root)
    if folder.exists() and not folder.is_dir():
        return [Problem("dataset", name, folder, "is a file, not a dataset folder")]
    problems = []
    for path in data_files(name, root):
        detail = file_problem(path)
        if detail is None and deep:
            try:
                location.read_table(path)
            except Exception as exc:  # any failure means unreadable
                detail = f"unreadable Parquet data ({str(exc).splitlines()[0][:120]})"
        if detail is not None:
            problems.append(Problem("parquet", name, path, detail))
    return problems


def all_dataset_problems(root: Path | None = None, deep: bool = False) -> list[Problem]:
    return [p for name in SCHEMAS for p in dataset_problems(name, root, deep)]


def table_problem(db: Any, name: str, deep: bool = False) -> Problem | None:
    """Why a LanceDB table cannot be opened and counted, or None.

    `deep` also reads every row (store check): a truncated or garbage data file opens
    and counts fine, and fails only when a search reaches its rows.
    """
    try:
        table = db.open_table(name)
        table.count_rows()
        dataset = table.to_lance()
        dataset.count_rows()
        if deep:
            for _ in dataset.to_batches(batch_size=4096):
                pass
    except Exception as exc:  # Lance raises many types for a broken table
        detail = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        return Problem("lancedb", name, lancedb_dir() / f"{name}.lance",
                       f"unreadable table ({detail})")
    return None


def lancedb_problems(deep: bool = False) -> list[Problem]:
    if not lancedb_exists():
        return []

    try:
        db = connect()
        names = table_names(db)
    except Exception as exc:  # the whole directory is unreadable
        return [Problem("lancedb", "*", lancedb_dir(), f"cannot list tables ({exc})")]
    return [p for p in (table_problem(db, name, deep) for name in names) if p is not None]


def quarantine_dir() -> Path:
    return home_dir() / "quarantine"


def quarantine(problem: Problem) -> Path:
    """Move a broken file or table out of the store; returns where it went (0700 folder)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target_dir = quarantine_dir() / stamp / problem.kind / problem.name
    target_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    parent = problem.path.parent.name if problem.kind == "parquet" else ""
    target = target_dir / (f"{parent}-{problem.path.name}" if parent else problem.path.name)
    shutil.move(str(problem.path), target)
    if problem.kind == "lancedb":
        forget_handles()
    return target

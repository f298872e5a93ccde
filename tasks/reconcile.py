"""The Parquet rows of a session, derived from its session file and reconciled.

`session.json` is written first and is the truth; a kill between it and the Parquet
appends (or a lost or quarantined file) leaves cycles, metrics or events the datasets
lack. `reconcile_session` compares, per dataset and cycle, the rows the session file
implies with the rows stored, and writes what is missing: a cycle with no rows gets
them, a cycle with a different count is rewritten, rows of cycles the session no longer
has are removed. Run twice it changes nothing (no duplicates). Plain functions, no
Prefect: `resume`, the session flow and `agentcycle store check` all call it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcycle.agent.program.state import SESSION_FILE, SessionState, load_session
from agentcycle.storage.datasets import append_rows, delete_cycle_rows
from agentcycle.storage.query import run_query
from agentcycle.tasks.rows import cycle_rows, event_rows, metric_rows

DATASETS = ("cycles", "metrics", "events")
BUSY_SECONDS = 120.0  # a running session touched this recently may be mid-append


@dataclass
class Reconciled:
    """What reconciling one session changed, per dataset: cycles written and removed."""

    session_id: str
    written: dict[str, list[int]] = field(default_factory=dict)
    removed: dict[str, list[int]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return any(self.written.values()) or any(self.removed.values())

    def line(self) -> str:
        parts = [f"{name}: wrote cycles {cycles}" for name, cycles in self.written.items()
                 if cycles]
        parts += [f"{name}: removed cycles {cycles}" for name, cycles in self.removed.items()
                  if cycles]
        return f"session {self.session_id}: " + ("; ".join(parts) or "datasets agree")


def expected_rows(state: SessionState) -> dict[str, dict[int, list[Any]]]:
    """Per dataset and cycle, the rows the session file implies (what `record` writes)."""
    rows: dict[str, dict[int, list[Any]]] = {name: {} for name in DATASETS}
    for record in state.cycles:
        rows["cycles"][record.cycle] = cycle_rows(state, record)
        rows["metrics"][record.cycle] = metric_rows(state, record)
        rows["events"][record.cycle] = event_rows(state.session_id, record.cycle, record.events)
    return rows


def stored_counts(name: str, session_id: str, root: Path | None = None) -> dict[int, int]:
    """Rows per cycle this session has in a dataset (unreadable files are skipped)."""
    table = run_query(
        f"SELECT cycle, count(*) AS n FROM {name} WHERE session_id = $sid GROUP BY cycle",
        root, {"sid": session_id}, lancedb=False,
    )
    return {int(row["cycle"]): int(row["n"]) for row in table.to_pylist()}


def reconcile_session(session_dir: Path, root: Path | None = None) -> Reconciled:
    """Make cycles, metrics and events agree with the session file; idempotent."""
    state = load_session(session_dir)
    report = Reconciled(state.session_id)
    for name, wanted in expected_rows(state).items():
        stored = stored_counts(name, state.session_id, root)
        stale = {c for c, n in stored.items() if c not in wanted or n != len(wanted[c])}
        if stale:
            delete_cycle_rows(name, state.session_id, stale, root)
        missing = sorted(c for c, rows in wanted.items()
                         if rows and (c in stale or c not in stored))
        append_rows(name, [row for c in missing for row in wanted[c]], root)
        report.written[name] = missing
        report.removed[name] = sorted(c for c in stale if c not in wanted)
    return report


def session_dirs(base: Path) -> list[Path]:
    """Session folders directly under `base` (those holding a session file)."""
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if (p / SESSION_FILE).is_file())


def reconcile_all(dirs: Iterable[Path], root: Path | None = None,
                  busy_seconds: float = BUSY_SECONDS) -> list[Reconciled | str]:
    """Reconcile every session that is not being run right now; a line for each skipped.

    A running session whose file changed within `busy_seconds` may be between its
    session-file write and its appends; reconciling it then would write rows twice.
    """
    results: list[Reconciled | str] = []
    for directory in dirs:
        path = directory / SESSION_FILE
        try:
            state = load_session(directory)
        except Exception as exc:  # one bad session never stops the others
            results.append(f"{path}: skipped: {exc}")
            continue
        if not state.finished and time.time() - path.stat().st_mtime < busy_seconds:
            results.append(f"session {state.session_id}: running, skipped")
            continue
        results.append(reconcile_session(directory, root))
    return results

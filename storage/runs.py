"""The program agent's experience: one LanceDB `runs` row per finished cycle.

A row says what ran (pack, program, argv, settings), on what data (input categories,
experiment type, a hash of the input files, resolution, space group, unit cell), how it
ended (ok / failed / recovered / diagnosed, error kind and text, metrics, a short log
summary), and carries an embedding of "program + data features + outcome + error" so a
person can find cases like theirs by meaning (`agentcycle search runs`); the vector is
computed by the first search after the row is written.

The table is append-only (LanceDB commits appends from several processes safely). A
store written by an older layout, or a table that cannot be read, raises
`MemoryUnavailable`: callers report it and carry on without experience.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from agentcycle.storage.corpus import rows_to_table
from agentcycle.storage.embedding import DIM, embed, embed_one
from agentcycle.storage.tables import open_table, sql_quote

if TYPE_CHECKING:
    import lancedb

RUNS_TABLE = "runs"
OUTCOMES = ("ok", "failed", "recovered", "diagnosed")

RUNS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),  # "<session_id>/<cycle>"
        ("session_id", pa.string()),
        ("cycle", pa.int32()),
        ("pack", pa.string()),
        ("program", pa.string()),
        ("argv", pa.list_(pa.string())),
        ("settings", pa.string()),  # JSON object: the key=value settings the build applied
        ("input_categories", pa.list_(pa.string())),
        ("experiment_type", pa.string()),
        ("data_key", pa.string()),  # sha256 over the input files' contents: "same data"
        ("resolution", pa.float64()),
        ("space_group", pa.string()),
        ("unit_cell", pa.list_(pa.float64())),
        ("cell_a", pa.float64()),  # the cell's axes again, as columns a filter can use
        ("cell_b", pa.float64()),
        ("cell_c", pa.float64()),
        ("metrics", pa.string()),  # JSON object
        ("target_value", pa.float64()),  # the pack's stop-rule target metric, when measured
        ("outcome", pa.string()),
        ("error_kind", pa.string()),  # the pack's recoverable/diagnosable error name, if any
        ("error", pa.string()),
        ("log_summary", pa.string()),
        ("text", pa.string()),  # what was embedded
        ("vector", pa.list_(pa.float32(), DIM)),
        ("recorded_at", pa.timestamp("us", tz="UTC")),
    ]
)
CASE_COLUMNS = [n for n in RUNS_SCHEMA.names if n not in ("vector", "text", "recorded_at")]


_checked: set[int] = set()


class MemoryUnavailable(RuntimeError):
    """The `runs` table exists but cannot be used (corrupt files, an older layout)."""


def runs_table(create: bool = True) -> lancedb.table.Table | None:
    """The table (created on first write); None when absent and `create` is False."""
    try:
        table = open_table(RUNS_TABLE, RUNS_SCHEMA if create else None)
    except Exception as exc:  # lance raises its own error types for damaged tables
        raise MemoryUnavailable(f"runs table cannot be opened: {_first_line(exc)}") from None
    if table is not None and id(table) not in _checked:
        missing = sorted(set(RUNS_SCHEMA.names) - set(table.schema.names))
        if missing:
            raise MemoryUnavailable(
                f"runs table has an older layout (no {', '.join(missing)}); "
                "move it aside (`lancedb/runs.lance`) to start a new memory"
            )
        _checked.add(id(table))  # the layout is checked once per handle, not every cycle
    return table


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def append_runs(rows: list[dict[str, Any]]) -> int:
    """Append finished cycles (each with its `vector`); returns the rows written."""
    if not rows:
        return 0
    now = datetime.now(UTC)
    table = runs_table()
    assert table is not None
    try:
        table.add(rows_to_table([{"recorded_at": now, **row} for row in rows], RUNS_SCHEMA))
    except Exception as exc:
        raise MemoryUnavailable(f"runs table cannot be written: {_first_line(exc)}") from None
    return len(rows)


def _near(column: str, value: float, tolerance: float) -> str:
    return f"{column} BETWEEN {value - tolerance!r} AND {value + tolerance!r}"


def find_cases(pack: str, *, data_key: str = "", error_kinds: Sequence[str] = (),
               experiment_type: str = "", resolution: float | None = None,
               space_group: str = "", unit_cell: Sequence[float] | None = None,
               exclude_session: str = "", k: int = 200) -> list[dict[str, Any]]:
    """Past cycles of the pack on the same data, with the same error, or on data whose
    known features are close (resolution within 0.5 A, same space group, cell axes
    within 5 %); same data first. Plain filtered scans: no query embedding, so the
    per-cycle cost stays in milliseconds however many rows the table holds.
    """
    table = runs_table(create=False)
    if table is None:
        return []
    where = f"pack = {sql_quote(pack)} AND program != 'STOP'"
    if exclude_session:
        where += f" AND session_id != {sql_quote(exclude_session)}"
    exact = [f"data_key = {sql_quote(data_key)}"] if data_key else []
    exact += [f"error_kind = {sql_quote(e)}" for e in error_kinds if e]
    close = []
    if resolution is not None:
        close.append(_near("resolution", resolution, 0.5))
    if space_group:
        close.append(f"space_group = {sql_quote(space_group)}")
    if unit_cell and len(unit_cell) == 6:
        close += [_near(axis, value, 0.05 * value)
                  for axis, value in zip(("cell_a", "cell_b", "cell_c"), unit_cell[:3],
                                         strict=True)]
    if close and experiment_type:
        exact.append(f"(experiment_type = {sql_quote(experiment_type)} AND "
                     + " AND ".join(close) + ")")
    if not exact:
        return []
    try:  # one scan: every clause in one filter
        rows = table.search().where(f"{where} AND ({' OR '.join(exact)})") \
            .select(CASE_COLUMNS).limit(k).to_arrow().to_pylist()
    except Exception as exc:
        raise MemoryUnavailable(f"runs table cannot be read: {_first_line(exc)}") from None
    return sorted(rows, key=lambda r: (r["data_key"] != data_key, -r["cycle"]))


def search_runs(query: str, k: int = 10, pack: str | None = None) -> list[dict[str, Any]]:
    """Past cycles most like a free-text query (`agentcycle search runs`).

    Rows are embedded here, on the first search that needs them, not when their session
    ends: loading the model costs a session's process seconds, and only this search
    reads the vectors.
    """
    table = runs_table(create=False)
    if table is None:
        return []
    embed_missing()
    where = "vector IS NOT NULL" + (f" AND pack = {sql_quote(pack)}" if pack else "")
    try:
        table.checkout_latest()
        builder = table.search(embed_one(query), vector_column_name="vector") \
            .distance_type("cosine").select([*CASE_COLUMNS, "_distance"]).limit(k) \
            .where(where, prefilter=True)
        rows = builder.to_arrow().to_pylist()
    except Exception as exc:
        raise MemoryUnavailable(f"runs table cannot be searched: {_first_line(exc)}") from None
    for row in rows:
        row["similarity"] = 1.0 - float(row.pop("_distance"))
    return rows


def embed_missing() -> int:
    """Give every row that has none its vector, in one batch; returns how many.

    One merge on `run_id` writes them: rows that sessions append meanwhile are neither
    lost nor touched, and two searches embedding the same rows write the same vectors.
    """
    table = runs_table(create=False)
    if table is None:
        return 0
    try:
        rows = table.search().where("vector IS NULL").limit(None).to_arrow().to_pylist()
        if not rows:
            return 0
        vectors = embed([row["text"] or "" for row in rows])
        for row, vector in zip(rows, vectors, strict=True):
            row["vector"] = vector
        table.merge_insert("run_id").when_matched_update_all() \
            .execute(rows_to_table(rows, RUNS_SCHEMA))
    except Exception as exc:
        raise MemoryUnavailable(f"runs table cannot be embedded: {_first_line(exc)}") from None
    return len(rows)


# Every remembered cycle appends one small file; `find_cases` scans them all each cycle.
COMPACT_AT_FRAGMENTS = 32


def compact_runs(min_fragments: int = COMPACT_AT_FRAGMENTS) -> bool:
    """Merge the runs table's files once it has `min_fragments` or more; True if it did.

    Without it a busy home's retrieval slows with its history (one fragment per cycle
    ever run). Best effort: a concurrent session's commit that conflicts, or a damaged
    table, leaves the table as it was, and the next session's end tries again.
    """
    table = runs_table(create=False)
    if table is None:
        return False
    try:
        if len(table.to_lance().get_fragments()) < min_fragments:
            return False
        table.optimize()
    except Exception:  # compaction is an optimisation, never a failure
        return False
    return True


def session_runs(session_id: str) -> list[dict[str, Any]]:
    """Every stored cycle of one session, in cycle order."""
    table = runs_table(create=False)
    if table is None:
        return []
    rows = table.search().where(f"session_id = {sql_quote(session_id)}") \
        .select(CASE_COLUMNS).limit(100_000).to_arrow().to_pylist()
    return sorted(rows, key=lambda r: r["cycle"])


def delete_session_runs(session_id: str, from_cycle: int) -> int:
    """Forget a session's cycles from `from_cycle` on (pruning); returns rows removed."""
    table = runs_table(create=False)
    if table is None:
        return 0
    where = f"session_id = {sql_quote(session_id)} AND cycle >= {int(from_cycle)}"
    count = table.count_rows(where)
    if count:
        table.delete(where)
    return count

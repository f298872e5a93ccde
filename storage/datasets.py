"""The Parquet datasets: their Arrow schemas, where they live, and how rows are appended.

This module owns every dataset path; the schemas come from the typed row models in
`storage/schemas.py` (one per dataset). Each append writes one new file,
`<home>/datasets/<name>/date=YYYY-MM-DD/<uuid>.parquet`, first under a temporary name
and then renamed into place, so concurrent writers never touch the same file and
readers never see half a file.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from agentcycle.config import datasets_dir
from agentcycle.errors import UserError
from agentcycle.storage import location
from agentcycle.storage.schemas import ROW_MODELS, arrow_schema, row_dict

SCHEMA_VERSION = 1
# Datasets whose layout changed since version 1; DuckDB reads old and new files together
# (`union_by_name`), old rows showing NULL in the new columns.
SCHEMA_VERSIONS = {"eval_samples": 3, "eval_runs": 3, "retrievals": 2, "cycles": 2}

# One typed row model per dataset (storage/schemas.py) defines its Arrow schema.
SCHEMAS: dict[str, pa.Schema] = {name: arrow_schema(model) for name, model in ROW_MODELS.items()}


def dataset_dir(name: str, root: Path | None = None) -> Path:
    if name not in SCHEMAS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(SCHEMAS)}")
    return (root or datasets_dir()) / name


def append_rows(name: str, rows: Iterable[Any], root: Path | None = None) -> Path | None:
    """Append rows as one new Parquet file; returns its path (None when there were no rows).

    A row is the dataset's row model (`storage/schemas.py`) or a mapping of its fields;
    a mapping with an unknown key or without a required one raises `ValueError`.
    """
    schema = SCHEMAS[name]
    now = datetime.now(UTC)
    version = SCHEMA_VERSIONS.get(name, SCHEMA_VERSION)
    model = ROW_MODELS[name]
    filled = []
    for row in rows:  # an unknown or a missing required field fails loudly
        filled.append({"recorded_at": now, "schema_version": version, **row_dict(name, model, row)})
    if not filled:
        return None
    table = pa.Table.from_pylist(filled, schema=schema)
    if (remote := location.remote_datasets(root)) is not None:  # one PUT: atomic on S3
        fs, base = remote
        key = f"{base}/{name}/date={now:%Y-%m-%d}/{uuid.uuid4().hex}.parquet"
        return location.write_object(fs, key, table)  # type: ignore[return-value]
    partition = dataset_dir(name, root) / f"date={now:%Y-%m-%d}"
    folder = dataset_dir(name, root)
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder}: dataset {name} is a file, not a folder; "
                        "run `agentcycle store check --repair`")
    partition.mkdir(parents=True, exist_ok=True, mode=0o700)
    final = partition / f"{uuid.uuid4().hex}.parquet"
    _write_atomically(table, final)
    return final


def parquet_glob(name: str, root: Path | None = None) -> str:
    """The glob DuckDB reads for a dataset (temporary files start with a dot and are skipped)."""
    return str(dataset_dir(name, root) / "*" / "*.parquet")


def has_files(name: str, root: Path | None = None) -> bool:
    return bool(data_files(name, root))


def data_files(name: str, root: Path | None = None) -> list[Path]:
    """The dataset's visible Parquet files, oldest partition first."""
    if (remote := location.remote_datasets(root)) is not None:
        dataset_dir(name, root)  # the same unknown-name error as on disk
        return location.list_objects(remote[0], f"{remote[1]}/{name}")  # type: ignore[return-value]
    folder = dataset_dir(name, root)
    if not folder.is_dir():  # missing, or replaced by a file (storage.health reports it)
        return []
    return sorted(p for p in folder.glob("*/*.parquet") if p.is_file())


_CHECKED: dict[tuple[str, int, int], str | None] = {}


def file_problem(path: Path) -> str | None:
    """Why this Parquet file cannot be read (its footer), or None; cached on size and mtime.

    A truncated or garbage file must cost one line and never a whole query.
    """
    try:
        stat = path.stat()
    except OSError as exc:
        return f"cannot stat: {exc.strerror}"
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _CHECKED:
        try:
            location.parquet_file(path).metadata  # noqa: B018 - reading the footer is the check
            _CHECKED[key] = None
        except Exception as exc:  # any failure means unreadable
            _CHECKED[key] = f"unreadable Parquet file ({str(exc).splitlines()[0][:120]})"
    return _CHECKED[key]


def readable_files(name: str, root: Path | None = None) -> list[Path]:
    """The dataset's files whose footers read; the others are reported by storage.health."""
    return [path for path in data_files(name, root) if file_problem(path) is None]


def row_count(name: str, root: Path | None = None) -> int:
    """Rows in a dataset, from the Parquet footers (no data is read); unreadable files skipped."""
    return sum(location.parquet_file(path).metadata.num_rows
               for path in readable_files(name, root))


SMALL_FILE_BYTES = 8 * 1024 * 1024
# Threads reading one merge's files: an evaluation run ends with a few hundred one-row
# files, whose opening and decoding Arrow does without the GIL.
MERGE_READERS = 4


def _write_atomically(table: pa.Table, final: Path) -> None:
    if isinstance(final, location.RemoteFile):  # an object is replaced whole by one PUT
        location.write_object(final.fs, final.path, table)
        return
    tmp = final.with_name(f".{final.name}.tmp")
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))  # private from birth
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
        with ThreadPoolExecutor(MERGE_READERS) as pool:  # Arrow reads without the GIL
            problems = pool.map(file_problem, small)
            small = [f for f, problem in zip(small, problems, strict=True) if not problem]
            before += len(files)
            if len(small) < 2:
                after += len(files)
                continue
            # Each file as written: files of an older layout keep their columns (a column
            # one layout lacks is null there), so a merge never drops data.
            tables = list(pool.map(pq.read_table, small))
        merged = pa.concat_tables(tables, promote_options="default")
        final = partition / f"{uuid.uuid4().hex}.parquet"
        journal = partition / f".merge-{final.stem}.json"
        journal.write_text(json.dumps({"output": final.name, "inputs": [f.name for f in small]}))
        _write_atomically(merged, final)
        for path in small:
            path.unlink(missing_ok=True)
        journal.unlink()
        after += len(files) - len(small) + 1
    return before, after


def _rewrite_without(
    name: str, root: Path | None, matching: Callable[[Path, pa.Table], pa.Array | None]
) -> int:
    """Rewrite each file of a dataset without the rows `matching` marks (atomically; a
    file left empty is removed); returns the rows removed. `matching` may return None
    to leave a file alone. Files with no matching row are only read."""
    import pyarrow.compute as pc

    removed = 0
    for path in readable_files(name, root):
        table = location.read_table(path)
        drop = matching(path, table)
        count = 0 if drop is None else pc.sum(drop).as_py() or 0
        if not count:
            continue
        kept = table.filter(pc.invert(drop))
        if kept.num_rows:
            _write_atomically(kept, path)
        else:
            location.remove(path)
        removed += count
    return removed


def replace_rows(
    name: str, column: str, value: str, rows: Iterable[Any],
    root: Path | None = None,
) -> Path | None:
    """Append `rows`, then remove every older row whose `column` equals `value`.

    One evaluation run has one `eval_runs` row however often it was resumed. The new
    file lands first, so a kill in between leaves two rows (readers take the newest),
    never none.
    """
    import pyarrow.compute as pc

    final = append_rows(name, rows, root)

    def earlier_rows(path: Path, table: pa.Table) -> pa.Array | None:
        if str(path) == str(final) or column not in table.column_names:
            return None
        return pc.fill_null(pc.equal(table[column], value), False)

    _rewrite_without(name, root, earlier_rows)
    return final


def delete_cycle_rows(
    name: str, session_id: str, cycles: set[int], root: Path | None = None
) -> int:
    """Remove a session's rows of exactly these cycles (reconciliation rewrites them)."""
    import pyarrow.compute as pc

    wanted = pa.array(sorted(cycles), type=pa.int32())
    return _rewrite_without(
        name, root,
        lambda _path, table: pc.and_(pc.equal(table["session_id"], session_id),
                                     pc.is_in(table["cycle"], value_set=wanted)),
    )  # fmt: skip


def delete_session_rows(
    name: str, session_id: str, from_cycle: int, root: Path | None = None
) -> int:
    """Remove a session's rows from cycle `from_cycle` on (pruning); returns rows removed.

    Each affected file is rewritten without those rows (atomically) or removed when
    nothing is left; files of other sessions are only read.
    """
    import pyarrow.compute as pc

    return _rewrite_without(
        name, root,
        lambda _path, table: pc.and_(pc.equal(table["session_id"], session_id),
                                     pc.greater_equal(table["cycle"], from_cycle)),
    )  # fmt: skip

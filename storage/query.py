"""DuckDB over everything we store: each Parquet dataset and each LanceDB table is a view.

An empty dataset still gets a (typed, empty) view, so a query written before the first
run fails only if its SQL is wrong, not because nothing has happened yet. LanceDB tables
are handed to DuckDB as Lance datasets through Arrow (DuckDB's own `lance` extension
cannot be installed offline); DuckDB pushes column projection down, so a query that
does not select `vector` never reads the vectors. `corpus_chunks` unions every corpus
with a `corpus` column. Named reports are SQL files in `reports/` with `$name`
parameters.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.dataset as pads

from agentcycle.errors import UserError
from agentcycle.storage import location
from agentcycle.storage.datasets import SCHEMAS, dataset_dir, readable_files
from agentcycle.storage.health import dataset_problems, table_problem, warn_once
from agentcycle.storage.tables import connect as lancedb_connect
from agentcycle.storage.tables import lancedb_exists, table_names, view_name

REPORTS_DIR = Path(__file__).resolve().parent / "reports"
FORMATS = ("table", "csv", "json")
CORPUS_PREFIX = "corpus_"  # kept in step with storage.corpus.TABLE_PREFIX (tested)
_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_CORPUS_COLUMNS = ("chunk_id", "source", "file", "file_hash", "heading", "ordinal",
                   "start_char", "end_char", "text", "chunk_hash", "ingested_at")


class QueryError(UserError):
    """DuckDB rejected the SQL; the message is DuckDB's own."""


def _register_lancedb(con: duckdb.DuckDBPyConnection) -> list[str]:
    """One view per readable LanceDB table (plus the corpus union); returns the corpus names.

    A table that cannot be opened is reported once and left out; the rest still answer.
    """
    if not lancedb_exists():
        return []
    db = lancedb_connect()
    corpora = []
    for name in table_names(db):
        view = view_name(name)
        try:
            lance = db.open_table(name).to_lance()
        except Exception:  # a broken table costs a warning, never the query
            problem = table_problem(db, name)
            warn_once([problem] if problem else [])
            continue
        con.register(f"_lance_{view}", lance)
        con.execute(f'CREATE VIEW "{view}" AS SELECT * FROM "_lance_{view}"')
        if name.startswith(CORPUS_PREFIX):
            corpora.append(name.removeprefix(CORPUS_PREFIX))
    columns = ", ".join(f'"{c}"' for c in _CORPUS_COLUMNS)
    union = " UNION ALL ".join(
        f"SELECT '{c}' AS corpus, {columns} FROM \"{view_name(CORPUS_PREFIX + c)}\""
        for c in corpora
    ) or (f"SELECT NULL::VARCHAR AS corpus, {', '.join(f'NULL AS {c}' for c in _CORPUS_COLUMNS)}"
          " WHERE false")
    con.execute(f"CREATE VIEW corpus_chunks AS {union}")
    return corpora


_SCHEMAS: dict[tuple[str, int, int], pa.Schema] = {}


def _file_schema(path: Path) -> pa.Schema:
    """A file's schema, read once per process per version of the file."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _SCHEMAS:
        _SCHEMAS[key] = location.read_schema(path)
    return _SCHEMAS[key]


def _dataset_source(name: str, root: Path | None) -> pa.Table | pads.Dataset:
    """What a dataset's view reads: its readable files as one Arrow dataset.

    Arrow reads the files, not DuckDB, so DuckDB can run with file access switched off.
    Columns are the union of every file's columns (old layouts show NULL in new ones).
    Unreadable files and a dataset folder that is not a folder are reported once.
    """
    problems = dataset_problems(name, root)
    warn_once(problems)
    files = readable_files(name, root)
    if not files:
        return pa.Table.from_pylist([], schema=SCHEMAS[name])
    schemas = [_file_schema(f) for f in files]
    schema = pa.unify_schemas([SCHEMAS[name], *schemas], promote_options="permissive")
    partitioning = pads.partitioning(pa.schema([("date", pa.string())]), flavor="hive")
    if (remote := location.remote_datasets(root)) is not None:  # objects read through Arrow
        return pads.dataset([f.path for f in files], schema=schema, format="parquet",
                            partitioning=partitioning, filesystem=remote[0],
                            partition_base_dir=f"{remote[1]}/{name}")
    return pads.dataset([str(f) for f in files], schema=schema, format="parquet",
                        partitioning=partitioning,
                        partition_base_dir=str(dataset_dir(name, root)))


def connect(root: Path | None = None, lancedb: bool = True) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with one view per dataset and LanceDB table.

    File access is then switched off and locked: SQL sees the views and nothing else
    (no `COPY ... TO`, no `read_text('/etc/...')`, no ATTACH, no extension installs).
    """
    con = duckdb.connect()
    for name in SCHEMAS:
        con.register(f"_{name}_source", _dataset_source(name, root))
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM _{name}_source")
    if lancedb:
        _register_lancedb(con)
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def run_query(sql: str, root: Path | None = None,
              parameters: dict[str, Any] | list[Any] | None = None,
              lancedb: bool = True) -> pa.Table:
    """Run SQL over the datasets and tables; DuckDB's own message on error.

    `lancedb=False` skips the LanceDB views for queries over Parquet datasets only.
    """
    if not sql.strip():
        raise QueryError("query: the SQL is empty")
    con = connect(root, lancedb=lancedb)
    try:
        relation = con.sql(sql, params=parameters or None)
        return pa.table({}) if relation is None else relation.to_arrow_table()
    except duckdb.Error as exc:
        first_line = str(exc).strip().splitlines()[0]
        raise QueryError(f"query failed: {first_line}") from None
    finally:
        con.close()


# --------------------------------------------------------------------------- reports

def report_names() -> list[str]:
    return sorted(p.stem for p in REPORTS_DIR.glob("*.sql"))


def report_sql(name: str) -> str:
    path = REPORTS_DIR / f"{name}.sql"
    if not path.is_file():
        raise UserError(f"report {name!r}: unknown; known reports: {', '.join(report_names())}")
    return path.read_text()


def report_parameters(sql: str) -> list[str]:
    """The `$name` parameters a report's SQL uses (each defaults to NULL = no filter)."""
    return sorted(set(_PARAMETER.findall(sql)))


def run_report(name: str, root: Path | None = None, **values: Any) -> pa.Table:
    """Run a named report; unknown parameters are refused, missing ones are NULL."""
    sql = report_sql(name)
    wanted = report_parameters(sql)
    unknown = sorted(k for k, v in values.items() if v is not None and k not in wanted)
    if unknown:
        raise UserError(f"report {name!r} takes no {', '.join('--' + u for u in unknown)} "
                        f"(it takes: {', '.join('--' + w for w in wanted) or 'nothing'})")
    return run_query(sql, root, {k: values.get(k) for k in wanted} or None)


# --------------------------------------------------------------------------- formatting

def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, default=str)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def format_table(table: pa.Table, fmt: str = "table", max_cell: int = 80) -> str:
    """A result as text: an aligned table, CSV (nested values as JSON) or JSON rows."""
    if fmt not in FORMATS:
        raise UserError(f"--format: {fmt!r} is not one of {', '.join(FORMATS)}")
    rows = table.to_pylist()
    if fmt == "json":
        return json.dumps(rows, default=str, indent=1)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(table.column_names)
        writer.writerows([_cell(row[c]) for c in table.column_names] for row in rows)
        return buffer.getvalue()
    if not table.column_names:
        return "(no result)"
    cells = [[_cell(row[c]).replace("\n", " ")[:max_cell] for c in table.column_names]
             for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells])
              for i, c in enumerate(table.column_names)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(table.column_names, widths, strict=True)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    lines.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(line.rstrip() for line in lines)

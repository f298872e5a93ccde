"""The LanceDB directory, opening tables safely, and the file lock that guards both.

LanceDB commits are optimistic (concurrent appends from several processes all land),
but two processes creating the same table at once can race, so creation happens under
an exclusive file lock. The same lock helper keeps store maintenance single-file.
"""

from __future__ import annotations

import contextlib
import fcntl
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from agentcycle.config import home_dir
from agentcycle.errors import UserError
from agentcycle.storage import location

if TYPE_CHECKING:
    import lancedb
    import pyarrow as pa

_IDENTIFIER = re.compile(r"[^A-Za-z0-9_]")


class LockBusy(UserError):
    """Someone else holds the lock and the caller asked not to wait."""


def lancedb_dir() -> Path:
    return home_dir() / "lancedb"


def lancedb_exists() -> bool:
    """Whether there may be tables to read (on an object store, listing tells: assume so)."""
    return location.store_uri() is not None or lancedb_dir().is_dir()


def locks_dir() -> Path:
    path = home_dir() / "locks"
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def file_lock(name: str, blocking: bool = True) -> Iterator[Path]:
    """Exclusive lock on `<home>/locks/<name>.lock` (released when the process dies too)."""
    path = locks_dir() / f"{name}.lock"
    with open(path, "w") as handle:
        flags = fcntl.LOCK_EX if blocking else fcntl.LOCK_EX | fcntl.LOCK_NB
        try:
            fcntl.flock(handle, flags)
        except BlockingIOError:
            raise LockBusy(f"{name}: already running in another process (lock {path})") from None
        try:
            yield path
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_handles_lock = threading.Lock()
_connections: dict[str, lancedb.DBConnection] = {}
_tables: dict[tuple[str, str], lancedb.table.Table] = {}


def connect() -> lancedb.DBConnection:
    """The process's connection to the store's LanceDB directory (one per directory).

    Reads are strongly consistent (every read checks for a newer version), so a cached
    handle still sees what other processes committed.
    """
    import lancedb

    uri, options = location.lancedb_target(lancedb_dir())
    with _handles_lock:
        if uri not in _connections:
            if not options:  # local disk (an object store has no folders to make)
                lancedb_dir().mkdir(parents=True, exist_ok=True)
            _connections[uri] = lancedb.connect(
                uri, read_consistency_interval=timedelta(0), storage_options=options or None)
        return _connections[uri]


def table_names(db: lancedb.DBConnection | None = None) -> list[str]:
    if db is None and not lancedb_exists():
        return []
    db = db or connect()
    names: list[str] = []
    token = None
    while True:
        page = db.list_tables(page_token=token)
        names.extend(page.tables)
        token = page.page_token
        if not token or not page.tables:
            return sorted(names)


def open_table(name: str, schema: pa.Schema | None = None) -> lancedb.table.Table | None:
    """Open a table; with a schema, create it when missing (under the lock). None if absent.

    Handles are kept per process: a table opened anew each query would reload its index
    metadata every time, which costs more than the search itself.
    """
    key = (location.lancedb_target(lancedb_dir())[0], name)
    table = _tables.get(key)
    if table is None and schema is None and not lancedb_exists():
        return None  # reading never creates the store
    if table is None:
        db = connect()
        if name in table_names(db):
            table = _open_listed(db, name)
        elif schema is None:
            return None
        else:
            with file_lock(f"create-{name}"):
                table = db.create_table(name, schema=schema, exist_ok=True)
        with _handles_lock:
            table = _tables.setdefault(key, table)
    return table


def _open_listed(db: lancedb.DBConnection, name: str) -> lancedb.table.Table:
    """Open a table the store lists, waiting out another process that is still creating it.

    A table's folder is listed before its first version is written, so a process that
    lists it mid-creation cannot open it yet. The creator holds the creation lock, so
    waiting for that lock and trying once more tells the two cases apart: a table still
    missing its versions afterwards is broken, and the error stands (it points readers
    to `store check`; recreating it here would silently replace its data).
    """
    try:
        return db.open_table(name)
    except ValueError:
        with file_lock(f"create-{name}"):
            return db.open_table(name)


def forget_handles() -> None:
    """Drop cached connections and tables (a table was moved away or rebuilt)."""
    with _handles_lock:
        _tables.clear()
        _connections.clear()


def view_name(table: str) -> str:
    """A table name as a plain SQL identifier (`corpus_my-docs` -> `corpus_my_docs`)."""
    return _IDENTIFIER.sub("_", table)


def sql_quote(value: str) -> str:
    """A string literal for LanceDB and DuckDB filters."""
    return "'" + value.replace("'", "''") + "'"

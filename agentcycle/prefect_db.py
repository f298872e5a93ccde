"""A new home's SQLite database starts as a copy of one migrated once per Prefect version.

Why: Prefect's server brings a new SQLite database up to date by running every Alembic
migration, about 8 s of CPU on this project's 2-core VM and most of a new home's first
server start (19 s, against 9 s for a home that has its database). An up-to-date
database is checked in 0.07 s. Every new home paid the 8 s again: each project, each
`AGENTCYCLE_HOME` a script or a test makes. Now the first server of a Prefect version
migrates an empty database apart from any home, with Prefect's own
`prefect server database upgrade`, and keeps it in the user's cache. Every new home then
starts from a copy, and the server's own migration step finds nothing left to do.

Only that empty, just-migrated file is ever copied, and no server ever opens it, so a
copy holds no one's runs. Each step writes a temporary file and renames it into place,
so a kill leaves either no database (Prefect migrates as before) or a whole one. This is
only a speed-up: if anything here fails, the server migrates the database itself.
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from agentcycle.config import user_cache_dir
from agentcycle.server import locked_file

log = logging.getLogger(__name__)
BUILD_TIMEOUT_S = 300  # a migration takes ~12 s here; a hung one must not stop the start


def sqlite_file(url: str) -> Path | None:
    """The file of a `sqlite+aiosqlite:///PATH` URL; None for other databases or memory."""
    scheme, _, rest = url.partition(":///")
    if not scheme.startswith("sqlite") or not rest or rest.startswith(":memory:"):
        return None
    return Path(rest.split("?", 1)[0])


def template_file(prefect_version: str) -> Path:
    """The migrated empty database of this Prefect version, in the user's cache."""
    return user_cache_dir() / "prefect-db" / f"prefect-{prefect_version}.db"


def _is_migrated(path: Path) -> bool:
    """True when the file is an SQLite database with an Alembic revision recorded."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:
        return False
    return row is not None


def _write_whole(target: Path, fill: Callable[[str], None]) -> None:
    """Have `fill` write a temporary file beside `target`, renamed to it only once whole:
    a kill leaves the old `target` (or none), never part of one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(handle)
    try:
        fill(partial)
        os.replace(partial, target)
    finally:
        Path(partial).unlink(missing_ok=True)


def _snapshot(source: Path, target: Path) -> None:
    """Copy a database through SQLite's backup API (whatever a WAL still holds comes
    along) into one self-contained file at `target`."""

    def backup(partial: str) -> None:
        with closing(sqlite3.connect(source)) as reader, \
                closing(sqlite3.connect(partial)) as writer:
            reader.backup(writer)
            writer.execute("PRAGMA journal_mode=DELETE")  # one file: nothing in a WAL beside it

    _write_whole(target, backup)


def build_template(template: Path) -> None:
    """Migrate an empty database with Prefect's own CLI, apart from any home."""
    with tempfile.TemporaryDirectory(prefix="prefect-template-") as work:
        database = Path(work) / "prefect.db"
        env = {**os.environ, "PREFECT_HOME": work,
               "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{database}"}
        env.pop("PREFECT_API_URL", None)
        argv = [sys.executable, "-m", "prefect", "server", "database", "upgrade", "-y"]
        subprocess.run(argv, env=env, check=True, capture_output=True, timeout=BUILD_TIMEOUT_S)
        if not _is_migrated(database):
            raise RuntimeError(f"{database}: no Alembic revision after the upgrade")
        _snapshot(database, template)


def seed_database(url: str, prefect_version: str) -> bool:
    """Give a new home's SQLite database its schema from the template; True if copied.

    Does nothing for another database, or when the home has its database already.
    """
    database = sqlite_file(url)
    if database is None or database.exists():
        return False
    template = template_file(prefect_version)
    try:
        if not _is_migrated(template):
            # One builder per user: servers of other homes starting now wait for it.
            with locked_file(template.with_suffix(".lock")):
                if not _is_migrated(template):
                    build_template(template)
        _write_whole(database, lambda partial: shutil.copyfile(template, partial))
    except (OSError, sqlite3.Error, subprocess.SubprocessError, RuntimeError) as exc:
        log.warning("new database not seeded from %s (%s); Prefect migrates it", template, exc)
        return False
    log.info("new database %s seeded from %s", database, template)
    return True

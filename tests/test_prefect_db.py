"""A new home's Prefect database is copied from a template migrated once per Prefect
version (by Prefect's own CLI), and every failure leaves Prefect to migrate as before."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import prefect
import pytest

from agentcycle import prefect_db
from agentcycle.prefect_db import seed_database, sqlite_file, template_file


def _revision(path: Path) -> str:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute("SELECT version_num FROM alembic_version").fetchone()[0]


def _url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def test_only_a_file_backed_sqlite_url_names_a_file() -> None:
    assert sqlite_file("sqlite+aiosqlite:////srv/home/prefect.db") == Path("/srv/home/prefect.db")
    assert sqlite_file("sqlite+aiosqlite:////srv/p.db?timeout=5") == Path("/srv/p.db")
    assert sqlite_file("sqlite+aiosqlite:///:memory:") is None
    assert sqlite_file("postgresql+asyncpg://u:p@db:5432/prefect") is None


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_new_homes_are_seeded_from_one_migrated_template(cache: Path, tmp_path: Path) -> None:
    version = prefect.__version__
    first = tmp_path / "home1" / "prefect" / "prefect.db"
    assert seed_database(_url(first), version)
    template = template_file(version)
    assert template.is_relative_to(cache) and template.is_file()
    assert _revision(first) == _revision(template)  # migrated to Prefect's head revision
    built_at = template.stat().st_mtime_ns

    second = tmp_path / "home2" / "prefect.db"
    assert seed_database(_url(second), version)
    assert template.stat().st_mtime_ns == built_at  # copied, not migrated again
    assert second.read_bytes() == template.read_bytes()
    assert sorted(p.name for p in second.parent.iterdir()) == ["prefect.db"]  # no temp left

    with closing(sqlite3.connect(second)) as connection:  # a home's data is its own
        connection.execute("CREATE TABLE mine (x)")
    assert not seed_database(_url(second), version)  # an existing database is left alone
    assert "mine" not in template.read_bytes().decode("latin-1")


def test_a_broken_template_is_rebuilt_and_a_failed_build_leaves_no_database(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    version = prefect.__version__
    template = template_file(version)
    template.parent.mkdir(parents=True)
    template.write_bytes(b"not a database")
    monkeypatch.setattr(prefect_db, "BUILD_TIMEOUT_S", 0.01)  # the migration cannot finish
    home = tmp_path / "home" / "prefect.db"
    home.parent.mkdir()  # as the server's home folder is
    assert not seed_database(_url(home), version)
    assert list(home.parent.iterdir()) == []  # no database, no part of one: Prefect migrates
    monkeypatch.setattr(prefect_db, "BUILD_TIMEOUT_S", 300)
    assert seed_database(_url(home), version)
    assert _revision(home) == _revision(template)


def test_other_databases_are_not_touched(cache: Path) -> None:
    assert not seed_database("postgresql+asyncpg://u:p@127.0.0.1:1/prefect", "3.0.0")
    assert not template_file("3.0.0").exists()

"""The store on an object store: Parquet datasets and LanceDB tables at `s3://bucket/prefix`.

The S3 stand-in is moto's server mode (`python -m moto.server`), a real S3-compatible
HTTP server started on a free localhost port for this module and stopped at the end;
everything talks to it over HTTP exactly as to S3 (pyarrow's S3FileSystem, LanceDB's
object store, boto3 for the test's own look at the bucket).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import boto3
import pyarrow as pa
import pytest

from agentcycle.storage import datasets, location, maintenance, tables
from agentcycle.storage.health import dataset_problems
from agentcycle.storage.query import run_query

BUCKET = "agentcycle-test"
PREFIX = "team/store"
WRITERS, BATCHES, ROWS = 2, 12, 5


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def s3_server() -> Iterator[str]:
    """The S3 stand-in (moto server) on localhost; yields its endpoint URL."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                             "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None, "moto server exited"
                time.sleep(0.2)
        else:
            raise RuntimeError("moto server did not start")
        endpoint = f"http://127.0.0.1:{port}"
        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                     aws_access_key_id="testing",
                     aws_secret_access_key="testing").create_bucket(Bucket=BUCKET)
        yield endpoint
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture
def s3_env(s3_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Point the store at a fresh prefix of the bucket; returns the variables set."""
    prefix = f"{PREFIX}/{tmp_path.name}"
    env = {
        "AGENTCYCLE_HOME": str(tmp_path / "home"),
        "AGENTCYCLE_STORE_URI": f"s3://{BUCKET}/{prefix}",
        "AWS_ENDPOINT_URL": s3_server,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    tables.forget_handles()
    yield env
    tables.forget_handles()


def _objects(env: dict[str, str]) -> list[str]:
    fs = location.s3_filesystem()
    base = env["AGENTCYCLE_STORE_URI"].removeprefix("s3://")
    from pyarrow import fs as pafs

    infos = fs.get_file_info(pafs.FileSelector(base, allow_not_found=True, recursive=True))
    return [i.path.removeprefix(base + "/") for i in infos if i.type == pafs.FileType.File]


def _event(session: str, cycle: int = 1) -> dict:
    return {"session_id": session, "cycle": cycle, "event": "test", "level": "info",
            "message": "m"}


def test_appends_land_in_the_bucket_and_nothing_on_local_disk(s3_env: dict[str, str]) -> None:
    first = datasets.append_rows("events", [_event("a"), _event("b")])
    datasets.append_rows("events", [_event("c")])
    objects = [o for o in _objects(s3_env) if o.startswith("datasets/events/")]
    assert len(objects) == 2  # one object per append
    assert all(o.count("/") == 3 and "/date=" in o and o.endswith(".parquet") for o in objects)
    assert str(first).startswith(s3_env["AGENTCYCLE_STORE_URI"] + "/datasets/events/date=")
    assert not (Path(s3_env["AGENTCYCLE_HOME"]) / "datasets").exists()
    assert datasets.row_count("events") == 3
    result = run_query("SELECT session_id FROM events ORDER BY session_id", lancedb=False)
    assert result.column("session_id").to_pylist() == ["a", "b", "c"]
    assert dataset_problems("events", deep=True) == []  # store check reads objects too
    sizes = {row["name"]: row for row in maintenance.info()}
    assert sizes["events"]["rows"] == 3 and sizes["events"]["files"] == 2


def test_replace_and_delete_rewrite_objects(s3_env: dict[str, str]) -> None:
    datasets.append_rows("events", [_event("keep", 1), _event("drop", 1), _event("drop", 2)])
    datasets.append_rows("events", [_event("drop", 3)])
    removed = datasets.delete_session_rows("events", "drop", 2)
    assert removed == 2
    rows = run_query("SELECT session_id, cycle FROM events ORDER BY session_id", lancedb=False)
    assert rows.to_pylist() == [{"session_id": "drop", "cycle": 1},
                                {"session_id": "keep", "cycle": 1}]
    assert len([o for o in _objects(s3_env) if o.startswith("datasets/events/")]) == 1


_WRITER = """
import sys
from agentcycle.storage import datasets
writer = int(sys.argv[1])
for batch in range({batches}):
    datasets.append_rows("events", [
        {{"session_id": f"w{{writer}}-b{{batch}}-r{{i}}", "cycle": batch, "event": "test"}}
        for i in range({rows})])
"""


def test_two_writer_processes_lose_no_row_and_query_reads_them(s3_env: dict[str, str]) -> None:
    env = {**os.environ, **s3_env}
    script = _WRITER.format(batches=BATCHES, rows=ROWS)
    procs = [subprocess.Popen([sys.executable, "-c", script, str(w)], env=env,
                              stderr=subprocess.PIPE, text=True) for w in range(WRITERS)]
    for proc in procs:
        _, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
    expected = WRITERS * BATCHES * ROWS
    assert datasets.row_count("events") == expected
    assert len(datasets.data_files("events")) == WRITERS * BATCHES
    out = subprocess.run(
        [sys.executable, "-m", "agentcycle.cli.main", "query",
         "SELECT count(*) AS n, count(DISTINCT session_id) AS ids FROM events", "-f", "json"],
        env=env, capture_output=True, text=True, timeout=240, check=True).stdout
    assert json.loads(out) == [{"n": expected, "ids": expected}]


def test_lancedb_tables_live_in_the_bucket_and_duckdb_sees_them(s3_env: dict[str, str]) -> None:
    schema = pa.schema([("chunk_id", pa.string()), ("vector", pa.list_(pa.float32(), 4))])
    table = tables.open_table("notes", schema)
    table.add([{"chunk_id": f"c{i}", "vector": [float(i)] * 4} for i in range(7)])
    assert any(o.startswith("lancedb/notes.lance/") for o in _objects(s3_env))
    assert not (Path(s3_env["AGENTCYCLE_HOME"]) / "lancedb").exists()
    tables.forget_handles()
    assert tables.table_names() == ["notes"]
    hits = tables.open_table("notes").search([3.0] * 4).limit(1).to_list()
    assert hits[0]["chunk_id"] == "c3"
    counted = run_query("SELECT count(*) AS n FROM notes")
    assert counted.column("n").to_pylist() == [7]


def test_local_disk_stays_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTCYCLE_STORE_URI", raising=False)
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path))
    path = datasets.append_rows("events", [_event("local")])
    assert isinstance(path, Path) and path.is_file() and path.is_relative_to(tmp_path)
    assert location.lancedb_target(tmp_path / "lancedb") == (str(tmp_path / "lancedb"), {})


def test_a_bad_store_uri_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcycle.errors import UserError

    monkeypatch.setenv("AGENTCYCLE_STORE_URI", "ftp://nowhere")
    with pytest.raises(UserError, match=r"AGENTCYCLE_STORE_URI.*s3://bucket"):
        datasets.append_rows("events", [_event("x")])

"""Where the store's datasets and LanceDB tables live: the local home, or an object store.

Local disk is the default and behaves exactly as before. `AGENTCYCLE_STORE_URI=s3://bucket/prefix`
moves the Parquet datasets to `s3://bucket/prefix/datasets/...` (read and written through
pyarrow's `S3FileSystem`) and the LanceDB tables to `s3://bucket/prefix/lancedb` (through
LanceDB's own object-store support). Endpoint, keys and region come from the usual AWS
variables (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
`AWS_REGION`/`AWS_DEFAULT_REGION`), so the same settings serve boto, pyarrow and Lance.

Each append is one new object written by one PUT, which S3 makes atomic, so concurrent
writers never lose a row and readers never see half a file. File locks and quarantine by
rename are local-only (an object store has neither).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from agentcycle.errors import UserError

STORE_URI_VARIABLE = "AGENTCYCLE_STORE_URI"
_TIMEOUT_S = 30.0  # every request to the store is bounded


@dataclass(frozen=True)
class RemoteFile:
    """One Parquet object in the store: its path inside the filesystem, size and mtime.

    It quacks like the `Path` that local listings return where the dataset code needs it
    (`name`, `stem`, `stat()`, `str()`), so callers need no second code path to list,
    check or count files.
    """

    fs: pafs.FileSystem
    path: str  # "bucket/prefix/datasets/<name>/date=.../<uuid>.parquet"
    size: int
    mtime_ns: int

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def stem(self) -> str:
        return self.name.removesuffix(".parquet")

    def stat(self) -> _Stat:
        return _Stat(self.size, self.mtime_ns)

    def is_file(self) -> bool:
        return True

    def __str__(self) -> str:
        return f"s3://{self.path}"


@dataclass(frozen=True)
class _Stat:
    st_size: int
    st_mtime_ns: int


def store_uri() -> str | None:
    """The object-store URI when one is configured (None: the local home)."""
    uri = os.environ.get(STORE_URI_VARIABLE, "").strip()
    if not uri:
        return None
    if urlparse(uri).scheme != "s3" or not urlparse(uri).netloc:
        raise UserError(f"{STORE_URI_VARIABLE}={uri!r}: expected s3://bucket[/prefix]")
    return uri.rstrip("/")


def _region() -> str:
    return os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"


@lru_cache(maxsize=8)
def _s3(endpoint: str | None, region: str, key: str | None, secret: str | None) -> pafs.FileSystem:
    options: dict[str, Any] = {"region": region, "connect_timeout": _TIMEOUT_S,
                               "request_timeout": _TIMEOUT_S}
    if endpoint:
        parsed = urlparse(endpoint)
        options["endpoint_override"] = parsed.netloc or parsed.path
        options["scheme"] = parsed.scheme or "https"
    if key and secret:
        options["access_key"], options["secret_key"] = key, secret
    return pafs.S3FileSystem(**options)


def s3_filesystem() -> pafs.FileSystem:
    """pyarrow's S3 filesystem for the configured endpoint, keys and region (cached)."""
    return _s3(os.environ.get("AWS_ENDPOINT_URL") or os.environ.get("AWS_ENDPOINT_URL_S3"),
               _region(), os.environ.get("AWS_ACCESS_KEY_ID"),
               os.environ.get("AWS_SECRET_ACCESS_KEY"))


def remote_datasets(root: Path | None) -> tuple[pafs.FileSystem, str] | None:
    """(filesystem, base path) of the datasets when they live on an object store, else None.

    An explicit local `root` (tests, tools) always means local disk.
    """
    uri = store_uri()
    if uri is None or root is not None:
        return None
    return s3_filesystem(), uri.removeprefix("s3://") + "/datasets"


def write_object(fs: pafs.FileSystem, path: str, table: pa.Table) -> RemoteFile:
    """Write a table as one object (one PUT for an append's size: atomic on S3)."""
    pq.write_table(table, path, filesystem=fs)
    info = fs.get_file_info(path)
    return RemoteFile(fs, path, info.size or 0, info.mtime_ns or 0)


def list_objects(fs: pafs.FileSystem, folder: str) -> list[RemoteFile]:
    """The `*/*.parquet` objects under a dataset folder, oldest partition first."""
    selector = pafs.FileSelector(folder, allow_not_found=True, recursive=True)
    found = []
    for info in fs.get_file_info(selector):
        relative = info.path.removeprefix(folder.rstrip("/") + "/")
        _partition, _, name = relative.partition("/")
        if (info.type == pafs.FileType.File and name.endswith(".parquet")
                and "/" not in name and not name.startswith(".")):
            found.append(RemoteFile(fs, info.path, info.size or 0, info.mtime_ns or 0))
    return sorted(found, key=lambda f: f.path)


def parquet_file(path: Path | RemoteFile) -> pq.ParquetFile:
    """A Parquet file's footer reader, local or remote."""
    if isinstance(path, RemoteFile):
        return pq.ParquetFile(path.path, filesystem=path.fs)
    return pq.ParquetFile(path)


def read_table(path: Path | RemoteFile) -> pa.Table:
    if isinstance(path, RemoteFile):
        return pq.read_table(path.path, filesystem=path.fs)
    return pq.read_table(path)


def read_schema(path: Path | RemoteFile) -> pa.Schema:
    if isinstance(path, RemoteFile):
        return pq.read_schema(path.path, filesystem=path.fs)
    return pq.read_schema(path)


def remove(path: Path | RemoteFile) -> None:
    """Delete one file or object (a missing one is fine)."""
    if isinstance(path, RemoteFile):
        with contextlib.suppress(FileNotFoundError):
            path.fs.delete_file(path.path)
    else:
        path.unlink(missing_ok=True)


def lancedb_target(local: Path) -> tuple[str, dict[str, str]]:
    """The URI and `storage_options` for `lancedb.connect` (the local folder by default)."""
    uri = store_uri()
    if uri is None:
        return str(local), {}
    options = {"region": _region(), "timeout": f"{int(_TIMEOUT_S)}s"}
    endpoint = os.environ.get("AWS_ENDPOINT_URL") or os.environ.get("AWS_ENDPOINT_URL_S3")
    if endpoint:
        options["endpoint"] = endpoint
        if endpoint.startswith("http://"):
            options["allow_http"] = "true"
    for variable, option in (("AWS_ACCESS_KEY_ID", "aws_access_key_id"),
                             ("AWS_SECRET_ACCESS_KEY", "aws_secret_access_key"),
                             ("AWS_SESSION_TOKEN", "aws_session_token")):
        if os.environ.get(variable):
            options[option] = os.environ[variable]
    return f"{uri}/lancedb", options

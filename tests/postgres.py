"""A real PostgreSQL server for tests, from Debian's `postgresql` package.

`initdb` refuses to run as root (CI runs as root), so the cluster belongs to `nobody`
in a temporary folder; it listens on 127.0.0.1 on a free port with trust auth and is
stopped and removed when the context ends.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

SUPERUSER = "agentcycle"


def pg_binary(name: str) -> str:
    """A PostgreSQL program: on PATH, else Debian's versioned folder."""
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None
    )
    if not found:
        raise RuntimeError(f"{name} not found: apt-get install postgresql (make test does)")
    return found


def _as_owner(argv: list[str]) -> list[str]:
    return ["runuser", "-u", "nobody", "--", *argv] if os.geteuid() == 0 else argv


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def postgres_server(database: str = "prefect") -> Iterator[str]:
    """Yields the asyncpg URL of a fresh database on a fresh server."""
    root = Path(tempfile.mkdtemp(prefix="agentcycle-pg-"))
    root.chmod(0o755)
    data, sockets = root / "data", root / "sockets"
    for folder in (data, sockets):
        folder.mkdir()
        if os.geteuid() == 0:
            shutil.chown(folder, "nobody", "nogroup")
    port = _free_port()
    run = lambda argv: subprocess.run(  # noqa: E731
        _as_owner(argv), check=True, capture_output=True, text=True, timeout=120, cwd=root
    )
    try:
        run([pg_binary("initdb"), "-D", str(data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8"])
        options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c max_connections=200"
        run([pg_binary("pg_ctl"), "-D", str(data), "-o", options, "-l",
             str(sockets / "server.log"), "-w", "start"])  # fmt: skip
        run([pg_binary("createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", SUPERUSER,
             database])  # fmt: skip
        yield f"postgresql+asyncpg://{SUPERUSER}@127.0.0.1:{port}/{database}"
    finally:
        with contextlib.suppress(Exception):
            run([pg_binary("pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"])
        shutil.rmtree(root, ignore_errors=True)


def psql(url: str, sql: str) -> str:
    """One query's unaligned output through psql (the server's own client)."""
    host_port_db = url.split("@", 1)[1]
    host_port, db = host_port_db.split("/", 1)
    host, port = host_port.split(":")
    done = subprocess.run(
        ["psql", "-h", host, "-p", port, "-U", SUPERUSER, "-d", db, "-At", "-c", sql],
        check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.stdout.strip()

"""Shared fixtures: one real local Prefect server for the whole test session.

The agentcycle home (Parquet datasets, Prefect's SQLite database) lives in a temporary
directory, so tests never touch a user's `.agentcycle/`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
PROJECT_ROOT = TESTS_DIR.parent
SHARED = PROJECT_ROOT.parent / "shared"
TOY_PACK = TESTS_DIR / "packs" / "toy"

_HOME = Path(tempfile.mkdtemp(prefix="agentcycle-test-home-"))
os.environ["AGENTCYCLE_HOME"] = str(_HOME)
os.environ.pop("PREFECT_API_URL", None)  # the session's own server, never a user's
# A long test (the wheel install) can leave the shared server without clients for longer
# than the 30-minute default; a killed run's server still stops on its own in 2 hours.
os.environ.setdefault("AGENTCYCLE_SERVER_IDLE_MINUTES", "120")
# Three xdist workers and the servers, sessions and model processes they start share two
# cores; each torch or BLAS process spinning up a thread per core on top of that made
# them wait on one another. One thread each (inherited by every subprocess) keeps the
# cores doing the work; the product's own default (a thread per core) is left alone.
for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")
# Every process this test run starts inherits the marker, so its servers can be told
# from other people's on a shared machine (xdist workers inherit the controller's).
SERVER_MARKER = "AGENTCYCLE_TEST_RUN"
os.environ.setdefault(SERVER_MARKER, uuid.uuid4().hex)


def _servers_of_this_run() -> list[tuple[int, str]]:
    """(pid, argv) of every agentcycle, Prefect or model server this test run started."""
    marker = f"{SERVER_MARKER}={os.environ[SERVER_MARKER]}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            servers = ("server_watch", "prefect_app", "server start", "uvicorn", "llama_cpp.server")
            if not any(word in argv for word in servers):
                continue
            if marker in (entry / "environ").read_bytes().split(b"\0"):
                found.append((int(entry.name), argv.strip()))
        except OSError:
            continue
    return found


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files with the most slow tests run first, each file's own order kept.

    Why: `make test` runs `-n 3 --dist loadfile --no-loadscope-reorder`, one file per
    worker at a time, in collection order. The slowest files (model server, PostgreSQL,
    wheel install, xtal sessions) sort last by name, so one worker ran them for minutes
    while the others sat idle. (xdist's own reorder, by number of tests, puts the
    hundred one-second parametrized cases first, which is worse.)
    """
    slow_per_file = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow_per_file[item.path])  # stable: a file stays together


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Remove this process's test home; fail the run (and clean up) when a test left a
    Prefect server running. The home goes here, not only in `prefect_api`, because a run
    that never starts a server (one research file, say) would otherwise leave it in /tmp."""
    shutil.rmtree(_HOME, ignore_errors=True)
    if hasattr(session.config, "workerinput"):
        return  # the controller checks once, after every worker has finished
    import signal

    left = _servers_of_this_run()
    for pid, _argv in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if left:
        listing = "; ".join(f"{pid}: {argv[:120]}" for pid, argv in left)
        print(f"\nERROR: the tests left {len(left)} server process(es) running: {listing}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def prefect_api() -> Iterator[str]:
    """A real Prefect server started through agentcycle's own server code, shared by all tests."""
    from agentcycle.server import ensure_prefect_api, stop_server

    url = ensure_prefect_api()
    from prefect.settings import PREFECT_API_URL, temporary_settings

    with temporary_settings({PREFECT_API_URL: url}):
        yield url
        from prefect.logging.handlers import APILogWorker

        APILogWorker.drain_all(timeout=10)  # send buffered logs before the server goes
    stop_server()
    shutil.rmtree(_HOME, ignore_errors=True)


@pytest.fixture
def toy_inputs(tmp_path: Path) -> Path:
    """Input folder for the toy pack: data with resolution 1.8, a model with R-free 0.40."""
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "data.dat").write_text("1.8\n")
    (folder / "start.model").write_text("0.40\n")
    return folder


def cli_command(*args: str) -> list[str]:
    """argv for the installed CLI in this interpreter's environment."""
    return [sys.executable, "-m", "agentcycle.cli.main", *args]


CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def render_in_chromium(page: Path, work: Path, size: str = "1000,1400") -> tuple[Path, str]:
    """Headless Debian chromium (installed by `make test`): a screenshot and the DOM."""
    import subprocess

    chromium = shutil.which("chromium") or "chromium"
    shot = work / f"{page.stem}.png"
    subprocess.run(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={work / 'chromium-shot'}",
            f"--window-size={size}",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    dom = subprocess.run(
        [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={work / 'chromium-dom'}",
            "--dump-dom",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    return shot, dom


@contextlib.contextmanager
def served(argv: list[str], prefect_api: str, deployment: str) -> Iterator[None]:
    """A process that serves Prefect deployments, until `deployment` is registered."""
    import signal
    import subprocess
    import time

    from prefect.client.orchestration import get_client

    server = subprocess.Popen(
        argv,
        env={**os.environ, "PREFECT_API_URL": prefect_api},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        with get_client(sync_client=True) as client:
            while True:
                try:
                    if client.read_deployment_by_name(deployment).work_pool_name is None:
                        break  # the served one, not a work-pool deployment of that name
                except Exception:
                    assert time.monotonic() < deadline, f"{deployment} never appeared"
                    assert server.poll() is None, "the serving process exited"
                    time.sleep(1)
        yield
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)

"""A local Prefect server (SQLite under the agentcycle home), started on demand and reused.

Without it every Python process that runs a flow starts Prefect's own ephemeral server
(12–24 s cold on this kind of machine). One background server shared by every command
makes a flow run cost about a second and lets the user watch runs in the Prefect UI.
A user's own `PREFECT_API_URL` always wins.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from agentcycle.config import prefect_home
from agentcycle.errors import UserError

DEFAULT_PORT = 4200
START_TIMEOUT_S = 90.0
OWN_SERVER_CLIENT_SETTINGS = {
    "PREFECT_CLIENT_SERVER_VERSION_CHECK_ENABLED": "false",
    "PREFECT_CLIENT_CSRF_SUPPORT_ENABLED": "false",
}


@dataclass(frozen=True)
class ServerInfo:
    pid: int
    url: str  # the API URL, ending in /api
    log: str

    @property
    def ui_url(self) -> str:
        return self.url.removesuffix("/api")


def _state_file() -> Path:
    return prefect_home() / "server.json"


def prefect_environment() -> dict[str, str]:
    """Settings every Prefect client and server of ours shares."""
    home = prefect_home()
    return {
        "PREFECT_HOME": str(home),
        "PREFECT_LOCAL_STORAGE_PATH": str(home / "storage"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        # The client's own telemetry too (it prints a notice on a terminal's first run,
        # through the progress bar); set by default only, so a user's value wins.
        "DO_NOT_TRACK": "1",
        "PREFECT_SERVER_LOGGING_LEVEL": "WARNING",
        # The server records client-side task runs from events. One write per event
        # (the default) contends with the API on SQLite: creating a subflow then waits
        # ~2 s about every other cycle. Batched writes, flushed each second, do not.
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
    }


def healthy(url: str, timeout: float = 2.0) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def server_status() -> ServerInfo | None:
    """The running server we started, or None."""
    try:
        info = ServerInfo(**json.loads(_state_file().read_text()))
    except (FileNotFoundError, json.JSONDecodeError, TypeError):
        return None
    if _pid_alive(info.pid) and healthy(info.url):
        return info
    return None


def _free_port(preferred: int) -> int:
    for port in (preferred, 0):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return sock.getsockname()[1]
    raise UserError("no free TCP port for the Prefect server")


@contextlib.contextmanager
def _lock():
    """One starter at a time: two commands launched together share one server."""
    home = prefect_home()
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "server.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def start_server(port: int = DEFAULT_PORT) -> ServerInfo:
    """Start the server in the background (or return the running one) and wait until healthy."""
    with _lock():
        running = server_status()
        if running:
            return running
        port = _free_port(port)
        home = prefect_home()
        log_path = home / "server.log"
        env = {**os.environ, **prefect_environment()}
        env.pop("PREFECT_API_URL", None)
        with open(log_path, "ab") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "prefect",
                    "server",
                    "start",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        info = ServerInfo(pid=process.pid, url=f"http://127.0.0.1:{port}/api", log=str(log_path))
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise UserError(f"Prefect server exited at start; see {log_path}")
            if healthy(info.url, timeout=1.0):
                _state_file().write_text(json.dumps(asdict(info)))
                return info
            time.sleep(0.5)
        _terminate(process.pid)
        raise UserError(
            f"Prefect server did not answer within {START_TIMEOUT_S:.0f} s; see {log_path}"
        )


def _terminate(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGTERM)
    for _ in range(50):
        if not _pid_alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)


def stop_server() -> bool:
    """Stop our server; False when none was running."""
    with _lock():
        info = server_status()
        _state_file().unlink(missing_ok=True)
        if info is None:
            return False
        _terminate(info.pid)
        return True


def ensure_prefect_api() -> str:
    """Point this process's Prefect client at a server; call before importing prefect.

    Honour a user-set PREFECT_API_URL; otherwise reuse or start our local server.
    """
    for key, value in prefect_environment().items():
        os.environ.setdefault(key, value)
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    info = start_server()
    os.environ["PREFECT_API_URL"] = info.url
    # Our own server runs this very Prefect version without CSRF protection, so the
    # per-client version handshake and CSRF token fetch are round trips for nothing;
    # a subflow creates several clients per cycle.
    for key, value in OWN_SERVER_CLIENT_SETTINGS.items():
        os.environ.setdefault(key, value)
    return info.url

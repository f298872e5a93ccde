"""One local Prefect server per agentcycle home, started on demand and reused.

Without it every Python process that runs a flow starts Prefect's own ephemeral server
(12–24 s cold on this kind of machine). One background server shared by every command
makes a flow run cost about a second and lets the user watch runs in the Prefect UI.
A user's own `PREFECT_API_URL` always wins.

The server runs under a watcher (`agentcycle.server_watch`) that stops it when its home
is deleted or it has been idle for `AGENTCYCLE_SERVER_IDLE_MINUTES` (default 30, `0` =
never). Its port is remembered per home, its UI is pointed at its own API (else the UI
asks whatever runs on 4200), and `server.json` is written the moment the process exists,
so a command killed while the server boots leaves nothing `server stop` cannot see.
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
import warnings
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

import certifi

from agentcycle.config import home_dir, prefect_home
from agentcycle.errors import UserError
from agentcycle.processes import answers_ok, pid_alive
from agentcycle.server_watch import MODULE as WATCHER
from agentcycle.server_watch import WatchedServer, registry_dir, watched_servers

DEFAULT_PORT = 4200
START_TIMEOUT_S = 90.0
IDLE_ENV = "AGENTCYCLE_SERVER_IDLE_MINUTES"
DEFAULT_IDLE_MINUTES = 30.0
CA_FILE_ENV = "PREFECT_API_SSL_CERT_FILE"
LOOPBACK_CA = "loopback-ca.pem"  # our clients' one-root CA file, in the Prefect home
OWN_SERVER_CLIENT_SETTINGS = {
    "PREFECT_CLIENT_SERVER_VERSION_CHECK_ENABLED": "false",
    "PREFECT_CLIENT_CSRF_SUPPORT_ENABLED": "false",
}


@dataclass(frozen=True)
class ServerInfo:
    pid: int  # the watcher's pid, leader of the server's process group
    url: str  # the API URL, ending in /api
    log: str

    @property
    def ui_url(self) -> str:
        return self.url.removesuffix("/api")


def _state_file() -> Path:
    return prefect_home() / "server.json"


def _port_file() -> Path:
    return prefect_home() / "port"


DATABASE_SCHEMES = ("postgresql+asyncpg://", "sqlite+aiosqlite://")


def _database_file() -> Path:
    return prefect_home() / "database"


def check_database_url(url: str) -> str:
    """A SQLAlchemy URL Prefect's server can use, or a UserError naming the option."""
    if not url.startswith(DATABASE_SCHEMES) or any(c.isspace() for c in url):
        raise UserError(
            f"--database: {url.split('@')[-1]!r} is not a database URL Prefect can use "
            "(postgresql+asyncpg://USER:PASSWORD@HOST:PORT/DB or sqlite+aiosqlite:///PATH)"
        )
    return url


def remembered_database() -> str | None:
    """The database this home's server was started on, if not the default SQLite.

    Remembered so that a server restarted on demand (after an idle stop) comes back on
    the same database instead of a fresh SQLite one, which would hide every earlier run.
    """
    path = _database_file()
    return path.read_text().strip() or None if path.is_file() else None


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


def idle_minutes() -> float:
    """Minutes without clients after which our server stops (0 = never)."""
    raw = os.environ.get(IDLE_ENV, str(DEFAULT_IDLE_MINUTES))
    try:
        value = float(raw)
    except ValueError:
        raise UserError(f"{IDLE_ENV}: not a number of minutes: {raw!r}") from None
    if value < 0:
        raise UserError(f"{IDLE_ENV}: must be 0 (never) or more (got {raw})")
    return value


def healthy(url: str, timeout: float = 2.0) -> bool:
    return answers_ok(f"{url}/health", timeout)


def _recorded() -> ServerInfo | None:
    """The server.json of this home when its watcher process is still alive."""
    try:
        info = ServerInfo(**json.loads(_state_file().read_text()))
    except (FileNotFoundError, json.JSONDecodeError, TypeError):
        return None
    return info if pid_alive(info.pid) else None


def server_status() -> ServerInfo | None:
    """The running, healthy server of this home, or None."""
    info = _recorded()
    return info if info is not None and healthy(info.url) else None


def _port_free(port: int) -> bool:
    """Whether our server could listen on `port` (uvicorn binds with SO_REUSEADDR, so a
    port whose last connections linger in TIME_WAIT is free for it too)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _choose_port(requested: int | None) -> int:
    """The port remembered for this home; else 4200, else one derived from the home path.

    A port another home's watcher was started for counts as taken even before its server
    binds it: two homes starting at once would otherwise both pick a free 4200, and the
    loser would take the winner's server for its own.
    """
    claimed = {server.port for server in watched_servers()}
    candidates: list[int] = []
    if requested is not None:
        candidates.append(requested)
    with contextlib.suppress(OSError, ValueError):
        candidates.append(int(_port_file().read_text().strip()))
    stable = 4201 + zlib.crc32(str(home_dir()).encode()) % 800
    candidates += [DEFAULT_PORT, *range(stable, stable + 50)]
    for port in candidates:
        if 0 < port < 65536 and port not in claimed and _port_free(port):
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def locked_file(path: Path):
    """Exclusive lock on the file at `path` (released when the process dies too)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _lock():
    """One starter per home at a time: two commands launched together share one server."""
    return locked_file(prefect_home() / "server.lock")


def _port_lock():
    """One port chooser per user at a time, held from choosing a port until the watcher
    that claims it is in the process table (milliseconds), whatever the home."""
    return locked_file(registry_dir() / "ports.lock")


def _write_atomic(path: Path, text: str) -> None:
    temporary = path.with_suffix(f"{path.suffix}.{os.getpid()}.tmp")  # one per writer
    temporary.write_text(text)
    temporary.replace(path)


def _write_private(path: Path, text: str) -> None:
    """`_write_atomic` for a file with credentials: 0600 from its first byte."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(text)
    temporary.replace(path)


def _adopt_unrecorded() -> ServerInfo | None:
    """A watcher of this home that server.json lost (e.g. an older crash): adopt it."""
    home = str(home_dir())
    for server in watched_servers():
        if server.home == home:
            info = ServerInfo(server.pid, server.url, str(prefect_home() / "server.log"))
            _write_atomic(_state_file(), json.dumps(asdict(info)))
            return info
    return None


def _serves_this_home(url: str, timeout: float) -> bool:
    """Whether the server at `url` answers and is this home's, not another home's server
    that holds the port (ours then fails to bind and its watcher exits)."""
    try:
        with urllib.request.urlopen(f"{url}/admin/settings", timeout=timeout) as response:
            served = json.load(response).get("home")
    except (urllib.error.URLError, OSError, ValueError, AttributeError):
        return False
    return isinstance(served, str) and Path(served).resolve() == prefect_home().resolve()


def _wait_healthy(info: ServerInfo) -> ServerInfo:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if not pid_alive(info.pid):
            raise UserError(f"Prefect server exited at start; see {info.log}")
        # Health first (cheap); the settings are slow to answer the first time (~0.5 s,
        # seconds on a loaded machine), so they get a longer timeout.
        if healthy(info.url, timeout=1.0) and _serves_this_home(info.url, timeout=15.0):
            return info
        time.sleep(0.3)
    _terminate(info.pid)
    raise UserError(f"Prefect server did not answer within {START_TIMEOUT_S:.0f} s; see {info.log}")


def start_server(
    port: int | None = None, idle: float | None = None, database: str | None = None
) -> ServerInfo:
    """Start this home's server in the background (or return the running one), healthy.

    `database` (e.g. PostgreSQL, for many concurrent sessions) is remembered for the
    home; without it the server uses the remembered one, else SQLite under the home.
    """
    if database is not None:
        check_database_url(database)
    with _lock():
        running = _recorded() or _adopt_unrecorded()
        if running is not None:  # up, or still booting for a command that was killed
            return _wait_healthy(running)
        home = prefect_home()
        log_path = home / "server.log"
        env = {**os.environ, **prefect_environment()}
        env.pop("PREFECT_API_URL", None)
        if not _user_ca_file():  # a client setting of ours, maybe of another home
            env.pop(CA_FILE_ENV, None)
        if database is not None:
            _write_private(_database_file(), f"{database}\n")
        if database := database or remembered_database():
            env["PREFECT_API_DATABASE_CONNECTION_URL"] = database
        with _port_lock():
            port = _choose_port(port)
            url = f"http://127.0.0.1:{port}/api"
            env["PREFECT_UI_API_URL"] = url
            argv = [sys.executable, "-m", WATCHER, "--home", str(home_dir())]
            argv += ["--port", str(port), "--log", str(log_path)]
            argv += ["--idle-minutes", str(idle_minutes() if idle is None else idle)]
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                env=env,
            )
        info = ServerInfo(pid=process.pid, url=url, log=str(log_path))
        _write_atomic(_state_file(), json.dumps(asdict(info)))  # before waiting: see above
        _write_atomic(_port_file(), f"{port}\n")
        return _wait_healthy(info)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return pid_alive(pgid) or any(
        pid_alive(int(entry.name))
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and _pgid_of(int(entry.name)) == pgid
    )


def _pgid_of(pid: int) -> int | None:
    with contextlib.suppress(OSError):
        return os.getpgid(pid)
    return None


def _terminate(pid: int) -> None:
    """SIGTERM the process group (watcher, server and its workers), SIGKILL after 20 s;
    returns once the whole group is gone, so the port is free again."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    for _ in range(200):
        if not _group_alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def stop_server() -> bool:
    """Stop this home's server (booting or up); False when none was running."""
    with _lock():
        info = _recorded() or _adopt_unrecorded()
        _state_file().unlink(missing_ok=True)
        if info is None:
            return False
        _terminate(info.pid)
        return True


def all_servers() -> list[WatchedServer]:
    """Every agentcycle server of this user on the machine, whatever its home."""
    return watched_servers()


def stop_all_servers() -> list[WatchedServer]:
    """Stop every agentcycle server on the machine; returns the ones stopped."""
    servers = watched_servers()
    for server in servers:
        _terminate(server.pid)
    return servers


def apply_prefect_environment() -> None:
    """Our Prefect home and settings, unless the user set their own: before anything
    imports Prefect, which reads some of them only once.

    Prefect also tries to create its home when imported, and warns when the folder above
    it is missing (a fresh machine). Our home is made when our server first starts; a
    command refused for bad input must write nothing, so the warning is silenced instead.
    """
    for key, value in prefect_environment().items():
        os.environ.setdefault(key, value)
    warnings.filterwarnings("ignore", message="Failed to create the Prefect home directory")


def ensure_prefect_api() -> str:
    """Point this process's Prefect client at a server; call before importing prefect.

    Honour a user-set PREFECT_API_URL; otherwise reuse or start our local server.
    """
    apply_prefect_environment()
    if os.environ.get("PREFECT_API_URL"):
        return os.environ["PREFECT_API_URL"]
    info = start_server()
    os.environ["PREFECT_API_URL"] = info.url
    # Our own server runs this very Prefect version without CSRF protection, so the
    # per-client version handshake and CSRF token fetch are round trips for nothing;
    # a subflow creates several clients per cycle.
    for key, value in OWN_SERVER_CLIENT_SETTINGS.items():
        os.environ.setdefault(key, value)
    # Ours is replaced (a process may move to another home, and the old one may be gone);
    # a user's own CA file is kept.
    if not _user_ca_file():
        os.environ[CA_FILE_ENV] = str(_loopback_ca_file())
    _refresh_prefect_settings()
    return info.url


def _loopback_ca_file() -> Path:
    """A CA file of one root certificate for clients of our own plain-HTTP server.

    Prefect builds a TLS context for every client it makes, even for an http:// URL,
    parsing certifi's whole bundle (~140 roots, ~20 ms of CPU); a subflow makes a new
    client for its parent task run, so every cycle paid it. Our server is never reached
    over TLS, so the bundle is never consulted: one root parses in under a millisecond.
    Should the same environment ever be pointed at an https server, verification fails
    closed (one unrelated root), it never passes unchecked.
    """
    path = prefect_home() / LOOPBACK_CA
    if not path.is_file():
        end = "-----END CERTIFICATE-----"
        bundle = Path(certifi.where()).read_text()
        _write_atomic(path, bundle[: bundle.index(end) + len(end)] + "\n")
    return path


def _user_ca_file() -> str | None:
    """PREFECT_API_SSL_CERT_FILE when the user set it, not when it is one of ours."""
    value = os.environ.get(CA_FILE_ENV)
    return value if value and Path(value).name != LOOPBACK_CA else None


def _refresh_prefect_settings() -> None:
    """Prefect reads its settings once, when it is imported. If something imported it
    before the API URL was set, its clients would start a throwaway temporary server
    instead of using ours (`serve` did): make it read the environment again."""
    context = sys.modules.get("prefect.context")
    refresh = getattr(context, "refresh_global_settings_context", None)
    if refresh is not None:
        refresh()

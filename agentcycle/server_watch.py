"""The process that owns one home's Prefect server: starts it, watches it, stops it.

`agentcycle.server` launches this module in its own session; it runs Prefect's server
(`agentcycle.prefect_app`) as a child and stops it (and itself) when

- the home's Prefect folder is deleted (checked every few seconds, so a deleted home's
  server is gone within a minute instead of living on as an orphan nobody can reach),
- nothing has talked to the server for the idle time (`0` = never), judged from the
  TCP connections to its port (clients, a serving process, an open UI all hold or
  churn connections), or
- it receives SIGTERM (`agentcycle server stop`).

Its argv names the home and port, so `agentcycle server status --all` finds every
server on the machine from the process table; the idle time it last saw is written to
a small per-user registry file next to it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from agentcycle.prefect_app import MODULE as PREFECT_APP

MODULE = "agentcycle.server_watch"
POLL_S = 3.0
# TCP state in /proc/net/tcp that means a client is talking to the server: ESTABLISHED.
# (TIME_WAIT would keep a server "busy" for a minute after every health check; running
# flows, serving processes and an open UI keep connections established or reopen them.)
ACTIVE_STATES = {"01"}


@dataclass(frozen=True)
class WatchedServer:
    """One agentcycle server found in the process table."""

    pid: int
    home: str
    port: int
    idle_s: float | None  # None while the watcher has not reported yet

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"


def registry_dir() -> Path:
    """Per-user folder with one JSON file per running watcher (its last seen activity)."""
    return Path(tempfile.gettempdir()) / f"agentcycle-servers-{os.getuid()}"


def _cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def _argv_value(argv: list[str], flag: str) -> str | None:
    with contextlib.suppress(ValueError, IndexError):
        return argv[argv.index(flag) + 1]
    return None


def watched_servers() -> list[WatchedServer]:
    """Every watcher process of this user on the machine, found from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        argv = _cmdline(int(entry.name))
        if MODULE not in argv or "-m" not in argv:
            continue
        try:
            if entry.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue
        home, port = _argv_value(argv, "--home"), _argv_value(argv, "--port")
        if home is None or port is None or not port.isdigit():
            continue
        found.append(
            WatchedServer(int(entry.name), home, int(port), _reported_idle(int(entry.name)))
        )
    return sorted(found, key=lambda server: server.pid)


def _reported_idle(pid: int) -> float | None:
    try:
        report = json.loads((registry_dir() / f"{pid}.json").read_text())
        return max(0.0, time.time() - float(report["last_active"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _port_in_use(port: int) -> bool:
    """True when some connection to or from `port` is open or closed lately."""
    hex_port = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 3 and fields[1].endswith(hex_port) and fields[3] in ACTIVE_STATES:
                return True
    return False


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=2) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def _write_report(last_active: float, home: str, port: int) -> None:
    folder = registry_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{os.getpid()}.json"
    temporary = target.with_suffix(".tmp")
    temporary.write_text(json.dumps({"home": home, "port": port, "last_active": last_active}))
    temporary.replace(target)


def _stop_child(child: subprocess.Popen) -> None:
    if child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(timeout=15)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait(timeout=15)


def watch(home: Path, port: int, idle_s: float, log: Path) -> str:
    """Run the server until one of the stop conditions; returns why it stopped."""
    prefect_dir = home / "prefect"
    argv = [sys.executable, "-m", PREFECT_APP, "--host", "127.0.0.1", "--port", str(port)]
    with open(log, "ab") as output:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    last_active = time.time()
    up = False  # idle time counts from the moment the server first answers
    reason = "server exited"
    try:
        while child.poll() is None:
            if not prefect_dir.is_dir():
                reason = f"home deleted: {home}"
                break
            now = time.time()
            if not up:
                up = _answers(port)
                last_active = now
            elif _port_in_use(port):
                last_active = now
            elif idle_s > 0 and now - last_active > idle_s:
                reason = f"idle for {idle_s:.0f} s"
                break
            with contextlib.suppress(OSError):
                _write_report(last_active, str(home), port)
            time.sleep(POLL_S)
    finally:
        _stop_child(child)
        (registry_dir() / f"{os.getpid()}.json").unlink(missing_ok=True)
        _forget_state(prefect_dir)
    return reason


def _forget_state(prefect_dir: Path) -> None:
    """Remove the home's server.json when it still names this watcher."""
    state = prefect_dir / "server.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        if json.loads(state.read_text())["pid"] == os.getpid():
            state.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(prog=MODULE, description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--idle-minutes", type=float, default=30.0)
    parser.add_argument("--log", type=Path, required=True)
    args = parser.parse_args()

    def _terminated(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _terminated)
    signal.signal(signal.SIGHUP, _terminated)
    reason = watch(args.home, args.port, args.idle_minutes * 60, args.log)
    with contextlib.suppress(OSError), open(args.log, "a") as output:
        output.write(f"agentcycle server watcher: stopped ({reason})\n")


if __name__ == "__main__":
    main()

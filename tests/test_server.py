"""The local Prefect server as a user meets it: one per home, a remembered port, a UI that
talks to its own API, no orphans (killed starters, deleted homes, idle servers).

Each test gets a home of its own (not the session's shared server), so starting,
killing and deleting servers here never disturbs the other tests.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHROMIUM_FLAGS, TOY_PACK, cli_command
from loopback import reply_json, serving


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    return env | {"AGENTCYCLE_HOME": str(home)}


def _watchers(home: Path) -> list[int]:
    from agentcycle.server_watch import watched_servers

    return [s.pid for s in watched_servers() if s.home == str(home.resolve())]


def _wait(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s: {what}"
        time.sleep(0.5)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh agentcycle home whose server (if any) is stopped afterwards."""
    path = (tmp_path / "home").resolve()
    monkeypatch.setenv("AGENTCYCLE_HOME", str(path))
    yield path
    from agentcycle.server import stop_server

    if path.exists():
        stop_server()
    for pid in _watchers(path):  # belt and braces: never leave one behind
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


@pytest.mark.slow
def test_killed_starter_one_server_remembered_port_deleted_home(home: Path) -> None:
    from agentcycle.server import server_status, start_server, stop_server

    starter = subprocess.Popen(
        cli_command("server", "start", "--idle-minutes", "0"),
        env=_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    state = home / "prefect" / "server.json"
    _wait(lambda: state.exists(), 60, "server.json written while the server boots")
    starter.kill()  # killed in its first seconds, before the server answers
    starter.wait(timeout=30)
    booting = json.loads(state.read_text())
    assert _watchers(home) == [booting["pid"]]

    info = start_server()  # waits for that very server: never a second one on this database
    assert info.pid == booting["pid"] and _watchers(home) == [info.pid]
    with urllib.request.urlopen(f"{info.ui_url}/ui-settings", timeout=10) as response:
        assert json.load(response)["api_url"] == info.url  # the UI asks its own API

    listed = subprocess.run(
        cli_command("server", "status", "--all"), env=_env(home), capture_output=True, text=True,
        timeout=60,
    )
    row = next(line for line in listed.stdout.splitlines() if line.endswith(str(home)))
    assert str(info.pid) in row.split() and info.url.split(":")[-1].split("/")[0] in row.split()
    exported = subprocess.run(
        cli_command("server", "env"), env=_env(home), capture_output=True, text=True, timeout=60
    )
    assert exported.stdout.strip() == f"export PREFECT_API_URL={info.url}"

    assert stop_server() and server_status() is None and _watchers(home) == []
    again = start_server(idle=0)
    assert again.url == info.url and again.pid != info.pid  # the port is remembered

    shutil.rmtree(home)
    started = time.monotonic()
    _wait(lambda: not _watchers(home), 60, "the deleted home's server stops itself")
    _wait(lambda: not _port_open(again.url), 30, "its port is closed")
    print(f"deleted home: server gone after {time.monotonic() - started:.1f} s")


def _port_open(url: str) -> bool:
    from agentcycle.server import healthy

    return healthy(url, timeout=1.0)


@pytest.mark.slow
def test_idle_server_stops_itself(home: Path) -> None:
    from agentcycle.server import server_status, start_server

    info = start_server(idle=0.05)  # 3 s without a client
    _wait(lambda: not _watchers(home), 60, "the idle server stops itself")
    assert server_status() is None and not (home / "prefect" / "server.json").exists()
    assert "idle for" in Path(info.log).read_text()


@pytest.mark.slow
def test_two_homes_starting_at_once_each_get_their_own_server(
    home: Path, tmp_path: Path
) -> None:
    """The first home's watcher claims its port seconds before its server binds it; a
    second home starting meanwhile must pick another port and never take the first
    home's server for its own (xdist workers, each with a home, start together)."""
    from agentcycle.server import _serves_this_home, start_server, stop_server

    first = (tmp_path / "first-home").resolve()
    starter = subprocess.Popen(
        cli_command("server", "start", "--idle-minutes", "0"),
        env=_env(first), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        state = first / "prefect" / "server.json"
        _wait(state.exists, 60, "the first home's server.json")
        claimed = json.loads(state.read_text())["url"]
        assert not _port_open(claimed), "the first server bound its port before the check"

        second = start_server(idle=0)  # home: the fixture's
        assert second.url != claimed and _serves_this_home(second.url, 15)
        assert starter.wait(timeout=120) == 0
        assert _port_open(claimed) and not _serves_this_home(claimed, 15)
    finally:
        starter.kill()
        with contextlib.suppress(FileNotFoundError):
            subprocess.run(
                cli_command("server", "stop"), env=_env(first), timeout=60,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
    assert stop_server()


def test_another_homes_server_on_our_port_is_never_taken_for_ours(
    prefect_api: str, home: Path
) -> None:
    """Our watcher's server cannot bind a port another home's server holds; waiting for
    "healthy" must not accept that other server: the start fails with the log to read."""
    from agentcycle.errors import UserError
    from agentcycle.server import ServerInfo, _wait_healthy

    short_lived = subprocess.Popen(["sleep", "3"])  # stands for our exiting watcher
    log = str(home / "prefect" / "server.log")
    with pytest.raises(UserError, match="exited at start"):
        _wait_healthy(ServerInfo(pid=short_lived.pid, url=prefect_api, log=log))


class _StandIn(http.server.BaseHTTPRequestHandler):
    """Stand-in for someone else's Prefect server on 4200: answers every request."""

    def do_GET(self) -> None:
        reply_json(self, {"api_url": "http://127.0.0.1:4200/api"})

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def _something_on_4200() -> Iterator[None]:
    from agentcycle.server import _port_free

    if not _port_free(4200):
        yield  # another server already holds it
        return
    with serving(http.server.ThreadingHTTPServer(("127.0.0.1", 4200), _StandIn)):
        yield


def _chromium(url: str, work: Path, shot: Path | None = None) -> str:
    """The DOM (or a screenshot) of a page once its scripts have run (virtual time)."""
    chromium = shutil.which("chromium") or "chromium"
    argv = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={work}", "--window-size=1400,1000"]
    argv.append("--virtual-time-budget=40000")
    argv += [f"--screenshot={shot}"] if shot else ["--dump-dom"]
    done = subprocess.run(
        [*argv, url], capture_output=True, text=True, timeout=180, check=True
    )
    return done.stdout


def _page_showing(url: str, work: Path, needles: list[str], attempts: int = 3) -> str:
    """The page's DOM once it shows every needle: on a loaded machine the UI's data
    requests can still be in flight when Chromium dumps the DOM, leaving the app shell."""
    for attempt in range(attempts):
        dom = _chromium(url, work / f"try-{attempt}")
        if all(needle in dom for needle in needles):
            break
    return dom


@pytest.mark.slow
def test_our_ui_shows_our_runs_with_another_server_on_4200(
    home: Path, tmp_path: Path, toy_inputs: Path
) -> None:
    from agentcycle.server import start_server

    with _something_on_4200():
        info = start_server(idle=0)
        assert not info.url.startswith("http://127.0.0.1:4200/")
        session = tmp_path / "session"
        argv = cli_command("run", str(TOY_PACK), str(toy_inputs), "--max-cycles", "2")
        argv += ["--session", str(session), "--verbosity", "quiet"]
        done = subprocess.run(argv, env=_env(home), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        session_id = json.loads((session / "session.json").read_text())["session_id"]

        names = [f"session-{session_id}", f"{session_id}-cycle-01-inspect"]
        runs = _page_showing(f"{info.ui_url}/runs", tmp_path / "chromium-runs", names)
        for name in names:
            assert name in runs, f"{name} not on our UI's runs page"
        keys = [f"{session_id}-cycle-01", f"{session_id}-cycle-02", f"{session_id}-summary"]
        artifacts = _page_showing(f"{info.ui_url}/artifacts", tmp_path / "chromium-art", keys)
        for key in keys:
            assert key in artifacts, f"artifact {key} not on our UI's artifacts page"
        shot = tmp_path / "runs.png"
        _chromium(f"{info.ui_url}/runs", tmp_path / "chromium-shot", shot)
        assert shot.stat().st_size > 10_000

        names = _task_run_names(info.url, session_id)
        assert names and not [n for n in names if re.fullmatch(r"[a-z_]+-[0-9a-f]{3}", n)]
        assert "decide-cycle-01" in names and "record-cycle-02" in names


def _task_run_names(api: str, session_id: str) -> list[str]:
    """Task runs of the session's flow runs, read over our server's REST API."""
    def post(path: str, body: dict) -> list[dict]:
        request = urllib.request.Request(
            f"{api}{path}", data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"}, method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    flow_runs = post("/flow_runs/filter", {"flow_runs": {"name": {"like_": session_id}}})
    ids = [run["id"] for run in flow_runs]
    tasks = post("/task_runs/filter", {"flow_runs": {"id": {"any_": ids}}, "limit": 200})
    return [run["name"] for run in tasks]


def test_missing_program_stops_the_session_with_exit_2(
    prefect_api: str, tmp_path: Path, toy_inputs: Path
) -> None:
    import yaml

    pack = tmp_path / "toy"
    shutil.copytree(TOY_PACK, pack)
    programs = yaml.safe_load((pack / "programs.yaml").read_text())
    first = next(iter(programs["programs"].values()))
    first["command"][0] = "agentcycle-no-such-program"
    (pack / "programs.yaml").write_text(yaml.safe_dump(programs, sort_keys=False))
    done = subprocess.run(
        cli_command("run", str(pack), str(toy_inputs), "--session", str(tmp_path / "s")),
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: agentcycle-no-such-program not found: install it or put it on PATH"
    )

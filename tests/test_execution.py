"""Programs run as argv lists in their own process group, with a timeout that kills the group."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from agentcycle.agent.program.execution import run_argv

CHILD_PID_SCRIPT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])
print(child.pid, flush=True)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it is dead for our purposes.
    status = Path(f"/proc/{pid}/status")
    return status.exists() and "zombie" not in status.read_text()


def test_log_exit_code_and_no_shell(tmp_path: Path) -> None:
    result = run_argv(
        [
            sys.executable,
            "-c",
            "import sys; print(sys.argv[1:]); sys.exit(3)",
            "a; rm -rf /",
            "$HOME",
        ],
        tmp_path,
        tmp_path / "run.log",
        timeout_s=30,
    )
    assert result.exit_code == 3 and not result.timed_out
    # Shell metacharacters arrive as literal arguments.
    assert result.log_path.read_text().strip() == "['a; rm -rf /', '$HOME']"


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_argv(
        [sys.executable, "-c", CHILD_PID_SCRIPT], tmp_path, tmp_path / "run.log", timeout_s=2
    )
    assert result.timed_out
    assert time.monotonic() - started < 20
    child_pid = int(result.log_path.read_text().split()[0])
    deadline = time.monotonic() + 5
    while alive(child_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(child_pid), "the grandchild survived the timeout"
    assert "killed after 2 s timeout" in result.log_path.read_text()


def test_missing_executable_is_a_failed_run(tmp_path: Path) -> None:
    result = run_argv(["no-such-program-xyz"], tmp_path, tmp_path / "run.log", timeout_s=5)
    assert result.exit_code == 127
    assert "cannot start" in result.log_path.read_text()


def test_on_start_gets_the_group_id(tmp_path: Path) -> None:
    seen: list[int] = []
    run_argv(
        [sys.executable, "-c", "import os; print(os.getpgid(0))"],
        tmp_path,
        tmp_path / "run.log",
        timeout_s=10,
        on_start=seen.append,
    )
    assert seen and int((tmp_path / "run.log").read_text()) == seen[0]


SETSID_GRANDCHILD = """
import subprocess, sys, time
code = '''
import os, signal, time
os.setsid()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print(os.getpid(), flush=True)
time.sleep(120)
'''
subprocess.Popen([sys.executable, '-c', code], stdout=sys.stdout)
time.sleep(SLEEP)
"""


def _dies(pid: int) -> bool:
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)


def test_timeout_kills_a_setsid_grandchild_that_ignores_sigterm(tmp_path: Path) -> None:
    script = SETSID_GRANDCHILD.replace("SLEEP", "120")
    result = run_argv([sys.executable, "-c", script], tmp_path, tmp_path / "run.log", timeout_s=2)
    assert result.timed_out
    assert _dies(int(result.log_path.read_text().split()[0])), "the setsid() grandchild survived"


def test_a_daemon_left_behind_by_a_finished_program_is_killed(tmp_path: Path) -> None:
    script = SETSID_GRANDCHILD.replace("SLEEP", "1")
    result = run_argv([sys.executable, "-c", script], tmp_path, tmp_path / "run.log", 30)
    assert not result.timed_out and result.exit_code == 0
    assert _dies(int(result.log_path.read_text().split()[0])), "a left-behind daemon survived"


def test_log_is_private(tmp_path: Path) -> None:
    result = run_argv([sys.executable, "-c", "print(1)"], tmp_path, tmp_path / "run.log", 10)
    assert result.log_path.stat().st_mode & 0o777 == 0o600

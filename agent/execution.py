"""Run one program: an argv list, its own process group, a hard timeout, a log file.

Never a shell. The child gets a new session (process group) so a timeout or a kill of
the agent can take down everything the program spawned, not just its first process.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

TERMINATE_GRACE_S = 5.0


@dataclass(frozen=True)
class ExecutionResult:
    exit_code: int
    duration_s: float
    timed_out: bool
    log_path: Path


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole group, then SIGKILL whatever is left after a grace period."""
    for sig, wait in ((signal.SIGTERM, TERMINATE_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=wait)
            if sig == signal.SIGTERM:
                # The leader exited; make sure no child in its group survives it.
                os.killpg(process.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def resolve_executable(name: str) -> str:
    """Find a program on PATH or beside the running interpreter.

    Programs installed with agentcycle (mmtbx.xtriage, servalcat, gemmi …) live in the
    virtual environment's bin/, which is not on PATH unless the venv is activated.
    """
    if os.sep in name:
        return name
    search = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return shutil.which(name, path=search) or name


def run_argv(
    argv: list[str],
    cwd: Path,
    log_path: Path,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
    on_start: Callable[[int], None] | None = None,
) -> ExecutionResult:
    """Run `argv` in `cwd`, stdout and stderr to `log_path`; kill the group on timeout.

    `on_start` receives the process-group id as soon as the program runs, so a caller
    can note it and reap the group if this process itself is killed.
    """
    if not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a non-empty list of strings")
    cwd.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    timed_out = False
    with open(log_path, "wb") as log:
        try:
            process = subprocess.Popen(  # argv list, never a shell
                [resolve_executable(argv[0]), *argv[1:]],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=dict(env) if env is not None else None,
            )
        except OSError as exc:
            log.write(f"agentcycle: cannot start {argv[0]!r}: {exc}\n".encode())
            return ExecutionResult(127, time.monotonic() - started, False, log_path)
        try:
            if on_start is not None:
                on_start(process.pid)
            exit_code = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(process)
            exit_code = process.returncode if process.returncode is not None else -9
            log.write(f"\nagentcycle: killed after {timeout_s:g} s timeout\n".encode())
        except BaseException:
            _kill_group(process)
            raise
    return ExecutionResult(exit_code, time.monotonic() - started, timed_out, log_path)


def kill_group(pgid: int) -> bool:
    """SIGKILL a process group left behind by a killed agent; False if it was gone."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    return True

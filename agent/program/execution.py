"""Run one program: an argv list, its own process group, a hard timeout, a log file.

Never a shell. The child gets a new session (process group), and every process it
spawns inherits a per-run token in its environment. A timeout (or a kill of the agent,
reaped on resume) takes down the whole tree: the group, every descendant found by a
process-tree walk, and any process carrying the token, so a grandchild that called
`setsid()`, ignores SIGTERM or was re-parented to init dies too.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import psutil

TERMINATE_GRACE_S = 5.0
RUN_TOKEN_VAR = "AGENTCYCLE_RUN_TOKEN"
LOG_MODE = 0o600


@dataclass(frozen=True)
class ExecutionResult:
    exit_code: int
    duration_s: float
    timed_out: bool
    log_path: Path


def new_run_token() -> str:
    return uuid.uuid4().hex


def _tree(pid: int | None, token: str | None) -> list[psutil.Process]:
    """Descendants of `pid` (not `pid` itself) and every process of ours carrying `token`."""
    found: dict[int, psutil.Process] = {}
    if pid is not None:
        with contextlib.suppress(psutil.Error):
            found.update((c.pid, c) for c in psutil.Process(pid).children(recursive=True))
    if token:
        me, uid = os.getpid(), os.getuid()
        for proc in psutil.process_iter():
            if proc.pid in found or proc.pid in (me, pid):
                continue
            try:
                if proc.uids().real == uid and proc.environ().get(RUN_TOKEN_VAR) == token:
                    found[proc.pid] = proc
            except psutil.Error:
                continue
    return list(found.values())


def _signal(pgid: int | None, procs: list[psutil.Process], sig: int) -> None:
    if pgid is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, sig)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)


def kill_tree(pgid: int | None, token: str | None) -> bool:
    """SIGKILL a process group and every process carrying `token`; True if any was there.

    No walk from the leader: it may be gone and its pid reused by a stranger.
    """
    procs = _tree(None, token)
    alive = bool(procs)
    if pgid is not None:
        try:
            os.killpg(pgid, 0)
            alive = True
        except (ProcessLookupError, PermissionError):
            pass
    _signal(pgid, procs, signal.SIGKILL)
    psutil.wait_procs(procs, timeout=2)
    return alive


def _kill_run(process: subprocess.Popen[bytes], token: str) -> None:
    """The whole run: SIGTERM, a grace period, then SIGKILL to everything still there.

    The leader is waited on through `process` (it is our child: psutil must not reap it
    behind subprocess's back); the rest through psutil.
    """
    procs = _tree(process.pid, token)
    _signal(process.pid, procs, signal.SIGTERM)
    deadline = time.monotonic() + TERMINATE_GRACE_S
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=TERMINATE_GRACE_S)
    _, alive = psutil.wait_procs(procs, timeout=max(0.0, deadline - time.monotonic()))
    late = [p for p in _tree(process.pid if process.returncode is None else None, token)
            if p not in alive]
    _signal(process.pid, alive + late, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
        process.wait(timeout=5)
    psutil.wait_procs(alive + late, timeout=2)


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
    run_token: str | None = None,
) -> ExecutionResult:
    """Run `argv` in `cwd`, stdout and stderr to `log_path`; kill the tree on timeout.

    `on_start` receives the process-group id as soon as the program runs, so a caller
    can note it (with `run_token`) and reap the tree if this process itself is killed.
    Whatever the program left running when it exits is killed as well.
    """
    if not argv or not all(isinstance(a, str) for a in argv):
        raise ValueError("argv must be a non-empty list of strings")
    cwd.mkdir(parents=True, exist_ok=True)
    token = run_token or new_run_token()
    child_env = {**(env if env is not None else os.environ), RUN_TOKEN_VAR: token}
    started = time.monotonic()
    timed_out = False
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, LOG_MODE)
    with os.fdopen(log_fd, "wb") as log:
        try:
            process = subprocess.Popen(  # argv list, never a shell
                [resolve_executable(argv[0]), *argv[1:]],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=child_env,
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
            _kill_run(process, token)
            exit_code = process.returncode if process.returncode is not None else -9
            log.write(f"\nagentcycle: killed after {timeout_s:g} s timeout\n".encode())
        except BaseException:
            _kill_run(process, token)
            raise
        else:
            kill_tree(process.pid, token)  # daemons the program left behind
    return ExecutionResult(exit_code, time.monotonic() - started, timed_out, log_path)


def kill_group(pgid: int, token: str | None = None) -> bool:
    """SIGKILL a run left behind by a killed agent (its group and token); False if gone."""
    return kill_tree(pgid, token)

"""Small facts about local background servers: is a process alive, does a URL answer.

The Prefect server and the local model server are both detached processes that later
commands find again from a state file; both need the same two questions answered the
same way (a zombie counts as gone, an unreachable URL as not ready).
"""

from __future__ import annotations

import contextlib
import os
import urllib.error
import urllib.request
from pathlib import Path


def pid_alive(pid: int) -> bool:
    """True for a running process; a zombie (exited, not reaped) is not, and one that is
    our own child is reaped on the way."""
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True  # no /proc here: trust the signal
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def answers_ok(url: str, timeout: float = 2.0) -> bool:
    """True when `GET url` answers 200 within `timeout` seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False

"""Scenario replay: play recorded program runs instead of running the programs.

A scenario folder holds the session's input files and, per program, one recording per
run: `runs/<program>/<n>/` (n = 1, 2, ... for the program's n-th run) containing the
program's log as `program.log`, any output files, and optionally `exit_code` (a number;
0 when absent). Decisions, log parsing, best files and stop rules all run for real on
the recordings, so workflow behaviour can be tested without the programs installed.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from agentcycle.agent.execution import ExecutionResult

LOG_NAME = "program.log"
EXIT_CODE_FILE = "exit_code"


def recording_dir(scenario: Path, program: str, run_number: int) -> Path:
    return scenario / "runs" / program / str(run_number)


def replay_run(scenario: Path, program: str, run_number: int, run_dir: Path) -> ExecutionResult:
    """Copy the recording of `program`'s `run_number`-th run into `run_dir`."""
    started = time.monotonic()
    run_dir.mkdir(parents=True, exist_ok=True)
    log_path = run_dir / LOG_NAME
    source = recording_dir(scenario, program, run_number)
    if not source.is_dir():
        log_path.write_text(f"agentcycle replay: no recording {source}\n")
        return ExecutionResult(127, time.monotonic() - started, False, log_path)
    for item in source.iterdir():
        if item.name == EXIT_CODE_FILE:
            continue
        target = run_dir / item.name
        if item.is_dir():
            shutil.copytree(item, target)
        else:
            shutil.copy2(item, target)
    exit_file = source / EXIT_CODE_FILE
    exit_code = int(exit_file.read_text().strip()) if exit_file.is_file() else 0
    if not log_path.exists():
        log_path.write_text("")
    return ExecutionResult(exit_code, time.monotonic() - started, False, log_path)

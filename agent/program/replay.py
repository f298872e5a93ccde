"""Scenario replay: play recorded program runs instead of running the programs.

A scenario folder holds the session's input files and, per program, one recording per
run: `runs/<program>/<n>/` (n = 1, 2, ... for the program's n-th run) containing the
program's log as `program.log`, any output files, and optionally `exit_code` (a number;
0 when absent). A real log that must not be copied into the project is named instead:
`program.log.shared` holds its path relative to the shared data folder
(`$AGENTCYCLE_SHARED`, else a `shared/` folder beside the project or one of its
parents), and is copied in at replay. Decisions, log parsing, best files and stop rules
all run for real on the recordings, so workflow behaviour can be tested without the
programs installed.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from agentcycle.agent.program.execution import ExecutionResult
from agentcycle.agent.program.state import LOG_NAME

EXIT_CODE_FILE = "exit_code"
SHARED_LOG_FILE = "program.log.shared"
SHARED_ENV = "AGENTCYCLE_SHARED"


def shared_file(scenario: Path, relative: str) -> Path | None:
    """A file of the shared data folder, found from the scenario's location."""
    if os.environ.get(SHARED_ENV):
        roots = [Path(os.environ[SHARED_ENV])]
    else:
        roots = [parent / "shared" for parent in Path(scenario).resolve().parents]
    return next((root / relative for root in roots if (root / relative).is_file()), None)


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
        if item.name in (EXIT_CODE_FILE, SHARED_LOG_FILE):
            continue
        target = run_dir / item.name
        if item.is_dir():
            shutil.copytree(item, target)
        else:
            shutil.copy2(item, target)
    named = source / SHARED_LOG_FILE
    if named.is_file():
        relative = named.read_text().strip()
        found = shared_file(scenario, relative)
        if found is None:
            log_path.write_text(f"agentcycle replay: shared log {relative} not found\n")
            return ExecutionResult(127, time.monotonic() - started, False, log_path)
        shutil.copyfile(found, log_path)
    exit_file = source / EXIT_CODE_FILE
    exit_code = int(exit_file.read_text().strip()) if exit_file.is_file() else 0
    if not log_path.exists():
        log_path.write_text("")
    return ExecutionResult(exit_code, time.monotonic() - started, False, log_path)

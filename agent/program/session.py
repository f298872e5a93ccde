"""Session lifecycle as plain functions: create, decide, run (records: record.py).

The Prefect tasks in `tasks/` are thin wrappers around these, and the benchmark runs
them bare to measure what orchestration costs. Inputs are copied into the session
directory so that every path a command sees lies inside the session.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcycle.agent.program.advice import gather_advice
from agentcycle.agent.program.best_files import declared_category, rebuild_best_files, update_locks
from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.directives import extract_directives
from agentcycle.agent.program.execution import (
    ExecutionResult,
    kill_group,
    new_run_token,
    run_argv,
)
from agentcycle.agent.program.experience import Experience
from agentcycle.agent.program.files import categorise
from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.intake import DIR_MODE, copy_input, scan_inputs
from agentcycle.agent.program.outcomes import SessionStatus
from agentcycle.agent.program.replay import replay_run
from agentcycle.agent.program.state import (
    LOG_NAME,
    SessionState,
    load_session,
    save_session,
    write_atomic,
)
from agentcycle.errors import UserError
from agentcycle.knowledge import Pack, load_pack

INPUTS_DIR = "inputs"
RUNNING_FILE = ".running.json"
SAFE_NAME = re.compile(r"[^A-Za-z0-9_.-]+")


def new_session_id(pack: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return f"{pack}-{stamp}-{uuid.uuid4().hex[:6]}"


def create_session(
    pack: Pack,
    pack_ref: str,
    input_dir: Path,
    session_dir: Path,
    goal: str = "",
    max_cycles: int = 20,
    session_id: str | None = None,
    replay_dir: Path | None = None,
) -> SessionState:
    """Check the request, copy the inputs in, write the first session.json.

    Everything is checked before anything is written, so bad input leaves no session.
    """
    if max_cycles < 1:
        raise UserError(f"--max-cycles: must be at least 1 (got {max_cycles})")
    accepted = scan_inputs(input_dir)
    if not accepted:
        raise UserError(f"{input_dir}: no input files")
    check_session_target(session_dir, input_dir)
    advice = gather_advice(goal, input_dir)
    staging = session_dir.with_name(f".{session_dir.name}.creating")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir(parents=True, mode=DIR_MODE)
        (staging / INPUTS_DIR).mkdir(mode=DIR_MODE)
        inputs = [copy_input(item, staging / INPUTS_DIR) for item in accepted]
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    state = SessionState(
        session_id=session_id or new_session_id(pack.name),
        pack=pack_ref,
        workflow=detect_workflow(pack, inputs),
        input_dir=str(input_dir.resolve()),
        inputs=[f"{INPUTS_DIR}/{p.name}" for p in inputs],
        input_names={
            f"{INPUTS_DIR}/{i.safe_name}": i.original_name
            for i in accepted
            if i.safe_name != i.original_name
        },
        goal=goal,
        directives=extract_directives(advice.text, program_aliases(pack)),
        advice_digest=advice.digest,
        advice_removed=list(advice.removed),
        max_cycles=max_cycles,
        replay_dir=str(replay_dir.resolve()) if replay_dir else None,
    )
    update_locks(state, pack, staging)
    state.best_files = rebuild_best_files(state, pack, staging)
    save_session(staging, state)
    if session_dir.exists() and not any(session_dir.iterdir()):
        session_dir.rmdir()
    session_dir.parent.mkdir(parents=True, exist_ok=True)
    staging.rename(session_dir)
    return state


def check_session_target(session_dir: Path, input_dir: Path) -> None:
    """The session folder must be new or empty, and not inside the user's input folder."""
    if (session_dir / "session.json").exists():
        raise UserError(f"{session_dir}: a session already exists here (use `agentcycle resume`)")
    if session_dir.exists() and not session_dir.is_dir():
        raise UserError(f"{session_dir}: --session: exists and is not a folder")
    if session_dir.is_dir() and any(session_dir.iterdir()):
        raise UserError(f"{session_dir}: --session: folder is not empty")
    if session_dir.resolve().is_relative_to(input_dir.resolve()):
        raise UserError(f"{session_dir}: --session: must not lie inside the input folder")
    for parent in session_dir.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UserError(f"{parent}: --session: a parent of the session is not a folder")
            break


def program_aliases(pack: Pack) -> dict[str, list[str]]:
    return {name: spec.aliases for name, spec in pack.programs.items()}


def refresh_advice(session_dir: Path, new_goal: str | None = None) -> tuple[SessionState, bool]:
    """On resume: gather advice again (new --goal, edited README); if it changed, extract
    directives again and, for a finished session, reopen it for one stepped-back cycle."""
    state = load_session(session_dir)
    goal = state.goal if new_goal is None else new_goal
    source = Path(state.input_dir)
    advice = gather_advice(goal, source if source.is_dir() else session_dir / INPUTS_DIR)
    if advice.digest == state.advice_digest:
        return state, False
    pack = load_pack(state.pack)
    state.goal = goal
    state.directives = extract_directives(advice.text, program_aliases(pack))
    state.advice_digest = advice.digest
    state.advice_removed = list(advice.removed)
    if state.finished:
        if state.cycles and state.cycles[-1].program == "STOP":
            state.cycles.pop()
        state.status, state.stop_reason = SessionStatus.RUNNING, None
        state.advice_changed = True
    save_session(session_dir, state)
    return state, True


def raise_max_cycles(session_dir: Path, max_cycles: int) -> SessionState:
    """Allow more cycles; a session that stopped at its old limit becomes resumable."""
    state = load_session(session_dir)
    if max_cycles <= len([c for c in state.cycles if c.program != "STOP"]):
        raise UserError(f"--max-cycles: {max_cycles} is not above the cycles already run")
    state.max_cycles = max_cycles
    if state.status == SessionStatus.MAX_CYCLES:
        if state.cycles and state.cycles[-1].program == "STOP":
            state.cycles.pop()
        state.status, state.stop_reason = SessionStatus.RUNNING, None
    save_session(session_dir, state)
    return state


def detect_workflow(pack: Pack, inputs: list[Path]) -> str:
    """The experiment type from the inputs: the first workflow whose `detect_categories`
    match an input file; the pack's default when none (or none declares any) does."""
    present = {c for path in inputs for c in categorise(path, pack.file_categories)}
    for name, workflow in pack.workflows.items():
        if set(workflow.detect_categories) & present:
            return name
    return pack.default_workflow


def run_dir_name(cycle: int, program: str) -> str:
    return f"sub_{cycle:02d}_{SAFE_NAME.sub('_', program)}"


@dataclass(frozen=True)
class SessionFiles:
    """Files a decision may use: newest first, with categories declared by program outputs."""

    files: list[Path]
    output_categories: dict[Path, str]


def session_files(session_dir: Path, state: SessionState, pack: Pack) -> SessionFiles:
    files: list[Path] = []
    categories: dict[Path, str] = {}
    for record in reversed(state.cycles):
        if not record.succeeded:
            continue
        for rel in record.outputs:
            path = session_dir / rel
            if not path.is_file():
                continue
            files.append(path)
            declared = declared_category(pack, record.program, path)
            if declared:
                categories[path] = declared
    files.extend(session_dir / rel for rel in state.inputs)
    return SessionFiles(files=files, output_categories=categories)


def decide_next(
    session_dir: Path,
    environ: Mapping[str, str] | None = None,
    experience: Experience | None = None,
) -> tuple[SessionState, Decision]:
    """Load the session and ask the graph what cycle `next_cycle` should run
    (with what the retrieve task found, when it ran)."""
    state = load_session(session_dir)
    pack = load_pack(state.pack)
    inputs = decision_inputs(session_dir, state, pack, environ)
    return state, decide(**inputs, experience=experience, llm=state.llm)


def decision_inputs(
    session_dir: Path, state: SessionState, pack: Pack, environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The arguments of `decide` for the session's next cycle; the decision service's
    client serialises exactly these, so a remote decision sees what a local one sees."""
    found = session_files(session_dir, state, pack)
    return dict(
        pack=pack,
        workflow=state.workflow,
        cycles=state.cycles,
        files=found.files,
        cycle=state.next_cycle,
        max_cycles=state.max_cycles,
        best_files={k: str(session_dir / v) for k, v in state.best_files.items()},
        output_categories=found.output_categories,
        environ=environ,
        directives=state.directives,
        goal=state.goal,
        session_dir=session_dir,
        advice_changed=state.advice_changed,
        blacklist=state.blacklist,
        recoveries=state.recoveries,
        locked_files={k: str(session_dir / v) for k, v in state.locked_files.items()},
    )


def execute(
    session_dir: Path,
    cycle: int,
    decision: Decision,
    timeout_s: float,
    environ: Mapping[str, str] | None = None,
) -> ExecutionResult:
    """Run a decision in a fresh `sub_NN_program/`; a leftover of a killed run is cleared.

    A session made for a scenario replays the program's recorded run instead.
    """
    reap_orphans(session_dir)
    run_dir = session_dir / run_dir_name(cycle, decision.program)
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, mode=0o700)
    state = load_session(session_dir)
    if state.replay_dir:
        runs_before = sum(1 for c in state.cycles if c.program == decision.program)
        return replay_run(Path(state.replay_dir), decision.program, runs_before + 1, run_dir)
    marker = session_dir / RUNNING_FILE
    token = new_run_token()

    def note_running(pgid: int) -> None:
        write_atomic(marker, json.dumps(
            {"pgid": pgid, "token": token, "cycle": cycle, "program": decision.program}
        ))

    try:
        return run_argv(
            decision.argv, run_dir, run_dir / LOG_NAME, timeout_s, environ,
            on_start=note_running, run_token=token,
        )
    finally:
        marker.unlink(missing_ok=True)


def reap_orphans(session_dir: Path) -> str | None:
    """Kill the program group of a cycle whose agent was killed mid-run, before rerunning it."""
    marker = session_dir / RUNNING_FILE
    try:
        running = json.loads(marker.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    killed = kill_group(int(running["pgid"]), running.get("token"))
    marker.unlink(missing_ok=True)
    return f"cycle {running['cycle']} ({running['program']}) was interrupted" + (
        "; its leftover processes were killed" if killed else ""
    )


def prune_session(session_dir: Path, last: int) -> SessionState:
    """Drop the last `last` cycles: their run folders move to `pruned/`, best files and
    locks are rebuilt from what is left, and a finished session becomes resumable."""
    state = load_session(session_dir)
    if last < 1 or last > len(state.cycles):
        raise UserError(f"--last: must be between 1 and {len(state.cycles)} (got {last})")
    pack = load_pack(state.pack)
    dropped = state.cycles[-last:]
    state.cycles = state.cycles[:-last]
    graveyard = session_dir / "pruned"
    for record in dropped:
        if record.run_dir and (session_dir / record.run_dir).exists():
            graveyard.mkdir(exist_ok=True)
            target = graveyard / record.run_dir
            shutil.rmtree(target, ignore_errors=True)
            (session_dir / record.run_dir).rename(target)
    state.status, state.stop_reason = SessionStatus.RUNNING, None
    state.locked_files = {}
    update_locks(state, pack, session_dir)
    state.best_files = rebuild_best_files(state, pack, session_dir)
    save_session(session_dir, state)
    return state

"""One finished cycle: its record, and what it changes in the session.

`make_record` turns the decision, the run and the parsed log into the `CycleRecord`
that session.json and the Parquet datasets keep; `finish_cycle` appends it, updates
best files, locks, blacklisted settings and the status (from the graph's stop kind),
and saves atomically.
"""

from __future__ import annotations

import re
from fnmatch import fnmatch
from pathlib import Path

from agentcycle.agent.program.best_files import rebuild_best_files, update_locks
from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.events import event
from agentcycle.agent.program.execution import ExecutionResult
from agentcycle.agent.program.files import is_intermediate
from agentcycle.agent.program.logparse import ParsedLog, read_log
from agentcycle.agent.program.outcomes import cycle_outcome, status_after_stop
from agentcycle.agent.program.state import (
    LOG_NAME,
    CycleRecord,
    SessionState,
    save_session,
    utc_now,
)
from agentcycle.knowledge import Pack


def discover_outputs(run_dir: Path, patterns: list[str]) -> list[Path]:
    """Files the run left that its program declares as outputs (all files if none declared)."""
    found = []
    for path in sorted(run_dir.rglob("*")):
        if not path.is_file() or path.name == LOG_NAME or is_intermediate(path, run_dir):
            continue
        if not patterns or any(fnmatch(path.name, p) for p in patterns):
            found.append(path)
    return found


def make_record(
    session_dir: Path,
    cycle: int,
    decision: Decision,
    result: ExecutionResult | None,
    parsed: ParsedLog | None,
    pack: Pack,
    started_at: str,
) -> CycleRecord:
    """The cycle as it will be written to session.json and the Parquet datasets."""
    if result is None or parsed is None:  # STOP: nothing ran
        return CycleRecord(
            cycle=cycle,
            program=decision.program,
            reason=decision.reason,
            events=decision.events,
            **decision.llm,
            stop_kind=decision.stop_kind,
            outcome=cycle_outcome(decision.stop_kind, failed=False, recovery=False),
            started_at=started_at,
            finished_at=utc_now(),
        )
    run_dir = result.log_path.parent
    program = pack.programs[decision.program]
    outputs = discover_outputs(run_dir, [o.pattern for o in program.outputs])
    return CycleRecord(
        cycle=cycle,
        program=decision.program,
        reason=decision.reason,
        argv=decision.argv,
        input_files=[_relative(session_dir, Path(p)) for p in decision.input_files.values()],
        run_dir=run_dir.name,
        exit_code=result.exit_code,
        timed_out=result.timed_out,
        duration_s=round(result.duration_s, 3),
        failed=parsed.failed or result.timed_out,
        outcome=cycle_outcome(
            None, parsed.failed or result.timed_out, recovery=decision.recovery is not None
        ),
        failure_reason="timed out" if result.timed_out else parsed.failure_reason,
        metrics=parsed.metrics,
        flags=list(parsed.flags),
        events=[*decision.events, *metric_events(parsed)],
        **decision.llm,
        outputs=[_relative(session_dir, p) for p in outputs],
        started_at=started_at,
        finished_at=utc_now(),
    )


def metric_events(parsed: ParsedLog) -> list[dict[str, str]]:
    """What the log said, as events (stored with the cycle like the decision's events)."""
    if parsed.failed:
        return [event("error", f"run failed: {parsed.failure_reason}")]
    found = ", ".join(f"{k}={v}" for k, v in parsed.metrics.items()) or "none"
    return [event("metrics_extracted", f"metrics: {found}")]


def _relative(session_dir: Path, path: Path) -> str:
    try:
        return str(path.resolve().relative_to(session_dir.resolve()))
    except ValueError:
        return str(path)


def blame_settings(state: SessionState, record: CycleRecord, session_dir: Path) -> None:
    """A failed run whose log's tail names a user setting blacklists that setting for
    the program, so the next build strips it instead of failing the same way."""
    if not record.failed or not record.run_dir:
        return
    log = session_dir / record.run_dir / LOG_NAME
    tail = (
        "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-30:])
        if log.is_file()
        else ""
    )
    for key in state.directives.parameters:
        if re.search(rf"\b{re.escape(key)}\b", tail):
            listed = state.blacklist.setdefault(record.program, [])
            if key not in listed:
                listed.append(key)


def finish_cycle(
    session_dir: Path, state: SessionState, record: CycleRecord, pack: Pack, stop: bool
) -> SessionState:
    """Append the cycle, update best files and status, and save atomically."""
    state.cycles.append(record)
    blame_settings(state, record, session_dir)
    if record.program != "STOP":
        state.advice_changed = False  # the stepped-back cycle has run
    state.best_files = rebuild_best_files(state, pack, session_dir)
    update_locks(state, pack, session_dir)
    if stop:
        state.status = status_after_stop(record.stop_kind)  # decided by the graph
        state.stop_reason = record.reason
    save_session(session_dir, state)
    return state


def parse_run_log(log_path: Path, program_name: str, pack: Pack, exit_code: int) -> ParsedLog:
    """The same reading as `agentcycle parse` (logparse.read_log), for a known program."""
    text = log_path.read_text(encoding="utf-8", errors="replace")
    return read_log(text, pack, program_name, exit_code).parsed

"""Prefect tasks of one agent cycle: decide, run_program, parse_log, record.

Each is a few lines around a plain function in `agent/` or `storage/`; retries,
caching and run names live here and nowhere else.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import re
import shutil
from pathlib import Path
from typing import Any

from prefect import task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.context import TaskRunContext

from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.execution import ExecutionResult, resolve_executable
from agentcycle.agent.program.experience import Experience
from agentcycle.agent.program.logparse import ParsedLog
from agentcycle.agent.program.record import finish_cycle, make_record, parse_run_log
from agentcycle.agent.program.remote_client import configured_service, decide_next_remote
from agentcycle.agent.program.session import decide_next, execute
from agentcycle.agent.program.state import CycleRecord, load_session
from agentcycle.errors import UserError
from agentcycle.knowledge import load_pack
from agentcycle.storage.datasets import append_rows
from agentcycle.tasks.rows import cycle_rows, event_rows, metric_rows


def artifact_key(*parts: str) -> str:
    """A Prefect artifact key (lowercase letters, digits, dashes) from free text.

    Keyed artifacts are what the UI's Artifacts page lists (latest version per key).
    """
    key = re.sub(r"[^a-z0-9-]+", "-", "-".join(parts).lower())
    return re.sub(r"-{2,}", "-", key).strip("-") or "artifact"


class TransientProgramError(RuntimeError):
    """A failed run whose log shows a failure the pack marks as transient: worth a retry."""

    def __init__(self, message: str, result: ExecutionResult):
        super().__init__(message)
        self.result = result


# Reads the session as it is now: never cached.
@task(name="decide", task_run_name="decide", cache_policy=NO_CACHE)
def decide_task(
    session_dir: str, experience: Experience | None = None
) -> tuple[int, str, Decision]:
    """The next cycle's number, the session's pack and the graph's decision.

    Tasks exchange small values, not the session state: Prefect walks every parameter
    looking for futures, and the whole history would cost that walk every cycle.
    """
    service = configured_service()  # --agent-url: the decision service decides
    if service is None:
        state, decision = decide_next(Path(session_dir), experience=experience)
    else:
        url, token = service
        state, decision = decide_next_remote(Path(session_dir), url, token, experience=experience)
    return state.next_cycle, state.pack, decision


def require_program(executable: str, pack_name: str) -> None:
    """Stop the session (UserError: one line, exit 2) when the program is not installed,
    naming the extra that installs it, instead of recording a run that exited 127."""
    if shutil.which(resolve_executable(executable)):
        return
    extras = importlib.metadata.metadata("agentcycle").get_all("Provides-Extra") or []
    hint = (
        f"pip install 'agentcycle[{pack_name}]'"
        if pack_name in extras
        else "install it or put it on PATH"
    )
    raise UserError(f"{executable} not found: {hint}")


def _retry_only_transient(task: Any, task_run: Any, state: Any) -> bool:
    try:
        state.result()
    except TransientProgramError:
        return True
    except Exception:
        return False
    return False


@task(
    name="run_program",
    task_run_name="run-{decision.program}",
    retries=2,
    retry_delay_seconds=2,
    retry_condition_fn=_retry_only_transient,
    cache_policy=NO_CACHE,  # runs a program: never served from a cache
)
def run_program_task(
    session_dir: str, cycle: int, decision: Decision, pack_ref: str
) -> ExecutionResult:
    """Run the program; a failure the pack marks transient raises so Prefect retries it."""
    pack = load_pack(pack_ref)
    program = pack.programs[decision.program]
    if decision.argv and not load_session(Path(session_dir)).replay_dir:
        require_program(decision.argv[0], pack.name)
    result = execute(Path(session_dir), cycle, decision, program.timeout)
    if result.exit_code != 0 and program.transient_errors:
        text = result.log_path.read_text(encoding="utf-8", errors="replace")
        hit = next((p for p in program.transient_errors if p in text), None)
        if hit:
            raise TransientProgramError(f"{decision.program}: transient failure ({hit!r})", result)
    return result


def _log_hash_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    """Cache parse_log on the log's content, the program, its exit code and the pack's YAML."""
    digest = hashlib.sha256(Path(parameters["log_path"]).read_bytes())
    pack = load_pack(parameters["pack_ref"])
    digest.update(pack.programs[parameters["program"]].model_dump_json().encode())
    digest.update(pack.log_identification.model_dump_json().encode())  # the summary-block rule
    digest.update(
        repr((parameters["program"], parameters["exit_code"], pack.failure_markers)).encode()
    )
    return f"parse_log-{digest.hexdigest()}"


@task(
    name="parse_log",
    task_run_name="parse-{program}",
    cache_key_fn=_log_hash_key,
    persist_result=True,
)
def parse_log_task(log_path: str, program: str, pack_ref: str, exit_code: int) -> ParsedLog:
    return parse_run_log(Path(log_path), program, load_pack(pack_ref), exit_code)


@task(name="record", task_run_name="record", cache_policy=NO_CACHE)  # writes the session
def record_task(
    session_dir: str,
    decision: Decision,
    result: ExecutionResult | None,
    parsed: ParsedLog | None,
    started_at: str,
) -> CycleRecord:
    """Write the finished cycle: session.json first (the truth), then Parquet rows, then the UI."""
    directory = Path(session_dir)
    state = load_session(directory)
    pack = load_pack(state.pack)
    cycle = state.next_cycle
    record = make_record(directory, cycle, decision, result, parsed, pack, started_at)
    if decision.recovery is not None:  # the fix holds for this input file from now on
        fixes = state.recoveries.setdefault(decision.recovery.input_file, {})
        fixes.update(decision.recovery.settings)
    finish_cycle(directory, state, record, pack, stop=decision.stop)
    append_rows("cycles", cycle_rows(state, record))
    append_rows("metrics", metric_rows(state, record))
    append_rows("events", event_rows(state.session_id, cycle, record.events))
    create_table_artifact(
        key=artifact_key(state.session_id, f"cycle-{cycle:02d}"),
        table=[{"metric": k, "value": v} for k, v in record.metrics.items()]
        or [{"metric": "(none)", "value": record.failure_reason or record.reason}],
        description=f"Cycle {cycle}: {record.program} "
        f"({'failed: ' + str(record.failure_reason) if record.failed else 'ok'})",
    )
    return record

"""The program agent as Prefect flows: `agent_session` loops `agent_cycle` subflows.

One cycle is one flow run (decide → run_program → parse_log → record), named after the
session, the cycle and the program so the Prefect UI reads like the session's story.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.client.orchestration import get_client
from prefect.runtime import flow_run
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

from agentcycle.agent.events import Verbosity, format_events
from agentcycle.agent.session import create_session, new_session_id, reap_orphans
from agentcycle.agent.state import load_session, save_session, utc_now, write_atomic
from agentcycle.config import sessions_dir
from agentcycle.flows.diagnosis import write_diagnosis
from agentcycle.flows.summary import session_html, session_markdown
from agentcycle.knowledge import load_pack
from agentcycle.tasks.program import (
    TransientProgramError,
    decide_task,
    parse_log_task,
    record_task,
    run_program_task,
)


def _rename_current_flow_run(name: str) -> None:
    """Name the cycle's flow run once the decision is known: session, cycle and program.

    The flow has no name template on purpose: a template costs an API call at start,
    and the name is only complete after the decision anyway.
    """
    run_id = flow_run.get_id()
    if run_id:
        with get_client(sync_client=True) as client:
            client.update_flow_run(run_id, name=name)


@flow(name="agent_cycle", log_prints=False)
def agent_cycle(session_dir: str, cycle: int, label: str, verbosity: Verbosity = "normal") -> bool:
    """One decision and, unless it is STOP, one program run. Returns True when the session ended."""
    logger = get_run_logger()
    started_at = utc_now()
    next_cycle, pack_ref, decision = decide_task(session_dir)
    if next_cycle != cycle:
        raise RuntimeError(f"session is at cycle {next_cycle}, flow asked for {cycle}")
    _rename_current_flow_run(f"{label}-cycle-{cycle:02d}-{decision.program}")
    result = parsed = None
    if not decision.stop:
        run = run_program_task.with_options(task_run_name=f"run-{decision.program}-c{cycle:02d}")
        run_state = run(session_dir, cycle, decision, pack_ref, return_state=True)
        try:
            result = run_state.result()
        except TransientProgramError as exc:  # retries exhausted: record the failed run
            result = exc.result
        parsed = parse_log_task.with_options(
            task_run_name=f"parse-{decision.program}-c{cycle:02d}"
        )(str(result.log_path), decision.program, pack_ref, result.exit_code)
    record = record_task(session_dir, decision, result, parsed, started_at)
    if decision.diagnosis is not None:
        state = load_session(Path(session_dir))
        path = write_diagnosis(Path(session_dir), decision.diagnosis, state.session_id)
        state.diagnosis = str(path)
        save_session(Path(session_dir), state)
        logger.error("diagnosed %s: see %s", decision.diagnosis.name, path)
    for line in format_events(record.events, verbosity):
        logger.info("cycle %d %s", cycle, line)
    if record.failed:
        logger.warning("cycle %d: %s failed: %s", cycle, record.program, record.failure_reason)
    return decision.stop


@flow(name="agent_session", flow_run_name="session-{label}", log_prints=False)
def agent_session(session_dir: str, label: str, verbosity: Verbosity = "normal") -> dict:
    """Run cycles until the graph decides STOP; safe to call again on a killed session.

    The session flow keeps Prefect's heartbeat (crash detection); its cycles do not
    need their own, and joining a heartbeat thread costs ~0.5 s per cycle.
    """
    directory = Path(session_dir)
    state = load_session(directory)
    interrupted = reap_orphans(directory)
    if interrupted:
        get_run_logger().warning("resuming: %s; rerunning it", interrupted)
    # The session's own heartbeat thread has started already; only the cycles run without.
    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        while not state.finished:
            agent_cycle(session_dir, state.next_cycle, label, verbosity)
            state = load_session(directory)
    pack = load_pack(state.pack)
    markdown = session_markdown(state, pack)
    create_markdown_artifact(markdown=markdown, description=f"Session {state.session_id}")
    write_atomic(directory / "summary.md", markdown)
    write_atomic(directory / "summary.html", session_html(state, pack))
    return {"session_id": state.session_id, "status": state.status, "cycles": len(state.cycles)}


def run_session(session_dir: Path, verbosity: Verbosity = "normal") -> dict:
    """Run or resume the session at `session_dir` as an `agent_session` flow run."""
    state = load_session(session_dir)
    return agent_session(session_dir=str(session_dir), label=state.session_id, verbosity=verbosity)


@flow(name="agent_run", flow_run_name="run-{pack}", log_prints=False)
def agent_run(
    pack: str,
    input_dir: str,
    goal: str = "",
    max_cycles: int = 20,
    session_dir: str | None = None,
    verbosity: Verbosity = "normal",
) -> dict:
    """Create a session and run it: what a deployment triggered from Prefect runs."""
    loaded = load_pack(pack)
    session_id = new_session_id(loaded.name)
    directory = Path(session_dir) if session_dir else sessions_dir() / session_id
    create_session(loaded, pack, Path(input_dir), directory.resolve(), goal, max_cycles, session_id)
    return agent_session(str(directory.resolve()), session_id, verbosity)

"""The program agent as Prefect flows: `agent_session` loops `agent_cycle` subflows.

One cycle is one flow run (decide → run_program → parse_log → record), named after the
session, the cycle and the program so the Prefect UI reads like the session's story.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.client.orchestration import SyncPrefectClient, get_client
from prefect.context import FlowRunContext
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

from agentcycle.agent.program.checkpoint import CheckpointMode, set_checkpoint
from agentcycle.agent.program.events import Verbosity, format_events
from agentcycle.agent.program.llm_plan import session_llm, set_session_llm
from agentcycle.agent.program.session import create_session, new_session_id, reap_orphans
from agentcycle.agent.program.state import (
    SessionState,
    load_session,
    save_session,
    utc_now,
    write_atomic,
)
from agentcycle.config import sessions_dir
from agentcycle.flows.heartbeat import heartbeats_if_asked
from agentcycle.knowledge import load_pack
from agentcycle.reports.diagnosis import write_diagnosis
from agentcycle.reports.summary import session_html, session_markdown
from agentcycle.tasks.checkpoint import at_checkpoint
from agentcycle.tasks.experience import (
    remember_task,
    retrieve_for_cycle,
    retrieved,
    tidy_runs_task,
)
from agentcycle.tasks.program import (
    TransientProgramError,
    artifact_key,
    decide_task,
    parse_log_task,
    record_task,
    run_program_task,
)
from agentcycle.tasks.reconcile import reconcile_session


def _rename_current_flow_run(name: str) -> None:
    """Complete the cycle's flow run name once the decision is known: add the program.

    The run is named `<session>-cycle-NN` at creation (its template), so no log line
    or UI row ever shows a random name; the program is only known after the decision.
    """
    context = FlowRunContext.get()
    if context is not None and context.flow_run is not None:
        if isinstance(context.client, SyncPrefectClient):  # the engine's own: no new client
            context.client.update_flow_run(context.flow_run.id, name=name)
        else:
            with get_client(sync_client=True) as client:
                client.update_flow_run(context.flow_run.id, name=name)


# Named at creation (before its first log line), completed with the program once decided.
@flow(name="agent_cycle", flow_run_name="{label}-cycle-{cycle:02d}", log_prints=False)
def agent_cycle(session_dir: str, cycle: int, label: str, verbosity: Verbosity = "normal") -> bool:
    """Retrieve, one decision and, unless it is STOP, one program run, then remember.

    Returns True when the session ended.
    """
    logger = get_run_logger()
    started_at = utc_now()
    experience = retrieve_for_cycle(session_dir, cycle)  # memory, before PLAN
    next_cycle, pack_ref, decision = decide_task.with_options(
        task_run_name=f"decide-cycle-{cycle:02d}"
    )(session_dir, experience)
    if next_cycle != cycle:
        raise RuntimeError(f"session is at cycle {next_cycle}, flow asked for {cycle}")
    decision = at_checkpoint(session_dir, decision)  # a person approves here, if asked to
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
    record = record_task.with_options(task_run_name=f"record-cycle-{cycle:02d}")(
        session_dir, decision, result, parsed, started_at
    )
    # the finished cycle becomes a `runs` row
    remember_task.with_options(task_run_name=f"remember-cycle-{cycle:02d}")(session_dir, decision)
    if decision.diagnosis is not None:
        state = load_session(Path(session_dir))
        found = retrieved(Path(session_dir)).get(cycle)  # quoted: docs and past cases
        path = write_diagnosis(Path(session_dir), decision.diagnosis, state.session_id, found)
        state.diagnosis = str(path)
        save_session(Path(session_dir), state)
        logger.error("diagnosed %s: see %s", decision.diagnosis.name, path)
    for line in format_events(record.events, verbosity):
        logger.info("cycle %d %s", cycle, line)
    if record.failed:
        logger.warning("cycle %d: %s failed: %s", cycle, record.program, record.failure_reason)
    return decision.stop


def write_summaries(directory: Path, state: SessionState) -> str:
    """Write the finished session's `summary.md` and `summary.html`; return the markdown.

    A plain function, so `benchmarks/cycle_overhead.py` does the same session work
    without Prefect and its overhead figure counts only what orchestration adds.
    """
    pack = load_pack(state.pack)
    memory = retrieved(directory)
    markdown = session_markdown(state, pack, memory)
    write_atomic(directory / "summary.md", markdown)
    write_atomic(directory / "summary.html", session_html(state, pack, memory))
    return markdown


@flow(name="agent_session", flow_run_name="session-{label}", log_prints=False)
def agent_session(session_dir: str, label: str, verbosity: Verbosity = "normal") -> dict:
    """Run cycles until the graph decides STOP; safe to call again on a killed session.

    Its cycles never send heartbeats (joining a heartbeat thread costs up to a second
    per flow run); the session sends them only when a user asks (`flows.heartbeat`).
    """
    directory = Path(session_dir)
    state = load_session(directory)
    interrupted = reap_orphans(directory)
    reconcile_session(directory)  # cycles a kill kept from the datasets (idempotent)
    if interrupted:
        get_run_logger().warning("resuming: %s; rerunning it", interrupted)
    # The session's own heartbeat thread, if asked for, has started; the cycles run without.
    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        while not state.finished:
            agent_cycle(session_dir, state.next_cycle, label, verbosity)
            state = load_session(directory)
    markdown = write_summaries(directory, state)
    create_markdown_artifact(
        key=artifact_key(state.session_id, "summary"),
        markdown=markdown,
        description=f"Session {state.session_id}",
    )
    tidy_runs_task()  # merge the runs table's small files, after the work
    return {"session_id": state.session_id, "status": state.status, "cycles": len(state.cycles)}


def run_session(session_dir: Path, verbosity: Verbosity = "normal") -> dict:
    """Run or resume the session at `session_dir` as an `agent_session` flow run."""
    state = load_session(session_dir)
    with heartbeats_if_asked():
        return agent_session(str(session_dir), label=state.session_id, verbosity=verbosity)


@flow(name="agent_run", flow_run_name="run-{pack}", log_prints=False)
def agent_run(
    pack: str,
    input_dir: str,
    goal: str = "",
    max_cycles: int = 20,
    session_dir: str | None = None,
    verbosity: Verbosity = "normal",
    provider: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    checkpoint: CheckpointMode = "never",
    checkpoint_timeout_s: int = 3600,
) -> dict:
    """Create a session and run it: what a deployment triggered from Prefect runs
    (`provider`, `model`, `base_url`: the LLM that plans it; none: the rules;
    `checkpoint`: when a person approves a decision, see `agentcycle approve`)."""
    llm = session_llm(provider, model, base_url)  # checked before anything is written
    loaded = load_pack(pack)
    session_id = new_session_id(loaded.name)
    directory = Path(session_dir) if session_dir else sessions_dir() / session_id
    create_session(loaded, pack, Path(input_dir), directory.resolve(), goal, max_cycles, session_id)
    if llm:
        set_session_llm(directory.resolve(), llm)
    if checkpoint != "never":
        set_checkpoint(directory.resolve(), checkpoint, checkpoint_timeout_s)
    return agent_session(str(directory.resolve()), session_id, verbosity)

"""Checkpoints in the Prefect flow: pause the cycle's flow run for a person's typed answer.

The cycle's flow run goes to Paused with a run-input schema (the form the Prefect UI
shows under "Resume") and a markdown description of the proposal; `agentcycle approve`
answers through the same API (`resume_flow_run` with `run_input`). The flow waits in
its own loop rather than `pause_flow_run`'s, so an API that is briefly gone (a server
restart) is waited for instead of failing the run, and an unanswered checkpoint past
its timeout applies the default (approve). A process killed while waiting leaves
`checkpoint.json`; on resume an answer given meanwhile is used, else it asks again.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from uuid import UUID

import httpx
from prefect import get_run_logger
from prefect.client.orchestration import get_client
from prefect.context import FlowRunContext
from prefect.input.run_input import (
    keyset_from_base_key,
    keyset_from_paused_state,
    read_flow_run_input,
    run_input_subclass_from_type,
)
from prefect.states import Cancelled, Paused, Running
from prefect.utilities.engine import propose_state_sync

from agentcycle.agent.program.checkpoint import (
    CHECKPOINT_FILE,
    CheckpointAnswer,
    Proposal,
    answer_problem,
    doubts,
    load_proposal,
    make_proposal,
    parse_settings,
    proposal_markdown,
    save_proposal,
)
from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.events import event
from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.outcomes import StopKind
from agentcycle.agent.program.remote_client import configured_service, decide_remote
from agentcycle.agent.program.session import decision_inputs
from agentcycle.agent.program.state import load_session, save_session
from agentcycle.errors import UserError
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.schema import STOP

POLL_S = 1.0
API_OUTAGE_S = 300.0
"""How long an unreachable Prefect API is waited for before the checkpoint gives up."""


def _pause_key(proposal: Proposal, attempt: int) -> str:
    return f"checkpoint-c{proposal.cycle:02d}-{attempt}-{time.time_ns() % 10**9}"


def _earlier_answer(session_dir: Path, cycle: int) -> CheckpointAnswer | None:
    """An answer given to this cycle's checkpoint while no process was waiting for it.

    A paused run left behind by a killed process is cancelled so the UI stops offering it.
    """
    if not (session_dir / CHECKPOINT_FILE).is_file():
        return None
    old = load_proposal(session_dir)
    if old.cycle != cycle or not old.flow_run_id or not old.pause_key:
        return None
    try:
        keyset = keyset_from_base_key(f"paused-{old.pause_key}")
        given = read_flow_run_input(keyset["response"], flow_run_id=UUID(old.flow_run_id))
        with get_client(sync_client=True) as client:
            run = client.read_flow_run(UUID(old.flow_run_id))
            if run.state is not None and not run.state.is_final():  # its process is gone
                message = "answered; applied on resume" if given else "superseded on resume"
                client.set_flow_run_state(run.id, Cancelled(message=message), force=True)
        if given:
            return CheckpointAnswer.model_validate(given)
    except Exception as exc:  # an unreadable old checkpoint only means: ask again
        get_run_logger().warning("earlier checkpoint of cycle %d unreadable: %s", cycle, exc)
    return None


def _read_state(client: Any, run_id: UUID) -> Any:
    """The run's state, waiting out a Prefect API that is down (a server restart)."""
    deadline = time.monotonic() + API_OUTAGE_S
    while True:
        try:
            return client.read_flow_run(run_id).state
        except (httpx.TransportError, httpx.HTTPStatusError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(POLL_S * 2)


def wait_for_answer(
    session_dir: Path, proposal: Proposal, timeout_s: int
) -> CheckpointAnswer | None:
    """Pause this flow run with the answer form; the answer, or None on timeout."""
    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        raise RuntimeError("checkpoints pause a flow run: call inside agent_cycle")
    logger = get_run_logger()
    run_id = context.flow_run.id
    form = run_input_subclass_from_type(CheckpointAnswer).with_initial_data(
        description=proposal_markdown(proposal), program=proposal.program
    )
    paused = Paused(timeout_seconds=timeout_s + 60, reschedule=False, pause_key=proposal.pause_key)
    keyset = keyset_from_paused_state(paused)
    paused.state_details.run_input_keyset = keyset
    with get_client(sync_client=True) as client:
        state = propose_state_sync(client=client, state=paused, flow_run_id=run_id)
        if not state.is_paused():
            raise RuntimeError(f"checkpoint: flow run could not pause ({state.type.value})")
        form.save(keyset, flow_run_id=run_id)
        save_proposal(session_dir, proposal.model_copy(update={"flow_run_id": str(run_id)}))
        logger.warning(
            "checkpoint: cycle %d waits for a person (%s); answer in the UI or with "
            "`agentcycle approve %s`",
            proposal.cycle,
            "; ".join(proposal.why),
            session_dir,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            current = _read_state(client, run_id)
            if current is not None and current.is_running():
                answer = form.load(keyset, flow_run_id=run_id)
                return CheckpointAnswer.model_validate(answer.model_dump())
            if current is not None and current.is_final():
                raise RuntimeError(f"checkpoint: the flow run became {current.type.value}")
            time.sleep(POLL_S)
        client.set_flow_run_state(run_id, Running(message="checkpoint timed out"), force=True)
    logger.warning("checkpoint: no answer in %d s; the default (approve) applies", timeout_s)
    return None


def redecide(session_dir: Path, program: str | None) -> Decision:
    """The graph's decision again (after new settings, or preferring `program`), made where
    decisions are made (in process or by the decision service)."""
    state = load_session(session_dir)
    pack = load_pack(state.pack)
    inputs = decision_inputs(session_dir, state, pack)
    if program:
        directives = state.directives.model_copy(deep=True)
        directives.prefer = [program, *(p for p in directives.prefer if p != program)]
        inputs["directives"] = directives
    service = configured_service()
    return decide(**inputs) if service is None else decide_remote(inputs, state.pack, *service)


def apply_answer(
    session_dir: Path,
    proposal: Proposal,
    answer: CheckpointAnswer,
    decision: Decision,
    how: str = "answered",
) -> Decision | str:
    """The decision the answer leads to, or why it cannot be applied (then ask again)."""
    if answer.program == proposal.program:  # the UI's form comes filled with the proposal
        answer = answer.model_copy(update={"program": ""})
    state = load_session(session_dir)
    pack = load_pack(state.pack)
    problem = answer_problem(answer, proposal, pack)
    if problem:
        return problem
    said = f"checkpoint ({proposal.mode}): {answer.summary()} ({how})"
    note, tag = event("checkpoint", said), f" [{said}]"  # events and the cycles row
    if answer.stop:
        reason = f"stopped at checkpoint (cycle {proposal.cycle}){tag}"
        return Decision(
            STOP, reason, phase=decision.phase, events=[*decision.events, note],
            stop_kind=StopKind.PERSON,
        )  # fmt: skip
    if answer.approves:
        events = [*decision.events, note]
        return Decision(**{**decision.__dict__, "reason": decision.reason + tag, "events": events})
    settings = parse_settings(answer.settings)
    if settings:  # kept for the rest of the session, like key=value in the advice
        state.directives.parameters.update(settings)
        save_session(session_dir, state)
    wanted = answer.program or proposal.program
    redone = redecide(session_dir, answer.program or None)
    if redone.program != wanted:
        return f"{wanted}: cannot be run now ({redone.reason})"
    return Decision(
        **{**redone.__dict__, "reason": redone.reason + tag, "events": [*redone.events, note]}
    )


def at_checkpoint(session_dir: str, decision: Decision) -> Decision:
    """Ask a person when the session's checkpoint mode says so; the decision to carry out."""
    directory = Path(session_dir)
    state = load_session(directory)
    why = doubts(state.checkpoint, decision, state.cycles)
    if not why:
        return decision
    answer = _earlier_answer(directory, state.next_cycle)
    how = "given while no process waited; applied on resume"
    problem = None
    for attempt in range(1, 11):
        proposal = make_proposal(state, decision, state.checkpoint, why, problem)
        proposal.pause_key = _pause_key(proposal, attempt)
        if answer is None:
            answer = wait_for_answer(directory, proposal, state.checkpoint_timeout_s)
            how = "by a person" if answer else f"no answer in {state.checkpoint_timeout_s} s"
        outcome = apply_answer(directory, proposal, answer or CheckpointAnswer(), decision, how)
        if isinstance(outcome, Decision):
            (directory / CHECKPOINT_FILE).unlink(missing_ok=True)
            get_run_logger().info(
                "checkpoint: %s (%s)", (answer or CheckpointAnswer()).summary(), how
            )
            return outcome
        problem, answer = outcome, None
        get_run_logger().warning("checkpoint answer refused: %s", problem)
    raise UserError(f"{session_dir}: checkpoint: ten answers refused, last: {problem}")

"""`agentcycle approve SESSION`: answer a session waiting at a checkpoint.

The answer goes through the Prefect API the UI's "Resume" form uses
(`resume_flow_run(flow_run_id, run_input=...)`), checked first against the proposal in
`checkpoint.json` with the same rules the flow applies, so a bad answer is one line
here rather than a refused answer in the flow's log. Also the `--checkpoint` options
of `run`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentcycle.agent.program.checkpoint import CheckpointAnswer, answer_problem, load_proposal
from agentcycle.agent.program.state import load_session
from agentcycle.errors import UserError
from agentcycle.knowledge import load_pack
from agentcycle.server import ensure_prefect_api

CheckpointOption = Annotated[
    str,
    typer.Option(
        help="When a person approves: never, before-each, on-doubt or after-failure "
        "(answer with `agentcycle approve` or the Prefect UI's form)."
    ),
]
CheckpointTimeoutOption = Annotated[
    int, typer.Option(help="Seconds a checkpoint waits; then the proposal is approved.")
]


def approve(
    session_dir: Annotated[Path, typer.Argument(help="Session directory waiting at a checkpoint.")],
    program: Annotated[
        str | None, typer.Option(help="Run this valid program instead of the proposed one.")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Strategy setting key=value for the program (repeat)."),
    ] = None,
    stop: Annotated[bool, typer.Option("--stop", help="Stop the session here.")] = False,
) -> None:
    """Approve (or change, or stop) the decision a session is waiting on."""
    proposal = load_proposal(session_dir)
    if not proposal.flow_run_id:
        raise UserError(f"{session_dir}: checkpoint has no flow run yet; try again in a moment")
    answer = CheckpointAnswer(program=program or "", settings=list(set_ or []), stop=stop)
    if answer.program == proposal.program:
        answer.program = ""
    problem = answer_problem(answer, proposal, load_pack(load_session(session_dir).pack))
    if problem:
        raise UserError(f"{session_dir}: {problem}")
    _resume(proposal.flow_run_id, answer.model_dump(), session_dir)
    typer.echo(
        f"session {proposal.session_id} cycle {proposal.cycle}: {answer.summary()} "
        f"(proposed {proposal.program})"
    )


def _resume(flow_run_id: str, run_input: dict, session_dir: Path) -> None:
    from uuid import UUID

    ensure_prefect_api()
    from prefect.exceptions import NotPausedError, ObjectNotFound
    from prefect.flow_runs import resume_flow_run

    try:
        resume_flow_run(UUID(flow_run_id), run_input=run_input)
    except NotPausedError:
        raise UserError(
            f"{session_dir}: not waiting any more (answered already, or timed out)"
        ) from None
    except ObjectNotFound:
        raise UserError(f"{session_dir}: flow run {flow_run_id} not found on this server") from None
    except RuntimeError as exc:
        raise UserError(f"{session_dir}: the server refused the answer: {exc}") from None

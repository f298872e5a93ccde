"""Session commands: run, resume, show, prune and the demo.

Each command imports the agent, flows and storage when it runs, not at the top: this
module is loaded for `agentcycle run --help` too, which should answer at once rather than
after Prefect, LangGraph and LanceDB have loaded (~3 s).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from agentcycle.cli import agent_service as agent_service_cli
from agentcycle.cli import approve as approve_cli
from agentcycle.cli import llm as llm_cli
from agentcycle.errors import UserError


class Verbosity(StrEnum):
    quiet = "quiet"
    normal = "normal"
    verbose = "verbose"


class Detail(StrEnum):
    basic = "basic"
    detailed = "detailed"


VerbosityOption = Annotated[
    Verbosity, typer.Option(help="Events to print per cycle: quiet, normal or verbose.")
]


def _echo_table(rows: list[dict[str, str]], title: str | None = None) -> None:
    table = Table(title=title)
    for column in rows[0] if rows else ["(no rows)"]:
        table.add_column(str(column))
    for row in rows:
        table.add_row(*(str(v) if v is not None else "" for v in row.values()))
    Console(width=max(120, Console().width)).print(table)


def _run_session(
    session_dir: Path, verbosity: Verbosity = Verbosity.normal, via_pool: str | None = None
) -> None:
    """Run (or resume) a session through the Prefect flows and print its cycle table;
    `via_pool`: on that work pool's workers, following the run's logs."""
    from agentcycle.agent.program.state import load_session
    from agentcycle.deployments.submit import follow, submit_session
    from agentcycle.flows.agent_session import run_session
    from agentcycle.reports.summary import cycle_table
    from agentcycle.server import ensure_prefect_api

    api = ensure_prefect_api()
    typer.echo(f"Prefect API: {api}  (watch: {api.removesuffix('/api')}/runs)", err=True)

    if via_pool:
        submitted = submit_session(session_dir, load_session(session_dir).session_id,
                                   verbosity.value)  # fmt: skip
        typer.echo(f"submitted {submitted.name} to pool {via_pool}", err=True)
        final = follow(submitted.id, lambda line: typer.echo(line, err=True))
        if not final.is_completed():
            raise UserError(f"flow run {submitted.name} ended {final.name}: {final.message}")
    else:
        run_session(session_dir, verbosity.value)
    state = load_session(session_dir)
    _echo_table(cycle_table(state), title=f"session {state.session_id}: {state.status}")
    typer.echo(f"stop reason: {state.stop_reason}")
    if state.diagnosis:
        typer.echo(f"failure diagnosis: {state.diagnosis}")
    typer.echo(f"session: {session_dir}")


def run(
    pack: Annotated[str, typer.Argument(help="Knowledge pack name (e.g. xtal) or directory.")],
    input_dir: Annotated[Path, typer.Argument(help="Folder with the input files.")],
    goal: Annotated[str, typer.Option(help="What the user wants, in words.")] = "",
    max_cycles: Annotated[int, typer.Option(help="Programs to run at most.")] = 20,
    session: Annotated[Path | None, typer.Option(help="Session directory to create.")] = None,
    replay: Annotated[
        Path | None, typer.Option(help="Scenario folder: replay its recorded runs, run nothing.")
    ] = None,
    verbosity: VerbosityOption = Verbosity.normal,
    provider: llm_cli.ProviderOption = None,
    model: llm_cli.ModelOption = None,
    base_url: llm_cli.BaseUrlOption = None,
    agent_url: agent_service_cli.AgentUrlOption = None,
    agent_token: agent_service_cli.AgentTokenOption = None,
    checkpoint: approve_cli.CheckpointOption = "never",
    checkpoint_timeout: approve_cli.CheckpointTimeoutOption = 3600,
    via_pool: Annotated[
        str | None,
        typer.Option(metavar="POOL", help="Run on POOL's workers (see deploy) and follow it."),
    ] = None,
) -> None:
    """Start a session: the agent picks, runs and judges programs until it decides STOP."""
    from agentcycle.agent.program.checkpoint import check_mode, set_checkpoint
    from agentcycle.agent.program.llm_plan import set_session_llm
    from agentcycle.agent.program.session import create_session, new_session_id
    from agentcycle.config import sessions_dir
    from agentcycle.deployments.submit import check_pool_deployment
    from agentcycle.knowledge import load_pack
    from agentcycle.server import ensure_prefect_api

    if max_cycles < 1:
        raise UserError(f"--max-cycles: must be at least 1 (got {max_cycles})")
    llm = llm_cli.planner_settings(provider, model, base_url)
    check_mode(checkpoint)
    agent_service_cli.use_agent_service(agent_url, agent_token)
    loaded = load_pack(pack)
    if via_pool:  # before the session is written: the pool must be able to run it
        ensure_prefect_api()
        check_pool_deployment(via_pool)
    session_id = new_session_id(loaded.name)
    session_dir = (session or sessions_dir() / session_id).resolve()
    if replay is not None and not (replay / "runs").is_dir():
        raise UserError(f"{replay}: not a scenario folder (no runs/ inside)")
    state = create_session(
        loaded, _pack_ref(pack), input_dir, session_dir, goal, max_cycles, session_id, replay
    )
    if checkpoint != "never":
        set_checkpoint(session_dir, checkpoint, checkpoint_timeout)
    if llm:
        set_session_llm(session_dir, llm)
        typer.echo(f"planning with {llm['provider']} {llm['model']} at {llm['base_url']}", err=True)
    if goal:
        understood = "; ".join(state.directives.recognised) or "no directive recognised"
        typer.echo(f"goal: {goal}\ndirectives: {understood}", err=True)
    _run_session(session_dir, verbosity, via_pool)


def _pack_ref(pack: str) -> str:
    """Packs given as a directory are stored by absolute path so resume finds them."""
    candidate = Path(pack)
    return str(candidate.resolve()) if candidate.is_dir() else pack


def resume(
    session_dir: Annotated[Path, typer.Argument(help="Session directory.")],
    goal: Annotated[
        str | None, typer.Option(help="New advice; a finished session reopens for it.")
    ] = None,
    max_cycles: Annotated[
        int | None, typer.Option(help="A higher limit; reopens a session stopped at its limit.")
    ] = None,
    verbosity: VerbosityOption = Verbosity.normal,
    provider: llm_cli.ProviderOption = None,
    model: llm_cli.ModelOption = None,
    base_url: llm_cli.BaseUrlOption = None,
    agent_url: agent_service_cli.AgentUrlOption = None,
    agent_token: agent_service_cli.AgentTokenOption = None,
) -> None:
    """Continue a session that was interrupted; finished cycles are never repeated."""
    from agentcycle.agent.program.llm_plan import set_session_llm
    from agentcycle.agent.program.session import raise_max_cycles, refresh_advice
    from agentcycle.agent.program.state import load_session
    from agentcycle.knowledge import load_pack
    from agentcycle.tasks.reconcile import reconcile_session

    load_pack(load_session(session_dir).pack)  # a bad session or a gone pack: one line, now
    agent_service_cli.use_agent_service(agent_url, agent_token)
    if provider is not None:  # planner settings change from the next cycle on
        set_session_llm(session_dir, llm_cli.planner_settings(provider, model, base_url))
    if max_cycles is not None:
        raise_max_cycles(session_dir, max_cycles)
    reconciled = reconcile_session(session_dir)  # rows a kill kept from the datasets
    if reconciled.changed:
        typer.echo(reconciled.line(), err=True)
    state, changed = refresh_advice(session_dir, goal)
    if changed:
        understood = "; ".join(state.directives.recognised) or "no directive recognised"
        typer.echo(f"advice changed; directives: {understood}", err=True)
    if state.finished:
        typer.echo(
            f"session {state.session_id} already finished ({state.status}): {state.stop_reason}"
        )
        return
    _run_session(session_dir.resolve(), verbosity)


def show(
    session_dir: Annotated[Path, typer.Argument(help="Session directory.")],
    detail: Annotated[
        Detail, typer.Option(help="basic: the cycle table; detailed: all.")
    ] = Detail.basic,
) -> None:
    """Print a session's cycle table (and with --detail detailed, its whole story)."""
    from agentcycle.agent.program.events import format_events
    from agentcycle.agent.program.state import load_session
    from agentcycle.cli.memory import echo_experience
    from agentcycle.reports.summary import cycle_table

    state = load_session(session_dir)
    _echo_table(cycle_table(state), title=f"session {state.session_id}: {state.status}")
    for category, path in sorted(state.best_files.items()):
        typer.echo(f"best {category}: {path}")
    echo_experience(state, session_dir, detailed=detail is not Detail.basic)
    if detail is Detail.basic:
        return
    for category, path in sorted(state.locked_files.items()):
        typer.echo(f"locked {category}: {path}")
    typer.echo(f"goal: {state.goal or '(none)'}")
    typer.echo(f"directives: {'; '.join(state.directives.recognised) or '(none)'}")
    for record in state.cycles:
        typer.echo(f"\n--- cycle {record.cycle}: {record.program} ({record.reason})")
        if record.argv:
            typer.echo("argv: " + " ".join(record.argv))
        if record.failed:
            typer.echo(f"failed: {record.failure_reason}")
        for line in format_events(record.events, "verbose"):
            typer.echo("  " + line)


def prune(
    session_dir: Annotated[Path, typer.Argument(help="Session directory.")],
    last: Annotated[int, typer.Option(help="How many of the last cycles to drop.")] = 1,
) -> None:
    """Drop the last N cycles so the session can take another path on resume."""
    from agentcycle.agent.program.session import prune_session
    from agentcycle.storage.datasets import delete_session_rows
    from agentcycle.storage.runs import delete_session_runs

    state = prune_session(session_dir, last)
    first_dropped = len(state.cycles) + 1
    for dataset in ("cycles", "metrics", "events"):  # the session's rows follow session.json
        delete_session_rows(dataset, state.session_id, first_dropped)
    delete_session_runs(state.session_id, first_dropped)  # memory forgets them too
    typer.echo(
        f"session {state.session_id}: {len(state.cycles)} cycles kept, status {state.status}"
    )


def demo(
    dataset: Annotated[
        str, typer.Option(help="1l2h (shaken model, ~minutes) or 5e5z (seconds).")
    ] = "1l2h",
    data_dir: Annotated[Path, typer.Option(help="Where the demo data is prepared.")] = Path(
        ".demo-data"
    ),
    max_cycles: int = 12,
    verbosity: VerbosityOption = Verbosity.normal,
) -> None:
    """Prepare the real crystallography demo data and run the `xtal` pack on it."""
    from agentcycle.demo_data import prepare_demo_data

    paths = prepare_demo_data(data_dir)
    input_dir = {"1l2h": paths.dir_1l2h, "5e5z": paths.dir_5e5z}.get(dataset)
    if input_dir is None:
        raise UserError(f"--dataset: unknown demo dataset {dataset!r} (1l2h or 5e5z)")
    run(
        "xtal",
        input_dir,
        goal="Refine the model against the data and validate it.",
        max_cycles=max_cycles,
        session=None,
        replay=None,
        verbosity=verbosity,
    )

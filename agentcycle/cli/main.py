"""`agentcycle`: the front door. Heavy libraries (Prefect, torch, LanceDB) load lazily.

That is why commands import our flows, tasks, storage and session modules inside their
bodies (each pulls in Prefect, DuckDB, LanceDB or the pack machinery): `--help` must stay
under a second, and Prefect must load only after `ensure_prefect_api()`.

Bad input of any kind raises `UserError`; `main()` prints its message as one line on
stderr and exits with code 2. Nothing is written before the input has been checked.
"""

from __future__ import annotations

import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.agent.program.events import format_events
from agentcycle.agent.program.llm_plan import set_session_llm
from agentcycle.cli import agent_service as agent_service_cli
from agentcycle.cli import approve as approve_cli
from agentcycle.cli import ask as ask_cli
from agentcycle.cli import corpus as corpus_cli
from agentcycle.cli import deploy as deploy_cli
from agentcycle.cli import evaluation as eval_cli
from agentcycle.cli import knowledge as knowledge_cli
from agentcycle.cli import llm as llm_cli
from agentcycle.cli import parse as parse_cli
from agentcycle.cli import scenario as scenario_cli
from agentcycle.cli import server as server_cli
from agentcycle.cli import store as store_cli
from agentcycle.config import sessions_dir
from agentcycle.demo_data import prepare_demo_data
from agentcycle.errors import UserError
from agentcycle.server import ensure_prefect_api

app = typer.Typer(
    name="agentcycle",
    help="Agents that run real programs as Prefect flows and prove what they did.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.add_typer(knowledge_cli.knowledge_app, name="knowledge")
app.command()(deploy_cli.serve)
app.command()(deploy_cli.deploy)
app.add_typer(server_cli.server_app, name="server")
app.add_typer(corpus_cli.corpus_app, name="corpus")
app.add_typer(store_cli.app)  # ingest, search, report, store compact|info
app.command()(ask_cli.ask)
app.add_typer(scenario_cli.scenario_app, name="scenario")
app.command(name="eval")(eval_cli.eval_command)
app.add_typer(llm_cli.llm_app, name="llm")
app.command()(parse_cli.parse)
app.add_typer(agent_service_cli.agent_app, name="agent")  # agent serve
app.command()(approve_cli.approve)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"agentcycle {version('agentcycle')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print version."),
    ] = False,
) -> None:
    """Options that apply before any command."""


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
    from rich.console import Console
    from rich.table import Table

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
    api = ensure_prefect_api()
    typer.echo(f"Prefect API: {api}  (watch: {api.removesuffix('/api')}/runs)", err=True)
    from agentcycle.agent.program.state import load_session
    from agentcycle.reports.summary import cycle_table

    if via_pool:
        from agentcycle.deployments.submit import follow, submit_session

        submitted = submit_session(session_dir, load_session(session_dir).session_id,
                                   verbosity.value)  # fmt: skip
        typer.echo(f"submitted {submitted.name} to pool {via_pool}", err=True)
        final = follow(submitted.id, lambda line: typer.echo(line, err=True))
        if not final.is_completed():
            raise UserError(f"flow run {submitted.name} ended {final.name}: {final.message}")
    else:
        from agentcycle.flows.agent_session import run_session

        run_session(session_dir, verbosity.value)
    state = load_session(session_dir)
    _echo_table(cycle_table(state), title=f"session {state.session_id}: {state.status}")
    typer.echo(f"stop reason: {state.stop_reason}")
    if state.diagnosis:
        typer.echo(f"failure diagnosis: {state.diagnosis}")
    typer.echo(f"session: {session_dir}")


@app.command()
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
    from agentcycle.agent.program.session import create_session, new_session_id
    from agentcycle.knowledge import load_pack

    if max_cycles < 1:
        raise UserError(f"--max-cycles: must be at least 1 (got {max_cycles})")
    llm = llm_cli.planner_settings(provider, model, base_url)
    check_mode(checkpoint)
    agent_service_cli.use_agent_service(agent_url, agent_token)
    loaded = load_pack(pack)
    if via_pool:  # before the session is written: the pool must be able to run it
        ensure_prefect_api()
        from agentcycle.deployments.submit import check_pool_deployment

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


@app.command()
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


@app.command()
def show(
    session_dir: Annotated[Path, typer.Argument(help="Session directory.")],
    detail: Annotated[
        Detail, typer.Option(help="basic: the cycle table; detailed: all.")
    ] = Detail.basic,
) -> None:
    """Print a session's cycle table (and with --detail detailed, its whole story)."""
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


@app.command()
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


@app.command()
def query(
    sql: Annotated[str, typer.Argument(help="DuckDB SQL over the datasets and LanceDB tables.")],
    format: Annotated[store_cli.Format, typer.Option("--format", "-f")] = store_cli.Format.table,
) -> None:
    """Query every dataset (cycles, metrics, events, ...) and LanceDB table with DuckDB."""
    from agentcycle.storage.query import format_table, run_query

    typer.echo(format_table(run_query(sql), format.value).rstrip("\n"))


@app.command()
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


def main() -> None:
    """Run the CLI: bad input of any kind is one `error:` line on stderr and exit code 2.

    Files and folders we create are private (0600/0700), like `session.json`: the umask
    covers Parquet, logs, reports, input copies and the Prefect server we start.
    """
    from typer._click import exceptions as click  # typer vendors click (no public home)

    os.umask(0o077)
    try:
        code = app(standalone_mode=False)
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except click.NoArgsIsHelpError as exc:
        typer.echo(exc.ctx.get_help() if exc.ctx else str(exc), err=True)
        sys.exit(2)
    except click.UsageError as exc:  # a bad option or argument: one line, not a box
        command = exc.ctx.command_path if exc.ctx else "agentcycle"
        typer.echo(f"error: {command}: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        typer.echo(f"error: {' '.join(exc.format_message().split())}", err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("aborted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()

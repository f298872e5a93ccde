"""`agentcycle`: the front door. Heavy libraries (Prefect, torch, LanceDB) load lazily.

Bad input of any kind raises `UserError`; `main()` prints its message as one line on
stderr and exits with code 2. Nothing is written before the input has been checked.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.errors import UserError
from agentcycle.flows import cli_ask as ask_cli
from agentcycle.flows import cli_eval as eval_cli
from agentcycle.flows import cli_scenario as scenario_cli
from agentcycle.flows import cli_store as store_cli
from agentcycle.flows.eval_deploy import NIGHTLY

app = typer.Typer(
    name="agentcycle",
    help="Agents that run real programs as Prefect flows and prove what they did.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
knowledge_app = typer.Typer(help="Knowledge packs.", no_args_is_help=True)
server_app = typer.Typer(
    help="The local Prefect server (SQLite under the agentcycle home).", no_args_is_help=True
)
app.add_typer(knowledge_app, name="knowledge")
app.add_typer(server_app, name="server")
app.add_typer(store_cli.app)  # ingest, search, report, store compact|info
app.command()(ask_cli.ask)
app.add_typer(scenario_cli.scenario_app, name="scenario")
app.command(name="eval")(eval_cli.eval_command)


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


def _run_session(session_dir: Path, verbosity: Verbosity = Verbosity.normal) -> None:
    """Run (or resume) a session through the Prefect flows and print its cycle table."""
    from agentcycle.flows.server import ensure_prefect_api

    api = ensure_prefect_api()
    typer.echo(f"Prefect API: {api}  (watch: {api.removesuffix('/api')}/runs)", err=True)
    from agentcycle.agent.state import load_session
    from agentcycle.flows.agent_session import run_session
    from agentcycle.flows.summary import cycle_table

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
) -> None:
    """Start a session: the agent picks, runs and judges programs until it decides STOP."""
    from agentcycle.agent.session import create_session, new_session_id
    from agentcycle.config import sessions_dir
    from agentcycle.knowledge import load_pack

    if max_cycles < 1:
        raise UserError(f"--max-cycles: must be at least 1 (got {max_cycles})")
    loaded = load_pack(pack)
    session_id = new_session_id(loaded.name)
    session_dir = (session or sessions_dir() / session_id).resolve()
    if replay is not None and not (replay / "runs").is_dir():
        raise UserError(f"{replay}: not a scenario folder (no runs/ inside)")
    state = create_session(
        loaded, _pack_ref(pack), input_dir, session_dir, goal, max_cycles, session_id, replay
    )
    if goal:
        understood = "; ".join(state.directives.recognised) or "no directive recognised"
        typer.echo(f"goal: {goal}\ndirectives: {understood}", err=True)
    _run_session(session_dir, verbosity)


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
) -> None:
    """Continue a session that was interrupted; finished cycles are never repeated."""
    from agentcycle.agent.session import raise_max_cycles, refresh_advice

    if max_cycles is not None:
        raise_max_cycles(session_dir, max_cycles)
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
    from agentcycle.agent.events import format_events
    from agentcycle.agent.state import load_session
    from agentcycle.flows.summary import cycle_table

    state = load_session(session_dir)
    _echo_table(cycle_table(state), title=f"session {state.session_id}: {state.status}")
    for category, path in sorted(state.best_files.items()):
        typer.echo(f"best {category}: {path}")
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
    from agentcycle.agent.session import prune_session
    from agentcycle.storage.datasets import delete_session_rows

    state = prune_session(session_dir, last)
    first_dropped = len(state.cycles) + 1
    for dataset in ("cycles", "metrics", "events"):  # the session's rows follow session.json
        delete_session_rows(dataset, state.session_id, first_dropped)
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


@knowledge_app.command("validate")
def knowledge_validate(
    pack: Annotated[str, typer.Argument(help="Pack name or directory.")],
) -> None:
    """Check a pack; every problem is printed as `file:line: field: what is wrong`."""
    from agentcycle.knowledge import load_pack

    loaded = load_pack(pack)
    typer.echo(
        f"{loaded.name}: ok ({len(loaded.programs)} programs, "
        f"{len(loaded.workflows)} workflows, {len(loaded.file_categories)} file categories)"
    )


@knowledge_app.command("schema")
def knowledge_schema(
    out_dir: Annotated[Path | None, typer.Argument(help="Where to write the schemas.")] = None,
) -> None:
    """Export JSON Schemas of programs.yaml, workflows.yaml and file_categories.yaml."""
    from agentcycle.knowledge.json_schema import SCHEMAS_DIR, write_schemas

    for path in write_schemas(out_dir or SCHEMAS_DIR):
        typer.echo(str(path))


@server_app.command("start")
def server_start(port: int = 4200) -> None:
    """Start the local Prefect server (or report the running one)."""
    from agentcycle.flows.server import start_server

    info = start_server(port)
    typer.echo(f"Prefect server running: UI {info.ui_url}  API {info.url}  (pid {info.pid})")


@server_app.command("stop")
def server_stop() -> None:
    from agentcycle.flows.server import stop_server

    typer.echo("stopped" if stop_server() else "no server was running")


@server_app.command("status")
def server_status() -> None:
    from agentcycle.flows.server import server_status as status

    info = status()
    if info is None:
        typer.echo("not running")
        raise typer.Exit(1)
    typer.echo(f"running: UI {info.ui_url}  API {info.url}  (pid {info.pid})")


SuitesOption = Annotated[
    list[Path] | None, typer.Option("--suite", help="Evaluation suite to schedule (repeat).")
]
CronOption = Annotated[str, typer.Option(help="Schedule of the suites (cron, server time).")]


@app.command()
def serve(
    suite: SuitesOption = None,
    cron: CronOption = NIGHTLY,
    limit: Annotated[int | None, typer.Option(help="Concurrent runs at most.")] = None,
) -> None:
    """Serve `agent_run/agent-run` (trigger sessions from the Prefect UI) and, per
    --suite, an `evaluate/eval-<suite>` deployment on a cron schedule."""
    from agentcycle.flows.eval_deploy import check_cron
    from agentcycle.flows.server import ensure_prefect_api

    check_cron(cron)
    api = ensure_prefect_api()
    typer.echo(f"serving deployments on {api.removesuffix('/api')}", err=True)
    from agentcycle.flows.deploy import serve_agent_runs

    serve_agent_runs(limit, suites=suite or [], cron=cron)


@app.command()
def deploy(
    suite: SuitesOption = None,
    cron: CronOption = NIGHTLY,
    pool: Annotated[str, typer.Option(help="Process work pool (created if missing).")] = (
        "agentcycle"
    ),
) -> None:
    """Register `agent_run/agent-run` and, per --suite, a scheduled `evaluate/eval-<suite>`
    with a work pool; `prefect worker start --pool POOL` runs them."""
    from agentcycle.flows.eval_deploy import check_cron
    from agentcycle.flows.server import ensure_prefect_api

    check_cron(cron)
    api = ensure_prefect_api()
    from agentcycle.flows.deploy import deploy_to_pool

    for name in deploy_to_pool(pool, suite or [], cron):
        typer.echo(f"deployed {name} to pool {pool}")
    typer.echo(f"run them with: PREFECT_API_URL={api} prefect worker start --pool {pool}")


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


def main() -> None:
    try:
        app()
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()

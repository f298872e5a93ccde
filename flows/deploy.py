"""Deployments: run agent sessions from the Prefect UI or `prefect deployment run`.

`agentcycle serve` serves the `agent_run` flow as the deployment `agent_run/agent-run`
from this process (no work pool needed); `deployments/prefect.yaml` declares the same
deployment for `prefect deploy` with a process work pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

AGENT_RUN_DEPLOYMENT = "agent-run"


def serve_agent_runs(
    limit: int | None = None, suites: Sequence[Path] = (), cron: str = "0 2 * * *"
) -> None:
    """Serve until interrupted: sessions on demand, evaluation suites on their schedule."""
    from prefect import serve

    from agentcycle.flows.agent_session import agent_run
    from agentcycle.flows.eval_deploy import evaluate_deployments

    deployment = agent_run.to_deployment(
        name=AGENT_RUN_DEPLOYMENT,
        description="Run a program agent session: pack, input_dir, goal, max_cycles.",
        tags=["agentcycle"],
    )
    evaluations = evaluate_deployments([str(s) for s in suites], cron=cron) if suites else []
    serve(deployment, *evaluations, limit=limit, print_starting_message=True)

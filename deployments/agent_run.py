"""Deployments: run agent sessions and evaluation suites from Prefect.

Two ways, the same deployments (`agent_run/agent-run`, `evaluate/eval-<suite>` on a
cron schedule):
- `agentcycle serve` serves them from its own process: nothing else to start, runs
  stop when it stops.
- `agentcycle deploy` registers them with a process work pool (created if missing),
  loaded from this installation's source; `prefect worker start --pool POOL` runs
  them, on any machine with agentcycle installed at the same path. This is
  `deployments/prefect.yaml` without the YAML, with one deployment per suite given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agentcycle.deployments.evaluation import NIGHTLY, evaluate_deployments, serve_here
from agentcycle.deployments.submit import SESSION_DEPLOYMENT
from agentcycle.errors import UserError
from agentcycle.flows import agent_session, ask, evaluate
from agentcycle.flows.agent_session import agent_run

AGENT_RUN_DEPLOYMENT = "agent-run"
AGENT_RUN_DESCRIPTION = "Run a program agent session: pack, input_dir, goal, max_cycles."


def agent_run_deployment(flow: Any = None) -> Any:
    """The `agent_run/agent-run` RunnerDeployment (`flow`: a from-source `agent_run` for
    a work pool; default the imported one, for serving)."""
    return (flow or agent_run).to_deployment(
        name=AGENT_RUN_DEPLOYMENT, description=AGENT_RUN_DESCRIPTION, tags=["agentcycle"]
    )


def serve_agent_runs(
    limit: int | None = None,
    suites: Sequence[Path] = (),
    cron: str = NIGHTLY,
    on_corpus: str | None = None,
) -> None:
    """Serve until interrupted: sessions on demand, evaluation suites on their schedule
    (and on every re-ingest of `on_corpus`)."""
    evaluations = (
        evaluate_deployments([str(s) for s in suites], cron=cron, on_corpus=on_corpus)
        if suites
        else []
    )
    serve_here([agent_run_deployment(), *evaluations], limit)


def _from_source(module_file: str, flow_name: str) -> Any:
    """The flow loaded from this installation's source, as a worker will load it."""
    from prefect import Flow

    path = Path(module_file).resolve()
    return Flow.from_source(str(path.parent.parent), f"{path.parent.name}/{path.name}:{flow_name}")


def ensure_process_pool(pool: str) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import WorkPoolCreate
    from prefect.exceptions import ObjectNotFound

    with get_client(sync_client=True) as client:
        try:
            found = client.read_work_pool(pool)
        except ObjectNotFound:
            client.create_work_pool(WorkPoolCreate(name=pool, type="process"))
            return
    if found.type != "process":
        raise UserError(f"--pool {pool}: a {found.type!r} work pool; agentcycle needs 'process'")


def deploy_to_pool(
    pool: str, suites: Sequence[Path] = (), cron: str = NIGHTLY, on_corpus: str | None = None
) -> list[str]:
    """Register the deployments `serve` would serve with `pool`; returns their names."""
    from prefect import deploy


    deployments = [
        agent_run_deployment(_from_source(agent_session.__file__, "agent_run")),
        _from_source(agent_session.__file__, "agent_session").to_deployment(
            name=SESSION_DEPLOYMENT,
            description="Run or resume an existing session folder (agentcycle run --via-pool).",
            tags=["agentcycle"],
        ),
        _from_source(ask.__file__, "ask_flow").to_deployment(
            name="ask",
            description="Answer a question from an ingested corpus, with cited passages.",
            tags=["agentcycle"],
        ),
    ]
    if suites:  # a bad suite stops here, before the pool is touched
        evaluator = _from_source(evaluate.__file__, "evaluate")
        deployments += evaluate_deployments(
            [str(s) for s in suites], cron, flow=evaluator, on_corpus=on_corpus
        )
    ensure_process_pool(pool)
    deploy(*deployments, work_pool_name=pool, print_next_steps_message=False, ignore_warnings=True)
    return [d.full_name for d in deployments]

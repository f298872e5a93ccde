"""Deployments of the `evaluate` flow: one per suite, on a nightly cron by default.

One deployment per suite (not one with a suite parameter) so each suite has its own
schedule, its own run history in the Prefect UI and can be paused alone. Serve them
with `serve_evaluations(...)` (or add `evaluate_deployments(...)` to the deployments
`agentcycle serve` already serves); trigger one from the UI ("Run" on
`evaluate/eval-<suite>`) or with

    prefect deployment run 'evaluate/eval-<suite>' --param limit=5

A failed or regressed run emits `agentcycle.evaluation.failed` /
`agentcycle.evaluation.regressed` (see `flows.evaluate.announce`); an automation example:

    prefect automation create --from-file - <<'YAML'
    name: evaluation regressed
    trigger:
      type: event
      posture: Reactive
      expect: ["agentcycle.evaluation.regressed", "agentcycle.evaluation.failed"]
      threshold: 1
      within: 0
    actions:
      - type: send-notification
        block_document_id: <your notification block id>
        subject: "{{ event.event }}: {{ event.resource['agentcycle.suite'] }}"
        body: "{{ event.payload }}"
    YAML
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agentcycle.deployments import NIGHTLY
from agentcycle.deployments.triggers import corpus_trigger
from agentcycle.errors import UserError
from agentcycle.evaluation.runs import slug
from agentcycle.evaluation.suites import load_suite
from agentcycle.flows.evaluate import evaluate


def check_cron(cron: str) -> str:
    """The cron expression, or a UserError naming it (Prefect's own validation)."""
    from prefect.client.schemas.schedules import CronSchedule
    from pydantic import ValidationError


    try:
        CronSchedule(cron=cron)
    except ValidationError:
        raise UserError(f"--cron {cron!r}: not a cron expression (e.g. '0 2 * * *')") from None
    return cron


def deployment_name(suite: str) -> str:
    return f"eval-{slug(suite)}"[:60]


def evaluate_deployments(
    suites: Sequence[str | Path] | Mapping[str, str | Path],
    cron: str | Mapping[str, str] = NIGHTLY,
    parameters: Mapping[str, Any] | None = None,
    flow: Any = None,
    on_corpus: str | None = None,
) -> list[Any]:
    """A `RunnerDeployment` of `evaluate` per suite file, each on its cron.

    `suites`: paths (named by the suite's own name) or {name: path}; `cron`: one
    schedule for all or {name: cron}; `parameters`: extra flow parameters (provider,
    limit, ...), overridable per triggered run; `flow`: the `evaluate` flow to deploy
    (default the imported one, for serving; a from-source one for a work pool);
    `on_corpus`: also run each suite against that corpus whenever it is re-ingested.
    """
    named = (
        dict(suites)
        if isinstance(suites, Mapping)
        else {load_suite(Path(p)).name: p for p in suites}
    )
    deployments = []
    for name, path in named.items():
        schedule = cron.get(name, NIGHTLY) if isinstance(cron, Mapping) else cron
        deployments.append(
            (flow or evaluate).to_deployment(
                name=deployment_name(name),
                description=f"Evaluate the agent on suite {name} ({path}).",
                cron=schedule,
                parameters={"suite_path": str(Path(path).resolve()), **(parameters or {})},
                tags=["agentcycle", "evaluation"],
                triggers=[corpus_trigger(on_corpus)] if on_corpus else None,
            )
        )
    return deployments


def take_over_from_pools(deployments: Sequence[Any]) -> list[str]:
    """Delete same-named deployments that belong to a work pool; returns their names.

    Prefect keeps a work-pool deployment's pool and pull steps when a process later
    serves a deployment of the same name (PrefectHQ/prefect#15073), so runs of the
    served one crash or go to the pool's worker: serving must replace it outright.
    """
    from prefect.client.orchestration import get_client
    from prefect.exceptions import ObjectNotFound

    replaced = []
    with get_client(sync_client=True) as client:
        for deployment in deployments:
            name = deployment.full_name
            try:
                existing = client.read_deployment_by_name(name)
            except ObjectNotFound:
                continue
            if existing.work_pool_name:
                client.delete_deployment(existing.id)
                replaced.append(f"{name} (pool {existing.work_pool_name})")
    return replaced


def serve_here(deployments: Sequence[Any], limit: int | None = None) -> None:
    """Serve deployments from this process until interrupted, replacing pool-held ones."""
    import sys

    from prefect import serve

    for name in take_over_from_pools(deployments):
        print(f"serving here instead of the work pool: {name}", file=sys.stderr)
    serve(*deployments, limit=limit, print_starting_message=True)


def serve_evaluations(
    suites: Sequence[str | Path] | Mapping[str, str | Path],
    cron: str | Mapping[str, str] = NIGHTLY,
    limit: int | None = None,
) -> None:
    """Serve the suites' deployments from this process until interrupted."""
    serve_here(evaluate_deployments(suites, cron), limit)

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

NIGHTLY = "0 2 * * *"  # 02:00 every night, server time


def deployment_name(suite: str) -> str:
    from agentcycle.flows.evaluate import slug

    return f"eval-{slug(suite)}"[:60]


def evaluate_deployments(
    suites: Sequence[str | Path] | Mapping[str, str | Path],
    cron: str | Mapping[str, str] = NIGHTLY,
    parameters: Mapping[str, Any] | None = None,
) -> list[Any]:
    """A `RunnerDeployment` of `evaluate` per suite file, each on its cron.

    `suites`: paths (named by the suite's own name) or {name: path}; `cron`: one
    schedule for all or {name: cron}; `parameters`: extra flow parameters (provider,
    limit, ...), overridable per triggered run.
    """
    from agentcycle.agent.eval_suites import load_suite
    from agentcycle.flows.evaluate import evaluate

    named = (
        dict(suites)
        if isinstance(suites, Mapping)
        else {load_suite(Path(p)).name: p for p in suites}
    )
    deployments = []
    for name, path in named.items():
        schedule = cron.get(name, NIGHTLY) if isinstance(cron, Mapping) else cron
        deployments.append(
            evaluate.to_deployment(
                name=deployment_name(name),
                description=f"Evaluate the agent on suite {name} ({path}).",
                cron=schedule,
                parameters={"suite_path": str(Path(path).resolve()), **(parameters or {})},
                tags=["agentcycle", "evaluation"],
            )
        )
    return deployments


def serve_evaluations(
    suites: Sequence[str | Path] | Mapping[str, str | Path],
    cron: str | Mapping[str, str] = NIGHTLY,
    limit: int | None = None,
) -> None:
    """Serve the suites' deployments from this process until interrupted."""
    from prefect import serve

    serve(*evaluate_deployments(suites, cron), limit=limit, print_starting_message=True)

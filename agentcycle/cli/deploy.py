"""`agentcycle serve` and `agentcycle deploy`: the deployments, served here or in a pool.

Both are registered as top-level commands in `agentcycle.cli.main`; the deployment
builders themselves live in `deployments/`, imported when a command runs (they load
Prefect's deployment machinery, ~3 s), so `--help` answers at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentcycle.deployments import NIGHTLY

SuitesOption = Annotated[
    list[Path] | None, typer.Option("--suite", help="Evaluation suite to schedule (repeat).")
]
CronOption = Annotated[str, typer.Option(help="Schedule of the suites (cron, server time).")]
OnCorpusOption = Annotated[
    str | None,
    typer.Option(metavar="CORPUS", help="Also run the suites whenever CORPUS is re-ingested."),
]
WebhookOption = Annotated[
    str | None,
    typer.Option(metavar="URL", help="POST every significant evaluation regression to URL."),
]


def _triggers(on_corpus: str | None, regression_webhook: str | None) -> None:
    """Check the trigger options before any server starts; create the webhook automation
    once the server is there."""
    from agentcycle.deployments.triggers import check_webhook_url
    from agentcycle.deployments.triggers import regression_webhook as hook
    from agentcycle.server import ensure_prefect_api
    from agentcycle.storage.corpus import validate_corpus_name

    if on_corpus:
        validate_corpus_name(on_corpus)
    if regression_webhook:
        check_webhook_url(regression_webhook)
        ensure_prefect_api()
        hook(regression_webhook)
        typer.echo(f"regressions are posted to {regression_webhook}", err=True)


def serve(
    suite: SuitesOption = None,
    cron: CronOption = NIGHTLY,
    limit: Annotated[int | None, typer.Option(help="Concurrent runs at most.")] = None,
    on_corpus: OnCorpusOption = None,
    regression_webhook: WebhookOption = None,
) -> None:
    """Serve `agent_run/agent-run` (trigger sessions from the Prefect UI) and, per
    --suite, an `evaluate/eval-<suite>` deployment on a cron schedule."""
    from agentcycle.deployments.agent_run import serve_agent_runs
    from agentcycle.deployments.evaluation import check_cron
    from agentcycle.server import ensure_prefect_api

    check_cron(cron)
    _triggers(on_corpus, regression_webhook)
    api = ensure_prefect_api()
    typer.echo(f"serving deployments on {api.removesuffix('/api')}", err=True)
    serve_agent_runs(limit, suites=suite or [], cron=cron, on_corpus=on_corpus)


def deploy(
    suite: SuitesOption = None,
    cron: CronOption = NIGHTLY,
    pool: Annotated[str, typer.Option(help="Process work pool (created if missing).")] = (
        "agentcycle"
    ),
    on_corpus: OnCorpusOption = None,
    regression_webhook: WebhookOption = None,
) -> None:
    """Register `agent_run/agent-run` and, per --suite, a scheduled `evaluate/eval-<suite>`
    with a work pool; `prefect worker start --pool POOL` runs them."""
    from agentcycle.deployments.agent_run import deploy_to_pool
    from agentcycle.deployments.evaluation import check_cron
    from agentcycle.server import ensure_prefect_api

    check_cron(cron)
    _triggers(on_corpus, regression_webhook)
    api = ensure_prefect_api()
    for name in deploy_to_pool(pool, suite or [], cron, on_corpus):
        typer.echo(f"deployed {name} to pool {pool}")
    typer.echo(f"run them with: PREFECT_API_URL={api} prefect worker start --pool {pool}")

"""Event-triggered runs: evaluations that follow their corpus, and a regression webhook.

- A re-ingested corpus emits `agentcycle.corpus.updated` (see `flows.ingest`); an
  evaluation deployment with `corpus_trigger(NAME)` runs its suite against that corpus
  whenever it changes, so a documentation update is measured the moment it lands.
- A regressed evaluation emits `agentcycle.evaluation.regressed` (see
  `flows.evaluate.announce`); `regression_webhook(URL)` makes the server POST it to a
  URL (a chat hook, an incident tool) through a Prefect automation and a Webhook block.

Both run in the Prefect server (its triggers and actions services), so nothing of ours
has to be running for them to fire beyond the server and whatever serves the deployment.
"""

from __future__ import annotations

from urllib.parse import urlparse

from prefect.automations import Automation
from prefect.blocks.webhook import Webhook
from prefect.client.orchestration import get_client
from prefect.events import DeploymentEventTrigger
from prefect.events.actions import CallWebhook
from prefect.events.schemas.automations import EventTrigger, Posture

from agentcycle.errors import UserError
from agentcycle.prefect_events import CORPUS_LABEL, CORPUS_UPDATED, EVALUATION_REGRESSED

WEBHOOK_BLOCK = "agentcycle-regression-webhook"
REGRESSION_AUTOMATION = "agentcycle: evaluation regressed"


def corpus_trigger(corpus: str) -> DeploymentEventTrigger:
    """Run the deployment when `corpus` is re-ingested, evaluating against that corpus."""
    return DeploymentEventTrigger(
        name=f"on {CORPUS_UPDATED} {corpus}",
        expect={CORPUS_UPDATED},
        match={CORPUS_LABEL: corpus},
        posture=Posture.Reactive,
        threshold=1,
        within=0,
        parameters={"corpus": corpus},
    )


def check_webhook_url(url: str) -> str:
    """An http(s) URL with a host, or a UserError naming the option."""
    parsed = urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise UserError(f"--regression-webhook {url!r}: not an http(s) URL")
    return url


def regression_webhook(url: str) -> str:
    """Create (or replace) the automation that POSTs every regression to `url`.

    Returns the automation's id. The payload carries the suite, the run and the
    comparison that `announce` put in the event.
    """
    check_webhook_url(url)
    host = urlparse(url).hostname or ""
    private = host in ("localhost", "::1") or host.startswith(("127.", "10.", "192.168."))
    block_id = Webhook(method="POST", url=url, allow_private_urls=private).save(
        WEBHOOK_BLOCK, overwrite=True
    )
    with get_client(sync_client=True) as client:  # replace, never pile up duplicates
        for existing in client.read_automations_by_name(name=REGRESSION_AUTOMATION):
            client.delete_automation(existing.id)
    automation = Automation(
        name=REGRESSION_AUTOMATION,
        description="POST every significant evaluation regression to the team's webhook.",
        trigger=EventTrigger(
            expect={EVALUATION_REGRESSED}, posture=Posture.Reactive, threshold=1, within=0
        ),
        actions=[
            CallWebhook(
                block_document_id=block_id,
                payload=(
                    '{"event": "{{ event.event }}", '
                    '"suite": "{{ event.resource[\'agentcycle.suite\'] }}", '
                    '"run": "{{ event.resource.id }}", '
                    '"delta": "{{ event.payload.delta }}", '
                    '"p_value": "{{ event.payload.p_value }}"}'
                ),
            )
        ],
    ).create()
    return str(automation.id)


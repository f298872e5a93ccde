"""The Prefect events agentcycle emits, named in one place.

Flows emit them and deployments react to them (event triggers, automations), so the
names and resource labels must agree on both sides; a typo would make a trigger that
never fires without any error.
"""

from __future__ import annotations

CORPUS_UPDATED = "agentcycle.corpus.updated"
EVALUATION_FAILED = "agentcycle.evaluation.failed"
EVALUATION_REGRESSED = "agentcycle.evaluation.regressed"

CORPUS_LABEL = "agentcycle.corpus"
SUITE_LABEL = "agentcycle.suite"


def corpus_resource(corpus: str) -> dict[str, str]:
    """The resource of a corpus event: its id and the label triggers match on."""
    return {"prefect.resource.id": f"agentcycle.corpus.{corpus}", CORPUS_LABEL: corpus}


def evaluation_resource(run_id: str, suite: str) -> dict[str, str]:
    """The resource of an evaluation event: the run, and the suite it evaluated."""
    return {"prefect.resource.id": f"agentcycle.evaluation.{run_id}", SUITE_LABEL: suite}

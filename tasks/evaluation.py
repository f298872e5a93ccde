"""The Prefect task of the `evaluate` flow: one sample as one task run.

Each sample is its own task run so the UI shows every question; its retrievals and LLM
calls go through `PrefectTools`, whose tasks are cached on their inputs. The work itself
is `evaluation.samples.evaluate_sample`, a plain function.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from agentcycle.evaluation.samples import Replay, evaluate_sample
from agentcycle.evaluation.suites import QaSample, ScenarioSample, Suite
from agentcycle.tasks.research import LocalTools, PrefectTools


@task(name="eval-sample", task_run_name="eval-{key}", cache_policy=NO_CACHE)
def eval_sample(
    suite: Suite,
    sample: QaSample | ScenarioSample,
    key: str,
    epoch: int,
    run_id: str,
    corpus: str,
    settings: dict[str, Any],
    replay: Replay | None = None,
) -> dict[str, Any]:
    """One sample as a task run; its retrievals and LLM calls are cached task runs."""

    def tools() -> LocalTools:
        return PrefectTools(
            corpus,
            settings["provider"],
            settings["model"],
            settings["base_url"],
            session_id=f"{run_id}/{key}",  # its `retrievals` rows name the run and sample
        )

    return evaluate_sample(suite, sample, key, epoch, run_id, tools, replay)

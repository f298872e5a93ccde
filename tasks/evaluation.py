"""The Prefect tasks of the `evaluate` flow: one sample as one task run.

Each sample is its own task run so the UI shows every question; its retrievals and LLM
calls go through `PrefectTools`, whose tasks are cached on their inputs. The work itself
is `evaluation.samples.evaluate_sample`, a plain function. On Dask, samples travel in
small batches (`eval_batch`), each sample still its own task run inside.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from agentcycle.evaluation.samples import Replay, evaluate_sample
from agentcycle.evaluation.suites import QaSample, ScenarioSample, Suite
from agentcycle.tasks.research import LocalTools, PrefectTools, corpus_vocabulary, prepare_vectors


def warm_up(corpus: str, version: str | None = None) -> None:
    """Load the embedding model and the corpus's vocabulary before any sample's clock
    starts. Otherwise the first samples of a fresh process (a rerun, a resumed run, a new
    Dask worker) each carry the ~5 s model load, and the run's p95 latency with them.
    `version`: the one the run's samples search (read by the flow)."""
    corpus_vocabulary(corpus, version)
    prepare_vectors(["warm up"])


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
    corpus_version: str | None = None,
) -> dict[str, Any]:
    """One sample as a task run; its retrievals and LLM calls are cached task runs.

    `corpus_version`: the version the whole run searches (read once by the flow)."""

    def tools() -> LocalTools:
        return PrefectTools(
            corpus,
            settings["provider"],
            settings["model"],
            settings["base_url"],
            session_id=f"{run_id}/{key}",  # its `retrievals` rows name the run and sample
            corpus_version=corpus_version,
        )

    return evaluate_sample(suite, sample, key, epoch, run_id, tools, replay)


@task(name="eval-batch", task_run_name="batch-{first}", cache_policy=NO_CACHE)
def eval_batch(
    first: str, items: list[dict[str, Any]], common: dict[str, Any]
) -> list[dict[str, Any]]:
    """A few samples sent to a Dask worker as one task; each is its own `eval-sample`
    task run there, so the UI still lists every question.

    Why: sending one task to a Dask worker costs Prefect ~70 ms of the flow process's
    CPU (it serialises the whole settings context) and ~25 ms on the worker (which
    rebuilds it and its API clients). Per sample, that is a fifth of a rules-only
    sample's work, spent on the same cores as the work.
    """
    return [eval_sample(**item, **common) for item in items]

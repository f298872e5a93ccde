"""The Prefect tasks of the `evaluate` flow: one sample as one task run.

Each sample is its own task run so the UI shows every question; its LLM calls go through
`PrefectTools`, whose tasks are cached on their inputs, and its searches run inside it
(a task run per search costs more than the search). The work itself is
`evaluation.samples.evaluate_sample`, a plain function. On Dask, one `eval_worker` task
per worker thread draws samples from a queue, each sample still its own task run.
"""

from __future__ import annotations

from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE

from agentcycle.evaluation.samples import Replay, evaluate_sample
from agentcycle.evaluation.suites import QaSample, ScenarioSample, Suite
from agentcycle.storage.corpus_models import corpus_model
from agentcycle.storage.embedding import DEFAULT_MODEL, get_model
from agentcycle.tasks.research import QUERY_DTYPE, LocalTools, PrefectTools, corpus_vocabulary


def warm_up(corpus: str, version: str | None = None) -> None:
    """Load the embedding model and the corpus's vocabulary before any sample's clock
    starts. Otherwise the first samples of a fresh process (a rerun, a resumed run, a new
    Dask worker) each carry the ~5 s model load, and the run's p95 latency with them.
    `version`: the one the run's samples search (read by the flow)."""
    corpus_vocabulary(corpus, version)
    # The models themselves, not a vector: one from the home's store needs no model.
    get_model(dtype=QUERY_DTYPE)  # comparing texts and queries
    model = corpus_model(corpus)
    if model != DEFAULT_MODEL:  # searching a corpus embedded with its own model
        get_model(path=model.path)


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
    """One sample as a task run; its LLM calls are cached task runs, its searches plain.

    `corpus_version`: the version the whole run searches (read once by the flow)."""

    def tools() -> LocalTools:
        return PrefectTools(
            corpus,
            settings["provider"],
            settings["model"],
            settings["base_url"],
            session_id=f"{run_id}/{key}",  # its `retrievals` rows name the run and sample
            corpus_version=corpus_version,
            retrieval_tasks=False,  # the sample is the task run; see PrefectTools
        )

    return evaluate_sample(suite, sample, key, epoch, run_id, tools, replay)


@task(name="eval-worker", task_run_name="eval-worker-{slot}", cache_policy=NO_CACHE)
def eval_worker(
    slot: int, items: list[dict[str, Any]], common: dict[str, Any], queues: tuple[str, str]
) -> int:
    """Run the samples whose indices this worker draws from the run's `todo` queue, each
    its own `eval-sample` task run, and report each verdict on the `done` queue; stop at a
    negative index. Returns how many samples it ran.

    Why a long-lived task per worker thread rather than a task per sample or batch:
    sending a task to a Dask worker costs Prefect ~60 ms of the flow process's CPU (it
    serialises its whole settings context) and ~25 ms of the worker's, on the very cores
    the samples need. Drawing an index costs one scheduler round trip (~1 ms), and the
    workers stay busy until the last sample. `slot` only names the task run.
    """
    from distributed import Queue  # only on Dask

    todo, done = Queue(queues[0]), Queue(queues[1])
    ran = 0
    while (index := todo.get()) >= 0:
        row = eval_sample(**items[index], **common)
        done.put(bool(row["correct"]))
        ran += 1
    return ran

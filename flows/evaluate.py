"""The `evaluate` flow: run a suite's samples as Prefect task runs and record them.

Why it is shaped like this:
- Each sample is one task run, `concurrency` at a time on a thread pool (a flow
  parameter, so a run triggered from the Prefect UI can set it), so the UI shows every
  question; a progress bar on stderr counts finished samples and right answers. On
  Dask, one long task per worker thread draws samples from a queue (`run_on_dask`):
  each task sent costs Prefect a serialised context, and the samples inside stay task
  runs of their own.
- A sample that raises becomes a row with `error` set: one bad question must not throw
  away an hour of answered ones.
- Each finished sample is appended to `eval_samples` at once (one small Parquet file),
  so an interrupted run loses at most the samples in flight; `resume` skips samples
  already recorded for the run id and `retry_failed` reruns only those with an error.
  Readers take the newest row per (run, sample), so a retried sample counts once.
- Every scorer's verdict, the calls and the grounding of a sample, and the run's
  per-type accuracy, standard errors, latency percentiles, suite hash, code version
  and settings are real columns (lists of structs where there are several), so DuckDB
  can filter and group on them without parsing JSON.
- LLM calls go through `PrefectTools`, whose tasks are cached on inputs; a sample's
  searches run inside its task run (a task run per search costs more than the search).

The pieces live where they belong: the task in `tasks/evaluation.py`, one sample's work
in `evaluation/samples.py`, run bookkeeping in `evaluation/runs.py`, statistics in
`evaluation/statistics.py`, text and HTML in `evaluation/report.py`.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import uuid4

from prefect import flow, get_run_logger
from prefect.artifacts import create_table_artifact
from prefect.events import emit_event
from prefect.futures import as_completed
from prefect.runtime import flow_run
from prefect.task_runners import TaskRunner, ThreadPoolTaskRunner
from tqdm import tqdm

from agentcycle.errors import UserError
from agentcycle.evaluation.report import write_report
from agentcycle.evaluation.runs import (
    Todo,
    compare_runs,
    ensure_corpus,
    new_run_id,
    plan,
    record_run,
    slug,
    suite_history,
)
from agentcycle.evaluation.suites import load_suite
from agentcycle.flows.heartbeat import heartbeats_if_asked
from agentcycle.prefect_events import EVALUATION_FAILED, EVALUATION_REGRESSED, evaluation_resource
from agentcycle.scenarios import run_scenario
from agentcycle.storage.corpora import corpus_with_files
from agentcycle.tasks.evaluation import eval_sample, eval_worker, warm_up
from agentcycle.tasks.research import version_key

if TYPE_CHECKING:
    from distributed import LocalCluster, Queue


def announce(suite: str, run_id: str, summary: dict[str, Any]) -> dict[str, Any] | None:
    """Emit Prefect events an automation can act on: `agentcycle.evaluation.failed` when
    samples errored, `agentcycle.evaluation.regressed` when accuracy dropped
    significantly against the suite's previous run. Returns that comparison, if any."""
    earlier = [h for h in suite_history(suite) if h["run_id"] != run_id]
    comparison = compare_runs(earlier[-1]["run_id"], run_id) if earlier else None
    resource = evaluation_resource(run_id, suite)
    if summary["errors"]:
        emit_event(
            EVALUATION_FAILED,
            resource=resource,
            payload={"errors": summary["errors"], "samples": summary["samples"]},
        )
    if comparison and comparison["regressed"]:
        emit_event(
            EVALUATION_REGRESSED,
            resource=resource,
            payload={k: comparison[k] for k in ("run_a", "delta", "p_value", "broken")},
        )
    return comparison


# The scheduler's HTTP server (health, metrics; the dashboard with bokeh): "None" means
# Dask's fixed port 8787, which a second run at the same time finds taken and warns
# about; a free loopback port each keeps runs apart.
LOOPBACK_ANY_PORT = "127.0.0.1:0"
POLL_SECONDS = 0.1  # how often the flow reads finished samples from a Dask queue
# The environment of a local cluster's worker processes: torch, BLAS and the tokenizer
# held to one thread each, so two workers do not oversubscribe the cores; and a console
# that prints warnings only: each sample's "Finished in state Completed()" line would
# tear the progress bar (the flow's own console hides them too) and costs the worker a
# Rich rendering per task run. The Prefect UI still receives every line.
WORKER_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
}
# Dask's housekeeping on a local cluster, slowed: its processes share the cores the
# samples need. At the defaults an idle 2-worker cluster burns ~0.13 of a core (the event
# loop watchdog ticks every 20 ms in the scheduler, each nanny and each worker; every
# worker samples its threads' stacks every 10 ms for the dashboard's profile), which
# costs a 2-worker run on 2 cores ~5 % of its wall time; with these, ~0.02 of a core.
CLUSTER_CONFIG = {
    "distributed.admin.tick.interval": "500ms",  # the watchdog: a blocked loop still shows
    "distributed.worker.profile.enabled": False,  # nobody reads a local cluster's profile
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.disk": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,  # one long task per worker thread
}


def sample_runner(
    concurrency: int, workers: int | None, dask_address: str | None
) -> TaskRunner:
    """Threads of this process by default; Dask processes for `workers` or a cluster.

    Rules-only samples are GIL-bound Python, so threads cannot use a second core: a
    `LocalCluster` of `workers` processes with one thread each can (torch and BLAS are
    held to one thread per worker so they do not oversubscribe the cores). A
    `dask_address` sends the samples to an existing scheduler, e.g. on other machines.
    """
    if not workers and not dask_address:
        return ThreadPoolTaskRunner(max_workers=concurrency)
    from prefect_dask import DaskTaskRunner  # imports distributed: only when asked for

    # Dask's own config logs every connection at INFO through the console Prefect set up:
    # dozens of lines around the progress bar. Its warnings and errors still show.
    logging.getLogger("distributed").setLevel(logging.WARNING)

    if dask_address:
        elsewhere = _default_client_elsewhere(dask_address)
        if elsewhere:
            raise UserError(
                f"--dask-address {dask_address}: this process's default Dask client is "
                f"connected to {elsewhere}, and prefect-dask would send the samples there; "
                "close that client, or make it with Client(..., set_as_default=False)"
            )
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(cluster_class=local_cluster, cluster_kwargs={"workers": workers or 1})


def _default_client_elsewhere(dask_address: str) -> str | None:
    """The scheduler of this process's default Dask client, when it is not the one at
    `dask_address`: prefect-dask sends a flow's tasks to the default client's cluster
    whatever address it is given (a notebook with a client open, a benchmark holding two
    clusters), so the samples would run, silently, on the other cluster."""
    from distributed.client import default_client
    from distributed.comm.addressing import resolve_address

    try:
        client = default_client()
    except ValueError:  # none: the address given is the one used
        return None
    theirs = client.scheduler.address
    return None if resolve_address(theirs) == resolve_address(dask_address) else theirs


def local_cluster(workers: int, config: Mapping[str, Any] = CLUSTER_CONFIG) -> LocalCluster:
    """The `LocalCluster` evaluation runs on (`benchmarks/eval_scaling.py` times the same
    one): `workers` processes of one thread each, in `WORKER_ENV`, with `config` (the
    scheduler and nannies read it as they start; each worker is handed its nanny's
    copy, so the process's own Dask config is left as it was). `benchmarks/
    cluster_idle.py` passes `{}` to measure Dask's defaults on the same cluster."""
    import dask
    from distributed import LocalCluster

    with dask.config.set(dict(config)):
        return LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True,
            dashboard_address=LOOPBACK_ANY_PORT, env=WORKER_ENV,
        )  # fmt: skip


def run_on_dask(
    items: list[dict[str, Any]], common: dict[str, Any], runner: TaskRunner, bar: tqdm
) -> None:
    """Run the samples on the Dask cluster: one `eval_worker` per worker thread, drawing
    sample indices from a queue on the scheduler; finished samples are counted on `bar`.

    A worker that dies takes at most its sample in flight with it (`resume` reruns it);
    a worker task that fails raises here once the others have finished.
    """
    from distributed import Queue  # only on Dask

    client = runner.client
    name = uuid4().hex  # runs sharing a scheduler do not share queues
    todo = Queue(f"eval-todo-{name}", client=client)  # sample indices, then stop signs
    done = Queue(f"eval-done-{name}", client=client)  # one verdict per finished sample
    slots = max(1, sum(client.nthreads().values()))
    try:
        for index in [*range(len(items)), *[-1] * slots]:  # a stop sign per worker
            todo.put(index)
        workers = [
            runner.submit(eval_worker, {"slot": slot, "items": items, "common": common,
                                        "queues": (todo.name, done.name)})
            for slot in range(slots)
        ]  # fmt: skip

        def ended() -> bool:
            return all(worker.wrapped_future.done() for worker in workers)

        follow_verdicts(done, len(items), ended, bar)
        for worker in workers:
            worker.result()  # a worker task that failed raises its error
    finally:
        todo.close()
        done.close()


def follow_verdicts(done: Queue, total: int, ended: Callable[[], bool], bar: tqdm) -> int:
    """Count the verdicts that arrive on `done` on `bar` until `total` have come or
    every worker has `ended`; returns how many came.

    Why polling rather than `done.get(timeout=…)`: a read that times out raises on the
    scheduler, which logs it as an ERROR with a traceback ("Exception while handling op
    queue_get") on the user's terminal whenever no sample finishes within the timeout,
    as while fresh workers import their code. A batch read never waits; ten empty
    reads a second cost the scheduler nothing the samples would notice.
    """
    finished = right = 0  # not bar.n: a disabled bar counts nothing
    while finished < total:
        over = ended()  # asked before reading: no verdict is put after the last worker ends
        verdicts = done.get(batch=True)
        if not verdicts:
            if over:
                break
            time.sleep(POLL_SECONDS)
            continue
        finished, right = finished + len(verdicts), right + sum(verdicts)
        bar.update(len(verdicts))
        bar.set_postfix_str(f"{right}/{finished} correct", refresh=False)
    return finished


def run_todo(
    todo: Todo,
    common: dict[str, Any],
    runner: TaskRunner,
    progress: bool,
) -> None:
    """Run the samples as task runs on `runner`, counting them on stderr."""
    with (
        runner,
        tqdm(total=len(todo), unit="sample", disable=not progress, file=sys.stderr) as bar,
    ):
        if common["suite"].kind == "qa":  # where the samples run, before any is timed
            bar.set_description_str("loading models")  # fresh workers: ~10 s at 0 %
            if isinstance(runner, ThreadPoolTaskRunner):
                warm_up(common["corpus"], common["corpus_version"])
            else:
                runner.client.run(warm_up, common["corpus"], common["corpus_version"])
            bar.set_description_str("")
        items = [{"sample": s, "key": k, "epoch": e} for s, k, e in todo]
        if not isinstance(runner, ThreadPoolTaskRunner):
            run_on_dask(items, common, runner, bar)
            return
        right = 0
        futures = [runner.submit(eval_sample, {**item, **common}) for item in items]
        for future in as_completed(futures):
            right += bool(future.result()["correct"])
            bar.update(1)
            bar.set_postfix_str(f"{right}/{bar.n} correct", refresh=False)


def flow_run_name() -> str:
    """`eval-<run id>` when the caller chose the id (the CLI always does, so the run it
    announced is the one to look for in the UI), else `eval-<suite file>`."""
    parameters = flow_run.parameters
    return f"eval-{parameters.get('run_id') or Path(parameters['suite_path']).stem}"


@flow(name="evaluate", flow_run_name=flow_run_name, log_prints=False)
def evaluate(
    suite_path: str,
    provider: str = "rules",
    model: str | None = None,
    base_url: str | None = None,
    limit: int | None = None,
    epochs: int = 1,
    concurrency: int = 2,
    workers: int | None = None,
    dask_address: str | None = None,
    corpus: str | None = None,
    run_id: str | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    report: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    """Run a suite (or what is left of a run) and record samples, run row and report.

    `concurrency` samples run at once (threads: LLM-bound samples overlap their waits);
    `workers` runs them on a local Dask cluster of that many processes instead, and
    `dask_address` on an existing Dask scheduler;
    `resume`/`retry_failed` need the `run_id` of the earlier run.
    """
    logger = get_run_logger()
    started = datetime.now(UTC)
    suite = load_suite(Path(suite_path))
    if concurrency < 1 or epochs < 1 or (limit is not None and limit < 1) or (
        workers is not None and workers < 1
    ):
        raise UserError("concurrency, workers, epochs and limit must be at least 1")
    # A corpus already ingested from these very files is reused, whatever its name.
    reused = None if corpus or suite.kind != "qa" else corpus_with_files(suite.corpus_files())
    corpus = corpus or reused or slug(suite.name)
    run_id = run_id or new_run_id(suite.name)
    if suite.kind == "qa" and not reused:
        ensure_corpus(suite, corpus)
    todo = plan(suite, run_id, limit, epochs, resume, retry_failed)
    logger.info("run %s: %d sample(s) to run", run_id, len(todo))
    llm = {"provider": provider, "model": model, "base_url": base_url}
    # Each task gets the suite without its samples (it needs name and paths only):
    # Prefect walks every parameter looking for futures, once per task run, so the whole
    # suite would make a run quadratic in its size, and a Dask worker would be sent every
    # sample with every task (Dask's serialisation also drops a `quote` wrapper).
    # replay: scenario samples run the session flow, which the task layer must not import.
    header = suite.model_copy(update={"samples": []})
    # One corpus version for the whole run, read once: a re-ingest during the run cannot
    # mix two versions in its figures, and no sample asks the store again.
    version = version_key(corpus) if suite.kind == "qa" else None
    common = {"suite": header, "run_id": run_id, "corpus": corpus, "settings": llm,
              "replay": run_scenario, "corpus_version": version}  # fmt: skip
    if todo:
        run_todo(todo, common, sample_runner(concurrency, workers, dask_address), progress)
    settings = {
        "provider": provider,
        "model": model,
        "corpus": corpus if suite.kind == "qa" else None,
        "sample_limit": limit,
        "epochs": epochs,
        "concurrency": concurrency,
        "workers": workers,
        "dask_address": dask_address,
    }
    summary = record_run(suite, run_id, settings, started)
    create_table_artifact(
        key=f"eval-{slug(suite.name)}"[:60],
        table=[
            {"type": k, "n": s["n"], "accuracy": round(s["accuracy"], 4), "se": round(s["se"], 4)}
            for k, s in summary["by_type"].items()
        ]
        + [
            {
                "type": "all",
                "n": summary["samples"],
                "accuracy": round(summary["accuracy"], 4),
                "se": round(summary["se"], 4),
            }
        ],
        description=f"evaluate {suite.name} run {run_id}",
    )
    regression = announce(suite.name, run_id, summary)
    report_path = None
    if report:
        report_path = str(write_report(run_id))
    logger.info(  # the full table is the run's artifact and the CLI's output
        "run %s: accuracy %.1f%% ± %.1f%% over %d samples, %d errors",
        run_id, 100 * summary["accuracy"], 100 * summary["se"], summary["samples"],
        summary["errors"],
    )  # fmt: skip
    return {
        "run_id": run_id,
        "suite": suite.name,
        "report": report_path,
        "regression": regression,
        **summary,
    }


def run_evaluate(suite_path: str | Path, **options: Any) -> dict[str, Any]:
    """Run the flow in this process (heartbeats only if asked: `flows.heartbeat`)."""
    with heartbeats_if_asked():
        return evaluate(str(suite_path), **options)

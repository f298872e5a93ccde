"""Wall time of the `evaluate` flow on a Dask cluster of 1 and of 2 worker processes.

    .venv/bin/python benchmarks/eval_scaling.py [--questions 100]

The suite is the first N questions of the project's own question set
(`evaluation/question_sets/answers.yaml`, 147 distinct questions over the shared corpus),
rules-only. Distinct questions matter: a suite that repeats questions lets one worker
answer the repeats from its in-process caches, which a second worker does not
share, so it would measure cache luck rather than scaling.

For 1 and 2 workers: start a `LocalCluster` (one thread per worker), warm it with a
small run (every worker loads torch, the embedding model and the corpus once, ~8 s,
which a long-lived cluster pays once), then time the whole suite sent to that scheduler
with Prefect's retrieval cache refreshed, so every search really runs, and the home's
stored sentence vectors cleared, so each run embeds what it reads once, its workers
sharing what they embed (`storage.vector_cache`). Both runs happen in this one
process, so the ratio compares like with like on whatever the machine is doing.
Target: `speed-up: >= 1.80x with 2 workers`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

PROJECT = Path(__file__).resolve().parents[1]
QUESTION_SET = PROJECT / "evaluation" / "question_sets" / "answers.yaml"


def distinct_suite(question_set: Path, n: int, folder: Path) -> Path:
    """The first `n` questions of the set as a suite file with an absolute corpus root."""
    data = yaml.safe_load(question_set.read_text())
    if n > len(data["questions"]):
        raise SystemExit(f"--questions {n}: {question_set.name} has {len(data['questions'])}")
    data["name"] = f"scaling-{n}"
    data["corpus_root"] = str((question_set.parent / data["corpus_root"]).resolve())
    data["questions"] = data["questions"][:n]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"scaling-{n}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def timed_on_cluster(workers: int, warm: Path, suite: Path, corpus: str) -> tuple[float, dict]:
    """Seconds for the whole suite on a warm local cluster of `workers` processes."""
    from distributed import LocalCluster

    from agentcycle.flows.evaluate import ONE_THREAD_ENV, run_evaluate
    from agentcycle.storage.vector_cache import clear_vectors

    env = {**ONE_THREAD_ENV, "PREFECT_TASKS_REFRESH_CACHE": "true"}  # every search runs
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, env=env) as cluster:  # fmt: skip
        # The flow warms every worker (model, vocabulary) before its samples; this run
        # also imports the flow's code there, so the timed run pays neither.
        run_evaluate(warm, dask_address=cluster.scheduler_address, corpus=corpus, report=False)
        clear_vectors()  # both timed runs start without stored sentence vectors
        started = time.perf_counter()
        summary = run_evaluate(
            suite, dask_address=cluster.scheduler_address, corpus=corpus, report=False
        )
        return time.perf_counter() - started, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--set", type=Path, default=QUESTION_SET, help="question set YAML")
    parser.add_argument("--corpus", default="qa-dev")
    args = parser.parse_args()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    from agentcycle.server import ensure_prefect_api

    ensure_prefect_api()  # before Prefect is imported
    from agentcycle.evaluation.runs import ensure_corpus
    from agentcycle.evaluation.suites import load_suite

    n = args.questions
    with tempfile.TemporaryDirectory() as folder:
        suite = distinct_suite(args.set, n, Path(folder))
        warm = distinct_suite(args.set, 4, Path(folder) / "warm")
        ensure_corpus(load_suite(suite), args.corpus)
        one, summary_one = timed_on_cluster(1, warm, suite, args.corpus)
        two, summary_two = timed_on_cluster(2, warm, suite, args.corpus)
    print(f"{n} distinct questions, rules-only; accuracy 1 worker {summary_one['accuracy']:.1%}, "
          f"2 workers {summary_two['accuracy']:.1%}")  # fmt: skip
    print(f"1 worker:  {one:7.1f} s  ({n / one:5.2f} q/s)")
    print(f"2 workers: {two:7.1f} s  ({n / two:5.2f} q/s)")
    print(f"speed-up: {one / two:.2f}x with 2 workers (target >= 1.80x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

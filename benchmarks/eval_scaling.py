"""Wall time of the `evaluate` flow on a Dask cluster of 1 and of 2 worker processes.

    .venv/bin/python benchmarks/eval_scaling.py [--questions 200]

Builds a rules-only suite of N questions by cycling dev.yaml's (as eval_throughput.py
does), ingests its corpus, then for 1 and 2 workers: starts a `LocalCluster` (one
thread per worker), warms every worker with a few questions (each loads torch and the
embedding model once, ~8 s, which a long-lived cluster pays once), and times the whole
suite sent to that scheduler with Prefect's retrieval cache refreshed, so every search
really runs. Both runs happen in this one process, so the ratio compares like with like
on whatever the machine is doing. Target: `speed-up: >= 1.80x with 2 workers`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval_throughput import DEFAULT_DEV, build_suite


def timed_on_cluster(workers: int, warm: Path, suite: Path, corpus: str) -> tuple[float, dict]:
    """Seconds for the whole suite on a warm local cluster of `workers` processes."""
    from distributed import LocalCluster

    from agentcycle.flows.evaluate import run_evaluate

    one_thread = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                  "TOKENIZERS_PARALLELISM": "false", "PREFECT_TASKS_REFRESH_CACHE": "true"}
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, env=one_thread) as cluster:  # fmt: skip
        address = cluster.scheduler_address
        run_evaluate(warm, dask_address=address, corpus=corpus, report=False)
        started = time.perf_counter()
        summary = run_evaluate(suite, dask_address=address, corpus=corpus, report=False)
        return time.perf_counter() - started, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    parser.add_argument("--corpus", default="qa-dev")
    args = parser.parse_args()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    from agentcycle.server import ensure_prefect_api

    ensure_prefect_api()  # before Prefect is imported
    from agentcycle.evaluation.runs import ensure_corpus
    from agentcycle.evaluation.suites import load_suite

    n = args.questions
    with tempfile.TemporaryDirectory() as folder:
        suite = build_suite(args.dev, n, Path(folder))
        warm = build_suite(args.dev, 8, Path(folder) / "warm")
        ensure_corpus(load_suite(suite), args.corpus)
        one, summary_one = timed_on_cluster(1, warm, suite, args.corpus)
        two, summary_two = timed_on_cluster(2, warm, suite, args.corpus)
    print(f"{n} questions, rules-only; accuracy 1 worker {summary_one['accuracy']:.1%}, "
          f"2 workers {summary_two['accuracy']:.1%}")  # fmt: skip
    print(f"1 worker:  {one:7.1f} s  ({n / one:5.2f} q/s)")
    print(f"2 workers: {two:7.1f} s  ({n / two:5.2f} q/s)")
    print(f"speed-up: {one / two:.2f}x with 2 workers (target >= 1.80x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

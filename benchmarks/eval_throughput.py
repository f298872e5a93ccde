"""Questions per second of the `evaluate` flow, rules-only, and Prefect's cost per sample.

    .venv/bin/python benchmarks/eval_throughput.py [--questions 100] [--repeats 3]

Builds a suite of N questions by cycling dev.yaml's 24 (ids suffixed) and ingests its
corpus. A warm-up pass loads the embedding model and fills the in-process caches. Then:

- **Prefect overhead per sample, first run.** The same work twice: `evaluate_sample`
  called in a loop with plain storage tools (answer, score, one Parquet row per sample;
  every search runs and is logged; then `record_run`: the run's files merged, its
  summary and `eval_runs` row, as the flow does), and the `evaluate` flow at concurrency 1
  (a sample's searches run inside its task run, so they run and are logged too). The
  difference, per sample, is what Prefect adds: a task run per sample, its state
  events (the local server records them on the same two cores), the flow's own start
  and end. Each is run `--repeats` times, alternating, and the fastest of each is kept:
  the run least disturbed by the machine.
- **Rerun.** The flow at concurrency 1 and 2 again, as a nightly rerun of an unchanged
  suite and corpus sees it (its sentence vectors already stored).
  (Target: <= 30 ms per sample.)

Uses the current AGENTCYCLE_HOME (else ./.agentcycle).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import yaml

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_DEV = SHARED / "data" / "qa" / "dev.yaml"


def build_suite(dev: Path, n: int, folder: Path) -> Path:
    data = yaml.safe_load(dev.read_text())
    questions = data["questions"]
    cycled = []
    for index in range(n):
        question = dict(questions[index % len(questions)])
        question["id"] = f"{question['id']}-{index:03d}"
        cycled.append(question)
    suite = {
        "name": f"throughput-{n}",
        "kind": "qa",
        "corpus_root": str((dev.parent / data.get("corpus_root", ".")).resolve()),
        "corpus": data["corpus"],
        "questions": cycled,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "throughput.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def direct_seconds(suite_path: Path, corpus: str) -> float:
    """Every sample answered, scored and recorded by plain calls (no Prefect), then the
    run recorded as the flow records it (its files merged, its `eval_runs` row)."""
    from datetime import UTC, datetime

    from agentcycle.evaluation.runs import new_run_id, record_run
    from agentcycle.evaluation.samples import evaluate_sample
    from agentcycle.evaluation.suites import load_suite
    from agentcycle.tasks.research import LocalTools

    suite = load_suite(suite_path)
    run_id = new_run_id("baseline")
    started, begun = time.perf_counter(), datetime.now(UTC)
    for sample in suite.samples:
        evaluate_sample(suite, sample, sample.id, 0, run_id, lambda: LocalTools(corpus))
    record_run(suite, run_id, {"provider": "rules", "corpus": corpus}, begun)
    return time.perf_counter() - started


def flow_seconds(suite_path: Path, corpus: str, concurrency: int) -> tuple[float, dict]:
    from agentcycle.flows.evaluate import run_evaluate

    started = time.perf_counter()
    summary = run_evaluate(suite_path, concurrency=concurrency, corpus=corpus, report=False)
    return time.perf_counter() - started, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
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
        suite_path = build_suite(args.dev, n, Path(folder))
        ensure_corpus(load_suite(suite_path), args.corpus)
        warm = build_suite(args.dev, 24, Path(folder) / "warm")  # each question once
        flow_seconds(warm, args.corpus, 2)
        direct_seconds(warm, args.corpus)
        base, cold = [], []
        for _ in range(max(1, args.repeats)):
            base.append(direct_seconds(suite_path, args.corpus))
            cold.append(flow_seconds(suite_path, args.corpus, 1)[0])
        one, summary = flow_seconds(suite_path, args.corpus, 1)
        two, _ = flow_seconds(suite_path, args.corpus, 2)
    print(f"{n} questions, rules-only, accuracy {summary['accuracy']:.1%}")
    rate = lambda seconds: f"{n / seconds:6.2f} q/s  ({seconds / n * 1000:4.0f} ms/q)"  # noqa: E731
    per_sample = lambda seconds: (seconds - min(base)) / n * 1000  # noqa: E731
    print(f"plain calls, no Prefect (best of {len(base)}):       {rate(min(base))}")
    print(f"evaluate, first run (best of {len(cold)}):           {rate(min(cold))}")
    print(f"evaluate, rerun, concurrency 1:              {rate(one)}")
    print(f"evaluate, rerun, concurrency 2:              {rate(two)}")
    print("Prefect overhead per sample (target <= 30 ms):")
    print(f"  first run (best of {len(cold)}): {per_sample(min(cold)):+6.1f} ms")
    print(f"  rerun, concurrency 1:  {per_sample(one):+6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

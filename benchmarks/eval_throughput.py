"""Questions per second of the `evaluate` flow, rules-only, and Prefect's cost per sample.

    .venv/bin/python benchmarks/eval_throughput.py [--questions 100] [--dev PATH]

Builds a suite of N questions by cycling dev.yaml's 24 (ids suffixed), ingests its
corpus, then: (1) answers every question with the research graph and plain storage
tools (no Prefect) — the baseline; (2) runs the suite through `evaluate` at
concurrency 1 and (3) at 2. A warm-up pass first fills the embedding model and the
retrieval caches, so all three measure the same warm work; repeated questions hit the
retrieval cache in every mode alike. Prefect overhead per sample is
(flow at concurrency 1 − baseline) / N (target ≤ 30 ms): task runs, state updates,
one Parquet append per sample. Uses the current AGENTCYCLE_HOME (else ./.agentcycle).
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
    path = folder / "throughput.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def direct_seconds(suite_path: Path, corpus: str) -> float:
    """The research graph alone over every question (LocalTools, no Prefect)."""
    from agentcycle.agent.eval_suites import load_suite
    from agentcycle.agent.research import ResearchConfig, research
    from agentcycle.tasks.research import LocalTools

    suite = load_suite(suite_path)
    tools = LocalTools(corpus)
    config = ResearchConfig(use_memory=False, write_memory=False)
    started = time.perf_counter()
    for sample in suite.samples:
        research(sample.question, tools, sample.choices, config)  # type: ignore[union-attr]
    return time.perf_counter() - started


def flow_seconds(suite_path: Path, corpus: str, concurrency: int) -> tuple[float, dict]:
    from agentcycle.flows.evaluate import run_evaluate

    started = time.perf_counter()
    summary = run_evaluate(suite_path, concurrency=concurrency, corpus=corpus, report=False)
    return time.perf_counter() - started, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    parser.add_argument("--corpus", default="qa-dev")
    args = parser.parse_args()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    from agentcycle.flows.server import ensure_prefect_api

    ensure_prefect_api()  # before Prefect is imported
    from agentcycle.agent.eval_suites import load_suite
    from agentcycle.flows.evaluate import ensure_corpus

    with tempfile.TemporaryDirectory() as folder:
        suite_path = build_suite(args.dev, args.questions, Path(folder))
        ensure_corpus(load_suite(suite_path), args.corpus)
        (Path(folder) / "warm").mkdir()
        warm = build_suite(args.dev, 24, Path(folder) / "warm")  # each question once
        flow_seconds(warm, args.corpus, 2)
        n = args.questions
        base = direct_seconds(suite_path, args.corpus)
        one, summary = flow_seconds(suite_path, args.corpus, 1)
        two, _ = flow_seconds(suite_path, args.corpus, 2)
    print(f"{n} questions, rules-only, accuracy {summary['accuracy']:.1%}")
    print(f"graph only (no Prefect): {n / base:6.2f} q/s  ({base / n * 1000:.0f} ms/q)")
    print(f"evaluate, concurrency 1: {n / one:6.2f} q/s  ({one / n * 1000:.0f} ms/q)")
    print(f"evaluate, concurrency 2: {n / two:6.2f} q/s  ({two / n * 1000:.0f} ms/q)")
    overhead = (one - base) / n * 1000
    print(f"Prefect overhead per sample: {overhead:.0f} ms (target <= 30 ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

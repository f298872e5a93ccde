"""Latency of a rules-only answer after the model is loaded: graph alone and `ask` flow.

    .venv/bin/python benchmarks/ask_latency.py [--corpus NAME] [--rounds N]

Uses the dev set's questions over its corpus (ingested incrementally into the current
agentcycle home, as `qa_dev_accuracy.py` does). One warm-up answer loads the embedding
model and the corpus vocabulary; then every question is answered with QA memory off
and the retrieval cache refreshed, so each answer does its full work. Reports p50/p90
for the research graph with plain storage tools and for the whole Prefect flow run
(which adds the flow and task orchestration and the `answers` row). Target: p50 <= 1 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from qa_dev_accuracy import DEFAULT_DEV, ensure_corpus, load_set


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="qa-dev")
    parser.add_argument("--rounds", type=int, default=1, help="passes over the questions")
    args = parser.parse_args()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    questions, root = load_set(DEFAULT_DEV)
    ensure_corpus(args.corpus, root)

    from agentcycle.server import ensure_prefect_api

    ensure_prefect_api()
    from agentcycle.agent.research import ResearchConfig, research
    from agentcycle.flows.ask import run_ask
    from agentcycle.tasks.research import LocalTools

    tools = LocalTools(args.corpus, record=False)
    config = ResearchConfig(use_memory=False, write_memory=False)
    started = time.perf_counter()
    research(questions[0]["question"], tools, config=config)
    run_ask(args.corpus, questions[0]["question"], use_memory=False)
    print(f"warm-up (model load, vocabulary, first flow): {time.perf_counter() - started:.1f} s")
    graph: list[float] = []
    flow: list[float] = []
    for _ in range(args.rounds):
        for q in questions:
            t0 = time.perf_counter()
            research(q["question"], tools, q.get("choices"), config)
            graph.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            run_ask(
                args.corpus,
                q["question"],
                choices=q.get("choices"),
                use_memory=False,
                refresh_cache=True,
            )
            flow.append(time.perf_counter() - t0)
    for name, values in (("research graph", graph), ("ask flow (Prefect)", flow)):
        print(
            f"{name:<20} n={len(values)}  p50 {statistics.median(values):.3f} s  "
            f"p90 {percentile(values, 90):.3f} s  max {max(values):.3f} s"
        )
    print("target: p50 <= 1 s per answer after the model is loaded")
    return 0


if __name__ == "__main__":
    sys.exit(main())

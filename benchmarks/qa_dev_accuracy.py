"""Rules-only accuracy of the research agent on shared/data/qa/dev.yaml, by question type.

    .venv/bin/python benchmarks/qa_dev_accuracy.py [--dev PATH] [--corpus NAME]
        [--direct] [--memory] [--verbose]

Ingests the set's corpus (incremental: unchanged files cost a hash) into the current
agentcycle home (AGENTCYCLE_HOME, else ./.agentcycle), then answers every question in
rules-only mode through the real `ask` flow (or, with --direct, the same graph with
plain storage tools and no Prefect). QA memory is off unless --memory: a remembered
answer would measure the cache, not the agent.

Scoring is `agentcycle.agent.scorers` (shared with the `eval` flow), the set's own
rule: case-insensitive, whitespace-normalised "contains" of the answer or an accepted
variant; multiple choice by letter; an unanswerable question
is correct when the agent answers "insufficient evidence". Citation grounding is
checked independently of the agent: each cited sentence must occur (whitespace
normalised) in the text of the chunk it cites, read back from the corpus table.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_DEV = SHARED / "data" / "qa" / "dev.yaml"
TARGETS = {"simple": 0.70, "mc": 0.70, "unanswerable": 0.80}


def norm(text: str) -> str:
    from agentcycle.agent.scorers import norm as normalise

    return normalise(text)


def load_set(path: Path) -> tuple[list[dict[str, Any]], Path]:
    import yaml

    data = yaml.safe_load(path.read_text())
    root = (path.parent / data.get("corpus_root", "../corpus")).resolve()
    return data["questions"], root


def ensure_corpus(name: str, root: Path) -> None:
    """Bring the corpus up to date (plain ingest: no Prefect needed for setup)."""
    from agentcycle.storage.corpus import ingest

    report = ingest(name, [root])
    print(report.summary(), file=sys.stderr)


def correct(question: dict[str, Any], result: Any) -> bool:
    """The suite scorers' verdict (agent.scorers): the first correctness scorer decides."""
    from agentcycle.agent.eval_suites import QaSample
    from agentcycle.agent.scorers import score_qa

    sample = QaSample.model_validate(question)
    scores = score_qa(sample, result.answer, result.insufficient, result.mc_letter)
    return scores[0].score == 1.0


def grounding(corpus: str, results: list[Any]) -> tuple[int, int]:
    """(grounded citations, all citations), checked against the stored chunk texts."""
    from agentcycle.storage.corpus import open_corpus
    from agentcycle.storage.tables import sql_quote

    ids = sorted({c.chunk_id for r in results for c in r.citations})
    if not ids:
        return 0, 0
    table = open_corpus(corpus)
    where = "chunk_id IN (" + ", ".join(sql_quote(i) for i in ids) + ")"
    rows = (
        table.search()
        .where(where)
        .select(["chunk_id", "text"])
        .limit(len(ids) * 2)
        .to_arrow()
        .to_pylist()
    )
    texts = {r["chunk_id"]: norm(r["text"]) for r in rows}
    total = good = 0
    for result in results:
        for cite in result.citations:
            total += 1
            good += norm(cite.sentence) in texts.get(cite.chunk_id, "")
    return good, total


def answer_all(
    questions: list[dict[str, Any]], corpus: str, direct: bool, memory: bool
) -> list[tuple[dict[str, Any], Any, float]]:
    if direct:
        from agentcycle.agent.research import ResearchConfig, research
        from agentcycle.tasks.research import LocalTools

        tools = LocalTools(corpus)
        config = ResearchConfig(use_memory=memory, write_memory=memory)

        def run(q: dict[str, Any]) -> Any:
            return research(q["question"], tools, q.get("choices"), config)
    else:
        from agentcycle.flows.server import ensure_prefect_api

        ensure_prefect_api()
        from agentcycle.flows.ask import run_ask

        def run(q: dict[str, Any]) -> Any:
            return run_ask(
                corpus,
                q["question"],
                choices=q.get("choices"),
                use_memory=memory,
                question_id=q["id"],
            )

    answered = []
    for q in questions:
        started = time.perf_counter()
        result = run(q)
        answered.append((q, result, time.perf_counter() - started))
    return answered


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    parser.add_argument("--corpus", default="qa-dev")
    parser.add_argument("--direct", action="store_true", help="graph only, no Prefect flow")
    parser.add_argument("--memory", action="store_true", help="use QA memory")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    questions, root = load_set(args.dev)
    ensure_corpus(args.corpus, root)
    answered = answer_all(questions, args.corpus, args.direct, args.memory)
    by_type: dict[str, list[bool]] = defaultdict(list)
    for q, result, seconds in answered:
        ok = correct(q, result)
        by_type[q["type"]].append(ok)
        if args.verbose or not ok:
            first = result.answer.splitlines()[0][:110] if result.answer else ""
            print(
                f"{'ok ' if ok else 'MISS'} {q['id']} {q['type']:<12} {seconds:5.2f}s "
                f"steps={len(result.steps)} {first}"
            )
    good, total = grounding(args.corpus, [r for _, r, _ in answered])
    latencies = [s for _, _, s in answered]
    print(
        f"\nrules-only, {'graph only' if args.direct else 'ask flow'}, "
        f"{len(answered)} questions from {args.dev.name}"
    )
    print(f"{'type':<14}{'correct':>9}{'accuracy':>10}{'target':>8}")
    for kind in ("simple", "multi_hop", "mc", "unanswerable"):
        marks = by_type.get(kind, [])
        if marks:
            target = f"{TARGETS[kind]:.0%}" if kind in TARGETS else "-"
            print(
                f"{kind:<14}{sum(marks):>4}/{len(marks):<4}{sum(marks) / len(marks):>10.0%}"
                f"{target:>8}"
            )
    overall = [m for marks in by_type.values() for m in marks]
    print(f"{'all':<14}{sum(overall):>4}/{len(overall):<4}{sum(overall) / len(overall):>10.0%}")
    rate = good / total if total else 1.0
    print(f"citations grounded: {good}/{total} ({rate:.0%}, target 100%)")
    print(
        f"latency per answer: p50 {statistics.median(latencies):.2f} s, "
        f"max {max(latencies):.2f} s (first answer includes loading the model)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

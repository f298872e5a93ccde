"""Rules-only accuracy of the research agent, by question type, on a QA set and split.

    .venv/bin/python benchmarks/qa_dev_accuracy.py [--set dev|answers|PATH]
        [--split all|tune|check] [--corpus NAME] [--flow] [--memory] [--retrieval]
        [--verbose]

`--set answers` is the project's own set (`evaluation/question_sets/answers.yaml`,
split by a fixed hash of the id: `tune` 60 %, `check` 40 %); `--set dev` (default) is
`shared/data/qa/dev.yaml`. The corpus is ingested incrementally into the current
agentcycle home; answers come from the research graph with plain storage tools (or,
with --flow, the real `ask` flow). QA memory is off unless --memory.

Two correctness figures per type, from `agentcycle.evaluation.scorers`: `contains`
(the answer text holds an accepted answer anywhere) and `direct` (it is on the first
line, what a reader sees; MC: the letter and the option's text). Refusals are scored
as a classifier: precision = refused questions that were unanswerable, recall =
unanswerable questions refused. Citation grounding is checked independently of the
agent: each cited sentence must occur (whitespace normalised) in the text of the chunk
it cites, read back from the corpus table. `--retrieval` first prints recall@5/10 of
the gold quotes for each retrieval variant (`benchmarks/retrieval_variants.py`).
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

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared"
DEFAULT_DEV = SHARED / "data" / "qa" / "dev.yaml"
SETS = {"dev": DEFAULT_DEV, "answers": PROJECT / "evaluation/question_sets/answers.yaml"}
TARGETS = {"answerable": 0.85, "mc": 0.85, "unanswerable": 0.80}


def norm(text: str) -> str:
    from agentcycle.evaluation.scorers import norm as normalise

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


def verdicts(question: dict[str, Any], result: Any) -> dict[str, bool]:
    """{scorer name: correct} from the suite scorers, for this sample."""
    from agentcycle.evaluation.scorers import score_qa
    from agentcycle.evaluation.suites import QaSample

    sample = QaSample.model_validate(question)
    scores = score_qa(sample, result.answer, result.insufficient, result.mc_letter)
    return {s.scorer: s.score == 1.0 for s in scores}


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
    questions: list[dict[str, Any]], corpus: str, flow: bool, memory: bool
) -> list[tuple[dict[str, Any], Any, float]]:
    if not flow:
        from agentcycle.agent.research import ResearchConfig, research
        from agentcycle.tasks.research import LocalTools

        tools = LocalTools(corpus, record=False)
        config = ResearchConfig(use_memory=memory, write_memory=memory)

        def run(q: dict[str, Any]) -> Any:
            return research(q["question"], tools, q.get("choices"), config)
    else:
        from agentcycle.server import ensure_prefect_api

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


def _rate(marks: list[bool]) -> str:
    return f"{sum(marks):>3}/{len(marks):<3} {sum(marks) / len(marks):>5.0%}" if marks else "-"


def report(answered: list[tuple[dict[str, Any], Any, float]], verbose: bool) -> dict[str, float]:
    """Print the per-type table and the refusal figures; return the headline rates."""
    contains: dict[str, list[bool]] = defaultdict(list)
    direct: dict[str, list[bool]] = defaultdict(list)
    refused_unanswerable = refused_answerable = unanswerable = answerable = 0
    for q, result, seconds in answered:
        marks = verdicts(q, result)
        kind = q["type"]
        if kind == "unanswerable":
            unanswerable += 1
            ok = marks.get("insufficient", False)
            refused_unanswerable += ok
            contains[kind].append(ok)
            direct[kind].append(ok)
        else:
            ok_c = marks.get("mc_letter", marks.get("contains", False))
            ok = marks.get("direct", False)
            contains[kind].append(ok_c)
            direct[kind].append(ok)
            if kind != "mc":
                answerable += 1
                refused_answerable += bool(result.insufficient)
        if verbose or not ok:
            first = result.answer.splitlines()[0][:100] if result.answer else ""
            print(f"{'ok ' if ok else 'MISS'} {q['id']} {kind:<12} {seconds:5.2f}s  {first}")
    answerable_direct = direct["simple"] + direct["multi_hop"]
    answerable_contains = contains["simple"] + contains["multi_hop"]
    print(f"\n{'type':<14}{'contains':>14}{'direct':>14}{'target':>8}")
    for kind in ("simple", "multi_hop", "mc", "unanswerable"):
        if contains.get(kind):
            target = f"{TARGETS[kind]:.0%}" if kind in TARGETS else "-"
            print(f"{kind:<14}{_rate(contains[kind]):>14}{_rate(direct[kind]):>14}{target:>8}")
    if answerable_direct:
        print(
            f"{'answerable':<14}{_rate(answerable_contains):>14}{_rate(answerable_direct):>14}"
            f"{TARGETS['answerable']:>8.0%}"
        )
    refused = refused_unanswerable + refused_answerable
    precision = refused_unanswerable / refused if refused else 1.0
    recall = refused_unanswerable / unanswerable if unanswerable else 1.0
    wrongly = refused_answerable / answerable if answerable else 0.0
    print(
        f"refusals: precision {precision:.0%} ({refused_unanswerable}/{refused}), recall "
        f"{recall:.0%} ({refused_unanswerable}/{unanswerable}, target 80%); answerable "
        f"refused {refused_answerable}/{answerable} ({wrongly:.0%}, target <= 5%)"
    )
    return {
        "answerable_direct": sum(answerable_direct) / max(1, len(answerable_direct)),
        "mc_direct": sum(direct["mc"]) / max(1, len(direct["mc"])),
        "refusal_recall": recall,
        "answerable_refused": wrongly,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="dev", help="dev, answers or a path")
    parser.add_argument("--split", default="all", choices=["all", "tune", "check"])
    parser.add_argument("--corpus", default="qa-dev")
    parser.add_argument("--flow", action="store_true", help="through the Prefect ask flow")
    parser.add_argument("--memory", action="store_true", help="use QA memory")
    parser.add_argument("--retrieval", action="store_true", help="print retrieval recall")
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = SETS.get(args.set, Path(args.set))
    questions, root = load_set(path)
    from agentcycle.evaluation.split import select

    if args.split != "all":
        questions = select(questions, args.split)
    ensure_corpus(args.corpus, root)
    if args.retrieval:
        from retrieval_variants import print_recall

        print_recall(args.corpus, questions, root)
    answered = answer_all(questions, args.corpus, args.flow, args.memory)
    print(
        f"\nrules-only, {'ask flow' if args.flow else 'graph only'}, {len(answered)} "
        f"questions from {path.name} (split {args.split})"
    )
    report(answered, args.verbose)
    good, total = grounding(args.corpus, [r for _, r, _ in answered])
    latencies = [s for _, _, s in answered]
    rate = good / total if total else 1.0
    print(f"citations grounded: {good}/{total} ({rate:.0%}, target 100%)")
    print(
        f"latency per answer: p50 {statistics.median(latencies):.2f} s, "
        f"max {max(latencies):.2f} s (first answer includes loading the model)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

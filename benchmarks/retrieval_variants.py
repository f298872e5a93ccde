"""Recall@5/10 of a QA set's gold source quotes for each retrieval variant.

    .venv/bin/python benchmarks/retrieval_variants.py [--set answers] [--split tune]

A retrieved chunk holds a gold quote when the quote (whitespace normalised) is in its
text or the quote's character span in its file overlaps the chunk's span (a quote may
straddle two chunks). Per question, recall@k is the share of its quotes held by the
top k; the figure is the mean over answerable questions with quotes. Variants:
vector, BM25 (LanceDB full text), hybrid (both fused by RRF: what `ask` searches),
multi-query (the agent's rewrites, each hybrid, fused by RRF), multi-query + the
agent's lexical rerank, hybrid + reference following (depth 2), BM25 over single
sentences and table rows (`agent/research/unit_index.py`), and what a research step
reads: the reranked multi-query pool plus the best unit-search chunks.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

K = (5, 10)


def _norm(text: str) -> str:
    return " ".join(text.replace("*", "").replace("`", "").split()).lower()


def gold_spans(question: dict[str, Any], root: Path, texts: dict[str, str]) -> list[tuple]:
    spans = []
    for source in question.get("sources") or []:
        text = texts.setdefault(source["file"], (root / source["file"]).read_text())
        start = text.find(source["quote"])
        span = (start, start + len(source["quote"])) if start >= 0 else None
        spans.append((source["file"], _norm(source["quote"]), span))
    return spans


def holds(hit: Any, gold: tuple) -> bool:
    file, quote, span = gold
    if quote and quote in _norm(hit.text):
        return True
    start, end = getattr(hit, "start_char", -1), getattr(hit, "end_char", -1)
    same = hit.file == file or file.endswith("/" + hit.file) or hit.file.endswith(file)
    return bool(span) and same and start >= 0 and start < span[1] and span[0] < end


def variants(corpus: str) -> dict[str, Callable[[str, int], list[Any]]]:
    """name → function(question, k) returning ranked hits (with file, text, spans)."""
    from agentcycle.agent.research.references import follow
    from agentcycle.agent.research.retrieve import pool, rerank, step_chunks
    from agentcycle.agent.research.rewrite import rewrite_queries
    from agentcycle.agent.research.state import Evidence, ResearchConfig
    from agentcycle.storage.corpus import open_corpus
    from agentcycle.storage.search import search
    from agentcycle.tasks.research import LocalTools, _query_vector, corpus_text

    tools = LocalTools(corpus, record=False)
    spans: dict[str, tuple[str, int, int]] = {}
    table = open_corpus(corpus).to_lance().to_table(columns=["chunk_id", "start_char", "end_char"])
    offsets = {
        row["chunk_id"]: (row["start_char"], row["end_char"]) for row in table.to_pylist()
    }

    def run(query: str, k: int, mode: str = "hybrid") -> list[Any]:
        vector = _query_vector(query) if mode != "text" else None
        hits = search(corpus, query, k=k, mode=mode, query_vector=vector)  # type: ignore[arg-type]
        for h in hits:
            spans[h.chunk_id] = (h.file, h.start_char, h.end_char)
        return hits

    def as_evidence(hits: list[Any]) -> list[Any]:
        return [Evidence(chunk_id=h.chunk_id, file=h.file, heading=h.heading, text=h.text,
                         score=h.score) for h in hits]

    def with_spans(evidence: list[Any]) -> list[Any]:
        out = []
        for e in evidence:
            _, start, end = spans.get(e.chunk_id, (e.file, -1, -1))
            out.append(_Hit(e.file, e.text, start, end))
        return out

    def multi(question: str, k: int, reranked: bool) -> list[Any]:
        queries = rewrite_queries(question, tools.vocabulary())
        fused = pool([as_evidence(run(q, 10)) for q in queries], set())
        if reranked:
            fused = rerank(question, fused, tools.vocabulary(), k)
        return with_spans(fused[:k])

    def unit_search(question: str, k: int) -> list[Any]:
        hits = corpus_text(corpus).units.search(question, k)
        for h in hits:  # spans of chunks the chunk search has not met yet
            spans.setdefault(h.chunk_id, (h.file, *offsets.get(h.chunk_id, (-1, -1))))
        return hits

    def agent(question: str, k: int) -> list[Any]:
        """What a research step reads (`step_chunks`, as `execute_node` calls it), then
        the unit search's other chunks up to k."""
        config = ResearchConfig()
        queries = rewrite_queries(question, tools.vocabulary())
        by_unit = unit_search(question, config.per_query_k)
        rankings = [as_evidence(run(q, config.per_query_k)) for q in queries]
        top, _ = step_chunks(question, rankings, by_unit, set(), tools.vocabulary(),
                             config.top_k, config.unit_hits_kept)  # fmt: skip
        read = {t.chunk_id for t in top}
        return with_spans((top + [h for h in by_unit if h.chunk_id not in read])[:k])

    def references(question: str, k: int) -> list[Any]:
        from agentcycle.agent.research.nodes import resolve_reference

        top = as_evidence(run(question, k))
        extra, _ = follow(question, top[:5], lambda ref: resolve_reference(ref, question, tools),
                          tools.text_similarities, ResearchConfig(follow_references=True))
        return with_spans((top[:5] + extra + top[5:])[:k])

    return {
        "vector": lambda q, k: run(q, k, "vector"),
        "bm25": lambda q, k: run(q, k, "text"),
        "hybrid": lambda q, k: run(q, k, "hybrid"),
        "multi-query": lambda q, k: multi(q, k, False),
        "multi-query+rerank": lambda q, k: multi(q, k, True),
        "hybrid+references": references,
        "units (BM25 per row)": lambda q, k: with_spans(unit_search(q, k)),
        "agent (mq+rerank+units)": agent,
    }


class _Hit:
    def __init__(self, file: str, text: str, start: int, end: int):
        self.file, self.text, self.start_char, self.end_char = file, text, start, end


def print_recall(corpus: str, questions: list[dict[str, Any]], root: Path) -> dict[str, tuple]:
    texts: dict[str, str] = {}
    golds = [
        (q, gold_spans(q, root, texts))
        for q in questions
        if q["type"] != "unanswerable" and q.get("sources")
    ]
    figures = {}
    print(f"\nretrieval recall of gold quotes, {len(golds)} answerable questions")
    print(f"{'variant':<22}" + "".join(f"{'recall@' + str(k):>11}" for k in K))
    for name, function in variants(corpus).items():
        sums = dict.fromkeys(K, 0.0)
        for q, gold in golds:
            hits = function(q["question"], max(K))
            for k in K:
                sums[k] += sum(any(holds(h, g) for h in hits[:k]) for g in gold) / len(gold)
        figures[name] = tuple(sums[k] / len(golds) for k in K)
        print(f"{name:<22}" + "".join(f"{v:>11.0%}" for v in figures[name]))
    return figures


def main() -> int:
    from qa_dev_accuracy import SETS, ensure_corpus, load_set

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="answers")
    parser.add_argument("--split", default="tune", choices=["all", "tune", "check"])
    parser.add_argument("--corpus", default="qa-dev")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    path = SETS.get(args.set, Path(args.set))
    questions, root = load_set(path)
    from agentcycle.evaluation.split import select

    if args.split != "all":
        questions = select(questions, args.split)
    ensure_corpus(args.corpus, root)
    print_recall(args.corpus, questions, root)
    return 0


if __name__ == "__main__":
    sys.exit(main())

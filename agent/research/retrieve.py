"""Pooled retrieval: every query of a step searched, pooled, reranked, top k kept.

Candidates from the primary and alternative queries are fused by reciprocal rank
(a chunk found by several phrasings rises), chunks an earlier step already used are
excluded (cross-step dedup, legal-RAG seed), and the pool is reranked by how much of
the question's rare vocabulary a chunk (with its heading path) contains — the
lexical second stage that stands in for a cross-encoder no package here ships.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import Vocabulary, content_terms, present_terms, stem

RRF_K = 60
_VERB_FORM = re.compile(r"\b[a-z]{2,}(?:ed|ing)\b")


def coverage(terms: list[str], text: str, vocabulary: Vocabulary) -> float:
    """IDF-weighted share of `terms` present in `text` (0..1)."""
    if not terms:
        return 0.0
    present = present_terms(terms, text)
    total = sum(vocabulary.idf(t) for t in terms) or 1.0
    return sum(vocabulary.idf(t) for t in terms if t in present) / total


def anchored_coverage(
    terms: list[str], asked: set[str], texts: list[str], vocabulary: Vocabulary
) -> float:
    """The best coverage of `terms` by one text when only the `asked` terms (those of
    the asking clause) must sit in that text and the rest — the question's setting ("when
    I roll back cycles with the GUI's option, which file…") — may sit in any retrieved
    text: a setting is often told in one section and the asked fact in another."""
    if not terms or not texts:
        return 0.0
    setting = [t for t in terms if t not in asked]
    told = present_terms(setting, "\n".join(texts)) if setting else set()
    total = sum(vocabulary.idf(t) for t in terms) or 1.0
    best = 0.0
    for text in texts:
        found = present_terms(terms, text) | told
        best = max(best, sum(vocabulary.idf(t) for t in terms if t in found) / total)
    return best


def support_terms(question: str, vocabulary: Vocabulary) -> list[str]:
    """The content terms a passage can be asked to cover. A verb form the corpus never
    uses ("my run *died*", "a report *popped* up") tells the asker's story: no passage
    holds it, so counting it would refuse every question told as a story. Unknown names
    and nouns still count (and `key_entities` refuses on them)."""
    story = {
        stem(word)
        for word in _VERB_FORM.findall(question)  # lower case only: names are not story
        if not vocabulary.known(stem(word))
    }
    return [t for t in content_terms(question) if t not in story]


def pool(rankings: Iterable[list[Evidence]], exclude: set[str]) -> list[Evidence]:
    """Fuse rankings by RRF, dropping excluded chunks; fused score in `score`."""
    fused: dict[str, Evidence] = {}
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, hit in enumerate(ranking, start=1):
            if hit.chunk_id in exclude:
                continue
            fused.setdefault(hit.chunk_id, hit)
            scores[hit.chunk_id] = scores.get(hit.chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    ordered = sorted(fused.values(), key=lambda h: -scores[h.chunk_id])
    return [h.model_copy(update={"score": scores[h.chunk_id]}) for h in ordered]


def rerank(
    question: str, candidates: list[Evidence], vocabulary: Vocabulary, k: int
) -> list[Evidence]:
    """Order by fused rank and lexical coverage of the question; keep k."""
    if not candidates:
        return []
    terms = content_terms(question)
    best = max(c.score for c in candidates) or 1.0

    def key(hit: Evidence) -> float:
        lexical = coverage(terms, f"{hit.context}\n{hit.text}", vocabulary)
        return 0.5 * hit.score / best + 0.5 * lexical

    return sorted(candidates, key=key, reverse=True)[:k]


def step_chunks(
    question: str,
    rankings: list[list[Evidence]],
    by_unit: list[Evidence],
    exclude: set[str],
    vocabulary: Vocabulary,
    k: int,
    unit_hits_kept: int,
) -> tuple[list[Evidence], int]:
    """What a research step reads, and how many of those the rerank chose.

    The query rankings and the unit search are pooled and reranked to `k`; then the
    best `unit_hits_kept` unit-search chunks the rerank left out are added, since the
    one table row a long chunk hides is exactly what chunk-level reranking undervalues.
    """
    top = rerank(question, pool([*rankings, by_unit], exclude), vocabulary, k)
    ranked = len(top)
    kept = {h.chunk_id for h in top} | exclude
    top += [h for h in by_unit[:unit_hits_kept] if h.chunk_id not in kept]
    return top, ranked

"""Query rewrite: one step question → a primary query and two alternatives.

Rules-only (legal-RAG seed, 4a, without the LLM): the primary query is the question's
content words in order; the first alternative keeps the rarest terms (by the corpus's
own IDF) spelled the way the corpus spells them most often, which turns "retire" into
"retired" and drops words every chunk contains; the second carries the literal anchors
— quoted phrases, code identifiers, version tags — that BM25 matches exactly.
"""

from __future__ import annotations

import re

from agentcycle.agent.research.text import (
    QUESTION_WORDS,
    STOPWORDS,
    Vocabulary,
    content_terms,
    stem,
)

_QUOTED = re.compile(r"[\"'“‘`]([^\"'”’`]{3,60})[\"'”’`]")
_IDENTIFIER = re.compile(
    r"\b([A-Za-z]+[_.][A-Za-z0-9_.]+|[A-Za-z]*\d+[A-Za-z0-9._-]*|"
    r"[A-Z]{2,}[A-Za-z0-9_]*)\b"
)


def keyword_query(text: str) -> str:
    """The text's content words in their original order and spelling."""
    words = re.findall(r"[A-Za-z0-9][A-Za-z0-9_.\-:/%]*", text)
    kept = [
        w.strip(".")
        for w in words
        if w.lower() not in STOPWORDS and w.lower() not in QUESTION_WORDS
    ]
    return " ".join(w for w in kept if w)


def anchors(text: str) -> list[str]:
    """Quoted phrases and identifier-like tokens, verbatim."""
    found = [m.group(1).strip() for m in _QUOTED.finditer(text)]
    found += [m.group(1) for m in _IDENTIFIER.finditer(text) if m.group(1).lower() not in STOPWORDS]
    return list(dict.fromkeys(a for a in found if a))


def rare_terms(text: str, vocabulary: Vocabulary, limit: int = 6) -> list[str]:
    terms = content_terms(text)
    return sorted(terms, key=vocabulary.idf, reverse=True)[:limit]


def rewrite_queries(question: str, vocabulary: Vocabulary) -> list[str]:
    """Primary query first, then up to two distinct alternatives."""
    primary = keyword_query(question) or question
    expanded = []
    for term in rare_terms(question, vocabulary):
        forms = vocabulary.surface_forms(term, limit=1) or [term]
        expanded.append(forms[0])
    literal = " ".join(anchors(question))
    queries = [primary, " ".join(expanded), literal]
    unique: list[str] = []
    seen: set[frozenset[str]] = set()
    for query in queries:
        key = frozenset(stem(w.lower()) for w in query.split())
        if query.strip() and key not in seen:
            seen.add(key)
            unique.append(query.strip())
    return unique[:3]

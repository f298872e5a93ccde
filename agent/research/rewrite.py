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


# "According to the seed architecture document's performance notes, …", "the User
# Guide's glossary": where the asker read it. No passage repeats the document's name,
# so its words only pull in passages that talk about documents.
_DOCUMENT = r"the\s+(?:[\w-]+\s+){0,3}?(?:guide|document|documentation|docs?)"
_TELLS = r"(?:give|say|list|state|recommend|describe|show|mention|report|document)s?\b"
_DOCUMENT_NAMED = re.compile(
    rf"\b(?:according to|per|in|from)\s+{_DOCUMENT}(?:['’]s)?\b,?\s*|\b{_DOCUMENT}['’]s\s+|"
    rf"\b{_DOCUMENT}\s+(?={_TELLS})",  # "what time does the architecture document give"
    re.IGNORECASE,
)


def without_document_names(question: str) -> str:
    """The question less the names of the documents it cites, for retrieval; unchanged
    when little would be left."""
    rest = _DOCUMENT_NAMED.sub("", question)
    return rest if len(content_terms(rest)) >= 2 else question


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
    question = without_document_names(question)
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

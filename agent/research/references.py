"""Reference following (deep-research seed): chase "see Section X" and named documents.

References detected in retrieved text are resolved within the corpus by searching
for the referenced heading or file, followed to depth 2 with a visited set, a token
budget (4 characters ≈ 1 token) and convergence detection (the same document reached
three times stops the chase); only chunks whose similarity to the question clears the
relevance threshold are kept.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from agentcycle.agent.research.state import Evidence, ResearchConfig

_REFERENCE = re.compile(
    r"\b(?:[Ss]ee|[Dd]escribed in|[Dd]etailed in|[Dd]ocumented in|cf\.)\s+"
    r"(?P<ref>(?:[Ss]ection|§)\s*[\w.]+(?:\s+of\s+[\w./-]+\.md)?|[\w./-]+\.md"
    r"|the\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3}\s+(?:[Gg]uide|[Oo]verview|document))",
)
CONVERGENCE_SAME_DOC = 3


def detect_references(text: str) -> list[str]:
    return list(
        dict.fromkeys(m.group("ref").strip().rstrip(".") for m in _REFERENCE.finditer(text))
    )


def follow(
    objective: str,
    start: list[Evidence],
    search: Callable[[str], list[Evidence]],
    similarity: Callable[[str, list[str]], list[float]],
    config: ResearchConfig,
) -> tuple[list[Evidence], list[str]]:
    """Chunks reached by following references from `start`, and a trace of what happened."""
    visited: set[str] = {e.chunk_id for e in start}
    seen_refs: set[str] = set()
    documents: Counter[str] = Counter(e.file for e in start)
    kept: list[Evidence] = []
    trace: list[str] = []
    budget = config.reference_token_budget
    frontier = [(e, 1) for e in start]
    while frontier:
        source, depth = frontier.pop(0)
        if depth > config.reference_depth:
            continue
        for ref in detect_references(source.text):
            if ref in seen_refs:
                continue
            seen_refs.add(ref)
            found = [h for h in search(ref) if h.chunk_id not in visited][:2]
            if not found:
                continue
            sims = similarity(objective, [h.text for h in found])
            for hit, sim in zip(found, sims, strict=True):
                visited.add(hit.chunk_id)
                documents[hit.file] += 1
                if sim < config.reference_relevance:
                    trace.append(f"reference {ref!r}: {hit.file} below relevance ({sim:.2f})")
                    continue
                budget -= len(hit.text) // 4
                if budget < 0:
                    trace.append("reference following stopped: token budget spent")
                    return kept, trace
                kept.append(hit.model_copy(update={"similarity": sim, "via_reference": ref}))
                trace.append(f"reference {ref!r} (depth {depth}): kept {hit.file} ({sim:.2f})")
                if documents[hit.file] >= CONVERGENCE_SAME_DOC:
                    trace.append(f"reference following converged on {hit.file}")
                    return kept, trace
                frontier.append((hit, depth + 1))
    return kept, trace

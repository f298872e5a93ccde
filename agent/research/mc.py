"""Multiple-choice selection over the gathered evidence (legal-RAG seed, node 7).

Rules-only: an option is supported by a passage sentence that states it verbatim
close to the question's own words (entailment-like overlap: the question's rare
terms within a window around the option), with embedding similarity of question +
option to the best evidence as the tie-breaker. Options the question itself states
("criterion is < 0.35") are premises, so their occurrences count only where the
window holds more than the premise. "Which is NOT ..." questions pick the least
supported option.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentcycle.agent.research.explicit_value import asked_unit, counts_another_noun
from agentcycle.agent.research.synthesize import Scored
from agentcycle.agent.research.text import (
    Vocabulary,
    content_terms,
    normalise,
    present_terms,
)

WINDOW_CHARS = 80
OTHER_COUNT = 0.6  # weight of "3 queries" as support for 3 when passages are counted


def _occurrences(option: str, text: str) -> list[int]:
    needle = normalise(option)
    if not needle:
        return []
    pattern = re.compile(r"(?<![\w.])" + re.escape(needle) + r"(?![\w])")
    return [m.start() for m in pattern.finditer(text)]


def score_options(
    objective: str,
    choices: dict[str, str],
    units: list[Scored],
    vocabulary: Vocabulary,
    similarity: Callable[[str, list[str]], list[float]] | None = None,
) -> tuple[dict[str, float], dict[str, str]]:
    """Support per option letter (0..~1.1) and a one-line reason per option."""
    terms = content_terms(objective)
    total = sum(vocabulary.idf(t) for t in terms) or 1.0
    counted = asked_unit(objective)
    scores: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for letter, option in choices.items():
        option_terms = set(content_terms(option))
        needle_chars = len(normalise(option))
        # "all 3 queries" is weak support for 3 when the question counts passages
        other_counts = bool(counted) and option.strip().replace(".", "").isdigit()
        window_terms = [t for t in terms if t not in option_terms]
        best, where = 0.0, ""
        for unit in units:
            text = normalise(unit.text)
            for position in _occurrences(option, text):
                window = text[
                    max(0, position - WINDOW_CHARS) : position + len(option) + WINDOW_CHARS
                ]
                near = present_terms(window_terms, window)
                proximity = sum(vocabulary.idf(t) for t in near) / total
                value = 0.5 * unit.score + 0.5 * proximity
                end = position + needle_chars
                if other_counts and counts_another_noun(text, end, counted):
                    value *= OTHER_COUNT
                if value > best:
                    best, where = value, unit.text
        scores[letter] = best
        reasons[letter] = (
            f"stated in evidence: {where[:160]!r}"
            if where
            else "not stated in the retrieved evidence"
        )
    if similarity is not None and units:
        texts = [u.text for u in units[:3]]
        for letter, option in choices.items():
            sims = similarity(f"{objective} {option}", texts)
            scores[letter] += 0.1 * max(sims)
    return scores, reasons


def select(scores: dict[str, float], negated: bool) -> str:
    """The best supported option, or the least supported one for NOT/EXCEPT questions."""
    ordered = sorted(scores, key=lambda k: (scores[k], k))
    return ordered[0] if negated else ordered[-1]

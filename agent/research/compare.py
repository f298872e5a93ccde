"""The answer to a question that compares two facts (`comparison.split_comparison`):
each side composed over the passages its own step retrieved, then computed — the
difference, or the side with the larger or smaller value. The first line shows both
values, so a reader can check it: "2 (3 vs 1)"."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from agentcycle.agent.research.answer_type import expect
from agentcycle.agent.research.comparison import Comparison
from agentcycle.agent.research.compose import Composition, compose
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import Vocabulary, normalise

# "qwen3:14b", "0.7", "~1100", "10-30": the value a span gives, for comparing
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def _value(text: str) -> float | None:
    """The number a span gives: its last one ("qwen3:14b" gives 14, "10-30 words" 30)."""
    numbers = _NUMBER.findall(text)
    return float(numbers[-1].replace(",", "")) if numbers else None


def _percent(composed: Composition) -> bool:
    assert composed.span is not None
    return "%" in composed.span.text or "%" in composed.direct


def _shown(value: float) -> str:
    return f"{value:g}"


def _same_value(first: str, second: str) -> bool:
    """Whether two answers name one thing: "ChromaDB" and "ChromaDB collection"."""
    a, b = normalise(first), normalise(second)
    return bool(a and b) and (a == b or a in b.split() or b in a.split())


def _compared(comparison: Comparison, first: Composition, second: Composition) -> str:
    """The first line of a computed comparison; '' when a side gives no number."""
    assert first.span is not None and second.span is not None
    a, b = _value(first.span.text), _value(second.span.text)
    if a is None or b is None:
        return ""
    if comparison.operation == "difference":
        return f"{_shown(abs(a - b))} ({first.direct} vs {second.direct})"
    if comparison.operation == "ratio":
        first_pct, second_pct = (_percent(c) for c in (first, second))
        if first_pct != second_pct:  # "5%" against "0.005" compares 0.05 with 0.005
            a, b = (a / 100 if first_pct else a), (b / 100 if second_pct else b)
        if not b:
            return ""
        return f"{_shown(round(a / b, 3))} ({first.direct} vs {second.direct})"
    if comparison.operation == "same":
        return f"Yes (both {first.direct})" if a == b else f"No ({first.direct} vs {second.direct})"
    if comparison.operation in ("more than", "less than"):
        if a == b:
            return f"No (both {first.direct})"
        holds = a > b if comparison.operation == "more than" else a < b
        return f"{'Yes' if holds else 'No'} ({first.direct} vs {second.direct})"
    if a == b:  # "which is larger, A or B" when they are equal: neither is
        return f"Equal (both {first.direct})"
    pick_first = (a > b) if comparison.operation == "larger" else (a < b)
    chosen, other = (first, second) if pick_first else (second, first)
    name = comparison.names[0 if pick_first else 1]
    by = f", by {_shown(abs(a - b))}" if comparison.by_how_much else ""
    if name:  # "which has the lower cap, A or B": the one picked, then both values
        return f"{name} ({chosen.direct} vs {other.direct}){by}"
    return f"{chosen.direct} (vs {other.direct}){by}"


def compose_comparison(
    comparison: Comparison,
    evidence: tuple[list[Evidence], list[Evidence]],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None = None,
    count: int = 2,
    pooled: list[Evidence] | None = None,
) -> Composition | None:
    """Each side composed over its own evidence (what its step retrieved: pooled, the
    other side's passage may win on shared words), else over `pooled` (a step does not
    retrieve again what an earlier step read: the passage holding both sides' constants
    is the first step's only) when its own give no span, or no number to compare. None
    when a side has no number to compare: the question is then answered as an ordinary
    one."""
    numeric = comparison.operation not in ("both", "common")

    def usable(composed: Composition | None) -> bool:
        if composed is None or composed.span is None:
            return False
        return not numeric or _value(composed.span.text) is not None

    def side(asked: str, found: list[Evidence]) -> Composition | None:
        natural = expect(asked)
        expectations = [natural]
        if numeric and natural.kind in ("phrase", "identifier", "name"):
            # "Which loop cap is higher, A's MAX_ITERATIONS or B's loop guard?": a side
            # whose own words ask for no number ("What is B's loop guard?") still
            # compares one, read once its words have found none
            expectations.append(replace(natural, kind="number"))
        # the side's own passages, then all of them (often the same list: a side whose
        # step kept none of its own is given them all, and is not composed twice)
        tried = [found] if not pooled or pooled is found else [found, pooled]
        fallback: Composition | None = None
        for expectation in expectations:
            for passages in tried:
                if not passages:
                    continue
                composed = compose(asked, passages, vocabulary, expectation, similarities, count)
                if usable(composed):
                    return composed
                fallback = fallback or composed
        return fallback

    first, second = (
        side(asked, found)
        for asked, found in zip((comparison.first, comparison.second), evidence, strict=True)
    )
    if first is None or second is None or first.span is None or second.span is None:
        return None
    if comparison.operation == "both":  # shown side by side, whatever their kind
        direct = f"{first.direct} vs {second.direct}"
    elif comparison.operation == "common":  # "which X do both A and B use": the one
        if not _same_value(first.direct, second.direct):  # they share, or no answer
            return None
        direct = first.direct
    else:
        direct = _compared(comparison, first, second)
        if not direct:
            return None
    lead = second.units[0]
    units = [*first.units[:1], *(u for u in [lead] if u.text != first.units[0].text)]
    return replace(
        first,
        direct=direct,
        units=units,
        cited=units,
        focus_missing=[*first.focus_missing, *second.focus_missing],
        given_for_others=False,
        compared=True,
    )

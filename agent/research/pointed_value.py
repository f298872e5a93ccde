"""A value an earlier sentence says was reported, pointed back at by the asking one:
"The tutorial's xtriage step reported an anomalous measurability value. Under the
quality thresholds, which category does that value fall into?"

Ranked as one question, the passage of thresholds and the passage of the run compete,
and neither answers: the thresholds say nothing of the run, the run nothing of the
categories. So the value is found first (the context read as "what value was
reported"), written into the asking sentence in place of "that value", and the asking
sentence is answered like any question that writes its value ("which category does
0.198 fall into?" is a lookup in the thresholds table).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from agentcycle.agent.research.answer_type import expect
from agentcycle.agent.research.classify import last_sentence_split
from agentcycle.agent.research.compose import Ranked, rank
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import Vocabulary, content_terms

_POINTER = re.compile(r"\b(?:that|this|the same|the reported)\s+(?:value|number)\b", re.I)
# a number the context writes as a value: "reached R-free 0.247", not the 9 of "p9-sad"
_WRITTEN_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")
HOP_UNITS = 8  # sentences searched for the reported value, then for the answer
VALUE_SEARCH_DEPTH = 20  # best-ranked units read for a reported number
LABEL_CHARS = 40  # how far before a number its label ("measurability:") is read


@dataclass(frozen=True)
class PointedValue:
    question: str  # the asking sentence with the value in place of "that value"
    value: str
    source: Ranked | None  # the unit that reports it (None when the context writes it)


def points_at_value(question: str) -> bool:
    """Whether the asking sentence points back at a value an earlier one gives."""
    context, asking = last_sentence_split(question)
    return bool(context) and _POINTER.search(asking) is not None


def pointed_value(
    question: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None,
) -> PointedValue | None:
    """The asking sentence with the value it points back at written in, or None when it
    points at no value or no passage reports one for the context."""
    context, asking = last_sentence_split(question)
    pointer = _POINTER.search(asking)
    if not context or pointer is None:
        return None
    written = _WRITTEN_NUMBER.findall(context)
    source = None
    if len(written) == 1:
        value = written[0]
    elif written:
        return None  # several numbers: which one is pointed at is not said
    else:
        source = _reported(context, evidence, vocabulary, similarities)
        if source is None or source.span is None:
            return None
        value = source.span.text
    rewritten = f"{asking[: pointer.start()]}{value}{asking[pointer.end() :]}"
    return PointedValue(rewritten, value, source)


def _reported(
    context: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None,
) -> Ranked | None:
    """The best unit for the context that states a number for it ("Anomalous
    measurability: 0.198" for "the xtriage step reported an anomalous measurability
    value")."""
    expectation = replace(expect(context), kind="number")
    ranked = rank(context, evidence, vocabulary, expectation, similarities)
    terms = set(content_terms(context))
    for candidate in ranked[:VALUE_SEARCH_DEPTH]:
        span = candidate.span
        if span is None or not _WRITTEN_NUMBER.fullmatch(span.text):
            continue  # "< 0.06" bounds a value; the run reported one
        text = candidate.unit.text
        at = text.find(span.text)
        label = text[max(0, at - LABEL_CHARS) : at]
        if at >= 0 and terms & set(content_terms(label)):
            return candidate  # "Anomalous measurability: 0.198": labelled as the context says
    return None

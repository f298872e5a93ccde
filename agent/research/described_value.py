"""A value the question describes instead of writing: "Taking the resolution that
xtriage reported for the p9-sad tutorial data, which target R-free does the
by-resolution table assign?"

Two hops in one sentence: the resolution (a number a log or a tutorial's story states in
one document), then the table row whose range holds it (another document). Ranked as
one question, the passages about the tutorial and those about the table compete, and a
number from the first (its R-free) answers the second. So the description is asked first,
as its own question whose answer is a number; the number is written into the question
in place of the description ("Taking the resolution 1.74 Å, which target R-free …"), and
the rest is an ordinary lookup that reads the value (`value_band.range_value`).

`described.py` does the same for a thing described instead of named (a program, a
node); this module is its counterpart for quantities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agentcycle.agent.research.answer_type import QUANTITY_NOUNS, expect
from agentcycle.agent.research.compose import compose
from agentcycle.agent.research.described import Resolved, description_pool
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import STOPWORDS
from agentcycle.agent.research.tools import ResearchTools

# An opening phrase ("Taking the resolution that xtriage reported for the data, …") or
# a closing one ("… assign at the resolution xtriage reported for the data?"): a
# preposition, "the", a noun phrase of up to three words ending in a quantity noun, an
# optional "that"/"which", and a clause with a verb, to the comma or the question mark.
_DESCRIBED_VALUE = re.compile(
    r"(?P<lead>\b(?:taking|using|given|with|at|for|from|based\s+on)\s+)"
    rf"(?P<description>the\s+(?P<noun>(?:[\w-]+\s+){{0,2}}?(?:{QUANTITY_NOUNS}))\s+"
    r"(?:(?:that|which)\s+)?(?P<clause>[^,?;]{8,}?))(?=\s*[,?])",
    re.IGNORECASE,
)
# the clause has a verb of its own: "xtriage reported …", "the log shows …"
_VERB = re.compile(r"\b(?:\w+ed|reports?|shows?|gives?|prints?|says|states?|reads?)\b")
_NUMBER = re.compile(r"\d")
MIN_CLAUSE_WORDS = 3  # "xtriage reported for the data"; "as placed" describes nothing


@dataclass(frozen=True)
class DescribedValue:
    asked: str  # the description as a question: "What resolution xtriage reported …?"
    noun: str  # "resolution"
    start: int  # where the description stands in the question
    end: int


def described_value(question: str) -> DescribedValue | None:
    """The first quantity the question describes by a clause instead of writing it, or
    None. The asked quantity itself is no description: "what is the resolution that the
    log reports?" asks for it, so the phrase must stand beside the asking clause, set off
    by its comma or ending the question after the asking clause's own verb."""
    for match in _DESCRIBED_VALUE.finditer(question):
        words, clause = match.group("noun").split(), match.group("clause").split()
        # "… for the model to count as placed": a verb, not a noun phrase and its clause
        if any(w.lower() in STOPWORDS for w in words) or len(clause) < MIN_CLAUSE_WORDS:
            continue
        if not _VERB.search(match.group("clause")):
            continue
        before = question[: match.start()]
        opening = not before.strip() or before.rstrip().endswith((".", "?"))
        closing = question[match.end() :].lstrip().startswith("?") and re.search(
            r"\b(?:which|what|how)\b", before, re.IGNORECASE
        )
        if not (opening or closing):
            continue
        asked = f"What {' '.join(words)} {' '.join(clause)}?"
        start, end = match.start("description"), match.end("description")
        return DescribedValue(asked, words[-1], start, end)
    return None


def resolve_described_value(
    question: str, evidence: list[Evidence], tools: ResearchTools
) -> Resolved | None:
    """The question with the described value written in ("the resolution 1.74 Å"), or
    None when it describes none or the best passage for the description states no
    number the question does not already write."""
    described = described_value(question)
    if described is None:
        return None
    pool = description_pool(described.asked, evidence, tools)
    expectation = replace(expect(described.asked), kind="number")
    composed = compose(
        described.asked, pool, tools.vocabulary(), expectation, tools.text_similarities, 1
    )
    if composed is None or composed.span is None or composed.shape_missing:
        return None
    value = composed.span.text.strip("` ")
    if not _NUMBER.search(value) or value.lower() in question.lower():
        return None
    written = f"the {described.noun} {value}"
    rewritten = f"{question[: described.start]}{written}{question[described.end :]}"
    return Resolved(rewritten, value, composed.units[0].evidence, False, tuple(composed.units))

"""Extractive synthesis with [n] citations: the evidence's own sentences, cited.

Rules-only answers are never written, only selected: each candidate unit (sentence,
list item, table row) of the retrieved chunks is scored by the IDF-weighted share of
the question's terms it contains (its chunk's heading path counts for a little: a
table row rarely repeats the table's title), with a bonus when the question asks for
a quantity and the unit states one. The best units become the answer, each followed
by the number of the chunk it was copied from, so every cited sentence is verbatim in
its cited chunk by construction. `support` — the best unit's score — is what decides
whether the evidence answers the question at all.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from agentcycle.agent.research.answer_type import asking_part, main_clause
from agentcycle.agent.research.clean import context_label, header_for, is_table_row
from agentcycle.agent.research.retrieve import coverage
from agentcycle.agent.research.state import Citation, Evidence
from agentcycle.agent.research.text import (
    Unit,
    Vocabulary,
    content_terms,
    has_number,
    normalise,
    sentences,
)

_WANTS_QUANTITY = re.compile(
    r"\b(how (many|much|long|often|large|big|small)|what (is|was|are|were)? ?(the )?"
    r"(value|number|default|percentage|fraction|size|limit|threshold|date|version|count|"
    r"maximum|minimum|largest|smallest|tolerance|timeout)|what date|when|which year|"
    r"what (\w+ )?(value|percentage|tolerance|threshold|date|number|size|limit|timeout)|"
    r"below what|above what|at what)\b",
    re.IGNORECASE,
)
MAX_UNIT_CHARS = 600
# a bullet "- Key: value" (its key a word or two): one field of the item a bold label
# above it names, whose words it does not repeat
_ITEM = re.compile(r"\s*[-*+]\s+\**[A-Z][\w ]{0,20}\**:\s")
LEAD_IN = 0.9  # share of its block's coverage a unit ending in ':' is given
# "Used by `phenix.xtriage` and …": a sentence with no subject of its own continues the
# one before it, which says what it is about
_CONTINUES = re.compile(
    r"(?:Used|Called|Set|Defined|Read|Written|Stored|Kept|Registered|Loaded|Handled|"
    r"Produced|Generated|Raised|Checked|Enforced|Applied|Invoked|Run)\s+(?:by|in|from|at|for)\b"
    # "Supported values: `a`, `b` (default)": the values of the setting just named
    r"|(?:Supported|Possible|Allowed|Valid|Accepted|Available)\s+"
    r"(?:values|options|choices|settings|modes)\s*:"
)
# 'contains the phrase "build model into map"': the words quoted are matched as written
_QUOTED_PHRASE = re.compile(
    r"(?<!\w)[\"“'‘]([^\"“”'‘’\n]{1,80}\s[^\"“”'‘’\n]{1,80})[\"”'’](?!\w)"
)
# ... but 'phrases like "verbatim" or "exact line"' quotes examples of a kind: the unit
# listing them is where the kind is defined, not where the asked fact is stated
_QUOTED_EXAMPLES = re.compile(
    r"\b(?:like|such as|e\.g\.,?|for example,?|including)\s+"
    r"(?:[\"“'‘][^\"“”'‘’\n]{1,80}[\"”'’](?:,?\s*(?:or|and)?\s*))+",
    re.IGNORECASE,
)
QUOTED_PHRASE = 0.5  # added to a unit that holds a phrase the question quotes
_OPERATORS = set("→←↑↓↔⟶⇒⇐≤≥≠≈±×÷−∞")  # they relate values; a unit holding one is no match


@dataclass(frozen=True)
class Scored:
    score: float
    text: str
    evidence: Evidence
    order: int


def wants_quantity(question: str) -> bool:
    return bool(_WANTS_QUANTITY.search(question))


ASKED_WEIGHT = 0.3  # share of a unit's own score given by the asking clause's words


def score_units(
    question: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    extra_terms: list[str] | None = None,
) -> list[Scored]:
    """Every unit of every chunk, best first."""
    terms = content_terms(question)
    asked = content_terms(asking_part(main_clause(question)))
    # "If the provider cannot be reached …, which flag on the result object records
    # this?": the setting may be told anywhere, the asked words are the unit's own
    asked = asked if 0 < len(asked) < len(terms) else []
    if extra_terms:
        terms += [t for t in extra_terms if t not in terms]
    quantity = wants_quantity(question)
    quoted = quoted_phrases(question)
    scored: list[Scored] = []
    for rank, hit in enumerate(evidence):
        heading_cover = coverage(terms, hit.context, vocabulary)
        units = list(sentences(hit.text))
        for index, unit in enumerate(units):
            text = unit.text
            if len(text) > MAX_UNIT_CHARS or len(text.split()) < 2:
                continue
            own = coverage(terms, text, vocabulary)
            if asked:
                own = (1 - ASKED_WEIGHT) * own + ASKED_WEIGHT * coverage(asked, text, vocabulary)
            block = _introduced(units, index)
            if block:  # "Defined in `x.py`:" speaks of the block it introduces
                own = max(own, LEAD_IN * coverage(terms, f"{text}\n{block}", vocabulary))
            label = context_label(text, hit.text, bold=bool(_ITEM.match(text)))
            if label:  # "- Action: Return None" under "**Rule 2: Counting query …**"
                own = max(own, LEAD_IN * coverage(terms, f"{label}\n{text}", vocabulary))
            if index and _CONTINUES.match(text):  # "Used by `a`, `b`." of the sentence before
                before = units[index - 1].text
                own = max(own, LEAD_IN * coverage(terms, f"{before}\n{text}", vocabulary))
            if _opens_section(units, index, hit.text):  # "No LLM." under "Gate Evaluator"
                topic = hit.heading.rsplit(">", 1)[-1]
                own = max(own, LEAD_IN * coverage(terms, f"{topic}\n{text}", vocabulary))
            label = hit.context
            if is_table_row(text):  # a row means what its header says
                label += "\n" + " ".join(header_for(text, hit.table_text))
            combined = coverage(terms, f"{label}\n{text}", vocabulary)
            score = 0.75 * own + 0.25 * combined + 0.02 * heading_cover
            if quantity:  # a sentence without a number cannot state the asked quantity
                score = score + 0.05 if has_number(text) else score * 0.7
            if quoted:
                normalised = normalise(text)
                if any(phrase in normalised for phrase in quoted):
                    score += QUOTED_PHRASE
            score -= 0.005 * rank
            scored.append(Scored(score, text, hit, rank * 10_000 + unit.start))
    return sorted(scored, key=lambda s: s.score, reverse=True)


OPENING_WORDS = 5  # a fragment this short at a section's top has the heading as subject


def _opens_section(units: list[Unit], index: int, chunk: str) -> bool:
    """Whether the unit is a short sentence in the first paragraph of its chunk
    ("Purely deterministic phase evaluation. No LLM." below "### Gate Evaluator"):
    it says nothing of what it is about, since its heading says that. A title or a
    label ("Simple Counting Queries") is not one: it says nothing itself."""
    unit = units[index]
    first_paragraph = chunk.lstrip().split("\n\n", 1)[0]
    return (
        unit.start - (len(chunk) - len(chunk.lstrip())) < len(first_paragraph)
        and len(unit.text.split()) <= OPENING_WORDS
        and unit.text.rstrip("*_`").endswith(".")  # a said fragment, not a label or title
        and not is_table_row(unit.text)
        and not _ITEM.match(unit.text)
    )


def quoted_phrases(question: str) -> list[str]:
    """The phrases of two or more words a question quotes (not as examples), normalised,
    and the symbols it asks about ("what does the ⊘ symbol mean"): held verbatim by
    the unit that answers."""
    named = _QUOTED_EXAMPLES.sub(" ", question)
    phrases = [normalise(m.group(1)) for m in _QUOTED_PHRASE.finditer(named)]
    symbols = [
        c
        for c in question
        if unicodedata.category(c) in ("So", "Sm") and ord(c) > 127 and c not in _OPERATORS
    ]
    return phrases + list(dict.fromkeys(symbols))


def _introduced(units: list[Unit], index: int) -> str:
    """The text of the block a unit ending in ':' introduces (past a code fence), or ''."""
    if not units[index].text.rstrip("`*").endswith(":"):
        return ""
    for unit in units[index + 1 : index + 3]:
        if not unit.text.startswith("```"):
            return unit.text
    return ""


def cite(units: list[Scored]) -> tuple[str, list[Citation]]:
    """Answer text with [n] after each unit; citations numbered by first use."""
    numbers: dict[str, int] = {}
    citations: list[Citation] = []
    lines = []
    for unit in units:
        hit = unit.evidence
        if hit.chunk_id not in numbers:
            numbers[hit.chunk_id] = len(numbers) + 1
        n = numbers[hit.chunk_id]
        citations.append(
            Citation(
                n=n, chunk_id=hit.chunk_id, file=hit.file, heading=hit.heading, sentence=unit.text
            )
        )
        lines.append(f"{unit.text} [{n}]")
    return "\n".join(lines), citations


def pick(scored: list[Scored], count: int) -> list[Scored]:
    """The best `count` distinct units (no unit contained in another already taken)."""
    chosen: list[Scored] = []
    for unit in scored:
        if len(chosen) >= count:
            break
        if any(unit.text in c.text or c.text in unit.text for c in chosen):
            continue
        chosen.append(unit)
    return chosen

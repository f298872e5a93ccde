"""Which band of a thresholds table a value falls into: "Under the quality thresholds
for R-free, which quality category is 0.247?" over

    | Quality    | R-free | Map CC |
    | Good       | < 0.25 | > 0.80 |
    | Acceptable | < 0.30 | > 0.70 |

is Good: the first row, top down, whose bound in the asked column the value meets.
No sentence says "0.247 is Good"; the answer is computed from the table, so the rule
reads the table as bounds instead of ranking its rows by shared words.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from agentcycle.agent.research.clean import cells, clean_inline, header_for, is_table_row
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import content_terms, sentences, stem

# "which quality category is 0.247", "which level does a score just under 0.30 fall into"
_ASKS_BAND = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?P<noun>categor(?:y|ies)|level|class|band|tier|"
    r"grade|rating|bucket|quality)\b(?=[^?]*(?:\d|\bfall|\bbelong|\bcount|\bclassif|\brate))",
    re.IGNORECASE,
)
# the value: "0.247", "just under 0.30" (a hair below it), "just above 0.8"
_VALUE = re.compile(
    r"(?:(?P<near>just|slightly|a bit|barely)\s+(?P<side>under|below|over|above)\s+)?"
    r"(?<![\w.])(?P<number>\d+(?:\.\d+)?)(?!\w|\.\d)",
    re.IGNORECASE,
)
_BOUND = re.compile(r"^\s*(?P<op><=|>=|<|>|≤|≥|=)\s*(?P<number>\d+(?:\.\d+)?)\s*$")
_OPERATORS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
    "≤": operator.le, "≥": operator.ge, "=": operator.eq,
}  # fmt: skip
_UNIT_AFTER = re.compile(r"\s*(?:Å|A\b|nm\b|%|s\b|ms\b|GB\b|MB\b|cycles?\b)")
HAIR = 1e-6  # how far "just under 0.30" is below 0.30
MIN_BANDS = 2  # rows with a bound in the column: fewer is no scale


@dataclass(frozen=True)
class Band:
    name: str  # the row's first cell: "Good"
    row: str  # the row, verbatim, to cite
    evidence: Evidence
    column: str  # the column whose bound the value meets: "R-free (2.0Å)"


def asked_value(question: str) -> float | None:
    """The value a band question places, or None when it asks for no band or writes no
    single value."""
    asking = re.split(r"(?<=[.!?])\s+", question.strip())[-1]
    if _ASKS_BAND.search(asking) is None:
        return None
    # "for R-free at 2.0 Å, which category is 0.247": a number with a unit qualifies
    # the column; the bare one is the value placed
    values = [v for v in _VALUE.finditer(asking) if not _UNIT_AFTER.match(asking, v.end())]
    if len(values) != 1:
        return None
    found = values[0]
    number = float(found["number"])
    if found["side"]:
        number += -HAIR if found["side"].lower() in ("under", "below") else HAIR
    return number


def band_of(question: str, evidence: list[Evidence]) -> Band | None:
    """The band the question's value falls into, in the table whose columns the
    question names best; None when no table of bounds fits."""
    value = asked_value(question)
    if value is None:
        return None
    terms = {stem(t) for t in content_terms(question)}
    best: tuple[int, Band] | None = None
    for hit in evidence:
        for found in _bands_in(hit, value, terms):
            if best is None or found[0] > best[0]:
                best = found
    return best[1] if best else None


def _bands_in(hit: Evidence, value: float, terms: set[str]) -> list[tuple[int, Band]]:
    """(how many question words the table's header shares, the band) for each table of
    bounds in the chunk whose asked column the question names."""
    rows = [u.text for u in sentences(hit.table_text) if is_table_row(u.text)]
    tables: dict[tuple[str, ...], list[str]] = {}
    for row in rows:
        header = tuple(header_for(row, hit.table_text))
        if header and [clean_inline(c) for c in cells(row)] != list(header):
            tables.setdefault(header, []).append(row)
    found = []
    for header, table_rows in tables.items():
        overlaps = [len(terms & {stem(t) for t in content_terms(title)}) for title in header]
        column = max(range(1, len(header)), key=lambda i: overlaps[i], default=0)
        if not column or overlaps[column] == 0:
            continue
        # raw cells: `clean_inline` reads a leading "> " as a quote mark
        bounds = [(_BOUND.match(re.sub(r"[`*]", "", cells(r)[column])), r) for r in table_rows]
        bounded = [(b, r) for b, r in bounds if b is not None]
        if len(bounded) < MIN_BANDS:
            continue
        for bound, row in bounded:
            if _OPERATORS[bound["op"]](value, float(bound["number"])):
                name = clean_inline(cells(row)[0]).strip()
                score = overlaps[column] + overlaps[0]
                found.append((score, Band(name, row, hit, header[column])))
                break
    return found


# A record that maps a range to a value: "- range: [1.5, 2.5] value: 0.25" (a YAML list
# item, its keys joined on one line), "band: [0, 10], weight: 3"
_RANGE = re.compile(
    r"\b(?:range|band|interval|bounds|between)\s*:\s*\[\s*(?P<low>-?\d+(?:\.\d+)?)\s*,\s*"
    r"(?P<high>-?\d+(?:\.\d+)?)\s*\]",
    re.IGNORECASE,
)
_RECORD_VALUE = re.compile(
    r"(?<![\w.])(?P<key>[A-Za-z_]\w*)\s*:\s*(?P<value>-?\d+(?:\.\d+)?)(?![\w.])"
)


def range_value(unit: str, question: str) -> tuple[str, str] | None:
    """(the value, the range it is given for) of a range record the question's value
    falls in: "what target R-free does the by_resolution table assign at 1.74 Å" over
    "- range: [1.5, 2.5] value: 0.25" is 0.25. The low end is inside, the high end is
    the next record's. None when the unit is no such record or the question writes no
    value inside its range."""
    match = _RANGE.search(unit)
    if match is None:
        return None
    low, high = float(match.group("low")), float(match.group("high"))
    # the record's other key holds the value: `value: 0.25`, not the range's own numbers
    held = next((m for m in _RECORD_VALUE.finditer(unit) if m.start() >= match.end()), None)
    held = held or next((m for m in _RECORD_VALUE.finditer(unit[: match.start()])), None)
    if held is None:
        return None
    written = [float(m.group("number")) for m in _VALUE.finditer(question)]
    if not any(low <= x < high for x in written):
        return None
    return held.group("value"), f"[{match.group('low')}, {match.group('high')}]"

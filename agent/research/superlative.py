"""The option a "which X has the highest/lowest Y" question asks for, read from a passage
that gives several options a number each ("optimized_full_map=100, sharpened=90").

Why: every option is named in that passage, close to the question's words, so support by
closeness ties them; the question asks for an order, and only the numbers decide it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentcycle.agent.research.clean import cells, clean_inline
from agentcycle.agent.research.text import content_terms

Row = tuple[str, list[str]]  # a table row and its table's header cells

_HIGHEST = re.compile(
    r"\b(?:highest|largest|greatest|biggest|most|maximum|top|strongest)\b", re.IGNORECASE
)
_LOWEST = re.compile(r"\b(?:lowest|smallest|least|fewest|minimum|weakest)\b", re.IGNORECASE)
_VALUE_AFTER = r"`?\s*(?:=|:|\(|\|)?\s*`?([<>≤≥~]?\s*-?\d+(?:\.\d+)?)(?!\w|\.\d)"


def asked_extreme(question: str) -> str | None:
    """'max' or 'min' when the question asks for the option at one end of an order."""
    high, low = _HIGHEST.search(question), _LOWEST.search(question)
    if bool(high) == bool(low):
        return None  # neither, or both ("highest of the lowest"): no single order
    return "max" if high else "min"


def _value_of(option: str, text: str) -> float | None:
    """The number a text gives right after the option's name, or None."""
    pattern = rf"(?<![\w`.-])`?{re.escape(option)}{_VALUE_AFTER}"
    found = re.search(pattern, text)
    if found is None:
        return None
    return float(re.sub(r"[<>≤≥~\s]", "", found.group(1)))


def extreme_option(
    question: str, choices: dict[str, str], texts: Iterable[str], rows: Iterable[Row] = ()
) -> str | None:
    """The letter of the option a passage gives the highest (lowest) number, among at
    least two options that passage numbers, or that the rows of one table number in the
    column the question names; None when nothing orders them."""
    extreme = asked_extreme(question)
    if extreme is None:
        return None
    pick = max if extreme == "max" else min
    names = {letter: option.strip().strip("`") for letter, option in choices.items()}
    for text in texts:
        values = {
            letter: value
            for letter, name in names.items()
            if (value := _value_of(name, text)) is not None
        }
        if len(values) >= 2:
            return pick(values, key=lambda letter: values[letter])
    by_table: dict[tuple[str, ...], dict[str, float]] = {}
    asked = set(content_terms(question))
    for row, header in rows:
        found = _row_value(row, header, names, asked)
        if found is not None:
            by_table.setdefault(tuple(header), {}).setdefault(*found)
    for values in by_table.values():
        if len(values) >= 2:
            return pick(values, key=lambda letter: values[letter])
    return None


def _row_value(
    row: str, header: list[str], names: dict[str, str], asked: set[str]
) -> tuple[str, float] | None:
    """(letter, number) when a row's first cell is an option and the column the
    question names ("priority") holds a number."""
    values = [clean_inline(c).strip("` ") for c in cells(row)]
    if len(values) != len(header) or len(values) < 2:
        return None
    letter = next((k for k, name in names.items() if values[0] == name), None)
    column = next(
        (i for i, title in enumerate(header) if i and set(content_terms(title)) & asked), None
    )
    if letter is None or column is None:
        return None
    number = re.fullmatch(r"[<>≤≥~]?\s*(-?\d+(?:\.\d+)?)", values[column])
    return (letter, float(number.group(1))) if number else None

"""The option a "which X has the highest/lowest Y" question asks for, read from a passage
that gives several options a number each ("optimized_full_map=100, sharpened=90").

Why: every option is named in that passage, close to the question's words, so support by
closeness ties them; the question asks for an order, and only the numbers decide it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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


def extreme_option(question: str, choices: dict[str, str], texts: Iterable[str]) -> str | None:
    """The letter of the option a passage gives the highest (lowest) number, among at
    least two options that passage numbers; None when no passage orders them."""
    extreme = asked_extreme(question)
    if extreme is None:
        return None
    for text in texts:
        values = {
            letter: value
            for letter, option in choices.items()
            if (value := _value_of(option.strip().strip("`"), text)) is not None
        }
        if len(values) >= 2:
            pick = max if extreme == "max" else min
            return pick(values, key=lambda letter: values[letter])
    return None

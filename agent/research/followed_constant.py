"""The constant a passage names for the asked count, followed to where it is set.

"Once its tool budget is exhausted the agent synthesises. How many tool calls is that
budget?" is told in two places: one passage says the budget is `MAX_TOOL_CALLS`
("Tool budget exhausted | MAX_TOOL_CALLS reached"), another sets the constant
("| `MAX_TOOL_CALLS` | 5 |"). The first shares the question's words and holds no
number; trace examples nearby ("TOOL BUDGET: 3 calls remaining") hold numbers of the
asked kind that are no limit at all. The constant whose name spells the counted noun
is the bridge: its value is the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentcycle.agent.research.explicit_value import asked_unit
from agentcycle.agent.research.text import stem

_CONSTANT = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w])")


def counting_constant(question: str, texts: Iterable[str]) -> str | None:
    """The first constant the texts name, not the question, whose name spells every word
    of the noun the question counts (`MAX_TOOL_CALLS` for "how many tool calls"), or
    None when the question counts nothing or no text names such a constant."""
    counted = asked_unit(question)
    if not counted:
        return None
    asked = question.lower()
    for text in texts:
        for match in _CONSTANT.finditer(text):
            name = match.group(0)
            parts = {stem(p) for p in name.lower().split("_")}
            if name.lower() not in asked and counted & parts and _spells_counted_phrase(
                question, parts
            ):
                return name
    return None


_COUNTED_PHRASE = re.compile(r"\bhow many\s+((?:[\w-]+\s+){0,2}?[\w-]+s)\b", re.IGNORECASE)


def _spells_counted_phrase(question: str, parts: set[str]) -> bool:
    """Whether the constant's parts hold every word of the counted phrase ("tool calls"
    in "how many tool calls"): `MAX_CALLS` alone does not say which calls."""
    phrase = _COUNTED_PHRASE.search(question)
    if phrase is None:
        return False
    return all(stem(w.lower()) in parts for w in phrase.group(1).split())

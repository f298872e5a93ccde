"""What a question that compares two facts asks: "how many more reprompts does A allow
than B?" is two questions ("how many reprompts does A allow?", "what is B?") and a
difference; "which threshold is higher: A's or B's?" two questions and a choice.

Read before planning (each side gets its own retrieval step, often in another
document) and before answering (`compare.compose_comparison`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Operation = Literal["difference", "larger", "smaller"]

# "how many more reprompts does A allow than B", "how much longer is A than B"
_HOW_MANY_MORE = re.compile(
    r"\bhow (?:many|much) (?:more|fewer|less|higher|larger|bigger|greater|longer|lower|"
    r"smaller|shorter)\s+(?:(?P<noun>[\w\s-]+?)\s+)?"
    r"(?P<verb>does|do|did|can|will|would|is|are)\s+(?P<first>[^?]+?)\s+than\s+"
    r"(?P<second>[^?]+?)\s*(?:\?|$)",
    re.IGNORECASE,
)
# "which threshold is higher: A, or B?", "which is larger, A or B?"
_WHICH_IS = re.compile(
    r"\bwhich(?:\s+(?P<noun>[\w-]+(?:\s+[\w-]+)?))?\s+is\s+(?P<degree>higher|larger|bigger|greater|"
    r"lower|smaller|longer|shorter)\s*[:,]\s*(?P<first>[^?]+?),?\s+or\s+(?P<second>[^?]+?)"
    r"\s*(?:\?|$)",
    re.IGNORECASE,
)
_SMALLER = {"lower", "smaller", "shorter", "fewer", "less"}
# a side that names its own quantity ("the maximum number of retries") is asked as is
_NAMES_A_QUANTITY = re.compile(
    r"\b(?:number|count|maximum|minimum|limit|value|threshold|score|size|budget)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Comparison:
    operation: Operation
    first: str  # the question each side asks on its own
    second: str


def split_comparison(question: str) -> Comparison | None:
    """The two questions a comparing question asks, and what to do with their answers."""
    text = question.strip()
    more = _HOW_MANY_MORE.search(text)
    if more is not None:
        noun = (more["noun"] or "").strip()
        first = f"How many {noun} {more['verb']} {more['first']}?".replace("  ", " ")
        return Comparison("difference", first, _side_question(noun, more["second"], True))
    which = _WHICH_IS.search(text)
    if which is not None:
        operation: Operation = "smaller" if which["degree"].lower() in _SMALLER else "larger"
        noun = (which["noun"] or "").strip()
        return Comparison(
            operation,
            _side_question(noun, which["first"]),
            _side_question(noun, which["second"]),
        )
    return None


def _side_question(noun: str, side: str, counted: bool = False) -> str:
    """ "What is the maximum number of retries?" for a side that names its quantity,
    "How many documents the executor returns?" for a counted side that tells what it
    counts, "What model is the one used in X?" for a side that leaves the noun implied."""
    side = side.strip().rstrip("?").strip()
    if _NAMES_A_QUANTITY.search(side):
        return f"What is {side}?"
    if counted and noun:
        return f"How many {noun} {side}?"
    return f"What {noun or 'value'} is {side}?"

"""Answers a question asks for by their form rather than by a value's name.

"What TFZ condition is given as the reason …" wants the comparison a passage states
("No MR solution found (TFZ < 5)"), not the nearest noun; "What data type does it use
for step_id?" wants the type a passage gives the identifier ("`step_id` is a float").
Neither reads as a number, name or phrase to the general span rules, so each is found
by its own shape, next to a word the question names.
"""

from __future__ import annotations

import re

from agentcycle.agent.research.text import stem, term_set, tokens

# "what TFZ condition", "which criterion": the asked noun
_CONDITION_WORDS = ("condition", "criterion", "criteria", "test")
_CONDITION_NOUNS = frozenset(stem(w) for w in _CONDITION_WORDS)
_CONDITION_Q = re.compile(
    rf"\b(?:what|which)\s+(?:[\w.-]+\s+){{0,3}}?(?:{'|'.join(_CONDITION_WORDS)})\b",
    re.IGNORECASE,
)
# "TFZ < 5", "R-free>0.35", "clashscore ≥ 20", "pLDDT <= 70%"
_COMPARISON = re.compile(
    r"(?<![\w.-])(?P<name>[A-Za-z][\w.-]*)\s*(?P<sign><=|>=|<|>|≤|≥|==)\s*"
    r"(?P<value>-?\d+(?:\.\d+)?\s*%?)"
)


def asked_condition(unit: str, question: str) -> str | None:
    """The comparison on a quantity the question names ("TFZ < 5" for "what TFZ
    condition …"), when the question asks for a condition; None otherwise."""
    if not _CONDITION_Q.search(question):
        return None
    named = term_set(question) - _CONDITION_NOUNS
    for match in _COMPARISON.finditer(unit):
        if stem(match["name"].lower()) in named or match["name"].lower() in named:
            return f"{match['name']} {match['sign']} {match['value'].strip()}"
    return None


# "what data type", "what type is", "which type does … use for"
_TYPE_Q = re.compile(
    r"\b(?:what|which)\s+(?:data\s+|value\s+|python\s+)?type\b(?!\s+of\s+(?:file|model|map|data)\b)",
    re.IGNORECASE,
)
_TYPE_WORD = (
    r"(?:float|int|integer|str|string|bool|boolean|list|dict|dictionary|tuple|set|bytes|"
    r"number|array|object|datetime|enum|Optional\[[\w\[\], .]+\]|List\[[\w\[\], .]+\]|"
    r"Dict\[[\w\[\], .]+\])"
)
# "`step_id` is a float", "step_id: int", "step_id (str)", "step_id as an integer"
_TYPED = re.compile(
    rf"`?(?P<name>[A-Za-z_][\w.]*)`?\s*(?:(?:is|was|as|becomes)\s+(?:an?\s+)?(?:`)?"
    rf"(?P<said>{_TYPE_WORD})\b|:\s*`?(?P<annotated>{_TYPE_WORD})\b|\(\s*(?P<bracketed>{_TYPE_WORD})\s*\))"
)


def asked_data_type(unit: str, question: str) -> str | None:
    """The type a passage gives the identifier the question names ("float" from
    "`step_id` is a float" for "what data type does it use for step_id"); None when the
    question asks no type or the unit types no identifier of the question."""
    if not _TYPE_Q.search(question):
        return None
    named = {t.lower() for t in tokens(question) if "_" in t or "." in t}
    if not named:
        return None
    for match in _TYPED.finditer(unit):
        if match["name"].lower() in named:
            return match["said"] or match["annotated"] or match["bracketed"]
    return None

"""Values a passage states outright for what the question asks: the value bound to a
named setting, and the count of the unit a "how many" question names.

Why: ranking candidate spans by closeness to the question's words picks the nearest
number or name, which in dense technical text is often the wrong one — "2
alternatives" beside "each query is 10-30 words", `REFERENCE_FOLLOW_DEPTH` beside
`REFERENCE_TOKEN_BUDGET = 50000`. When the question names a setting ("what is the
default reference_token_budget") the answer is what the text binds to that name
(`= 50000`, `(0.6)`, `, default 50K tokens`); when it asks "how many tests", the
answer is a number followed by "tests". Such a span is the passage saying the answer,
not a guess, so it outranks proximity.
"""

from __future__ import annotations

import re

from agentcycle.agent.research.answer_type import Expectation, main_clause
from agentcycle.agent.research.text import STOPWORDS, stem

BOUND = "value bound to"  # Span.how prefixes: compose prefers these spans
COUNTED = "count of the asked unit"

_QUESTION_NAME = re.compile(
    r"`([^`\s]{3,60})`|(?<![\w.])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w])"
)
_VALUE_QUESTION = re.compile(
    r"\bwhat(?:'s| is| was| are)\s+(?:the\s+)?(?:[\w-]+(?:\s+[\w-]+){0,2}(?:'s|’s)\s+)?"
    r"(?:(?:default|current|configured)\s+)?"
    r"(?:value\s+(?:of\s+)?(?:the\s+)?)?`?$",
    re.IGNORECASE,
)
_VALUE_NOUNS = re.compile(
    r"\b(?:default|value|threshold|limit|budget|cutoff|setting)\s+(?:of|for)\s+(?:the\s+)?`?$",
    re.IGNORECASE,
)
# What may stand between a name and its value: `= 5`, `: 5`, `(5)`, `, default 5`,
# ` is 5`, ` defaults to 5`, a table's `| 5`.
_BINDER = re.compile(
    r"[`\"']?\s*(?:\)\s*)?(?:=(?!=)|:(?!:)|\||,?\s*(?:the\s+)?default(?:s to| is| value(?: is)?|:)?"
    r"|\s+(?:is|of|defaults? to|set to)|\s*\((?:default:?\s*)?|(?<=[\"'])\s*,)"
    r"\s*\[?\s*(?:[`\"']\s*)?",
    re.IGNORECASE,
)
# A typed name binds what follows its annotation: `min_searches: int = 1`,
# `max_results: Optional[int] = None`, `x: list[str] | None = None`.
_ANNOTATION = re.compile(
    r"\s*:\s*[A-Za-z_][\w.]*(?:\[[^\]\n=]*\])?"
    r"(?:\s*\|\s*[A-Za-z_][\w.]*(?:\[[^\]\n=]*\])?)*\s*=(?!=)\s*[`\"']?"
)
_PROSE_WORD = re.compile(r"[A-Z][a-z]+")  # "Maps": a sentence's first word, not a value
_WORD_BINDER = re.compile(r"\b(?:is|of|set to)\s*$", re.IGNORECASE)
_BOUND_VALUE = re.compile(
    r"(?:[<>≤≥~]=?\s*)?-?\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+(?:[.,]\d+)?)?(?:\s*(?:%|[KMG]B?\b|ms\b|s\b|"
    r"seconds?|minutes?|hours?|tokens?|words?|characters?|chars|cycles?|items?|steps?|"
    r"chunks?|times|calls|retries|Å))*"
    r"|(?:True|False|None|true|false|null)\b"
    r"|[\"']([^\"'\n]{1,40})[\"']"
    r"|`([^`\n]{1,40})`"
    r"|[A-Za-z_][\w.:-]{1,60}"
)
_HOW_MANY = re.compile(r"\b(?:how many|number of|count of)\s+((?:[\w-]+\s+){0,3}[\w-]+)", re.I)
_UNIT_STOP = STOPWORDS | {
    "are", "is", "do", "does", "did", "can", "will", "were", "was", "has", "have", "long",
}  # fmt: skip


def asked_name(question: str, expectation: Expectation) -> str | None:
    """The setting whose value the question asks for — `reference_token_budget` in "what
    is the default reference_token_budget" — or None when it asks something else about
    a name ("which function reads X", "where is X defined")."""
    clause = main_clause(question)
    for match in _QUESTION_NAME.finditer(clause):
        name = (match.group(1) or match.group(2)).strip("`")
        before = clause[: match.start()]
        if _VALUE_QUESTION.search(before) or _VALUE_NOUNS.search(before):
            return name
        if expectation.kind in ("default", "number") and not expectation.head:
            return name
    return None


def bound_value(unit: str, name: str, numeric: bool = False) -> tuple[str, int] | None:
    """The value a text binds to `name` (case-insensitive), and where it starts; only a
    number when `numeric`. `getenv("NAME", "600")` binds its second argument; a call
    (`= int(...)`), a condition (`NAME=none? →`) and prose (`NAME is used`) bind
    nothing."""
    for match in re.finditer(rf"(?<![\w.]){re.escape(name)}(?![\w])", unit, re.IGNORECASE):
        binder = _ANNOTATION.match(unit, match.end()) or _BINDER.match(unit, match.end())
        if binder is None or binder.end() == match.end():
            continue
        value = _BOUND_VALUE.match(unit, binder.end())
        if value is None:
            continue
        quoted = next((g for g in value.groups() if g), None)
        opened = binder.group(0).rstrip().endswith(("`", '"', "'"))  # '"key": ["value"]'
        bare_word = quoted is None and not opened and not any(c.isdigit() for c in value.group(0))
        if bare_word and (
            _WORD_BINDER.search(binder.group(0))
            or "(" in binder.group(0)
            or _PROSE_WORD.fullmatch(value.group(0))
        ):
            continue  # "X is used to ...", "X (PHIL choice ...)", "X: Maps ...": prose
        if bare_word and re.match(r"\s*[\w\"'`]", unit[value.end() :]):
            continue  # 'X: needs "Y"': a word followed by more words is prose
        rest = unit[value.end() : value.end() + 40].lstrip(" `'\"")
        word_end = rest.split(None, 1)[0] if rest.strip() else ""
        numeral = any(c.isdigit() for c in value.group(0))
        if rest.startswith("(") or "?" in word_end or (numeric and not numeral):
            continue
        text = (quoted or value.group(0)).strip().rstrip(".,;:)")
        if text and text.lower() != name.lower() and text.lower() not in STOPWORDS:
            return text, value.start()
    return None


def asked_unit(question: str) -> set[str]:
    """Stems of the noun a "how many" question counts ("how many plan *templates*")."""
    match = _HOW_MANY.search(main_clause(question))
    if not match:
        return set()
    words = []
    for word in match.group(1).lower().split():
        if word in _UNIT_STOP:
            break
        words.append(word)
    return {stem(words[-1])} if words else set()


def counts_unit(unit: str, position: int, text: str, nouns: set[str]) -> bool:
    """Whether the number `text` at `position` is directly followed by the asked noun:
    "17 templates", "(~1100 tests)", "10-30 words"."""
    after = text + unit[position + len(text) : position + len(text) + 30]
    words = re.findall(r"[A-Za-z][\w-]*", re.sub(r"^[^\d]*[\d.,\s–-]+", "", after))[:1]
    return bool(words) and stem(words[0].lower()) in nouns

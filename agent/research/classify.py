"""Question classification: simple or multi_hop, and multiple-choice parsing.

Rules first (bioimage seed): a question is multi-hop when answering it needs an
intermediate fact the question only points at — a relative clause on another entity
("the provider whose default model is X"), a back-reference from the asking sentence
to an earlier one ("... Which model does that tool use?"), or a clause naming an event
or use elsewhere ("for the scatterer used in the tutorial's run", "once X has run").
Answer choices are stripped before planning and retrieval (legal-RAG seed, "MC
isolation"): the agent researches the question, not the options.
"""

from __future__ import annotations

import re

from agentcycle.agent.research.comparison import split_comparison
from agentcycle.agent.research.text import QUESTION_WORDS, STOPWORDS

_CHOICE_LINE = re.compile(r"^\s*\(?([A-Ha-h])[).:]\s+(.+?)\s*$", re.MULTILINE)
_CHOICES_BLOCK = re.compile(r"\n\s*(answer )?choices?:.*$", re.IGNORECASE | re.DOTALL)
_SENTENCES = re.compile(r"(?<=[.?!])\s+(?=[A-Z])")
_DEMONSTRATIVE = re.compile(
    r"\b(that|this|those|these|such)\s+(?:same\s+)?(?:(?:kind|type|sort)\s+of\s+)?([a-z][a-z-]+)",
    re.IGNORECASE,  # "that kind of stop condition" points back at a stop condition
)
_BRIDGE_CLAUSES = (
    re.compile(r"\bwhose\b", re.IGNORECASE),
    re.compile(
        r"\bonce\b[^?]{5,}\b(has|have|had)\s+(run|finished|completed|been)\b", re.IGNORECASE
    ),
    re.compile(
        r"\b(for|of|in) the [\w\s'-]{3,40}?\b(used|reported|produced|chosen|selected|"
        r"returned|created)\s+(in|by|from)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\bthe same \w+ (as|that)\b", re.IGNORECASE),
)
_NEGATION = re.compile(r"\b(NOT|EXCEPT|never|none of)\b")
_CONTRAST = re.compile(
    r"\b(but|yet|and)\s+(NOT|not|never)\b"
    r"|\b(?:NOT|not|never)\b.*\bbut\s+(?:instead|rather)\b"  # "does NOT X but instead Y"
)


def parse_choices(question: str, choices: dict[str, str] | None) -> tuple[str, dict[str, str]]:
    """The question without its options, and the options by upper-case letter.

    Options come from `choices` when given, else from "A) ..." lines in the question.
    """
    found = {k.strip().upper(): str(v).strip() for k, v in (choices or {}).items()}
    text = question
    if not found:
        lines = list(_CHOICE_LINE.finditer(question))
        if len(lines) >= 2:
            found = {m.group(1).upper(): m.group(2) for m in lines}
            text = question[: lines[0].start()]
    text = _CHOICES_BLOCK.sub("", text).strip()
    return text, found


_CLOSED = re.compile(
    r"(?:^|[,;:]\s+)(?:is|are|was|were|does|do|did|will|would|should|can|has|have)\s"
    r"(?P<body>[^,;:?]*?)(?:\s+by default)?\s*\?\s*$",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|an?)\s+", re.IGNORECASE)


def either_or(question: str) -> dict[str, str]:
    """The two alternatives of a closed question ("… was that step marked completed or
    failed?", "is it on or off by default?") as options "A" and "B": the words after
    "or", and as many words before it. {} for any other question ("… or not?" is a
    yes/no, as is "does X decide whether to A or B?")."""
    match = _CLOSED.search(question.strip())
    if match is None or " or " not in match.group("body"):
        return {}
    before, _, after = match.group("body").rpartition(" or ")
    second = _ARTICLE.sub("", after.strip()).split()
    if not 1 <= len(second) <= 2 or " or " in before:
        return {}
    words = before.split()
    first = words[-len(second) :]
    lead = [w.lower() for w in words[: -len(second)][-2:]]
    if "whether" in lead or (lead and lead[-1] == "between"):
        return {}  # "does it decide whether to advance or retreat?" asks yes or no
    options = [" ".join(w.strip("`'") for w in option) for option in (first, second)]
    if options[1].lower() == "not" or options[0].lower() == options[1].lower():
        return {}
    return {"A": options[0], "B": options[1]}


def is_negated(question: str) -> bool:
    """Questions asking for the odd one out ("which is NOT ..."). A contrast ("listed
    for maps but NOT for reflections") still asks for the option that fits its positive
    half, so it is not one; nor does a sentence before the asking one ("… because the
    model was never pulled. Which tag …?") negate what is asked."""
    sentences = _sentences_of(question)
    asking = sentences[-1] if sentences else question
    return bool(_NEGATION.search(asking)) and not _CONTRAST.search(asking)


def classify(objective: str) -> tuple[str, str]:
    """('simple' | 'multi_hop', the rule that decided)."""
    if split_comparison(objective) is not None:
        return "multi_hop", "compares two facts"
    for pattern in _BRIDGE_CLAUSES:
        match = pattern.search(objective)
        if match:
            return "multi_hop", f"bridging clause {match.group(0)!r}"
    pointer = back_reference(objective)
    if pointer:
        return "multi_hop", f"back-reference {pointer!r} to an earlier sentence"
    return "simple", "one fact asked about named things"


_PRONOUN = re.compile(r"\b(?:it|its|they|them|their)\b", re.IGNORECASE)
_DESCRIBED = re.compile(
    r"\b(?:the|a|an|one)\s+([a-z][\w-]*)\s+(?:whose|that|which|who)\b", re.IGNORECASE
)


def back_reference(question: str) -> str:
    """ "that tool", "this mode" in the asking sentence of a question of several
    sentences: it points at an entity an earlier sentence describes without naming
    ("forces a specific tool after X. Which model does that tool use?"); '' if none."""
    sentences = _sentences_of(question)
    if len(sentences) < 2:
        return ""
    for match in _DEMONSTRATIVE.finditer(sentences[-1]):
        if _pointable(match.group(2).lower()):
            return match.group(0)
    # "Take the tool whose only dependency is X. Which tool runs right after it?": a
    # pronoun pointing at a thing the earlier sentence describes without naming it
    pronoun = _PRONOUN.search(sentences[-1])
    described = _DESCRIBED.search(" ".join(sentences[:-1]))
    if pronoun and described:
        return f"{pronoun.group(0)} ({described.group(0)})"
    return ""


def pointed_noun(asking: str) -> str:
    """The noun an asking clause points back with ("program" of "that same program"),
    or '': the kind of thing the bridge is."""
    for match in _DEMONSTRATIVE.finditer(asking):
        noun = match.group(2).lower()
        if _pointable(noun):
            return noun
    return ""


# "that value", "this number": asking words elsewhere, but pointed at they are the
# value an earlier sentence says was reported
_POINTED_VALUES = frozenset({"value", "values", "number"})


def _pointable(noun: str) -> bool:
    return noun not in STOPWORDS and (noun not in QUESTION_WORDS or noun in _POINTED_VALUES)


def with_pointed_named(asking: str, name: str) -> str:
    """The asking clause with the thing it points back at named: "What category does
    programs.yaml assign to *that program*?" → "… assign to phenix.polder?"."""
    for match in _DEMONSTRATIVE.finditer(asking):
        noun = match.group(2).lower()
        if noun not in STOPWORDS and noun not in QUESTION_WORDS:
            return f"{asking[: match.start()]}{name}{asking[match.end() :]}"
    return f"{asking.rstrip('?')} ({name})?"


def last_sentence_split(question: str) -> tuple[str, str]:
    """(the sentences before the asking one, the asking sentence)."""
    sentences = _sentences_of(question)
    return " ".join(sentences[:-1]), sentences[-1]


def _sentences_of(question: str) -> list[str]:
    return [s for s in _SENTENCES.split(question.strip()) if s.strip()]

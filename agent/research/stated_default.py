"""A thing the question names only by being the default: "the GUI's default LLM provider".

"Which model does the default provider use for log summarization?" is two hops: which
provider is the default ("Google is the default", said in the User Guide), then that
provider's cell of the model table (in another document). The first hop is a kind of
statement, not a question: "<Name> is the default", "<Name> (default)", "default
<noun>: <Name>", said where the noun is being discussed. Once found, the name is
written into the question ("the default LLM provider (Google)"), so ranking and the
table reader pick the column or passage of that name like any name the user typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from agentcycle.agent.research.answer_type import asking_part, expect
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import STOPWORDS, stem, term_set
from agentcycle.agent.research.wording import DEFAULT_CLAUSE

# "the default LLM provider", "the GUI's default analysis depth" ("does it default to …"
# uses the word as a verb): the words after it, up to three, to the first punctuation
_DEFAULT_THING = re.compile(
    r"(?:\b(?:the|its|their|your|my)|['’]s)\s+default((?:\s+[\w-]+){1,3})", re.IGNORECASE
)
# "leave the Provider setting at its default", "with the depth left at the default"
_AT_DEFAULT = re.compile(
    r"\b([A-Za-z][\w-]*)(?:\s+(?:setting|option|field|choice))?\s+(?:left\s+)?"
    r"(?:at|on)\s+(?:its|the|their)\s+default\b",
    re.IGNORECASE,
)
# "the AI provider that the GUI uses by default": the noun ends the phrase before it
_DEFAULT_BY_CLAUSE = re.compile(
    rf"\bthe\s+((?:[\w-]+\s+){{0,2}}?[\w-]+)\s+{DEFAULT_CLAUSE}", re.IGNORECASE
)
_WORD = re.compile(r"[\w-]+")
# "what is the default model for …": the default of the noun asked for
_ASKS_THE_DEFAULT = re.compile(
    r"\b(?:what|which)(?:'s|\s+is|\s+are|\s+was)\s+the\s+default\s+([\w-]+)", re.IGNORECASE
)
# nouns whose default is a value, not a named choice: "the default timeout" asks a number
_VALUE_NOUNS = {
    stem(w)
    for w in (
        "value", "values", "setting", "settings", "number", "timeout", "limit", "size",
        "threshold", "budget", "count", "length", "port", "path", "directory", "folder",
        "file", "cycles", "max", "maximum", "minimum", "behaviour", "behavior", "level", "is",
        "was",
    )
}  # fmt: skip
_NAME = r"([A-Z][\w.+-]{1,40})"
_STATEMENTS = (
    re.compile(rf"\*{{0,2}}{_NAME}\*{{0,2}} is the default\b"),
    re.compile(rf"`?{_NAME}`?\s*\((?:the )?default\)"),
    re.compile(rf"\bdefault(?: is|:)\s+\*{{0,2}}`?{_NAME}"),
)
# "the default *for* agent decisions", "the default *in* the GUI": what follows places
# the default; it names no noun the default is one of
_PLACING = {"for", "of", "in", "on", "at", "to", "when", "with", "under", "across", "per"}
NEAR_CHARS = 300  # how far before a statement its noun may be named ("**Provider** …")
NEAR_AFTER = 40  # … or after it ("**Expert** is the default analysis depth")


@dataclass(frozen=True)
class DefaultStatement:
    """ "<name> is the default", with the words said around it (which noun it is the
    default of) and the chunk that says it."""

    name: str
    near: frozenset[str]  # stemmed words of the heading path and the text around it
    evidence: Evidence


@dataclass(frozen=True)
class StatedDefault:
    question: str  # the question with the default's name written in
    name: str
    evidence: Evidence  # the chunk stating it: the first hop, cited with the answer


def default_statements(chunks: Iterable[Evidence]) -> list[DefaultStatement]:
    """Every statement of a default in the chunks, in order (one read of the corpus)."""
    found = []
    for hit in chunks:
        text = hit.text
        for pattern in _STATEMENTS:
            for match in pattern.finditer(text):
                start, end = max(0, match.start() - NEAR_CHARS), match.end() + NEAR_AFTER
                near = frozenset(term_set(f"{hit.heading}\n{text[start:end]}"))
                found.append(DefaultStatement(match.group(1).rstrip(".,;:"), near, hit))
    return found


def defaulted_nouns(question: str) -> list[tuple[int, str]]:
    """(where the word ends, the word) for each word that may be the noun of "the
    default <noun>", last first: the noun ends the phrase ("default LLM *provider*"),
    but which word that is ("… provider use for …") is settled by where a passage
    states a default. Nouns whose default is a value ("the default timeout") are left
    out: that is an ordinary question. "The Provider setting at its default" names its
    noun before the word."""
    found: list[tuple[int, str]] = []
    for match in _DEFAULT_THING.finditer(question):
        if match.group(1).split()[0].lower() in _PLACING:
            continue  # "list as the default for agent decisions": the default itself is asked
        for word in _WORD.finditer(match.group(1)):
            text = word.group(0)
            if not text.islower() or len(text) < 3 or text in STOPWORDS:
                continue
            if stem(text) in _VALUE_NOUNS:
                break  # "the default value of …"
            found.append((match.start(1) + word.end(), text))
    for match in _DEFAULT_BY_CLAUSE.finditer(question):
        text = match.group(1).split()[-1]
        if text.islower() and text not in STOPWORDS and stem(text) not in _VALUE_NOUNS:
            found.append((match.end(1), text))
    for match in _AT_DEFAULT.finditer(question):
        text = match.group(1).lower()
        if text not in STOPWORDS and stem(text) not in _VALUE_NOUNS:
            found.append((match.end(1), text))
    return found[::-1]


def resolve_default(
    question: str, evidence: list[Evidence], corpus: Iterable[DefaultStatement] = ()
) -> StatedDefault | None:
    """The question with the default it names resolved, or None when it names none or
    no passage states which it is. The retrieved evidence is read first (it is about the
    question), then every statement of a default in the corpus."""
    nouns = defaulted_nouns(question)
    # "what is the default model for log summarization" asks for the default itself: a
    # default of the asked noun names nothing to resolve first
    asked = {expect(question).head} | {
        stem(m.group(1).lower()) for m in _ASKS_THE_DEFAULT.finditer(asking_part(question))
    }
    nouns = [(end, noun) for end, noun in nouns if stem(noun.lower()) not in asked]
    if not nouns:
        return None
    statements = [*default_statements(evidence), *corpus]
    for end, noun in nouns:
        wanted = stem(noun.lower())
        for statement in statements:
            name = statement.name
            if wanted in statement.near and name.lower() not in question.lower():
                resolved = f"{question[:end]} ({name}){question[end:]}"
                return StatedDefault(resolved, name, statement.evidence)
    return None

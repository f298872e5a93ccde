"""The question in the corpus's words, where a user's idiom says the same thing.

Support (how much of the question one passage covers) counts the question's words, so
an idiom no passage uses costs an answerable question its support: "if I leave Max
cycles alone" covers less of "Max cycles (default: 20)" than "Max cycles at its
default" does, though both ask for the default. Each rewording here keeps the meaning
and only trades the idiom for the word documentation writes.
"""

from __future__ import annotations

import re

# "leave X alone", "keep the setting untouched": the verb and the words for "as it was",
# shared with answer_type's reading of a question as asking for a default
LEFT = r"(?:leave|leaves|left|keep|keeps)"
AS_IS = r"(?:untouched|unchanged|alone|as it is)"
# "that the GUI uses by default", "selected by default": a relative clause naming a thing
# by the default it is (shared by answer_type, which then asks no default, and
# stated_default, which resolves the thing). "Which level *is selected* by default?"
# is no clause: the question's own verb, asking for the default itself.
DEFAULT_CLAUSE = (
    r"(?:(?:that|which)\s+(?:[\w'’-]+\s+){0,4}?(?:uses?|selects?|picks?|chooses?|runs?|"
    r"starts?\s+with)|used|enabled|"
    r"(?<!\bis )(?<!\bare )(?<!\bwas )(?<!\bwere )(?<!\bbe )(?:selected|picked|chosen))"
    r"\s+by\s+default\b"
)
_LEFT_AS_IS = re.compile(
    rf"\b(?:(?:I|you|we)\s+)?{LEFT}\s+((?:\S+\s+){{0,4}}?){AS_IS}\b", re.IGNORECASE
)


# "if you do not change the Provider setting": the setting left at its default
_NOT_CHANGED = re.compile(
    r"\b(?:do not|don't|never)\s+(?:change|touch|modify|override)\s+"
    r"((?:[\w`'\".-]+\s+){0,3}?[\w`'\".-]*\w)(?=\s*[,?]|\s*$)",
    re.IGNORECASE,
)


def in_corpus_words(question: str) -> str:
    """The question with each idiom replaced by the documentation's word for it."""
    question = _LEFT_AS_IS.sub(r"\1at its default", question)
    return _NOT_CHANGED.sub(r"leave \1 at its default", question)

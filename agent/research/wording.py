"""The question in the corpus's words, where a user's idiom says the same thing.

Support (how much of the question one passage covers) counts the question's words, so
an idiom no passage uses costs an answerable question its support: "if I leave Max
cycles alone" covers less of "Max cycles (default: 20)" than "Max cycles at its
default" does, though both ask for the default. Each rewording here keeps the meaning
and only trades the idiom for the word documentation writes.
"""

from __future__ import annotations

import re

# "if I leave Max cycles alone", "keep the setting untouched": what applies is the default
_LEFT_AS_IS = re.compile(
    r"\b(?:(?:I|you|we)\s+)?(?:leave|leaves|left|keep|keeps)\s+((?:\S+\s+){0,4}?)"
    r"(?:untouched|unchanged|alone|as it is)\b",
    re.IGNORECASE,
)


def in_corpus_words(question: str) -> str:
    """The question with each idiom replaced by the documentation's word for it."""
    return _LEFT_AS_IS.sub(r"\1at its default", question)

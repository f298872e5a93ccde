"""The documents an asking sentence names: "which model does the current
ARCHITECTURE.md list", "according to the User Guide, …".

A reader who names the document expects the answer from it. Two documents often state
the same fact in rows of the same shape (an older write-up and its current version), so
the words of the passage alone cannot tell them apart; the name the question writes can.
A document is named by its file name written whole, or by a two-word phrase of its title
that ends in a word for a kind of document ("User Guide", "Technical Overview").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from agentcycle.agent.research.answer_type import main_clause
from agentcycle.agent.research.state import Evidence

# words that say what kind of document a title names; the word before one makes it a name
_DOCUMENT_KINDS = {"guide", "overview", "architecture", "design", "logic", "reference", "manual"}
_FILE_WRITTEN = re.compile(r"(?<![\w/.-])([\w-]+\.(?:md|rst|txt))\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][\w-]*")


def _title_names(heading: str) -> set[str]:
    """ "PHENIX AI Agent — User Guide" → {"user guide"}: each kind word with the word
    before it, from the document's title (the first part of a heading path)."""
    words = [w.lower() for w in _WORD.findall(heading.split(" > ", 1)[0])]
    return {f"{a} {b}" for a, b in pairwise(words) if b in _DOCUMENT_KINDS}


def named_documents(question: str, evidence: Iterable[Evidence]) -> set[str]:
    """The files among the evidence's that the asking sentence names; empty when it
    names none of them or the text asks nothing."""
    clause = main_clause(question)
    if not clause.endswith("?"):
        return set()  # a premise ("The User Guide says …") sets up a hop, it asks nothing
    written = {m.group(1).lower() for m in _FILE_WRITTEN.finditer(clause)}
    lowered = " ".join(w.lower() for w in _WORD.findall(clause))
    named = set()
    for item in evidence:
        base = item.file.rsplit("/", 1)[-1].lower()
        if base in written or any(
            re.search(rf"\b{re.escape(name)}\b", lowered) for name in _title_names(item.heading)
        ):
            named.add(item.file)
    return named


# "the User Guide", "the Technical Overview's table": a word and a kind of document
_TITLE_WRITTEN = re.compile(
    rf"\b(?:the|its|their)\s+([A-Za-z][\w-]+)\s+({'|'.join(sorted(_DOCUMENT_KINDS))})\b",
    re.IGNORECASE,
)
_NOT_A_TITLE_WORD = {"same", "current", "older", "old", "new", "whole", "following", "seed"}


@dataclass(frozen=True)
class Scope:
    """A search inside one document the question names."""

    query: str  # the question less the document's name: its words match no passage
    file: str | None = None  # a file name: `ARCHITECTURE.md`
    heading: str | None = None  # words of every heading path in it: "user guide"

    def holds(self, passage: Evidence) -> bool:
        """Whether the passage is inside the document: the file of that very name (the
        search's substring filter also lets `legal-architecture.md` in, which ranking
        then weighs as another document), or a heading path with the title's words."""
        base = passage.file.rsplit("/", 1)[-1].lower()
        return (self.file is None or self.file.lower() == base) and (
            self.heading is None or self.heading in passage.heading.lower()
        )


def document_scopes(question: str) -> list[Scope]:
    """A search inside each document the question names, in any of its sentences: by a
    file name written whole (`ARCHITECTURE.md`) or by a title's two words ("user
    guide", which every heading path of that guide holds). A premise's document holds
    the first hop, the asking sentence's the answer; both are worth reading."""
    scopes = []
    for m in _FILE_WRITTEN.finditer(question):
        rest = question[: m.start()] + question[m.end() :]
        scopes.append(Scope(rest, file=m.group(1)))
    for m in _TITLE_WRITTEN.finditer(question):
        if m.group(1).lower() not in _NOT_A_TITLE_WORD:
            rest = question[: m.start()] + question[m.end() :]
            scopes.append(Scope(rest, heading=f"{m.group(1)} {m.group(2)}".lower()))
    # a search needs words: a question that is little more than the name searches nothing
    return [s for s in dict.fromkeys(scopes) if _WORD.search(s.query)]

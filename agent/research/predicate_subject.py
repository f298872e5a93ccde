"""The question's predicate, found in a passage: who does it, who is noted with it, and
the same act in other words.

"Which LLM provider has no native embeddings endpoint?" is answered by the word a
passage writes right before that very predicate ("`anthropic` has no native embeddings
endpoint"), however many other names the sentence holds. Ranking spans by kind alone
picks another name of the right kind from the same sentence ("… and `portkey`
requires …"), or a provider-looking name from a sentence about other endpoints. Likewise
"which tool is recommended but not mandatory" is the name a chain notes "(RECOMMENDED,
not mandatory)", not the first tool of the chain.
"""

from __future__ import annotations

import re

from agentcycle.agent.research.answer_type import asking_part, main_clause
from agentcycle.agent.research.text import (
    STOPWORDS,
    content_terms,
    present_terms,
    stem,
    term_set,
)

PREDICATE_SUBJECT = "the subject a passage gives the question's own predicate"
MIN_PREDICATE_WORDS = 3  # "has no native embeddings endpoint"; "is used" says too little
MIN_PREDICATE_TERMS = 2
_WHICH = re.compile(r"\b(?:which|what)\s+", re.IGNORECASE)
_MARKUP = re.compile(r"[`*]")
_SUBJECT = r"([A-Za-z][\w.-]*)"


def _after_wh_word(question: str) -> str | None:
    """The clause after "which"/"what", to its comma or question mark: "provider has no
    native embeddings endpoint"; None when no clause asks with one."""
    return next(
        (p[m.end() :] for p in re.split(r"[,;?]", question) if (m := _WHICH.search(p))), None
    )


def predicate_subject(unit: str, question: str, head: str) -> str | None:
    """The name right before the question's predicate in the unit: the predicate is what
    follows the asked noun phrase ("which *provider* has no native embeddings endpoint"),
    found word for word; None when the unit does not say it, or says it of a word that
    is no name (a pronoun, a word the question itself uses)."""
    asking = _after_wh_word(question)
    if asking is None or not head:
        return None
    clause_words = asking.split()
    text = " ".join(_MARKUP.sub("", unit).split())
    asked = term_set(question)
    heads = [i for i, w in enumerate(clause_words) if stem(w.lower()) == head]
    if not heads:
        return None
    predicate_words = clause_words[heads[0] + 1 :]  # the verb phrase right after the noun
    predicate = " ".join(predicate_words)
    if len(predicate_words) < MIN_PREDICATE_WORDS or (
        len(content_terms(predicate)) < MIN_PREDICATE_TERMS
    ):
        return None
    found = re.search(rf"{_SUBJECT}\s+{re.escape(predicate)}\b", text, re.IGNORECASE)
    if found is None:
        return None
    subject = found.group(1).rstrip(".")
    if subject.lower() in STOPWORDS or stem(subject.lower()) in asked:
        return None
    return subject


OBJECT_TERMS = 2  # the fewest object words that make a verb's paraphrase the same act


def same_act_on_same_object(term: str, question: str, text: str) -> bool:
    """Whether `term` is the verb of "which tool *fetches* the full text of a specific
    chunk" and the text does the same to the same object in other words ("Retrieves
    full text of a specific chunk"): the verb's object, two content words or more up
    to the clause's end, is all named in the text, and only the verb differs."""
    for clause in re.split(r"[,;?]", asking_part(main_clause(question))):
        words = clause.split()
        verbs = [i for i, w in enumerate(words) if stem(w.lower().strip("`'\"")) == term]
        if not verbs:
            continue
        if not words[verbs[0]].lower().endswith("s"):
            return False  # a verb after its subject: "fetches", "returns"
        obj = content_terms(" ".join(words[verbs[0] + 1 :]))
        return len(obj) >= OBJECT_TERMS and present_terms(obj, text) == set(obj)
    return False


ANNOTATED_SUBJECT = "the name whose note states the question's predicate"
# a name and the note right after it: "Image_Captioner_Tool (RECOMMENDED, not mandatory)"
_ANNOTATED = re.compile(r"([A-Za-z][\w.:-]*)`?\s*\(([^()]{2,60})\)")
_COPULA = re.compile(r"\b(?:is|are|was|were|be|stays?|remains?)\s+", re.IGNORECASE)
_NEGATION = frozenset({"not", "no", "non", "never"})


def annotated_names(unit: str) -> list[tuple[str, str]]:
    """(name, note) for every name the unit follows with a note in parentheses."""
    return [
        (match.group(1).rstrip("."), match.group(2))
        for match in _ANNOTATED.finditer(_MARKUP.sub("", unit))
    ]


def _negated(words: str) -> bool:
    return bool(_NEGATION & {w.lower() for w in re.findall(r"\w+", words)})


def annotated_subject(unit: str, question: str, head: str) -> str | None:
    """The one name of the unit whose parenthesised note states what the question says
    of the asked thing: "which tool at the end of the chain is *recommended but not
    mandatory*" over "… ↓ Analysis_Visualizer_Tool (MANDATORY) ↓ Image_Captioner_Tool
    (RECOMMENDED, not mandatory)" is Image_Captioner_Tool. The note must hold every
    content word after the asking clause's verb "is", and a negation exactly when the
    question has one ("(MANDATORY)" is no "not mandatory"); None when no name or several
    names have such a note, or the question writes the name."""
    asking = _after_wh_word(question)
    if asking is None or not head:
        return None
    words = asking.split()
    if not words or stem(words[0].lower()) != head:
        return None  # the wh-word asks for the head noun: "which tool …"
    copulas = list(_COPULA.finditer(asking))
    if not copulas:
        return None
    predicate = asking[copulas[-1].end() :]
    terms = content_terms(predicate)
    if not terms:
        return None
    negated = _negated(predicate)
    asked = term_set(question)
    names = {
        name
        for name, note in annotated_names(unit)
        if present_terms(terms, note) == set(terms) and negated == _negated(note)
    }
    if len(names) != 1:
        return None
    name = names.pop()
    return None if stem(name.lower()) in asked or name.lower() in STOPWORDS else name

"""The question's key entities, and whether the evidence behind an answer names them.

A near-miss question borrows a real subject's vocabulary and asks about something
the corpus does not hold: "DocuChat's request timeout" finds a passage with a
timeout in it — about another system. Coverage by IDF weight misses that, since the
passage shares most of the question's words. Two kinds of words pin the subject
down: a product name in CamelCase ("DocuChat", "ChromaDB") and a value the question
states: a decimal one ("at 3.5 Å") or a whole number a code name holds
("client_protocol_version 9"). They must appear in what the answer's documents say
(the retrieved passages of the cited files: text, heading path or file name).
Other capitalised words are too often document names or generic labels ("User
Guide", "LLM"), and snake_case names too often paraphrased, for their absence to
mean the fact is missing. A constant the question names (`OLLAMA_EMBED_MODEL`) must
be stated by the answering unit itself, beside its value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agentcycle.agent.research.answer_type import main_clause
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.text import Vocabulary, normalise, stem, term_set, tokens

_CAMEL = re.compile(r"(?<![\w.`-])[A-Z][a-z]+(?:[A-Z][A-Za-z0-9]*)+(?![\w-])")
_DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")
_CONSTANT = re.compile(r"(?<![\w.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w.])")


# a whole number a setting's name holds in the question ("sending client_protocol_version
# 9", "`max_cycles=12`"): a value as specific as a decimal one; not a program's or a
# file's name ("phenix.refine 3 times" counts runs)
_NAME_VALUE = re.compile(
    r"(?<![\w.])`?([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)\b`?(?:\s*[=:]\s*|\s+(?:of\s+)?)(\d+)"
    r"(?![\w.])"
)


def key_entities(question: str) -> list[str]:
    """CamelCase names, decimal values and the whole numbers code names hold, of a
    question, in order, no repeats."""
    found = [m.group(0) for m in _CAMEL.finditer(question)]
    found += [m.group(0) for m in _DECIMAL.finditer(question)]
    found += [f"{m.group(1)} {m.group(2)}" for m in _NAME_VALUE.finditer(question)]
    return list(dict.fromkeys(found))


# how `key_entities` writes a setting's name with the number it holds: "name 9"
_HELD = re.compile(r"(\S+) (\d+)")


def _is_value(entity: str) -> bool:
    """A decimal value, or a setting's name with the number it holds (a CamelCase name
    that ends in a digit is neither)."""
    return bool(_DECIMAL.fullmatch(entity) or _HELD.fullmatch(entity))


def _named(entity: str, text: str, stems: set[str]) -> bool:
    held = _HELD.fullmatch(entity)
    if held:  # the number beside its name, within a line: "`client_protocol_version` | `9`"
        name, number = (re.escape(part.lower()) for part in held.groups())
        return bool(re.search(rf"{name}[^\n]{{0,40}}?(?<![\w.]){number}(?!\.?\d)", text))
    if _is_value(entity):  # "114.1" is named by "v114.1", a release's usual spelling
        return bool(re.search(rf"(?<![\w.])[vV]?{re.escape(entity)}(?!\.?\d)", text))
    return all(t in stems for t in tokens(entity.lower()))


def missing_entities(
    question: str,
    cited: Iterable[Evidence],
    pool: Iterable[Evidence] = (),
    vocabulary: Vocabulary | None = None,
) -> list[str]:
    """Key entities of the question that no passage of the cited documents names.

    The documents count, not only the cited chunks: a name that places the subject
    ("the LangGraph agent's ToDo limit") is often said once, in another section of the
    same file. With the corpus `vocabulary`, a name the cited file writes anywhere
    counts; without it, the retrieved passages of those files must say it. A decimal
    value must be in those passages: it states a fact, it places nothing; unless only a
    scene-setting sentence states it, which a first hop found in another file.
    """
    entities = key_entities(question)
    if not entities:
        return []
    cited, pool = list(cited), list(pool)
    files = {c.file for c in cited}
    chunks = {c.chunk_id: c for c in [*cited, *(p for p in pool if p.file in files)]}
    text = normalise("\n".join(f"{c.context}\n{c.text}" for c in chunks.values()))
    stems = {t.lower() for t in term_set(text)} | set(tokens(text))
    if vocabulary is not None:
        documents = stems.union(*(vocabulary.names_in_file(f) for f in files))
    else:
        documents = stems
    missing = [
        e for e in entities
        if not _named(e, text, stems if _is_value(e) else documents)
    ]  # fmt: skip
    return _less_first_hop_values(question, missing, pool)


def _less_first_hop_values(
    question: str, missing: list[str], pool: list[Evidence]
) -> list[str]:
    """The missing entities less the decimal values that only a scene-setting sentence
    states ("… lists for 'R-free stuck above 0.40' … . Under which parameter …?") and
    that a retrieved passage of any file states: that sentence is a first hop, told by
    one document, and the asked fact is told by another, which need not repeat it."""
    asking = main_clause(question)
    setting = [e for e in missing if _is_value(e) and e not in asking]
    if not setting:
        return missing
    text = normalise("\n".join(f"{c.context}\n{c.text}" for c in pool))
    return [e for e in missing if e not in setting or not _named(e, text, set())]


# A constant is what is asked about when the question asks for its value or default
# ("the default value of X", "what is X set to", "X defaults to"), not when it only
# places the question ("the K_H4 test pins the scanner at what recall?").
_ASKED_VALUE = re.compile(
    r"\b(?:value|default|setting|set)\b[^?.;]{0,24}?\b(?:of|for)\s+(?:the\s+)?`?(?P<after>"
    + _CONSTANT.pattern
    + r")|`?(?P<before>"
    + _CONSTANT.pattern
    + r")`?\s+(?:is\s+)?(?:set\s+to|default|defaults|value)\b"
    # "if I don't set X, which model …": what X defaults to
    + r"|\b(?:don['’]t|do not|never|without)\s+(?:set|setting|setting up)\s+`?(?P<unset>"
    + _CONSTANT.pattern
    + r")"
    # "if X is not set, which model …", "when X is left unset": the same, said of X
    + r"|`?(?P<unset_after>"
    + _CONSTANT.pattern
    + r")`?\s+(?:(?:is|was|stays|remains)\s+(?:not\s+set|never\s+set|left\s+unset|unset)"
    + r"|isn['’]t\s+set)\b"
)


def asked_constants(question: str) -> list[str]:
    """UPPER_SNAKE names whose value or default the question asks for, in order."""
    found = [
        m.group("after") or m.group("before") or m.group("unset") or m.group("unset_after")
        for m in _ASKED_VALUE.finditer(question)
    ]
    return list(dict.fromkeys(found))


def unstated_constants(question: str, units: Iterable[str]) -> list[str]:
    """Constants whose value the question asks for that none of `units` (the answering
    unit) names.

    A value is stated beside its name: a unit that never names the constant states some
    other setting's value, however close its chunk is. A constant that only places the
    question is not required.
    """
    units = list(units)
    said = normalise(" ".join(units))
    return [
        n for n in asked_constants(question)
        if n.lower() not in said or all(_listed_only(n, u) for u in units)
    ]  # fmt: skip


# a code name beside a comma or "and": one member of a list of names
_LIST_NEIGHBOUR = r"`?[A-Za-z_][\w.]*`?"


def _listed_only(name: str, unit: str) -> bool:
    """Whether every mention of `name` in the unit is one item of a list of names
    ("Optional: `OLLAMA_BASE_URL`, `OLLAMA_EMBED_MODEL`"): such a list says the
    setting exists, and states no value of it. True when the unit never names it."""
    for match in re.finditer(rf"`?(?<![\w.]){re.escape(name)}(?![\w.])`?", unit):
        before = re.search(rf"{_LIST_NEIGHBOUR}\s*(?:,|\band\b|\bor\b)\s*$", unit[: match.start()])
        after = re.match(rf"\s*(?:,|\band\b|\bor\b)\s*{_LIST_NEIGHBOUR}", unit[match.end() :])
        if not before and not after:
            return False
    return True


# a function the question calls by name: `_llm_call()`, detect_convergence()
_CALLED = re.compile(r"(?<![\w.])_*[A-Za-z]\w*(?=\(\))")


def unplaced_functions(question: str, lead: Evidence, unit: str) -> list[str]:
    """Functions the asking clause names ("how many times does `_llm_call()` retry")
    that neither the answering unit nor its passage (text or heading path) names.

    A function written with its parentheses is the exact thing asked about; a passage
    that never names it describes some other step ("3+ consecutive failures → stop
    retrying" is the replanner's rule, not the call's). Its passage counts: a
    function's section seldom repeats the name in each sentence."""
    said = normalise(f"{unit}\n{lead.context}\n{lead.text}")
    return [
        name for name in dict.fromkeys(_CALLED.findall(main_clause(question)))
        if name.lower() not in said
    ]  # fmt: skip


_SNAKE = re.compile(r"(?<![\w./-])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w/-])")


def unknown_names(question: str, vocabulary: Vocabulary) -> list[str]:
    """snake_case names the question uses that the whole corpus never writes.

    Questions copy such names from the documents they ask about; one the corpus has
    never seen (`tst_plan_validator` beside the real `tst_plan_generator`) is a
    near-miss however much of the rest of the question the passages share.
    """
    found = [m.group(0).lower() for m in _SNAKE.finditer(question)]
    return [n for n in dict.fromkeys(found) if not _written(n, vocabulary)]


def _written(name: str, vocabulary: Vocabulary) -> bool:
    """Whether the corpus writes the name, alone or inside a longer token
    (`llm.with_structured_output(...)`, `refine_001.pdb`)."""
    if vocabulary.known(stem(name)):
        return True
    return any(name in form for forms in vocabulary.forms.values() for form in forms)


# Words of document names that name the kind of document, not its subject.
_GENERIC_NAME_WORDS = {
    "md", "txt", "rst", "doc", "docs", "readme", "guide", "overview", "design", "notes",
    "architecture", "logic", "mode", "agent", "spec", "reference", "manual", "index",
}  # fmt: skip


# a product's name as its makers write it: inner capitals ("DocuChat", "LangGraph")
_PRODUCT_NAME = re.compile(r"\b[A-Z][a-z]+[A-Z][A-Za-z]*\b")


def _name_words(path: str) -> set[str]:
    words = {w for w in re.split(r"[^a-z0-9]+", path.lower()) if len(w) >= 3}
    return words - _GENERIC_NAME_WORDS


def foreign_source(question: str, cited: Iterable[Evidence], pool: Iterable[Evidence]) -> str:
    """The document the question names ("the legal-research RAG graph" →
    `legal-rag-graph-architecture.md`) when the answering passages (`cited`: the unit
    the answer is taken from) are from elsewhere and never name its subject; ''
    otherwise.

    A document is named when at least two words of its path (less words for kinds of
    document: guide, design, ...) are question words, more than for any other
    retrieved document, or when one word of one retrieved document's path is a product's
    name the question writes with inner capitals ("DocuChat"). An answer about the
    named system from another system's document is a near-miss: the fact asked for is
    not where the question points.
    """
    # the asking sentence names where the answer must come from; a sentence before it
    # ("The User Guide says X. Which category …?") sets up a second hop elsewhere
    clause = main_clause(question)
    asked = set(tokens(clause.lower()))
    files = {e.file for e in pool}
    matches = {f: _name_words(f) & asked for f in files}
    best = max((len(m) for m in matches.values()), default=0)
    if best < 2:
        # one word names a document when it is a product's own name ("DocuChat") that
        # no other retrieved document's path holds
        products = {w.lower() for w in _PRODUCT_NAME.findall(clause)}
        named = {f for f, m in matches.items() if m & products}
        if len(named) != 1:
            return ""
    else:
        named = {f for f, m in matches.items() if len(m) == best}
    cited = list(cited)
    if not cited or any(c.file in named for c in cited):
        return ""
    said = set(tokens(normalise("\n".join(f"{c.context}\n{c.text}" for c in cited))))
    for f in sorted(named):
        if not matches[f] <= said:
            return f
    return ""

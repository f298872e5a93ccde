"""A thing the question names only by describing it: "the program the agent uses as its
cryo-EM placement probe", "the node that runs right after retrieval".

"Which category does the programs table give the program the agent uses as its
cryo-EM placement probe?" is two hops in one sentence: which program that is (a row of
a table in one document), then that program's category (a table in another). Ranked
as one question, the passages about probes and the passages about categories compete
and neither answers. So the description is asked first, as its own question whose
answer is a name of the described kind; the name is written into the question in
place of the description, and the rest is an ordinary lookup of a named thing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from agentcycle.agent.research.answer_type import PREPOSITIONS, expect
from agentcycle.agent.research.clean import clean_inline, table_headers
from agentcycle.agent.research.compose import compose
from agentcycle.agent.research.named_document import document_scopes
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.synthesize import Scored
from agentcycle.agent.research.text import STOPWORDS, content_terms, present_terms, sentences, stem
from agentcycle.agent.research.tools import ResearchTools

# Kinds of named things a description can stand for: its answer is a name, never a
# value ("the threshold that …" asks for a number and is an ordinary question).
# A provider's name heads a table column ("the provider whose default model is X"):
# the row that holds X names it by its column (`extract._column_of_written_value`).
_KINDS = (
    "program", "template", "function", "method", "node", "tool", "module", "class",
    "script", "skill file", "helper", "provider", "field",
)  # fmt: skip
_KIND = rf"(?:{'|'.join(_KINDS)})"
_DESCRIPTION = re.compile(
    r"\b(?:the|a|one)\s+(?:(?:specific|particular|single)\s+)?"
    rf"(?P<kind>(?:[\w-]+\s+){{0,2}}?{_KIND})\s+"
    # "… program that/which/whose …", a reduced relative ("… program the agent uses")
    # or a passive one ("… program used as …"), to the end of its clause: a comma, a
    # question mark, or a full stop ending a sentence ("phenix.refine" ends none)
    r"(?P<clause>(?:that|which|whose|the|its|this|(?:used|called|chosen|selected)"
    r"\s+(?:as|by|for|in))\s+(?:(?!\.\s)[^,;?]){8,})",
    re.IGNORECASE,
)
_VERB_LIKE = re.compile(r"\b\w+(?:s|ed)\b")  # a reduced relative clause has a verb
_MAIN_VERB_BEFORE_ASKING = re.compile(
    # "… depends on which tool", "… is listed under which category"
    r"(?:\s+(?:is|are|was|were|gets?|got))?\s+\w+(?:s|ed)"
    r"(?:\s+(?:on|upon|to|from|in|for|with|of|by|into|under|as|among|within))?\s+(?:which|what)\b",
    re.IGNORECASE,
)
SEARCHED_UNITS = 8  # chunks of the best-matching sentences read for the description
SEARCHED_CHUNKS = 5  # … and of the best-matching passages


@dataclass(frozen=True)
class Description:
    asked: str  # the description as a question: "Which program the agent uses as …?"
    kind: str  # the noun it describes, stemmed: "program"
    start: int  # where the words the name replaces stand in the question
    end: int
    is_asked: bool = False  # the question asks for the described thing's name itself


@dataclass(frozen=True)
class Resolved:
    question: str  # the question with the name in place of the description
    name: str
    evidence: Evidence  # the passage naming it: the first hop, cited with the answer
    is_answer: bool = False  # the name is what the question asks for
    units: tuple[Scored, ...] = ()  # the units that name it, best first


# "What is the name of the class that …", "Name the tool that …": the description is
# the whole of what is asked, so the name it resolves to is the answer
_ASKS_ITS_NAME = re.compile(
    r"(?:\b(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+)?(?:full\s+|exact\s+)?"
    r"(?:name|identifier)\s+of\s*|\bname\s*)$",
    re.IGNORECASE,
)


def described_thing(question: str) -> Description | None:
    """The first thing the question describes instead of naming, or None: a noun of a
    named kind with a relative clause. The asking noun itself ("which program that …")
    is not one: that is what the question asks for.

    A thing an earlier sentence introduces ("… runs a particular program. In that
    program's definition, which …") is left to the bridge composition
    (`compose_bridged`): resolving it to a name first answered no more of those
    questions and lost some that the bridge answers."""
    for match in _DESCRIPTION.finditer(question):
        kind_words = match.group("kind").split()
        if any(w.lower() in STOPWORDS for w in kind_words[:-1]):
            continue
        clause = match.group("clause")
        if clause.split()[0].lower() in ("the", "its", "this") and not _VERB_LIKE.search(clause):
            continue
        before = question[: match.start()].split()
        if before and before[-1].lower() in ("which", "what"):
            continue
        main_verb = _MAIN_VERB_BEFORE_ASKING.search(clause)
        if main_verb is not None and _VERB_LIKE.search(clause[: main_verb.start()]):
            # "the tool that runs DINOv3 on cell crops | depends on which tool's output":
            # the verb before the asking wh-word is the sentence's, so the clause ends there
            text = question[match.start() : match.start("clause") + main_verb.start()]
        elif not _ends_its_phrase(question, match):
            continue
        else:
            text = match.group(0).rstrip(" .")
        kind = stem(kind_words[-1].lower())
        asked = f"Which {text.split(maxsplit=1)[1]}?"  # the kind becomes the asked noun
        end = match.start() + len(text)
        is_asked = bool(_ASKS_ITS_NAME.search(question[: match.start()])) and not (
            question[end:].strip(" ?")
        )
        return Description(asked, kind, match.start(), end, is_asked)
    return None


def description_pool(
    asked: str, evidence: list[Evidence], tools: ResearchTools
) -> list[Evidence]:
    """The passages read to answer a description asked as its own question: those best
    matching its sentences and as a whole, those inside a document it names ("the
    provider that the User Guide names as the default"), and the question's own."""
    found = [
        *tools.search_units(asked, SEARCHED_UNITS),
        *tools.search(asked, SEARCHED_CHUNKS),
        *(
            hit
            for scope in document_scopes(asked)
            for hit in tools.search(
                scope.query, SEARCHED_CHUNKS, file=scope.file, heading=scope.heading
            )
        ),
        *evidence,
    ]
    return list({e.chunk_id: e for e in found}.values())


def _ends_its_phrase(question: str, match: re.Match[str]) -> bool:
    """Whether the clause surely ends where the match does. A description that is a
    sentence's subject runs on into the main verb ("the node that runs after retrieval
    computes a score"), which no rule here can tell from the clause's own; an object
    ends with its sentence ("… assign to the program the agent uses as its probe?",
    "The classifier feeds a function that removes …."), and an opening phrase at its
    comma ("For the program used as the probe, which …")."""
    after = question[match.end() :].lstrip()
    opening = question[: match.start()].rsplit(". ", 1)[-1].rsplit(",", 1)[-1].split()
    if after.startswith(","):
        return bool(opening) and opening[-1].lower() in PREPOSITIONS
    # an object: its sentence has a subject and verb before it
    return bool(opening) and opening[0].lower() not in PREPOSITIONS


def resolve_described(
    question: str, evidence: list[Evidence], tools: ResearchTools
) -> Resolved | None:
    """The question with the thing it describes named, or None when it describes none
    or no passage names one of the described kind for the description."""
    described = described_thing(question)
    if described is None:
        return None
    pool = description_pool(described.asked, evidence, tools)
    named = _subject_of_clause(question, described, pool) or _composed_name(
        question, described, pool, tools
    )
    if named is None:  # no name of the kind: a plain-word name heading a column
        rest = [*evidence, *_rest_searched(question, described, tools)]
        named = _column_title_named(question, described, pool, rest)
    if named is None:
        return None
    name, units = named
    if not _names_it(name, described, question):
        return None
    rewritten = f"{question[: described.start]}{name}{question[described.end :]}"
    return Resolved(rewritten, name, units[0].evidence, described.is_asked, units)


Named = tuple[str, tuple[Scored, ...]]  # a name, and the units that name it, best first


def _composed_name(
    question: str, described: Description, pool: list[Evidence], tools: ResearchTools
) -> Named | None:
    """The name of the described kind that the passages best answering the description
    as a question give, with its sentence; None when the best gives none."""
    asked = described.asked
    # a provider is named in a plain word ("Google is the default"), a program in code
    kind = "name" if described.kind in _PLAIN_NAMED else "identifier"
    expectation = replace(expect(asked), kind=kind, head=described.kind)
    composed = compose(asked, pool, tools.vocabulary(), expectation, tools.text_similarities, 1)
    if composed is None or composed.span is None or composed.shape_missing:
        return None
    name = composed.span.text.strip("` ")
    return (name, tuple(composed.units)) if _names_it(name, described, question) else None


# "the provider that has no native embeddings endpoint": a relative clause whose
# subject is the described thing, so a passage saying "`anthropic` has no native
# embeddings endpoint" names it right before the clause's own words
_SUBJECT_CLAUSE = re.compile(r"\b(?:that|which)\s+(?P<words>\w+(?:\s+\w+){2,})$", re.IGNORECASE)


def _subject_of_clause(
    question: str, described: Description, pool: list[Evidence]
) -> Named | None:
    """The name a passage writes as the subject of the description's own clause, word
    for word ("`anthropic` has no native embeddings endpoint" for "the provider that
    has no native embeddings endpoint"), with its sentence; None when no passage does,
    or passages name different things. A clause of fewer than three words ("that
    runs first") is too common to be one passage's own."""
    clause = _SUBJECT_CLAUSE.search(question[described.start : described.end])
    if clause is None:
        return None
    words = r"\s+".join(re.escape(w) for w in clause["words"].split())
    pattern = re.compile(rf"(?P<name>[\w.:/()+-]{{2,60}})\s+{words}\b", re.IGNORECASE)
    found: dict[str, Scored] = {}
    for unit in _units_of(pool):
        match = pattern.search(clean_inline(unit.text))
        if match is not None and match["name"].lower() not in STOPWORDS:
            found.setdefault(match["name"], unit)
    if len({name.lower() for name in found}) != 1:
        return None
    name, unit = next(iter(found.items()))
    return name, (unit,)


def _units_of(pool: list[Evidence]) -> Iterator[Scored]:
    """Every sentence, list item and row of the passages, each with its passage."""
    for passage in pool:
        for unit in sentences(passage.text):
            yield Scored(1.0, unit.text, passage, unit.start)


def _rest_searched(question: str, described: Description, tools: ResearchTools) -> list[Evidence]:
    """The passages the question finds without its description ("…, what is the default
    model for log summarization?"): the tables whose columns a plain-word name heads."""
    if described.kind not in _PLAIN_NAMED:
        return []
    rest = f"{question[: described.start]} {question[described.end :]}"
    return tools.search(rest, SEARCHED_CHUNKS)


def _column_title_named(
    question: str, described: Description, pool: list[Evidence], evidence: list[Evidence]
) -> Named | None:
    """A thing with a plain-word name ("the provider whose server dispatch sets
    rest_server.requires_gpu = True") named by the one column title of the question's
    tables (`| Activity | ollama | google | …`) that the passage best matching the
    description writes ("… is set for ollama …"); None when none or several are."""
    if described.kind not in _PLAIN_NAMED:
        return None
    titles = {
        title.lower(): title
        for passage in evidence
        for header in table_headers(passage.table_text)
        for title in header[1:]
        if _is_a_name(title, described.kind) and title.lower() not in STOPWORDS
    }
    if not titles:
        return None
    terms = content_terms(question[described.start : described.end])
    best: tuple[int, str, Scored] | None = None
    for unit in _units_of(pool):
        words = set(re.findall(r"[\w-]+", clean_inline(unit.text).lower()))
        written = [titles[w] for w in words if w in titles]
        covered = len(present_terms(terms, unit.text))
        if len(written) == 1 and (best is None or covered > best[0]):
            best = (covered, written[0], unit)
    if best is None or best[0] < max(2, len(terms) // 2):
        return None
    return best[1], (best[2],)


_NAME = re.compile(r"^[\w.:/()+-]{2,60}$")
_PLAIN_NAME = re.compile(r"[A-Za-z]\w{1,30}")  # "google", not "GPU-capable"
_CODE_SHAPE = re.compile(r"[_.()]|[a-z][A-Z]")


# kinds whose names are plain words ("ollama", "google"), found as a column's title
_PLAIN_NAMED = frozenset({"provid"})


def _names_it(name: str, described: Description, question: str) -> bool:
    """Whether `name` can stand for the description: a name of its kind that the
    question does not already write."""
    return _is_a_name(name, described.kind) and name.lower() not in question.lower()


def _is_a_name(value: str, kind: str) -> bool:
    """One code name: `phenix.map_correlations`, `should_pivot()`, `query_analysis`;
    not a phrase, a plain word ("re-writing") or a number. A provider is one word."""
    if kind in _PLAIN_NAMED:  # "google", "ollama": a word, never a path or a file
        return bool(_PLAIN_NAME.fullmatch(value))
    return (
        bool(_NAME.match(value))
        and bool(_CODE_SHAPE.search(value))
        and not value.replace(".", "").isdigit()
    )

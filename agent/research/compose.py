"""The answer a person reads: direct answer first, then 1–3 cited evidence sentences,
then the sources.

Candidate units from every retrieved passage are ranked together by lexical coverage
of the question (`synthesize.score_units`), embedding similarity to the question and
whether they hold a span of the expected answer type; the best unit with a span gives
the first line. Citations keep the raw unit (verbatim in its chunk: grounding checks
that), while the evidence lines show the unit cleaned — a table row as "column: value".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from agentcycle.agent.research.answer_shape import KIND_NAMED_BY_FORM, Shape, shape_for
from agentcycle.agent.research.answer_type import (
    NAMED_THINGS,
    Expectation,
    asking_part,
    described_noun,
    expect,
    main_clause,
    points_back,
)
from agentcycle.agent.research.classify import pointed_noun, with_pointed_named
from agentcycle.agent.research.clean import (
    clean_inline,
    clean_unit,
    context_label,
    enclosing_line,
    find_words,
    header_for,
    in_code_block,
    is_header_row,
    is_table_row,
)
from agentcycle.agent.research.explicit_value import (
    BOUND,
    COUNTED,
    NAMED_BINDING,
    asked_label,
    asked_name,
    asked_unit,
    code_names_in,
    counted_predicate,
    counts_only_other_names,
    lists_only_other_items,
    names_item,
    spelled,
)
from agentcycle.agent.research.extract import (
    COUNTED_LIST,
    HEADED,
    NAMED_BY_ASKED_NOUN,
    NAMED_COLUMN,
    TAKEN,
    WH_ASKED,
    Span,
    asks_range,
    extract,
    from_heading,
    head_modifiers,
    heading_answers,
    identifier_parts,
    is_range,
    keyed_by,
    suffix_measures,
    with_unit,
    yes_or_no,
)
from agentcycle.agent.research.named_document import named_documents
from agentcycle.agent.research.predicate_subject import (
    ANNOTATED_SUBJECT,
    PREDICATE_SUBJECT,
    annotated_names,
    same_act_on_same_object,
)
from agentcycle.agent.research.retrieve import coverage
from agentcycle.agent.research.state import Citation, Evidence, ResearchResult
from agentcycle.agent.research.synthesize import Scored, quoted_phrases, score_units
from agentcycle.agent.research.text import (
    Vocabulary,
    content_terms,
    normalise,
    present_terms,
    sentences,
    stem,
    term_set,
    tokens,
)

EMBED_TOP = 12  # units re-scored by embedding: enough to reorder, cheap enough for p50 ≤ 1 s
MAX_DIRECT_CHARS = 220
# How a unit's lexical coverage of the question, its embedding similarity and its span's
# fit to the expected answer type add up to its rank.
RANK_WEIGHTS = (0.6, 0.25, 0.15)
# A span of the form the question's head demands ("which environment variable") is
# looked for this deep in the ranking, and may rank this far below the best unit.
SHAPE_SEARCH = 8
SHAPE_MARGIN = 0.2
EARLIER_STATE = 0.7  # weight of a unit about the time before the version asked about
OTHER_DOCUMENT = 0.8  # weight of a unit from another document than the one the question names
NAMED_UNITS = 8  # units of a document the question names ranked beyond the lexical cut
COUNT_SEARCH = 4  # best units read for counts of the asked noun that belong to other names


@dataclass(frozen=True)
class Ranked:
    unit: Scored
    score: float
    span: Span | None
    features: tuple[float, float, float] = (0.0, 0.0, 0.0)  # lexical, similarity, type fit


@dataclass(frozen=True)
class Composition:
    direct: str  # the first line
    units: list[Scored]  # evidence units, best first (cited in this order)
    span: Span | None
    focus_missing: list[str]  # focus words the best evidence does not contain
    best_score: float
    shape_missing: bool = False  # the question's head fixes a form no good unit offers
    given_for_others: bool = False  # counts or items like the asked one, never the asked one
    cited: list[Scored] | None = None  # the units shown as evidence; None: all of `units`
    unbound_setting: str = ""  # the named setting whose default no good unit states
    compared: bool = False  # two sides composed each over its own question (`compare`)

    def citable(self) -> list[Scored]:
        """The evidence to show. Refusal checks read all of `units`, so leaving an
        off-topic sentence out of the answer never changes whether it is refused."""
        return self.units if self.cited is None else self.cited


def _with_enclosing(unit: Scored) -> str:
    opening = enclosing_line(unit.text, unit.evidence.text)
    return f"{opening}\n{unit.text}" if opening else unit.text


def rank(
    question: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    expectation: Expectation,
    similarities: Callable[[str, list[str]], list[float]] | None,
    extra_terms: list[str] | None = None,
    exclude: frozenset[str] = frozenset(),
) -> list[Ranked]:
    """Units of all passages, best first, each with the span it offers (if any).

    `extra_terms` (a bridge's words) count for ranking only: a span is never one of the
    question's own words, and the bridge is not what is asked."""
    every = score_units(question, evidence, vocabulary, extra_terms)
    scored = every[: EMBED_TOP * 2]
    named = named_documents(question, evidence)
    if named:  # the named document's units are read however few words they share
        scored += [u for u in every[EMBED_TOP * 2 :] if u.evidence.file in named][:NAMED_UNITS]
    top = scored[:EMBED_TOP]
    terms = content_terms(question)
    extra = [t for t in extra_terms or [] if t not in terms]
    terms += extra
    probe = " ".join([question, *((vocabulary.surface_forms(t, 1) or [t])[0] for t in extra)])
    # a binding is read with the block it belongs to ('NORMAL = "normal"' of "class Verbosity:")
    embedded = [_with_enclosing(u) for u in top]
    sims = similarities(probe, embedded) if similarities and top else []
    ranked = []
    shape = shape_for(expectation, question)
    for index, unit in enumerate(scored):
        span = extract(unit.text, unit.evidence.table_text, question, expectation, exclude)
        # "Server-Sent Events …" under "API Endpoints > POST /api/…"
        headed = from_heading(unit.evidence.heading, expectation, question)
        sim = sims[index] if index < len(sims) else 0.0
        lexical = unit.score
        if heading_answers(headed, span) or _shaped_instead(headed, span, shape):
            span = headed  # the heading states it: its words count as the unit's own
            section = unit.evidence.heading.rsplit(" > ", 1)[-1]
            lexical = max(lexical, coverage(terms, f"{section}\n{unit.text}", vocabulary))
        label = context_label(unit.text, unit.evidence.text)
        if label:  # "**Max cycles**" on its own line names the paragraph below it
            lexical = max(lexical, 0.9 * coverage(terms, f"{label}\n{unit.text}", vocabulary))
        if is_table_row(unit.text):  # a row means what its header says: count the header
            header = " ".join(header_for(unit.text, unit.evidence.table_text))
            said = f"{label}\n{header}\n{unit.text}"  # and the line introducing its table
            lexical = max(lexical, coverage(terms, said, vocabulary))
        fit = span.score if span else 0.0
        if _states_answer(span, expectation, question) or _looked_up(span, unit, question):
            fit += 0.5  # the unit says the asked value outright (a default, a bound value)
        if expectation.asks_default and _bound_on_condition(span, unit.text, question):
            fit *= ON_CONDITION  # "forces `mode='resume'` when X is set": no default
        if _keyed_by_numbers(span, unit.text, question):
            fit += KEYED_FIT  # the record of the key the question writes whole
        features = (lexical, sim, fit)
        score = sum(w * f for w, f in zip(RANK_WEIGHTS, features, strict=True))
        if _tells_the_time_before(unit.text, question):
            score *= EARLIER_STATE  # "Before v120, X was in a.py" for "where does v120 put X"
        ranked.append(Ranked(unit, score, span, features))
    if named and any(r.unit.evidence.file in named for r in ranked):
        # "which model does the current ARCHITECTURE.md list": an older document's row
        # of the same shape is no answer
        ranked = [
            r if r.unit.evidence.file in named else replace(r, score=r.score * OTHER_DOCUMENT)
            for r in ranked
        ]
    return sorted(ranked, key=lambda r: r.score, reverse=True)


# "`run()` forces `restart_mode='resume'` … when either parameter is set": a value a
# passage binds under a condition the question does not ask about is that case's value,
# not the default the question asks for
ON_CONDITION = 0.5
_CONDITION = re.compile(r"\b(?:when|whenever|if|unless)\b([^.;:()]*)", re.IGNORECASE)


def _bound_on_condition(span: Span | None, unit: str, question: str) -> bool:
    """Whether a span bound to the asked setting's name sits in a unit whose condition
    clause ("when either parameter is set") the question mostly does not write."""
    if span is None or NAMED_BINDING not in span.how:
        return False
    asked = set(content_terms(question))
    for condition in _CONDITION.finditer(unit):
        terms = content_terms(condition.group(1))
        absent = [t for t in terms if t not in asked]
        if terms and len(absent) * 2 >= len(terms):
            return True
    return False


def _shaped_instead(headed: Span | None, span: Span | None, shape: Shape | None) -> bool:
    """Whether the section's name has the asked form where the unit's own span has not:
    under "POST `/api/run`", "Server-Sent Events for real-time updates" names the
    endpoint by its heading, not by "real-time"."""
    if headed is None or span is None or shape is None:
        return False
    return headed.how == HEADED and shape(headed.text) and not shape(span.text)


_BEFORE = r"\b(?:before|prior to|until|pre-?)\s*"
_BEFORE_VERSION = re.compile(rf"{_BEFORE}(v\d[\w.]*)", re.IGNORECASE)


def _tells_the_time_before(unit: str, question: str) -> bool:
    """Whether the unit describes the state before a version the question asks about,
    while the question asks about that version itself, not about before it."""
    lowered = question.lower()
    for match in _BEFORE_VERSION.finditer(unit):
        version = match.group(1).rstrip(".,").lower()
        if re.search(rf"(?<![\w.]){re.escape(version)}(?![\w])", lowered) and not re.search(
            rf"{_BEFORE}{re.escape(version)}", lowered
        ):
            return True
    return False


def _states_answer(span: Span | None, expectation: Expectation, question: str) -> bool:
    """Whether a span is the passage stating the asked value, not the nearest candidate:
    a default it marks (when one is asked), the value bound to the asked setting, the
    count of the asked unit, the cell under the column the question's head noun names,
    a range when a range is asked (and then nothing else: "4 copies" is no range)."""
    if span is None:
        return False
    if asks_range(question):
        return is_range(span.text)
    if span.how.startswith((BOUND, COUNTED, COUNTED_LIST, TAKEN)) or span.how.endswith(
        (NAMED_COLUMN, NAMED_BY_ASKED_NOUN, DESCRIBED_BY_CONTEXT, PREDICATE_SUBJECT,
         ANNOTATED_SUBJECT)
    ):
        return True
    # "the default plan timeout, in seconds" and `PLAN_TIMEOUT = getenv("PLAN_TIMEOUT",
    # "300")`: the number bound to the setting the question spells is its default (a
    # number asked for; a name asked for is not told by a number bound to its words)
    return expectation.asks_default and (
        "marked default" in span.how
        or (expectation.kind == "number" and span.how.endswith(NAMED_BINDING))
    )


# A record holding every number the question writes ("range 0–1.5" and `[0, 1.5]`) is
# the one asked about: its neighbours share some of the numbers and all of the words
KEYED_FIT = 1.0
_NUMBER_WRITTEN = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")


def _keyed_by_numbers(span: Span | None, unit: str, question: str) -> bool:
    """Whether the unit holds every number the question writes (two or more: "the
    resolution range 0–1.5 Å" and `- range: [0, 1.5] value: 0.20`) and its span is
    another: the record the question picks out by its key, whose value is asked."""
    asked = set(_NUMBER_WRITTEN.findall(question))
    if span is None or len(asked) < 2 or span.text in asked:
        return False
    return asked <= set(_NUMBER_WRITTEN.findall(unit))


def _looked_up(span: Span | None, unit: Scored, question: str) -> bool:
    """Whether a span is a table lookup the question spells out: a cell of the row the
    question names by its own cells ("the Contract Gaps phase (S1)", "what does
    contract.py set as CURRENT_PROTOCOL_VERSION"), read by column or by type."""
    return (
        span is not None
        and ("table cell" in span.how or span.how.startswith("table column"))
        and is_table_row(unit.text)
        and not is_header_row(unit.text, unit.evidence.table_text)
        and keyed_by(unit.text, question)
    )


def _stated_margin(stated: Ranked, question: str) -> float:
    """How far below the best unit a stated answer may rank and still lead: furthest for
    a value bound to the very setting the question names, a list exactly as long as the
    count the question asks for, or the cell of the row the question names under the
    column its head noun names ("what value does CURRENT_PROTOCOL_VERSION have")."""
    span = stated.span
    if span is not None and span.how.startswith((BOUND, COUNTED_LIST)):
        return 0.5
    if span is not None and "marked default" in span.how and _labelled_as_quoted(stated, question):
        return 0.5  # "(default: 20)" under the **Max cycles** label the question quotes
    named_column = span is not None and span.how.endswith(NAMED_COLUMN)
    if named_column and _looked_up(span, stated.unit, question):
        return 0.5
    return 0.15


def _labelled_as_quoted(stated: Ranked, question: str) -> bool:
    """Whether the unit sits under the label of the setting the question quotes ("the
    default value of the 'Max cycles' setting" and a paragraph under **Max cycles**)."""
    quoted = _QUOTED_SETTING.search(question)
    if quoted is None:
        return False
    label = context_label(stated.unit.text, stated.unit.evidence.text)
    return clean_inline(label).strip(" :*").lower() == quoted.group(1).strip().lower()


SHARED_PREFIX = 6  # "verbosity" and "verbose" stem apart but are the same word


def _named_in(term: str, text: str) -> bool:
    """Whether a text names a focus term: by stem, or by a word that shares the term's
    first six letters or more, one being the other's beginning (verbosit/verbos)."""
    if present_terms([term], text):
        return True
    if len(term) < SHARED_PREFIX:
        return False
    return any(
        len(word) >= SHARED_PREFIX and (term.startswith(word) or word.startswith(term))
        for word in term_set(text)
    )


def _uncounted(
    question: str, expectation: Expectation, span: Span | None, context: str
) -> list[str]:
    """The noun a "how many" question counts, when no cited passage names it.

    Whatever else the passages share with the question, a number in a text that never
    names the counted things counts something else: "how many constitutional-law
    passages" is not answered by "retrieve 5" beside "constitutional law topics score
    lowest". A span whose own suffix names the noun ("32 tests") names it."""
    if expectation.kind != "number" or span is None:
        return []
    counted = asked_unit(question)
    if suffix_measures(span.text) in counted:
        return []  # "91s" names the seconds asked for
    if not counted or any(_named_in(t, f"{context}\n{span.text}") for t in counted):
        return []
    return sorted(counted)[:1]


_COLUMN_READ = re.compile(r"^table column '([^']+)'")


def _column_counts(span: Span | None, question: str) -> bool:
    """Whether a count read under a column the question writes right before its counted
    noun ("how many ATOM records" under "ATOM"): the column counts those things, so no
    passage need write the noun."""
    read = _COLUMN_READ.match(span.how) if span is not None else None
    if read is None:
        return False
    after = re.search(rf"\b{re.escape(read.group(1))}\s+([\w-]+)", question, re.IGNORECASE)
    return after is not None and stem(after.group(1).lower()) in asked_unit(question)


# "the number of entries *the strategy blacklist* can hold", "how many entries does the
# knowledge base hold": the thing whose capacity or content is counted
_COUNT_OWNER = re.compile(
    r"\b(?:number of|how many)\s+[\w-]+\s+(?:(?:does|do|can|will)\s+)?(?:the\s+|its\s+)?"
    r"(?P<owner>[\w' -]+?)\s+(?:can\s+|will\s+)?"
    r"(?:hold|holds|contain|contains|store|stores|keep|keeps)\b",
    re.IGNORECASE,
)


_OWNER_MODIFIER = re.compile(
    r"\s+(?:[a-z]+ed|used|run|kept|held|built|that|which|who|in|of|for|by|from|on|at|with)\b"
)


def _unowned_count(
    question: str, expectation: Expectation, span: Span | None, context: str
) -> list[str]:
    """The head noun of the thing a count belongs to ("entries the strategy *blacklist*
    can hold"), when the count's unit and its headings do not name it: "56 entries" of
    a knowledge base counts another thing's entries, whatever else its section says."""
    if expectation.kind != "number" or span is None:
        return []
    owned = _COUNT_OWNER.search(question)
    if owned is None:
        return []
    # "the expert knowledge base *used by the THINK node*": the modifier places the owner
    owner = _OWNER_MODIFIER.split(owned["owner"], maxsplit=1)[0]
    terms = content_terms(owner)
    if not terms or _named_in(terms[-1], context):
        return []
    return terms[-1:]


def _unabbreviated(missing: list[str], focus: list[str], text: str) -> list[str]:
    """The missing focus terms less each pair of neighbours the text names abbreviated:
    by initials ("correlation coefficient" as CC, `map_cc`) or by their first letters
    run together ("regular expression" as regex). Terms are stems, in question order."""
    if len(missing) < 2:
        return missing
    words = set(tokens(text))
    named: set[str] = set()
    for first, second in pairwise(focus):
        if first not in missing or second not in missing:
            continue
        forms = {first[0] + second[0]} | {
            first[:i] + second[:j] for i in (2, 3, 4) for j in (2, 3)
        }
        if forms & words:
            named.update((first, second))
    return [t for t in missing if t not in named]


def _shorten(text: str) -> str:
    if len(text) <= MAX_DIRECT_CHARS:
        return text
    cut = text[:MAX_DIRECT_CHARS].rsplit(" ", 1)[0]
    return cut + " …"


def _binds_a_named_setting(span: Span | None, question: str) -> bool:
    """The span is the value bound to a setting the question names outright
    (`CONVERGENCE_SAME_DOC_THRESHOLD = 3`): the question's own wording around that name
    ("after how many appearances") need not be the passage's."""
    if span is None or not span.how.startswith(BOUND):
        return False
    name = span.how.removeprefix(BOUND).strip()
    return "_" in name and name.lower() in question.lower()


def _defines_named_setting(ranked: Ranked, question: str) -> bool:
    """The unit defines a setting the question names outright, its line opening with
    the name (`readme_file_patterns = README …`): a definition, where a command line
    that uses the setting (`phenix.ai_agent thinking_level=advanced`) is an example."""
    span = ranked.span
    if not _binds_a_named_setting(span, question):
        return False
    assert span is not None
    name = re.escape(span.how.removeprefix(BOUND).strip())
    return bool(re.search(rf"(?im)^[\s`\"'-]*{name}[`\"']?\s*[=:]", ranked.unit.text))


_QUOTED_SETTING = re.compile(
    r"\bdefault(?:\s+value)?\s+(?:of|for)\s+(?:the\s+)?['‘\"“]([^'’\"”\n]{2,60})['’\"”]",
    re.IGNORECASE,
)


# "What max_tokens value does it pass?": the value of a named code setting, told beside
# the name as its default is
_NAMED_VALUE = re.compile(r"\b(?:what|which)\s+`?([A-Za-z]\w*_\w+)`?\s+value\b", re.IGNORECASE)


def _unbound_setting(
    question: str, expectation: Expectation, lead: Ranked, ranked: list[Ranked]
) -> str:
    """The code name (`fetch_max_depth`) whose default the question asks for, when no
    good unit states one for it: the lead's span is neither bound to the name nor a
    marked default, and no table row beside the name holds it. A passage that uses the
    name (`depth >= fetch_max_depth → stop`) without a value is a near-miss."""
    valued = _NAMED_VALUE.search(question) if expectation.kind == "number" else None
    if not expectation.asks_default and valued is None:
        return ""
    name = valued.group(1) if valued is not None else asked_name(question, expectation)
    if name is None or "_" not in name:
        quoted = _QUOTED_SETTING.search(question)  # "the default of the 'Remove last N
        if quoted is None:  # cycles' setting": a GUI label, named as the code name is
            return ""
        name = quoted.group(1)
    if _states_answer(lead.span, expectation, question):
        return ""
    lowered = name.lower()
    for r in ranked[:COUNT_SEARCH]:
        if _states_answer(r.span, expectation, question) or (
            is_table_row(r.unit.text) and lowered in r.unit.text.lower()
        ):
            return ""
    return name


def _only_others_given(
    question: str, expectation: Expectation, lead: Ranked, ranked: list[Ranked]
) -> bool:
    """A "how many X does NAME hold" question whose best units count X for other names
    only, while the lead's number is no count of X, or a question about "Level 4" whose
    best units list other levels only: what is asked is not there."""
    label = asked_label(question, expectation)
    if label is not None:
        if lead.span is not None and lead.span.how.startswith(BOUND):
            return False
        if lead.span is not None and names_item(lead.unit.text, label):
            return False  # the lead's row is "Phase 1: …", the rows around it other phases
        return any(lists_only_other_items(r.unit.text, label) for r in ranked[:COUNT_SEARCH])
    if expectation.kind != "number":
        return False
    if lead.span is not None and (
        lead.span.how.startswith(COUNTED) or lead.span.how.endswith(NAMED_BINDING)
    ):
        return False  # "TODO_MAX_ITEMS = 15 # Max tasks": its own count, not another's
    nouns = asked_unit(question)
    return bool(nouns) and any(
        counts_only_other_names(r.unit.text, question, nouns) for r in ranked[:COUNT_SEARCH]
    )


_FILE_NAME = re.compile(r"(?<![\w/.-])([\w.-]+\.(?:py|ya?ml|json|md|toml|txt|log|cfg|ini|sh))\b")


# `run_40_openai`, `tst_h18_1_phil_roundtrip`: a name with an underscore and a number,
# one of a numbered family (batches, phases, tests) whose members differ in the number
_NUMBERED_NAME = re.compile(r"(?<![\w.-])([A-Za-z][\w]*_[\w]*\d[\w]*)\b")


def _family(name: str) -> str:
    return re.sub(r"\d+", "#", name)


def _suffix(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _names_another(
    asked: set[str], text: str, pattern: re.Pattern[str], kind: Callable[[str], str]
) -> bool:
    """The text names none of `asked` but another name of the same kind."""
    if not asked or any(name in text.lower() for name in asked):
        return False
    kinds = {kind(name) for name in asked}
    return any(kind(m.group(1).lower()) in kinds for m in pattern.finditer(text))


def _about_another_file(question: str, expectation: Expectation, lead: Ranked) -> bool:
    """ "How many tests does tst_transport_surfaces.py contain?" answered from the row of
    `tst_transport.py`, "the phenix_sorry rate in the run_40_openai batch" from the
    sentence on `run_39_openai`: the lead names another file of the same kind, or
    another member of the same numbered family, and never the question's own, so its
    value is that other one's. Only for a value of the thing (a count, a setting); a
    question asking for a file or a name may well be answered by another."""
    if expectation.kind in ("identifier", "name", "list") or lead.span is None:
        return False
    text = lead.unit.text
    files = {m.group(1).lower() for m in _FILE_NAME.finditer(question)}
    if _names_another(files, text, _FILE_NAME, _suffix):
        return True
    members = {m.group(1).lower() for m in _NUMBERED_NAME.finditer(question)} - files
    return any(_names_another({m}, text, _NUMBERED_NAME, _family) for m in members)


# `max_readme_chars = 5000`, `timeout: 30`: a number the unit assigns to a code name
_ASSIGNED_TO = re.compile(r"(?<![\w.])([A-Za-z][\w.]*_[\w.]*)`?\s*(?:=|:)\s*`?$")
_GENERIC_NAME_PARTS = {"max", "min", "default", "num", "n", "size", "limit", "count", "value"}


def _value_of_another_name(question: str, expectation: Expectation, lead: Ranked) -> bool:
    """ "What is the maximum number of input files?" answered with `max_readme_chars =
    5000`: the lead's number is what the unit assigns to a setting whose name shares no
    word with the asked thing, so it is that other setting's value, a near-miss."""
    span = lead.span
    if expectation.kind != "number" or span is None or not expectation.focus:
        return False
    if span.how.startswith((BOUND, COUNTED, COUNTED_LIST)) or span.how.endswith(NAMED_BINDING):
        return False
    text = lead.unit.text
    at = text.find(span.text)
    assigned = _ASSIGNED_TO.search(text[max(0, at - 60) : at]) if at >= 0 else None
    if assigned is None:
        return False
    parts = [p for p in re.split(r"[_.]+", assigned.group(1).lower()) if p]
    words = [stem(p) for p in parts if p not in _GENERIC_NAME_PARTS]
    if not words or any(word[:4] == term[:4] for word in words for term in expectation.focus):
        return False
    # "how many levels deep can reference following nest" names REFERENCE_FOLLOW_DEPTH
    # by most of its words, though not by the focus word the question ends on
    asked = {term[:4] for term in content_terms(question)}
    return 2 * sum(word[:4] in asked for word in words) <= len(words)


def _units_after(unit: Scored, count: int) -> list[str]:
    """The texts of the (at most `count`) units right after `unit` in its passage; none
    when the unit is not one of the passage's own."""
    order = [u.text for u in sentences(unit.evidence.text)]
    if unit.text not in order:
        return []
    at = order.index(unit.text)
    return order[at + 1 : at + 1 + count]


# "**Rule 3: Multi-channel image detection**" heads the items saying what happens:
# "- Pattern: …", "- Action: Log info …". The item named for the behaviour tells it.
_LABEL_LINE = re.compile(r"^\s*(?:\*\*[^*\n]+\*\*|[^\n]{2,80}:)\s*$")
_BEHAVIOUR_ITEM = re.compile(
    r"^\s*(?:[-*+]\s+)?\**(?:action|behaviou?r|effect|result|response|outcome)\**\s*:",
    re.IGNORECASE,
)
LABELLED_ITEMS = 4  # the items under a label read for the behaviour


def _behaviour_under_label(best: Ranked) -> Ranked | None:
    """For "what does X do when …": the best unit may be only the label of a rule; the
    item below it named Action (Behavior, Effect, Result …) says what happens."""
    if not _LABEL_LINE.match(best.unit.text):
        return None
    items = _units_after(best.unit, LABELLED_ITEMS)
    told = next((text for text in items if _BEHAVIOUR_ITEM.match(text)), None)
    if told is None:
        return None
    # it shares few words with the question, so it may rank nowhere: it leads in the
    # label's place, as the label's own continuation
    return replace(best, unit=replace(best.unit, text=told, order=best.unit.order + 1))


def _lead(question: str, expectation: Expectation, ranked: list[Ranked]) -> tuple[Ranked, bool]:
    """The unit whose span answers, and whether no unit near the top has the asked shape.
    The best-ranked unit leads unless a near one offers a span, one of the asked shape,
    or one that states the asked value outright (a marked default, a bound value)."""
    best = ranked[0]
    if expectation.kind == "manner":
        behaviour = _behaviour_under_label(best)
        if behaviour is not None:
            return behaviour, False
    with_span = next((r for r in ranked[:4] if r.span is not None), None)
    lead = with_span if with_span and with_span.score >= best.score - 0.12 else best
    # "… PDB scan limit: the check scans PDB files. The limit is 2000 lines.": the
    # sentence after the best one tells, before a span from another passage does
    following = _continuation(best, ranked) if best.span is None else None
    if following is not None:
        lead = following
    shape = shape_for(expectation, question)
    if shape is not None and (lead.span is None or not shape(lead.span.text)):
        shaped = next(
            (r for r in ranked[:SHAPE_SEARCH] if r.span is not None and shape(r.span.text)), None
        )
        if shaped is not None and shaped.score >= best.score - SHAPE_MARGIN:
            return shaped, False
        for near in ranked[:SHAPE_SEARCH]:
            item = _asked_item(near.span, shape, question) if near.span else None
            if item is not None and near.score >= best.score - SHAPE_MARGIN:
                return replace(near, span=item), False
        return lead, True
    return _stated_instead(lead, expectation, ranked, question), False


_LIST_SEPARATOR = re.compile(r"\s*(?:[,;]|\band\b|\bor\b)\s*")


def _asked_item(span: Span, shape: Shape, question: str) -> Span | None:
    """The one item of a listed span ("OLLAMA_LLM_MODEL, OLLAMA_EMBED_MODEL") that has
    the asked shape and a word of its own the question writes ("which variable sets
    its *embedding* model"), or None: a question asking for one thing is answered by
    that one, not by the list it stands in."""
    items = [i.strip(" `'\"") for i in _LIST_SEPARATOR.split(span.text)]
    fitting = list(dict.fromkeys(i for i in items if i and shape(i)))
    if len(fitting) < 2:
        return None
    asking = asking_part(main_clause(question))
    words = set(content_terms(asking)) | set(tokens(asking))
    parts = [set(tokens(item)) - {item.lower()} for item in fitting]
    shared = set.intersection(*parts)
    counts = [sum(spelled(p, words) for p in own - shared if len(p) >= 3) for own in parts]
    best = max(counts)
    if best == 0 or counts.count(best) > 1:
        return None
    return Span(fitting[counts.index(best)], span.score, f"{span.how}, the item the question names")


CONTINUATION_MARGIN = 0.3  # how far below the best unit the sentence right after it may rank
# A sentence ending in ':' introduces the block below it: its first units are read, and
# may rank further below it, since a block of figures shares few words with a question.
INTRODUCED_UNITS = 3
INTRODUCED_MARGIN = 0.5


def _letter_compound_part(term: str, question: str) -> bool:
    """Whether the question writes the focus term only glued to a single letter ("what
    *X-ray* wavelength", "the *k-means* cluster count"): a modifier that classifies the
    head noun, which a passage stating the value ("autosol.lambda=0.9792 … wavelength")
    need not repeat. Where a passage does write it ("R-free"), the term is named anyway."""
    return bool(re.search(rf"\b[a-z]-{re.escape(term)}", question, re.IGNORECASE)) and not (
        re.search(rf"(?<![-\w]){re.escape(term)}", question, re.IGNORECASE)
    )


def _named_by_form(span: Span | None, expectation: Expectation, question: str) -> frozenset[str]:
    """The focus terms the answer's own form names: a span shaped as the asked kind of
    thing (`AttributeError` for "which exception") needs no sentence saying the word."""
    shape = shape_for(expectation, question)
    if span is None or shape is None or not shape(span.text):
        return frozenset()
    return KIND_NAMED_BY_FORM.get(shape, frozenset())


def _continuation(best: Ranked, ranked: list[Ranked]) -> Ranked | None:
    """The unit right after `best` in its passage, when it offers a span and ranks near:
    a topic sentence names what is asked and the sentence after it gives the value. A
    sentence ending in ':' ("Here is the final report:") introduces the block below it,
    so the first units of that block are read, from further down the ranking."""
    after = _units_after(best.unit, INTRODUCED_UNITS)
    if not after:
        return None
    # a table's rows are alternatives: the one asked for is found by ranking, not place
    introduces = best.unit.text.rstrip("`*").endswith(":") and not any(
        is_table_row(text) for text in after
    )
    following = after[: INTRODUCED_UNITS if introduces else 1]
    for r in ranked[1:] if introduces else ranked[1:SHAPE_SEARCH]:
        if (
            r.span is not None
            and r.unit.evidence.chunk_id == best.unit.evidence.chunk_id
            and r.unit.text in following
            and r.score >= best.score - (INTRODUCED_MARGIN if introduces else CONTINUATION_MARGIN)
        ):
            return r
    return None


def _stated_instead(
    lead: Ranked, expectation: Expectation, ranked: list[Ranked], question: str
) -> Ranked:
    """A unit that states the asked value outright (a marked default, a value bound to
    the asked setting, a range asked for) wins over `lead` when it ranks near the best;
    the value bound to a setting the question names outright (`readme_file_patterns =
    README notes.txt`) wins over a default marked in a sentence that shares more words
    (`max_readme_chars` (default: 5000))."""
    if _states_answer(lead.span, expectation, question):
        if not _binds_a_named_setting(lead.span, question):
            defined = next((r for r in ranked[:8] if _defines_named_setting(r, question)), None)
            if defined is not None and defined.score >= ranked[0].score - _stated_margin(
                defined, question
            ):
                return defined
        return _count_of_the_asked_kind(lead, ranked, question)
    stated = next((r for r in ranked[:8] if _states_answer(r.span, expectation, question)), None)
    if stated is not None and stated.score >= ranked[0].score - _stated_margin(stated, question):
        return stated
    return lead


COUNT_MARGIN = 0.3  # how far below the best unit a count of the very things asked may rank


def _count_of_the_asked_kind(lead: Ranked, ranked: list[Ranked], question: str) -> Ranked:
    """Of the counts of the asked noun near the top, the one followed by most of what the
    question says of the counted things: "Only 6 programs *are pure YAML*" for "how many
    registered programs were pure YAML as of v115.05", not "As of v115.05, 17 of 23
    registered programs have Python code", which shares more of the question's words,
    but none after its count."""
    if lead.span is None or not lead.span.how.startswith(COUNTED):
        return lead
    said = counted_predicate(question)
    if not said:
        return lead

    def share(r: Ranked) -> int:
        assert r.span is not None
        count = re.search(rf"(?<![\w.]){re.escape(r.span.text)}(?![\w.])", r.unit.text)
        return len(said & term_set(r.unit.text[count.end() :])) if count else 0

    counts = [
        r for r in ranked[:SHAPE_SEARCH]
        if r.span is not None and r.span.how.startswith(COUNTED)
        and r.score >= ranked[0].score - COUNT_MARGIN
    ]  # fmt: skip
    best = max(counts, key=share, default=lead)
    return best if share(best) > share(lead) else lead


def compose(
    question: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    expectation: Expectation,
    similarities: Callable[[str, list[str]], list[float]] | None = None,
    count: int = 2,
    extra_terms: list[str] | None = None,
    exclude: frozenset[str] = frozenset(),
) -> Composition | None:
    ranked = rank(question, evidence, vocabulary, expectation, similarities, extra_terms, exclude)
    if not ranked:
        return None
    lead, shape_missing = _lead(question, expectation, ranked)
    given_for_others = _only_others_given(
        question, expectation, lead, ranked
    ) or _about_another_file(question, expectation, lead) or _value_of_another_name(
        question, expectation, lead
    )
    unbound = _unbound_setting(question, expectation, lead, ranked)
    units = [lead.unit]
    for r in ranked:
        if len(units) >= count:
            break
        if any(r.unit.text in u.text or u.text in r.unit.text for u in units):
            continue
        if r.score >= lead.score * 0.6:
            units.append(r.unit)
    if lead.span is not None and expectation.kind == "yes_no":
        # "No" alone leaves a reader asking why: the sentence that says so goes with it
        said = clean_unit(lead.unit.text, lead.unit.evidence.table_text)
        direct = _shorten(f"{yes_or_no(lead.span.text, question)} — {said}")  # True: "Yes"
    elif lead.span is not None and expectation.kind == "number":
        said = clean_unit(lead.unit.text, lead.unit.evidence.table_text)
        direct = with_unit(lead.span.text, said)  # "80 chars", not a bare "80"
    elif lead.span is not None:
        direct = lead.span.text
    else:
        direct = _shorten(clean_unit(lead.unit.text, lead.unit.evidence.table_text))
    # The cited passages together must name the focus (a multi-hop answer's second
    # passage may be the one that does).
    # … and so does a passage elsewhere that says the lead's very words (the same YAML
    # example in two guides): what one calls an "improvement threshold" is said of both
    said = _bare(lead.unit.text)
    echoes = [
        r.unit for r in ranked
        if r.unit.evidence.file != lead.unit.evidence.file and _bare(r.unit.text) == said
    ]  # fmt: skip
    context = "\n".join(f"{u.evidence.context}\n{u.evidence.text}" for u in [*units, *echoes])
    missing = _unabbreviated(
        [t for t in expectation.focus if not _named_in(t, context)], expectation.focus, context
    )
    missing = [t for t in missing if t not in _named_by_form(lead.span, expectation, question)]
    if lead.span is not None:  # "91s" names the seconds asked for
        missing = [t for t in missing if t != suffix_measures(lead.span.text)]
    missing = [t for t in missing if not _letter_compound_part(t, question)]
    missing = [t for t in missing if not same_act_on_same_object(t, question, lead.unit.text)]
    if lead.span is not None and lead.span.how.endswith(
        (WH_ASKED, NAMED_COLUMN, NAMED_BY_ASKED_NOUN)
    ):
        # "checked in which *graph* node" read from the "Where checked" column, "what
        # selection priority" from the "Priority" column: the row and the column are the
        # question's; the noun's modifier need not be written. Nor need it beside a value
        # the asked noun itself tags ("which *log* marker": "the `[X_Y]` marker")
        modifiers = head_modifiers(question, expectation.head)
        missing = [t for t in missing if t not in modifiers]
    column_counts = _column_counts(lead.span, question)  # "ATOM records" under "ATOM"
    if column_counts:
        counted = asked_unit(question)
        missing = [t for t in missing if t not in counted]
    binds = _binds_a_named_setting(lead.span, question)  # `SAME_PAGE_LIMIT = 3` counts
    if len(missing) * 2 < len(expectation.focus) or binds:
        missing = []  # most of what is asked for is named: a paraphrase, not a near-miss
    if not binds and not column_counts:
        missing += _uncounted(question, expectation, lead.span, context)
        said_with = f"{lead.unit.evidence.context}\n{lead.unit.text}"  # the count's own unit
        missing += _unowned_count(question, expectation, lead.span, said_with)
    cited = [
        lead.unit,
        *(
            u
            for u in units[1:]
            if _on_topic(u, lead.unit, expectation) and not in_code_block(u.text, u.evidence.text)
        ),
    ]
    return Composition(
        direct, units, lead.span, missing, lead.score, shape_missing, given_for_others, cited,
        unbound,
    )  # fmt: skip


def compose_pair(
    pair: tuple[str, str],
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None = None,
    count: int = 2,
) -> Composition | None:
    """A two-part question split by `split_pair` ("Which flag …?", "Is it on by
    default?"): the first part composed on its own, the second with its own kind of
    answer and the first part's words for ranking only (it may say "it" for the first
    part's subject), then `joined`."""
    first, second = pair
    composed = compose(first, evidence, vocabulary, expect(first), similarities, count)
    asked_too = expect(second)
    # the first part's words rank the second's evidence only when the second points
    # back at its subject; a part that names its own ("and what is the response time
    # for rules-only mode?") is ranked by its own words
    context = None
    if points_back(second):
        # "… and what variable overrides *that provider's* model?": the first part's
        # answer is the provider meant, then its words
        answer = content_terms(composed.span.text) if composed and composed.span else []
        asked = content_terms(second)
        context = [t for t in [*answer, *content_terms(first)] if t not in asked]
    also = compose(second, evidence, vocabulary, asked_too, similarities, 1, context)
    return joined(composed, also, asked_too.kind)


def joined(
    first: Composition | None, second: Composition | None, second_kind: str
) -> Composition | None:
    """The answer to a two-part question: both answers on the first line ("flag_x; Yes"),
    each part's lead unit cited. Only an answer found for both parts is joined; refusal
    reads the first part's composition, whose subject the question names."""
    if first is None or second is None or first.span is None or second.span is None:
        return first
    # "Yes", not "Yes — the sentence that says so"; a number with its unit
    also = second.span.text if second_kind == "yes_no" else second.direct
    if normalise(also) in normalise(first.direct):
        return first
    lead = second.units[0]
    units = [*first.units, *(u for u in [lead] if u.text not in {f.text for f in first.units})]
    cited = [*first.citable(), *(u for u in [lead] if u not in first.citable())]
    return replace(first, direct=f"{first.direct}; {also}", units=units, cited=cited)


def _on_topic(unit: Scored, lead: Scored, expectation: Expectation) -> bool:
    """Whether a supporting unit speaks of what the answer's does: it comes from the same
    document, or names every focus word itself. "Files are truncated at max_readme_chars
    (default: 5000)" shares "max" and "default" with "the default value of Max cycles",
    but it is another document's other setting."""
    if unit.evidence.file == lead.evidence.file or not expectation.focus:
        return True
    named = present_terms(expectation.focus, f"{unit.evidence.context}\n{unit.text}")
    return len(named) == len(expectation.focus)


BRIDGE_COVERAGE = 0.25  # lexical coverage of the context a named bridge's unit needs
# … and one that no table or binding states, only names (`"after_program":
# "phenix.xtriage"` in the example the context describes): a code name, from a unit
# that covers the context well
BRIDGE_NAMED_COVERAGE = 0.4
_CODE_NAME = re.compile(r"^[\w-]+[._][\w.-]+$")
BRIDGE_TERMS = 3  # rare words of the first hop's best unit carried into the second


def _bare(text: str) -> str:
    """A unit's words without code fences, quotes and spacing: how two passages quoting the
    same example are told to say the same thing."""
    return " ".join(re.sub(r"[`*]+", " ", text).split())


def _restated_values(
    context: str, asking: str, expectation: Expectation, shape: Shape | None
) -> set[str]:
    """The values of the asked kind the context writes for the role the asking clause
    asks about again: "The older guide lists `fetch-1.0` as the mirror model for link
    scoring. Which model does the current guide list for link scoring?" asks for a value
    other than `fetch-1.0`. The asking clause repeats at least two of the context's other
    words (the role); a chain that only leads on ("force a tool after X_Tool; which tool
    does that tool depend on?") repeats none, and its answer may be the context's name."""
    if shape is None:
        return set()
    words = {w.strip("`'\"()[],;:.") for w in context.split()}
    values = [w for w in words | set(code_names_in(context)) if w and shape(w)]
    role = set(content_terms(context)) - {t for n in values for t in content_terms(n)}
    if not values or len(role & set(content_terms(asking))) < 2:
        return set()
    return {n.lower() for n in values}


def _of_the_asked_kind(name: str, expectation: Expectation, shape: Shape | None) -> bool:
    """Whether a name has the form of what is asked: the asked `shape`, or the asked noun
    as one of its parts (`Single_Cell_Cropper_Tool` for "which tool")."""
    if shape is not None and shape(name):
        return True
    return bool(expectation.head) and expectation.head in identifier_parts(name)


def _bridge_hop(
    context: str,
    asking: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None,
) -> tuple[Ranked, Expectation] | None:
    """The unit that states the context best, with what the context was read as asking:
    the thing the asking clause points back at ("that program") is a name of its kind."""
    named = expect(context)
    # "… that same program", "For the LLM provider whose …, which …": a name of its kind
    noun = stem(pointed_noun(asking) or described_noun(context))
    if noun in NAMED_THINGS and not named.head:
        kind = "identifier" if named.kind == "phrase" else named.kind
        named = replace(named, kind=kind, head=noun)
    first = rank(context, evidence, vocabulary, named, similarities)
    if not first:
        return None
    # the bridge is chosen like an answer: "X has a default provider" is bridged by the
    # passage that marks one as the default, not by the one repeating most words
    hop = _stated_instead(first[0], named, first, context)
    if noun == _PROGRAM:
        hop = _with_program_name(hop)
    # the hop, or a unit just below it, whose quoted name the context's clause describes
    # states the bridge outright, where the best one may only share words with the context
    described = (
        _name_the_context_describes(r, context) for r in [hop, *first[1:DESCRIBED_SEARCH]]
    )
    return next((r for r in described if r.span and r.span.how == DESCRIBED_BY_CONTEXT), hop), named


# a code-quoted name in a unit: "`anthropic` has no native embeddings endpoint"
_QUOTED_NAME = re.compile(r"`([^`\s]{2,60})`")
DESCRIBED_BY_CONTEXT = "the name the context's clause describes"
DESCRIBING_TERMS = 2  # context words the clause after the name must repeat
DESCRIBED_SEARCH = 3  # the first hop's best units read for such a name


def _described_names(unit: str) -> list[tuple[str, str]]:
    """(name, what the unit says of it) for each code-quoted name, to the next one or
    the sentence's end ("`anthropic` has no native embeddings endpoint"), or else for
    each name with a note in parentheses ("Cell_Analyzer_Tool (MANDATORY - performs
    self-supervised learning)")."""
    names = list(_QUOTED_NAME.finditer(unit))
    if len(names) < 2:
        return annotated_names(unit)
    said = []
    for at, name in enumerate(names):
        end = names[at + 1].start() if at + 1 < len(names) else len(unit)
        said.append((name.group(1), re.split(r"[.;:]\s", unit[name.end() : end])[0]))
    return said


def _name_the_context_describes(hop: Ranked, context: str) -> Ranked:
    """The hop with the one name of its unit that the context describes: "One
    provider has no native embeddings endpoint" over "`anthropic` has no native embeddings
    endpoint and `portkey` requires an embeddings-capable deployment" is bridged by
    anthropic, the name its own clause (up to the next name or the sentence's end) says
    that of, repeating at least half of the context's words; "one mandatory tool performs
    the self-supervised learning step" over a chain of tools with notes by the tool
    noted "(MANDATORY - performs self-supervised learning)". Several names of the kind
    sit in such a unit, and closeness alone picks the wrong one."""
    names = _described_names(hop.unit.text)
    if len(names) < 2:
        return hop
    terms = set(content_terms(context))
    shared = [len(terms & set(content_terms(said))) for _, said in names]
    best = max(shared)
    if best < max(DESCRIBING_TERMS, len(terms) / 2) or shared.count(best) != 1:
        return hop  # the clause must say most of what the context says of the name
    chosen = names[shared.index(best)][0]
    score = hop.span.score if hop.span is not None else 0.8
    return replace(hop, span=Span(chosen, score, DESCRIBED_BY_CONTEXT))


_PROGRAM = stem("program")
# `phenix.map_sharpening`, `crawl.fetch_deep`: a program called by its suite's name; a
# file's extension (`model.pdb`, `map.ccp4`, `a.json`) is shorter than a program's name
_SUITE_PROGRAM = re.compile(r"[a-z][a-z0-9]*\.[a-z][a-z0-9_]{4,}")


def _with_program_name(hop: Ranked) -> Ranked:
    """The hop with the program its unit names by its suite's name as the bridge, when
    the span it offers is another kind of name ("… the map_sharpening_done flag …
    phenix.map_sharpening output": the flag is the program's, not the program)."""
    if hop.span is not None and _SUITE_PROGRAM.fullmatch(hop.span.text):
        return hop
    called = [name for name in code_names_in(hop.unit.text) if _SUITE_PROGRAM.fullmatch(name)]
    if len(set(called)) != 1:
        return hop  # none, or several: the unit does not say which
    return replace(hop, span=Span(called[0], 0.8, "the program the unit names"))


_CONTEXT_VALUE = re.compile(r"\b(?:to|of|at|=)\s+(\d+(?:\.\d+)?)\b(?!\s*%)")


def _key_of_value(context: str, evidence: list[Evidence]) -> str | None:
    """The one key a passage binds to the value the context quotes ("sets a stop
    condition to 0.70" and `"map_cc_target": 0.70`), or None when none or several do."""
    quoted = _CONTEXT_VALUE.search(context)
    if quoted is None:
        return None
    value = re.escape(quoted.group(1))
    binding = re.compile(rf"[`\"']?([A-Za-z_][\w.]*)[`\"']?\s*[:=]\s*[`\"']?{value}(?![\d.])")
    keys = {m.group(1) for hit in evidence for m in binding.finditer(hit.text)}
    if len(keys) > 1:  # `acceptable: 0.70` in a scale beside `"map_cc_target": 0.70`
        keys = {key for key in keys if "_" in key}  # a setting's name is a compound
    return keys.pop() if len(keys) == 1 else None


def named_referent(context: str, asking: str) -> str | None:
    """The code name the asking clause points back at when the context writes it beside
    the pointed noun ("enters the *experimental_phasing phase*. Which phase does *that
    phase* go to?", "the program phenix.refine"), else None: the bridge is given, and
    what is asked is something about it, never the name itself."""
    noun = pointed_noun(asking)
    if not noun:
        return None
    kind = rf"{re.escape(noun)}(?:e?s)?"
    for name in sorted(code_names_in(context), key=len, reverse=True):
        written = re.escape(name)
        beside = rf"(?<![\w.]){written}`?\s+{kind}\b|\b{kind}\s+`?{written}(?![\w])"
        if re.search(beside, context, re.IGNORECASE):
            return name
    return None


_QUOTE = re.compile(r"(?<!\w)['‘\"“]([^'’\"”\n]{6,80})['’\"”](?!\w)")  # not "DocuChat's"
QUOTE_WORDS = 3  # of a quoted phrase, the opening words a passage must repeat
KEY_BEFORE_QUOTE = 60  # chars before the quote a key may stand ("key: 2 (from '…')")


def _key_of_quote(context: str, unit: str) -> str | None:
    """The compound key a unit binds to the phrase the context quotes, as the nearest
    key written before it ("min_open_citations: 2 (from 'open_citation for at least
    two')" for a context quoting 'open_citation for at least two'), or None: the
    quoted thing is then known by its key, which a later passage names."""
    for quote in _QUOTE.finditer(context):
        opening = quote.group(1).split()[:QUOTE_WORDS]
        found = find_words(opening, unit)
        if found is None:
            continue
        before = unit[max(0, found.start() - KEY_BEFORE_QUOTE) : found.start()]
        keys = re.findall(r"([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)`?\s*[:=]", before)
        if keys:
            return keys[-1]
    return None


def bridge_name(
    context: str,
    asking: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None = None,
) -> str | None:
    """The name of the thing the asking clause points back at, when a passage states it
    outright (the Program cell of the row the context describes), else None: a guess
    from the nearest words would send the next search after the wrong thing."""
    given = named_referent(context, asking)
    if given is not None:  # "… the experimental_phasing phase. Which phase does that phase …"
        return given
    keyed = _key_of_value(context, evidence)
    if keyed is not None:  # "the example sets a stop condition to 0.70": `map_cc_target`
        return keyed
    found_hop = _bridge_hop(context, asking, evidence, vocabulary, similarities)
    if found_hop is None:
        return None
    hop, named = found_hop
    quoted_key = _key_of_quote(context, hop.unit.text)
    if quoted_key is not None:  # "… prompts such as 'X'": the key the passage gives X
        return quoted_key
    if hop.span is None:
        return None
    # how much of the context the unit and its headings tell ("| Static | `x` |" under
    # "Robots probe" for "the robots probe for static sites")
    where = f"{hop.unit.evidence.context}\n{hop.unit.text}"
    told = max(hop.features[0], coverage(content_terms(context), where, vocabulary))
    if told < BRIDGE_COVERAGE:
        return None  # a Program cell of a row that shares no words with the context
    stated = _states_answer(hop.span, named, context)
    named_well = told >= BRIDGE_NAMED_COVERAGE and _CODE_NAME.search(hop.span.text)
    if not stated and not named_well:
        return None  # a guess from the nearest words would search for the wrong thing
    return hop.span.text


def compose_bridged(
    context: str,
    asking: str,
    evidence: list[Evidence],
    vocabulary: Vocabulary,
    similarities: Callable[[str, list[str]], list[float]] | None = None,
    count: int = 2,
) -> Composition | None:
    """Two hops over the same evidence: the unit that best states the context gives
    the bridge (the entity the asking clause calls "it" or "that program"), then the
    asking clause with the bridge's words picks the answer unit and its span.

    Ranked against the whole question, the first hop's unit wins (it repeats most of
    the question's words) and the reader gets the bridge instead of the answer.
    """
    found_hop = _bridge_hop(context, asking, evidence, vocabulary, similarities)
    if found_hop is None:
        return None
    hop, named = found_hop
    given = named_referent(context, asking) or _key_of_quote(context, hop.unit.text)
    stated = given is None and _states_answer(hop.span, named, context)
    if given is not None:  # the question names the bridge, or the key of what it quotes
        bridge = content_terms(given)[:BRIDGE_TERMS]
    elif stated:
        assert hop.span is not None
        # "`google` (default)": the value alone; its unit's other words name the rest
        bridge = content_terms(hop.span.text)[:BRIDGE_TERMS]
    else:
        asked = set(content_terms(f"{context} {asking}"))
        rare = [t for t in content_terms(hop.unit.text) if t not in asked and vocabulary.known(t)]
        bridge = sorted(rare, key=vocabulary.idf, reverse=True)[:BRIDGE_TERMS]
        if hop.span is not None:
            bridge = [*content_terms(hop.span.text), *bridge][:BRIDGE_TERMS]
    found = frozenset({hop.span.text.lower()} if hop.span is not None else ())
    found |= {given.lower()} if given is not None else set()  # what is asked is about it
    found |= set(quoted_phrases(context))  # "shown with the ⊘ symbol": named, not asked
    expectation = expect(asking)
    # "… _execute_sub_job_for_gui runs each program in a subdirectory. What naming
    # pattern do those subdirectories follow?": the context's own names are no answer,
    # unless one has the asked kind's form — a chain may lead back to it ("force a tool
    # after X_Tool; which tool does that tool depend on?": X_Tool)
    shape = shape_for(expectation, asking)
    found |= {
        name.lower()
        for name in code_names_in(context)
        if not _of_the_asked_kind(name, expectation, shape)
    }
    restated = _restated_values(context, asking, expectation, shape)
    if restated:  # the context gives the asked role's value elsewhere: the answer is another
        found = (found - {hop.span.text.lower()} if hop.span is not None else found) | restated
    named_asking = asking
    if stated and points_back(asking):
        # the bridge stated outright is what "that provider" means: written in, it picks
        # its own column of a table ("What is anthropic's default model …?")
        assert hop.span is not None
        named_asking = with_pointed_named(asking, hop.span.text)
    if hop.span is not None and not points_back(asking) and described_noun(context):
        # "For the provider whose …, which model …": the name found is what the asking
        # clause is about, as if written in it (it picks the name's column of a table)
        named_asking = f"{asking.rstrip(' ?')} ({hop.span.text})?"
    second = compose(  # the bridge itself is what the context names, not what is asked
        named_asking, evidence, vocabulary, expectation, similarities, count, bridge, found
    )
    if second is None:
        return None
    if not _states_answer(second.span, expectation, asking):
        # The bridge's words can pull in the context's own passage; a unit that states
        # the asked value outright for the asking clause alone is the better answer.
        plain = compose(asking, evidence, vocabulary, expectation, similarities, count, None, found)
        if plain is not None and _states_answer(plain.span, expectation, asking):
            second = plain
    if (second.span is None or second.shape_missing) and not points_back(asking):
        # "Tests don't use X; the helpers come from which file?": the context restates
        # the setting, it names no bridge; its best unit's span may be the answer itself.
        whole = compose(asking, evidence, vocabulary, expectation, similarities, count, bridge)
        if whole is not None and whole.span is not None and not whole.shape_missing:
            second = whole
    units = second.units
    if all(u.text != hop.unit.text for u in units):
        units = [*units[: max(1, count - 1)], hop.unit]  # cite where the bridge came from
    return Composition(
        second.direct,
        units,
        second.span,
        second.focus_missing,
        second.best_score,
        second.shape_missing,
        second.given_for_others,
    )


def support_of(question: str, units: list[Scored], vocabulary: Vocabulary) -> float:
    terms = content_terms(question)
    joined = "\n".join(f"{u.evidence.context}\n{u.text}" for u in units)
    return coverage(terms, joined, vocabulary)


def evidence_lines(citations: list[Citation], evidence: dict[str, Evidence]) -> list[str]:
    """Each cited unit, cleaned, followed by its [n]."""
    lines = []
    for citation in citations:
        hit = evidence.get(citation.chunk_id)
        text = clean_unit(citation.sentence, hit.table_text if hit else "")
        lines.append(f"{text} [{citation.n}]")
    return lines


def sources_lines(citations: list[Citation]) -> list[str]:
    seen: dict[int, str] = {}
    for citation in citations:
        heading = clean_inline(citation.heading)
        where = f"{citation.file} § {heading}" if heading else citation.file
        seen.setdefault(citation.n, where)
    return [f"[{n}] {where}" for n, where in sorted(seen.items())]


def render(direct: str, citations: list[Citation], evidence: dict[str, Evidence]) -> str:
    """First line, evidence, sources: the whole answer as text."""
    lines = [direct]
    body = evidence_lines(citations, evidence)
    if body:
        lines += ["", "Evidence:", *body, "", "Sources:", *sources_lines(citations)]
    return "\n".join(lines)


def to_json(result: ResearchResult) -> dict[str, Any]:
    """The answer as `agentcycle ask --format json` prints it.

    `answer` is the first line only; `evidence` the cleaned cited sentences with their
    [n]; `citations` where each [n] points (with the verbatim sentence); `text` the
    whole answer as printed.
    """
    chunks = {e.chunk_id: e for e in result.evidence}
    first = result.direct or (result.answer.splitlines()[0] if result.answer else "")
    return {
        "question": result.question,
        "answer": first,
        "evidence": [] if result.insufficient else evidence_lines(result.citations, chunks),
        "citations": [c.model_dump() for c in result.citations],
        "confidence": round(result.confidence, 4),
        "insufficient": result.insufficient,
        "refused": result.refused,
        "mc_letter": result.mc_letter,
        "question_type": result.question_type,
        "answer_type": result.answer_type,
        "from_cache": result.from_cache,
        "text": result.answer,
        "counters": result.counters.model_dump(),
    }

"""Rules-only answer extraction: the span of the expected type in the best evidence unit.

A table row is read as a fact: the cells that repeat the question are its key, the
column whose header the question names (or, failing that, the first other cell of the
expected type) is the answer. In a sentence, candidates of the expected type (numbers
with units, code spans and identifiers, names, "(default: X)" values) that the question
does not already contain are scored by how close they sit to the question's words.
No candidate → no span: the caller shows the clean sentence instead, or refuses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from functools import lru_cache

from agentcycle.agent.research.answer_shape import (
    ASSIGNMENT,
    DATE,
    PLAIN_WORD_SHAPES,
    Shape,
    asks_assignment,
    asks_who,
    names_a_file_instead,
    people_named,
    shape_for,
    shaped_parts,
)
from agentcycle.agent.research.answer_type import (
    ASKS_MAPPED_TARGET,
    MAPPING,
    SETTING_APART,
    WHEN,
    WHERE_IN_SOURCE,
    Expectation,
    asks_a_quantity,
    main_clause,
)
from agentcycle.agent.research.asked_noun_tag import tagged_by_asked_noun
from agentcycle.agent.research.clean import (
    cells,
    clean_inline,
    header_for,
    is_table_row,
    unit_offset,
)
from agentcycle.agent.research.explicit_value import (
    BOUND,
    COUNTED,
    NAMED_BINDING,
    WORD_NUMBER,
    asked_label,
    asked_name,
    asked_unit,
    bound_value,
    changed_value,
    count_of_another_name,
    counts_another_noun,
    counts_unit,
    labelled_item,
    numbered_items_count,
    values_bound_to_question_names,
)
from agentcycle.agent.research.listed_owner import listed_owner
from agentcycle.agent.research.named_form import asked_condition, asked_data_type
from agentcycle.agent.research.predicate_subject import (
    ANNOTATED_SUBJECT,
    PREDICATE_SUBJECT,
    annotated_subject,
    predicate_subject,
)
from agentcycle.agent.research.synthesize import quoted_phrases
from agentcycle.agent.research.text import (
    STOPWORDS,
    VERSION_TOKEN,
    content_terms,
    find_name,
    indent_of,
    normalise,
    present_terms,
    stem,
    term_set,
    tokens,
)
from agentcycle.agent.research.value_band import range_value

_CODE = re.compile(r"`([^`\n]{1,80})`")
_URL = re.compile(r"\bhttps?://[^\s`'\"<>|]+")
_FLAG = re.compile(r"(?<![\w-])(--[A-Za-z][\w-]*[A-Za-z0-9])(?![\w-])")
_QUOTED = re.compile(r'(?<![\w`])"[^"\n`]{2,80}"(?![\w`])')
_BOLD = re.compile(r"\*\*([^*\n]{1,60})\*\*")
_IDENT = re.compile(
    r"(?<![\w.])(?:[A-Za-z_][\w]*(?:[._/:][\w-]+)+(?:\(\))?"  # dotted / path / qwen3:32b
    r"|[A-Z][A-Z0-9]*_[A-Z0-9_]+"  # CONSTANT_NAME
    r"|[a-z][a-z0-9]*_[a-z0-9_]+(?:\(\))?"  # snake_case
    r"|[A-Z][a-z0-9]+(?:[A-Z]+[a-z0-9]*)+"  # CamelCase, ChromaDB, OpenAI
    # hyphenated model and tutorial names, whole: "HNP3-mr-rosetta", not "mr-rosetta"
    r"|(?<!-)(?:[a-z][a-z0-9]*|[A-Z][A-Z0-9]*\d[A-Z0-9]*)(?:-[a-z0-9.]+){1,5})(?![\w])"
)
_ABBREVIATIONS = {"e.g", "i.e", "etc", "vs", "cf", "a.k.a"}  # dotted like a name, name nothing
_NUMBER = re.compile(
    r"(?<![\w.-])\d{4}-\d{2}-\d{2}(?![\w-])|"  # a date: 2026-05-20
    r"(?:[<>≤≥~]=?\s*)?(?<![\w.])\d+(?:[.,]\d+)?(?:\s*(?:[-–]|to)\s*\d+(?:[.,]\d+)?)?"
    r"(?:(?:\s*|-)(?:%|Å|MB|GB|KB|[KMB]\b|ms\b|s\b|seconds?|minutes?|hours?|days?|tokens?|"
    r"words?|cycles?|steps?|chunks?|times|calls|sentences|rules|templates|tests|passages|"
    r"candidates|points|pts\b|bytes?|weeks?|months?|years?|×))?"
    r"(?![\w])"
)
# "30-second", "2 min", "~5 s": a number that is a duration, for "how long" and timeouts
_DURATION = re.compile(
    r"\d(?:\s*|-)(?:ms|s|sec|secs|seconds?|min|mins|minutes?|hours?|h|hrs?|days?|weeks?|"
    r"months?|years?)$",
    re.IGNORECASE,
)
# "10-30 words", "3-4 sentences": a number that is a length, for "how long should X be"
_LENGTH = re.compile(
    r"\d(?:\s*|-)(?:words?|sentences?|tokens?|characters?|chars|lines?|pages?|paragraphs?)$",
    re.IGNORECASE,
)
_HOW_LONG = re.compile(r"\bhow long\b", re.IGNORECASE)
_BARE_FRACTION = re.compile(r"[<>≤≥=~]*\s*0?\.\d+")  # no duration or length has this form
# "How long should each generated *query* … be": the noun phrase whose length is asked
_HOW_LONG_SUBJECT = re.compile(
    r"\bhow long\s+(?:is|are|was|were|should|must|can|will|may)\s+"
    r"(?:(?:each|every|the|a|an|one|its|their)\s+)?((?:[a-z-]+\s+){0,3}[a-z-]+)",
    re.IGNORECASE,
)
_MEASURE_UNIT = (
    r"(?:words?|sentences?|tokens?|characters?|chars|lines?|pages?|paragraphs?|ms|"
    r"s|sec|secs|seconds?|min|mins|minutes?|hours?|days?)"
)
# "how long did the case study take", "how long does a decision take": a measured time,
# told with its unit; a bare count beside it ("(6/6)", "11 calls") is no time
_ASKS_ELAPSED = re.compile(
    r"\bhow (?:long|many (?:milli)?(?:seconds|minutes|hours)) "
    r"(?:did|does|do|will|would|can|should)\b[^?]*\b(?:take|took|run|last)\b",
    re.IGNORECASE,
)
# "what was the phenix_sorry rate": a share, told as a percentage, not a count beside it
_ASKS_SHARE = re.compile(
    r"\b(?:rate|percentage|percent|share|fraction|proportion)\b(?!\s+limit)", re.IGNORECASE
)
_PERCENT = re.compile(r"\d\s*%$")
_ASKS_DURATION = re.compile(
    r"\bhow long\b(?!.*\b(?:words?|sentences?|tokens?|characters?|chars|lines?|pages?)\b)|"
    r"\b(?:timeout|time-?out|duration|delay|interval|latency|wait)\b",
    re.IGNORECASE,
)
# "3-stage", "2-tier": a whole number joined to the noun it counts modifies what follows
# ("80%-token-overlap" keeps its unit: a value)
_COMPOUND_AFTER = re.compile(r"-[A-Za-z]+")
COMPOUND_MODIFIER = 0.6
# "(1) the pinning check ... (2) a one-shot probe": enumerators count nothing
_ENUMERATOR = re.compile(r"\((\d)\)")
_BOOLEAN = re.compile(r"true|false|yes|no|on|off|enabled|disabled", re.IGNORECASE)
_SECTION_BEFORE = re.compile(r"(?:§|\bsection|\bsec\.)\s*$", re.IGNORECASE)
# "Location: Lines 744-775 in planner.py", "defined at line ~144": where a thing is in a
# file, a value only to a question about lines
_LINE_BEFORE = re.compile(r"\blines?\s*[~≈]?\s*$", re.IGNORECASE)
_ASKS_LINES = re.compile(rf"\blines?\b|{WHERE_IN_SOURCE}", re.IGNORECASE)
# "Tier 2", "Level 3", "Enforcement 3", "(cycle 2)": a number after such a word names an
# item of a sequence; it is a value only when that item is what the question asks for
_ORDINAL_LABEL = re.compile(
    r"\b(tier|level|phase|step|stage|rule|round|example|part|figure|fig\.|table|case|"
    r"enforcement|scenario|item|chapter|appendix|layer|pass|attempt|cycle|iteration|"
    r"option|group|batch|gate|check)\s*#?$",
    re.IGNORECASE,
)
ORDINAL_LABEL = 0.3
# heads of measured quantities: a sequence label's number ("Tier 1") is never one of them
_MEASURED_HEADS = {
    stem(w) for w in ("tolerance", "threshold", "cutoff", "timeout", "limit", "size", "score",
                      "budget", "percentage", "fraction", "ratio", "resolution", "length")
}  # fmt: skip
# What a count of things never answers: "20K passages" is no temperature or threshold.
# A timeout, limit, size, budget or length may be a count ("3 cycles", "4000 tokens").
_NEVER_COUNTS = {
    *(_MEASURED_HEADS - {stem(w) for w in ("timeout", "limit", "size", "budget", "length")}),
    *(stem(w) for w in ("temperature", "rate", "probability")),
}
_PLURAL_AFTER = re.compile(r"\s+([a-z]{3,}s)\b")
_A_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_MEASURES = {stem(w) for w in ("angstroms", "degrees", "points", "percent", "units")}


def _counts_things(unit: str, end: int, terms: Sequence[str]) -> bool:
    """Whether the number ending at `end` counts things the question does not name
    ("20K passages", "3 retries"): a plural noun right after it that measures nothing."""
    after = _PLURAL_AFTER.match(unit, end)
    if after is None:
        return False
    noun = stem(after.group(1))
    return noun not in terms and noun not in _MEASURES and after.group(1) not in STOPWORDS


_UPPER_WORD = re.compile(r"(?<![\w.`-])[A-Z][A-Z0-9]{2,}(?![\w-])")  # PLAN, FALLBACK
_CAPITALISED = re.compile(r"(?<![\w.`])[A-Z][\w.+-]*[A-Za-z0-9](?:\s[A-Z0-9][\w.+-]*)*")
_DEFAULT = (
    # NORMAL = "normal"  # key decisions (default): the assignment the comment marks
    re.compile(
        r"\b[A-Za-z_]\w*\s*=\s*[\"']?([^\"'\s#]{1,40})[\"']?\s*#[^#=\n]*?\((?:the )?default\)",
        re.IGNORECASE,
    ),
    # "(default: 20)"; "**Fresh** (default for new runs)" marks the name before it
    re.compile(r"\(default:?(?!\s*for\s)\s*`?\"?([^)`\"]{1,40})`?\"?\)", re.IGNORECASE),
    re.compile(r"`\"?([^`\"]{1,40})\"?`\s*\(default\)", re.IGNORECASE),
    re.compile(r"\*\*([^*]{1,40})\*\*\s*\((?:the )?default", re.IGNORECASE),
    re.compile(r"([\w.:-]{1,40})\s*\((?:the )?default\)", re.IGNORECASE),
    re.compile(r"\bdefault(?: is|:)?\s+`([^`]{1,40})`", re.IGNORECASE),
    re.compile(r"\b([A-Z][\w.-]{1,30}) is the default\b"),
    re.compile(r"\bdefault:\s*\**([\w.:-]{1,30})", re.IGNORECASE),
    re.compile(r"[(,;]\s*default(?: is|=)?\s+([\w.:/-]{1,30})\s*\)", re.IGNORECASE),
    re.compile(
        r"\bdefault (?:is|was|value is|=)\s*(?:`[\"']?|[\"'])([^\"'`\n]{1,80})[\"'`]", re.IGNORECASE
    ),
    # min_searches: int = 1 — a typed field's value is what it holds when nobody sets it
    re.compile(
        r"\b[A-Za-z_]\w*\s*:\s*(?:int|float|str|bool|Optional\[\w+\])\s*=\s*[\"']?([^\"'\s#,)]{1,40})"
    ),
)
_NOT_VALUES = {"checked", "unchecked", "enabled", "disabled", "set", "on", "off"}
# "validation warns but *doesn't block*" for "is the selection blocked?"
_NEGATED_WORD = re.compile(
    r"\b(?:not|never|no longer|cannot|[a-z]+n['’]t)\s+(?:\w+\s+)?([A-Za-z]{3,})", re.IGNORECASE
)


def _negates_asked_word(unit: str, asked: Sequence[str]) -> bool:
    """Whether the unit negates a word the question asks about (`asked`: its content
    terms) — "doesn't block" for "is it blocked?" — not something else in the sentence
    ("old clients won't understand")."""
    return any(stem(m.group(1).lower()) in asked for m in _NEGATED_WORD.finditer(unit))


# verbs that keep a thing out: "both … drop `temperature`" answers "is temperature sent?"
_WITHHOLDS = re.compile(
    r"\b(?:drop|reject|strip|remove|omit|skip|ignore|block|disable|exclude|refuse)"
    r"(?:s|ed|ped|ping|ing)?\b",
    re.IGNORECASE,
)
WITHHELD_CHARS = 40  # how far after the verb its object is read


def _withholds_asked_thing(unit: str, asked: Sequence[str]) -> bool:
    """Whether the unit keeps out (drops, rejects, strips …) a thing the question asks
    about: a content word of the question right after the verb."""
    for match in _WITHHOLDS.finditer(unit):
        after = unit[match.end() : match.end() + WITHHELD_CHARS]
        if set(content_terms(after)) & set(asked):
            return True
    return False


_YES = re.compile(r"\*\*yes\*\*|\byes\b|\bsafe\b", re.IGNORECASE)
_TRUE = re.compile(r"true|yes|on|enabled", re.IGNORECASE)
# "is it switched *off* by default?": a setting's True answers no
_ASKS_OFF = re.compile(
    r"\b(?:disabled|off|inactive|(?:turned|switched)\s+off|skipped)\b", re.IGNORECASE
)


def yes_or_no(value: str, question: str) -> str:
    """ "Yes" or "No" for a boolean a passage gives ("True", "off"), as the question
    asks: "is it on by default?" is answered yes by True, "is it off by default?" no.
    Any other text is returned as it is."""
    bare = value.strip("` *")
    if not _BOOLEAN.fullmatch(bare) or bare.lower() in ("yes", "no"):
        return value
    holds = bool(_TRUE.fullmatch(bare)) != bool(_ASKS_OFF.search(question))
    return "Yes" if holds else "No"


# "When checked (default), …", "unchecked by default", "is enabled by default": the state
# a switch starts in, as the boolean it amounts to
_DEFAULT_STATE = re.compile(
    r"\b(?P<state>unchecked|checked|unticked|ticked|selected|enabled|disabled|on|off)\s*"
    r"(?:\((?:the\s+)?default\)|by\s+default\b)",
    re.IGNORECASE,
)
_STATE_TRUE = {"checked", "ticked", "selected", "enabled", "on"}


_NEGATED_BEFORE = re.compile(r"\b(?:not|never|no longer)\s+(?:\w+\s+)?$|n['’]t\s+$", re.I)


def default_state(unit: str) -> str | None:
    """ "true" or "false" for the state a unit says a switch has by default ("is not on
    by default" is off)."""
    match = _DEFAULT_STATE.search(unit)
    if match is None:
        return None
    on = match["state"].lower() in _STATE_TRUE
    negated = _NEGATED_BEFORE.search(unit, max(0, match.start() - 20), match.start())
    return "true" if on != bool(negated) else "false"


def _bound_boolean(found: str, question_terms: AbstractSet[str]) -> str | None:
    """The boolean a marked default binds to a setting the question names:
    "`preprocess_advice=True` (default)" for "is advice preprocessing on by default?"."""
    name, equals, value = found.partition("=")
    value = value.strip("` ")
    if not equals or not _BOOLEAN.fullmatch(value):
        return None
    parts = {stem(part) for part in re.split(r"[_\W]+", name.lower()) if part}
    return value if parts & {stem(t) for t in question_terms} else None
_NO = re.compile(r"\*\*no\*\*|\bno\b|\bnot\b|\bnever\b|\bunsafe\b", re.IGNORECASE)


NAMED_COLUMN = "named by the question"  # Span.how suffix of the head-noun column rule


@dataclass(frozen=True)
class Span:
    text: str
    score: float  # 0..1: how sure the rule is that this is the answer
    how: str  # which rule found it (for the trace)


@lru_cache(maxsize=64)
def _question_words(question: str) -> tuple[str, tuple[str, ...], frozenset[str]]:
    """The question normalised, its content terms, and every word of it a span may not
    merely repeat. Cached: every unit of every retrieved passage is read against it."""
    question_norm = normalise(question)
    terms = tuple(content_terms(question))
    words = {w.strip(".:") for w in re.findall(r"[a-z0-9_.:]+", question_norm)}
    return question_norm, terms, frozenset(terms) | words  # "strategy." is "strategy"


_WORD_VALUES = {w: i for i, w in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "eleven", "twelve"))}  # fmt: skip
_WORD_NAMES = {str(value): word for word, value in _WORD_VALUES.items() if value > 1}
_COUNT_AND_NOUN = re.compile(r"(\d+|[a-z]+)\+?\s+([a-z][a-z-]+)")


COUNTED_LIST = "list of the count asked"  # Span.how of a list as long as the count asked
TAKEN = "what the asked verb takes"  # Span.how of "detected that …" for "what did it detect"
# "solve/solve_constrained/task/tutorial": items written joined by slashes
_SLASH_LIST = re.compile(r"(?<![\w/.])[A-Za-z_][\w-]*(?:/[A-Za-z_][\w-]*)+(?![\w/.])")
_ASKED_COUNT = re.compile(
    r"\b(?:which|what)\s+(\w+)\s+(?:[\w-]+\s+){0,3}[\"'“]?[a-z_-]+s\b", re.IGNORECASE
)  # "which four intents", "which three reactive recovery 'shapes'"


def _count_of(word: str) -> int | None:
    """The number a count word writes: "6" or "six"; None for any other word."""
    word = word.lower()
    return int(word) if word.isdigit() else _WORD_VALUES.get(word)


def _asked_count(question: str) -> int | None:
    """How many things "which four intents" asks for (None below two, or no count)."""
    asked = _ASKED_COUNT.search(question)
    count = _count_of(asked.group(1)) if asked else None
    return count if count and count >= 2 else None


# "{version, defaults_fingerprint, started_at}", "[map_file, input_map_file]": names
# enumerated inside braces or brackets, as code writes a set, dict or list of them
_BRACED_LIST = re.compile(r"[{\[]\s*([\w.\-\"']+(?:\s*,\s*[\w.\-\"']+)+)\s*[}\]]")
# a parenthesised enumeration of short items, each one to three words
_PAREN_LIST = re.compile(r"\(([^()]{3,120},[^()]*)\)")
_SHORT_ITEM = re.compile(r"[\w.-]+(?: [\w.-]+){0,2}")


def _enumerated_list(unit: str, question: str) -> list[str]:
    """The items of a slash-joined or braced list with as many items as "which four
    intents" asks for: "a/b/c/d" reads as a path, and "{a, b, c}" as one code span,
    until the count says it is that many things."""
    count = _asked_count(question)
    if count is None:
        return []
    for match in _SLASH_LIST.finditer(unit):
        items = match.group(0).split("/")
        if len(items) == count:
            return items
    for match in _BRACED_LIST.finditer(unit):
        items = [item.strip().strip("\"'") for item in match.group(1).split(",")]
        if len(items) == count and all(items):
            return items
    for match in _PAREN_LIST.finditer(unit):  # 'three recovery "shapes" (add, select, strip)'
        items = [re.sub(r"^(?:and|or)\s+", "", i.strip()) for i in match.group(1).split(",")]
        if len(items) == count and all(_SHORT_ITEM.fullmatch(item) for item in items):
            return items
    return []


@lru_cache(maxsize=64)
def _counts_in_question(question: str) -> frozenset[tuple[int, str]]:
    """(value, stem of the next word) of each count the question spells in words:
    "sustained over two consecutive cycles" gives (2, "consecut"). A unit's "2+
    consecutive cycles" is then the question's premise, not its answer."""
    found = set()
    for match in WORD_NUMBER.finditer(question):
        after = _COUNT_AND_NOUN.match(question.lower(), match.start())
        if after is not None:
            found.add((_WORD_VALUES[match.group(1).lower()], stem(after.group(2))))
    return frozenset(found)


def _premise_count(unit: str, position: int, text: str, question: str) -> bool:
    """Whether the number at `position` is a count the question already gives in words,
    followed by the same word ("2+ consecutive cycles" for "two consecutive cycles")."""
    premises = _counts_in_question(question)
    if not premises or not text.isdigit():
        return False
    after = _COUNT_AND_NOUN.match(unit.lower(), position)
    return after is not None and (int(text), stem(after.group(2))) in premises


def _in_question(
    candidate: str, question_norm: str, question_terms: AbstractSet[str]
) -> bool:
    bare = normalise(candidate).strip("()., ")
    if not bare:
        return True
    number = re.match(r"[<>≤≥~]*=?\s*(\d+(?:[.,]\d+)?)", bare)
    if number and re.search(
        rf"(?<![\w.]){re.escape(number.group(1))}(?![\w]|\.\d)", question_norm
    ):  # "reranks the 20 candidates", "… at least 0.70.": the question's own number
        return True
    bounds = re.fullmatch(r"[~≈]?0\s*[-–]\s*(\d+(?:\.\d+)?)\b.*", bare)
    if bounds and re.search(rf"(?<![\w.]){re.escape(bounds.group(1))}(?![\w]|\.\d)", question_norm):
        return True  # "(0-30 pts)" for "the full 30-point bonus": the question's own scale
    spelled = _WORD_NAMES.get(number.group(1)) if number else None
    if spelled and re.search(rf"\b{spelled}\b", question_norm):
        return True  # "at least two peaks above what level": its "≥ 2" is no level
    if re.search(rf"(?<![\w.]){re.escape(bare)}(?![\w])", question_norm):
        return True
    # `graph_nodes._filter_files()`, `sanitize_kwargs(provider, kwargs)`: the name called
    own = re.sub(r"\(.*$", "", bare).rsplit(".", 1)[-1].strip("()")
    if "_" in own and re.search(rf"(?<![\w.]){re.escape(own)}(?![\w])", question_norm):
        return True  # the `_filter_files()` the question writes, qualified
    if bare.startswith("--"):
        return False  # `--remove-last` spells "Remove last N cycles" as a flag: no repeat
    words = [w.strip(".:") for w in re.findall(r"[a-z0-9_.:]+", bare) if len(w.strip(".:")) > 1]
    return (
        bool(words)
        and all(w in question_terms for w in words)
        and not any(c.isdigit() for c in bare)
    )


def _proximity(unit: str, position: int, anchors: list[int]) -> float:
    if not anchors:
        return 0.3
    distance = min(abs(position - a) for a in anchors)
    return 1.0 / (1.0 + distance / 40.0)


def _anchors(unit: str, terms: Sequence[str]) -> list[int]:
    lowered = unit.lower()
    found = []
    for term in terms:
        for match in re.finditer(re.escape(term[:6]), lowered):
            found.append(match.start())
    return found


# "computes coverage_score (0-1)", "a 0–100 scale": the range a score is measured on, not
# a value it takes, unless the question asks for the range
_SCALE_SPAN = re.compile(r"0\s*[-–]\s*(?:1|1\.0|100)(?![\d.])")  # "0-100 points", not "0-10"
_ASKS_SCALE = re.compile(r"\b(?:range|scale)\b", re.IGNORECASE)
# A range written whole: "0.5 < v < 20.0", "1 ≤ n ≤ 30", "between 2 and 8", "10–30"
_RANGE = re.compile(
    r"\d+(?:\.\d+)?\s*(?:<=?|≤)\s*[A-Za-z_][\w.]*\s*(?:<=?|≤)\s*\d+(?:\.\d+)?"
    r"|\bbetween\s+\d+(?:\.\d+)?\s+and\s+\d+(?:\.\d+)?"
    r"|(?<![\w.-])\d+(?:\.\d+)?\s*(?:–|-|to)\s*\d+(?:\.\d+)?(?![\w.-])",
    re.IGNORECASE,
)
RANGE_FIT = 1.3  # a range, when the question asks for one: above any other number


def asks_range(question: str) -> bool:
    """Whether the question asks for a range or scale ("what range of copies is
    accepted"): one value, however well bound, does not answer it."""
    return bool(_ASKS_SCALE.search(question))


def is_range(text: str) -> bool:
    """Whether a span is a range written whole ("1 ≤ n ≤ 30", "between 2 and 8")."""
    return _RANGE.fullmatch(text.strip()) is not None


def _assignments(unit: str, question_terms: AbstractSet[str]) -> list[tuple[str, int, float]]:
    """`name=value` candidates for a question asking for a command-line setting ("what
    command-line setting gives the Basic view": `display_and_stop=basic`); the one whose
    value the question names fits best."""
    return [
        (m.group(0), m.start(), 1.2 if m.group(2).lower() in question_terms else 0.9)
        for m in ASSIGNMENT.finditer(unit)
    ]


def _candidates(
    unit: str, kind: str, scale: bool = False, lines: bool = False
) -> list[tuple[str, int, float]]:
    """(text, position, type fit) of every span of the kind in a unit; `scale`: the
    question asks for a range or scale, so "0-1" may be its answer; `lines`: it asks
    about lines, so "line 144" may be."""
    found: list[tuple[str, int, float]] = []
    if kind == "number":
        enumerators = _enumerators(unit)
        # "what range must it fall in": a range written whole answers, not its bounds
        ranges = list(_RANGE.finditer(unit)) if scale else []
        found += [(m.group(0), m.start(), RANGE_FIT) for m in ranges]
        for m in _NUMBER.finditer(unit):
            if m.start() - 1 in enumerators:
                continue
            if any(r.start() <= m.start() < r.end() for r in ranges):
                continue
            if _SECTION_BEFORE.search(unit, 0, m.start()):  # "§3.7" points, it states nothing
                continue
            if not lines and _LINE_BEFORE.search(unit, 0, m.start()):
                continue
            if not scale and _SCALE_SPAN.match(m.group(0).strip()):  # "score (0-1)"
                continue
            found.append((m.group(0).strip(), m.start(), 1.0))
        for m in VERSION_TOKEN.finditer(unit):  # "v114": the answer when a version is asked
            found.append((m.group(0), m.start(), 0.5))
        return found
    for m in _URL.finditer(unit):
        found.append((m.group(0).rstrip(".,;)`"), m.start(), 1.0))
    for m in _CODE.finditer(unit):
        found.append((m.group(1).strip().strip('"'), m.start(), 1.0))
    for m in _QUOTED.finditer(unit.replace("“", '"').replace("”", '"')):
        found.append((m.group(0), m.start(), 0.6))  # "Insufficient documentation", quotes kept
    for m in _BOLD.finditer(unit):
        if _is_label(unit, m):
            continue
        # "**A → B**", "**→ replanner**": where the arrow points is the candidate
        target = _ARROW.split(m.group(1))[-1].strip(" `")
        if target:
            found.append((target, m.start() + m.group(0).rfind(target), 0.7))
    for m in _IDENT.finditer(unit):
        if m.group(0).lower() not in _ABBREVIATIONS:
            found.append((m.group(0), m.start(), 0.8 if kind == "identifier" else 0.6))
    if kind == "identifier":  # "session_tools.py --remove-last 3": a command-line flag
        found += [(m.group(1), m.start(1), 0.8) for m in _FLAG.finditer(unit)]
    if kind in ("identifier", "name"):
        for m in _UPPER_WORD.finditer(unit):
            found.append((m.group(0), m.start(), 0.4))
    if kind in ("name", "phrase", "default"):
        for m in _CAPITALISED.finditer(unit):
            if m.start() == 0 or m.group(0).lower() in STOPWORDS:
                continue  # "If", "When": a capital for its place in the sentence
            text, start = m.group(0), m.start()
            if " " not in text and _LIST_MARKER.fullmatch(unit, 0, start):
                continue  # "- Performs clustering": one word capitalised for its place
            if _CLAUSE_START.search(unit, 0, start) and " " in text:
                # "**Hash**: Compute MD5 hash": a clause's first word is capitalised for
                # its place, not as a name; the name is what follows it
                first = text.split(" ", 1)[0]
                text, start = text[len(first) + 1 :], start + len(first) + 1
            found.append((text, start, 0.5))
    return found


# what may open a unit before its first word: spaces and a list marker
_LIST_MARKER = re.compile(r"\s*(?:(?:[-+>*]|\d+[.)])\s+)*")
# where a clause starts: the unit's start past a list marker, or after a label's colon
_CLAUSE_START = re.compile(r"(?:^[\s>*+\-\d.]*|[:.]\**\s+)$")


# "**Purpose**: …", "- **What the report looks like:**": a bold label opens the unit
_LABEL_LEAD = re.compile(r"^[\s>*+-]*$")


def _is_label(unit: str, bold: re.Match[str]) -> bool:
    """Whether a bold span is the label of what follows (it opens the unit and ends in a
    colon): it names the topic, never the value asked for."""
    colon = bold.group(1).rstrip().endswith(":") or unit[bold.end() : bold.end() + 1] == ":"
    points = _ARROW.search(bold.group(1))  # "**→ replanner**:" names where a route goes
    return colon and not points and bool(_LABEL_LEAD.match(unit[: bold.start()]))


def _ordinal_item(unit: str, position: int, head: str) -> bool:
    """Whether the number at `position` follows a sequence word ("Tier 2") that is not
    the noun the question asks for ("which cycle", "at what step" ask for the item)."""
    label = _ORDINAL_LABEL.search(unit, max(0, position - 16), position)
    return label is not None and stem(label.group(1).lower().rstrip(".")) != head


_GROUP_EDGE = re.compile(r"[;()\[\]]")
_FOR_WHAT = re.compile(r"\bfor\s+(?:an?\s+|the\s+)?([A-Za-z][\w-]*)")
# what may stand between an item and its list's "for X": the item's own closing quote
# (a code span's position is its opening backtick) and ", more, items"
_LIST_REST = re.compile(r"[\w.`'\"-]*(?:\s*,\s*[\w.`'\"-]+)*\s*")


def _given_for_asked_case(
    unit: str, position: int, length: int, question_terms: AbstractSet[str]
) -> bool:
    """Whether the item at `position` is one of a list that says which case it is for
    ("phenix.molprobity, phenix.validation_cryoem for cryo-EM": only items and commas
    up to the "for"), and the question names that case."""
    end = _GROUP_EDGE.search(unit, position)
    stop = end.start() if end else len(unit)
    case = _FOR_WHAT.search(unit, position + length, stop)
    if case is None or not _LIST_REST.fullmatch(unit, position + length, case.start()):
        return False  # no "for X" right after the item and the rest of its list
    word = case.group(1).lower()
    terms = content_terms(word)
    return word in question_terms or (bool(terms) and all(t in question_terms for t in terms))


def _enumerators(unit: str) -> set[int]:
    """Positions of "(1)", "(2)"… when the unit counts off at least two of them in turn;
    a single "(8)" after a noun may be the value itself ("fuzzy (0.7)", "top (8)")."""
    marks = {int(m.group(1)): m.start() for m in _ENUMERATOR.finditer(unit)}
    return {
        position for number, position in marks.items()
        if number - 1 in marks or number + 1 in marks
    }  # fmt: skip


def _default_value(unit: str) -> tuple[str, int] | None:
    for pattern in _DEFAULT:
        for match in pattern.finditer(unit):
            value = match.group(1).strip().strip('"`*')
            if value and value.lower() not in _NOT_VALUES:
                return value, match.start()
    return None


# A column headed by the wh-word the question asks with in other words: "Where checked"
# answers "checked in which node", "When" answers "at which stage"
_WH_COLUMN = (
    (
        re.compile(r"^\s*where\b", re.I),
        re.compile(r"\b(?:in|at|inside|within) which\b|\bwhere\b", re.I),
    ),
    (
        re.compile(r"^\s*when\b", re.I),
        re.compile(r"\bwhen\b|\bat which (?:point|stage|time|step)\b", re.I),
    ),
)
WH_COLUMN = 0.5  # above a column that only shares a word with the question
WH_ASKED = ", asked by its wh-word"  # Span.how suffix: the column is the question's asking


def _column_score(
    header: str, clause_terms: set[str], focus: list[str], question: str = ""
) -> float:
    terms = content_terms(header)
    if not terms:
        return 0.0
    hits = sum(t in clause_terms for t in terms)
    focus_hits = sum(t in focus for t in terms)
    asked_by_wh = any(c.match(header) and q.search(question) for c, q in _WH_COLUMN)
    return (hits + focus_hits) / len(terms) + (WH_COLUMN if asked_by_wh and hits else 0.0)


_POINTED_BACK = re.compile(r"\b(?:that|this|these|those)\s+([a-z]+)\b", re.IGNORECASE)


KEY_CHARS = 4  # a cell the question quotes names its row when it is this long ("Contract
# Gaps"); shorter ones ("S1", "Yes") only together with another quoted cell


# a row keyed by a code constant (`MAX_TOOL_CALLS`): its value cells are that constant's
_CONSTANT_KEY = re.compile(r"`?[A-Za-z]\w*_\w+`?")


def keyed_by(row: str, question: str) -> bool:
    """Whether the question names this table row by its own cells: "the Contract Gaps
    phase (S1)" quotes the row "| S1 | Contract Gaps | 128 | …" whole. A question that
    picks the row and the column leaves one cell, the value asked for; prose that only
    shares words with the question is a weaker statement of it."""
    question_norm = normalise(question)
    quoted = []
    for cell in cells(row):
        whole = normalise(clean_inline(cell)).strip(" `'\"")
        if whole and any(c.isalpha() for c in whole) and re.search(
            rf"(?<![\w.]){re.escape(whole)}(?![\w])", question_norm
        ):
            quoted.append(whole)
    return len(quoted) >= 2 or any(len(q) >= KEY_CHARS for q in quoted)


_VALUE_HEADER = re.compile(r"(?:default |current )?values?|default", re.IGNORECASE)
VALUE_COLUMN = "the row's Value column"


def _value_column(
    raw: list[str], header: list[str] | None, keys: list[bool], expectation: Expectation
) -> Span | None:
    """ "What is the oldest client protocol version the server accepts?" over the row
    `| MIN_SUPPORTED_PROTOCOL_VERSION | 1 | Oldest client the server accepts |`: a row
    the question describes, not names, answers with its Value (or Default) cell, unless
    a name is asked for."""
    if not header or expectation.kind not in ("phrase", "number", "default"):
        return None
    for index, column in enumerate(header[: len(raw)]):
        if _VALUE_HEADER.fullmatch(clean_inline(column).strip()) and not keys[index]:
            value = _cell_value(raw[index], expectation)
            if value and _fits(value, expectation.kind):
                return Span(value, 0.7, VALUE_COLUMN)
    return None


def _tells_the_asked(explicit: Span, expectation: Expectation, shape: Shape | None) -> bool:
    """Whether a value a passage states outright answers: asked when something was done,
    "Phase 1: Created X" tells what was done, and only a date or a release tells when;
    asked which file, `dry_run: xray_basic` gives a scenario, not the file."""
    if shape is None or expectation.head not in ("date", WHEN, "file", "endpoint"):
        return True
    return bool(shape(explicit.text))


def from_row(row: str, chunk_text: str, question: str, expectation: Expectation) -> Span | None:
    """The answering cell of a table row."""
    raw = cells(row)
    header = header_for(row, chunk_text)
    if header and [clean_inline(c) for c in raw] == [clean_inline(h) for h in header]:
        return None  # the header row names columns; it states no fact
    question_norm = normalise(question)
    terms = content_terms(question)
    # "what status does *that symbol* indicate": the noun pointed back at is the row's
    # key, not the column asked for
    clause_terms = term_set(question) - {stem(m.lower()) for m in _POINTED_BACK.findall(question)}
    keys = []
    whole_keys = []
    for cell in raw:
        cell_terms = content_terms(cell)
        present = present_terms(cell_terms, question) if cell_terms else set()
        whole = normalise(clean_inline(cell))
        whole_keys.append(bool(whole) and whole in question_norm)
        keys.append(
            bool(whole)
            and (whole in question_norm or len(present) >= max(1, len(cell_terms) * 0.6))
        )
    order = list(range(len(raw)))
    columned = _column_of_written_value(raw, header, keys, question, expectation)
    if columned is not None:
        return columned
    counted = asked_unit(question) if expectation.kind == "number" else set()
    explicit = _explicit_span(row, question, expectation, header)
    shape = shape_for(expectation, question)
    if explicit is not None and _tells_the_asked(explicit, expectation, shape):
        return explicit
    if shape is not None:
        return _shaped_cell(raw, header, question, expectation, shape)
    named = _head_column(raw, header, expectation)
    if named is not None:
        return named
    if header:
        # The column the question names answers it unless the question quotes the cell:
        # in "the metrics table … considered concerning", the Metric column holds the
        # row's key ("Clashscore"), so Concerning is the column asked for.
        unquoted = [i for i in order if i < len(header) and not whole_keys[i]]
        main = main_clause(question)
        ranked = sorted(
            unquoted,
            key=lambda i: -_column_score(header[i], clause_terms, expectation.focus, main),
        )
        best = ranked[0] if ranked else 0
        if ranked and _column_score(header[best], clause_terms, expectation.focus, main) > 0:
            value = _cell_value(raw[best], expectation)
            if value and _fits(value, expectation.kind):
                column = f"table column {header[best]!r}"
                if any(c.match(header[best]) and q.search(main) for c, q in _WH_COLUMN):
                    column += WH_ASKED
                return Span(value, 0.9, column)
    if expectation.head and expectation.kind in ("identifier", "name", "phrase"):
        named_cell = _cell_named_by_head(raw, keys, question, expectation)
        if named_cell is not None:
            return named_cell
    signed = _signed_cell(raw, keys, expectation, question)
    if signed is not None:
        return signed
    if expectation.asks_default:
        for cell in raw:
            found = _default_value(cell)
            if (
                found
                and _fits(found[0], expectation.kind)
                and not _in_question(found[0], question_norm, set(terms))
            ):
                return Span(found[0], 0.85, "table cell marked default")
    # a row the question names by its key is a lookup, read as such further on
    described = not counted and not any(whole_keys)
    valued = _value_column(raw, header, keys, expectation) if described else None
    if valued is not None:  # "how many requests": only a cell that counts requests
        return valued
    for index in order:
        if keys[index] or not raw[index]:
            continue
        column = header[index] if header and index < len(header) else ""
        if column and _is_position_column(column, question):
            continue  # "Line: 425" says where the name is defined, not what it is
        # "how many requests": a cell that counts no requests does not answer, unless its
        # row's key spells them (`MAX_TOOL_CALLS` | 5 for "the number of tool calls")
        if counted and not (
            counted & term_set(f"{column} {raw[index]}")
            or _COUNTS.match(column)
            or (index and _CONSTANT_KEY.fullmatch(raw[0].strip()) and counted & term_set(raw[0]))
        ):
            continue
        value = _cell_value(raw[index], expectation)
        if value and not _in_question(value, question_norm, set(terms)):
            fit = _fits(value, expectation.kind)
            if fit:
                return Span(value, 0.6 * fit, "first non-key table cell of the type")
    if expectation.kind == "number":
        # "| `map_cc_drop` | Map CC anomaly | Map CC drops by >0.3 in one cycle |": the
        # cell that restates the asked condition carries its threshold
        for index in order:
            match = _NUMBER.search(raw[index]) if keys[index] else None
            if match and not _in_question(match.group(0), question_norm, set(terms)):
                return Span(match.group(0).strip(), 0.5, "number in the row's matching cell")
    return None


COLUMN_OF_VALUE = "the column of the value the question writes"
_PARENTHETICAL = re.compile(r"\s*\([^()]*\)")


def _column_of_written_value(
    raw: list[str],
    header: list[str] | None,
    keys: list[bool],
    question: str,
    expectation: Expectation,
) -> Span | None:
    """ "Which provider uses qwen3:32b for RAG analysis?" over `| Activity | ollama |
    google |` and the row `| RAG analysis | qwen3:32b | gemini-2.5-pro |`: the question
    writes a cell's value and names the row by another cell, so what it asks is the
    column's title, when the titles are the things asked for (no title names the asked
    noun: a "Provider" column would be read as a column)."""
    if not header or not expectation.head or expectation.kind == "number":
        return None
    titles = [clean_inline(h).strip() for h in header]
    if any(expectation.head in term_set(title) for title in titles):
        return None
    question_norm = normalise(question)
    written = [
        index
        for index, cell in enumerate(raw[: len(titles)])
        if index > 0 and _writes_value(_PARENTHETICAL.sub("", clean_inline(cell)), question_norm)
    ]
    named_row = any(keys[i] for i in range(len(raw)) if i not in written)
    if len(written) != 1 or not named_row:
        return None
    if any(_in_question(t, question_norm, _question_words(question)[2]) for t in titles if t):
        return None  # "which ollama model …": the question picks the column, as a lookup
    title = titles[written[0]]
    if not title or _in_question(title, question_norm, _question_words(question)[2]):
        return None
    shape = shape_for(expectation, question)
    if shape is not None and not shape(title):
        return None  # "which class in agent/session.py": the File column is no class
    return Span(title, 0.9, COLUMN_OF_VALUE)


def _writes_value(cell: str, question_norm: str) -> bool:
    """Whether the question writes the cell whole, and the cell is a value (it holds a
    digit or a code character), not a word the question may use for its own sake."""
    whole = normalise(cell).strip(" `'\"")
    return bool(
        whole
        and re.search(r"[\d_.:/]", whole)
        and re.search(rf"(?<![\w.]){re.escape(whole)}(?![\w])", question_norm)
    )


# A column that counts whatever its row names: "| Category | Count |" with the row
# "| Workflow State Validation | 8 |" answers "how many Workflow State Validation checks"
_COUNTS = re.compile(r"\s*(?:count|number|#|n|no\.?|total|how many)\s*$", re.IGNORECASE)


def _cell_named_by_head(
    raw: list[str], keys: list[bool], question: str, expectation: Expectation
) -> Span | None:
    """The name a row's cell gives the asked noun: "| v40 | 2025-01 | Added
    USER_REQUEST_INVALID event type |" answers "which event type did v40 add" with the
    name the cell calls an event type, not with the row's first cell of the kind."""
    heads = (expectation.head, *head_modifiers(question, expectation.head))
    question_norm, _, question_terms = _question_words(question)
    for index, cell in enumerate(raw):
        if keys[index]:
            continue
        for text, position, _ in _candidates(cell, expectation.kind):
            if _named_by_head(cell, position, len(text), *heads) and not _in_question(
                text, question_norm, question_terms
            ):
                return Span(text, 0.8, "table cell naming the asked noun")
    return None


_ABOVE = re.compile(r"\b(?:above|over|exceed\w*|more than|greater than|higher than)\b", re.I)
_BELOW = re.compile(r"\b(?:below|under|less than|lower than|fewer than)\b", re.I)


def _signed_cell(
    raw: list[str], keys: list[bool], expectation: Expectation, question: str
) -> Span | None:
    """ "Above what clashscore should I worry": the row's cell written "> 20", not the
    "per 1000 atoms" of its description — the cell whose sign is the asked direction."""
    if expectation.kind != "number":
        return None
    above, below = _ABOVE.search(question), _BELOW.search(question)
    if bool(above) == bool(below):
        return None
    signs = (">", "≥") if above else ("<", "≤")
    for index, cell in enumerate(raw):
        value = cell.strip("`* ")  # raw: cleaning reads a leading ">" as a quote mark
        if not keys[index] and value.startswith(signs) and _NUMBER.fullmatch(value):
            return Span(value, 0.8, "table cell of the asked direction")
    return None


def _head_column(raw: list[str], header: list[str], expectation: Expectation) -> Span | None:
    """The cell under the column the question's head noun names: "which *category*"
    reads the Category column even when its value ("model") echoes the question's own
    words ("positioned models")."""
    if not header or not expectation.head or expectation.kind == "yes_no":
        return None
    for index, title in enumerate(header[: len(raw)]):
        words = [stem(word) for word in tokens(title)]  # "Value" too, a question word
        if words and words[-1] == expectation.head and raw[index].strip():
            value = _cell_value(raw[index], expectation)
            # "what value does X have" reads the Value column, when it holds a number
            if value and (expectation.kind != "number" or _fits(value, "number")):
                return Span(value, 0.9, f"table column {title!r} {NAMED_COLUMN}")
    return None


@lru_cache(maxsize=64)
def _question_stems(question: str) -> frozenset[str]:
    """Stems of the words the question names (its identifiers whole and in parts)."""
    words = re.findall(r"[a-z][a-z0-9_]*", main_clause(question).lower())
    parts = {p for w in words for p in w.split("_")} | set(words)
    return frozenset(stem(w) for w in parts if w not in STOPWORDS and len(w) > 2)


# "| `map_cc_drop` | 425 | sanity_issue |" under "| Name | Line | Type |": where the
# name is defined, not a value it has
_POSITION_COLUMN = re.compile(r"line|lines|line no\.?|#|row|no\.?|index|id", re.IGNORECASE)


def _is_position_column(title: str, question: str) -> bool:
    """A line-number or index column, when the question does not ask for a line."""
    if re.search(r"\bline\b", question, re.IGNORECASE):
        return False
    return bool(_POSITION_COLUMN.fullmatch(clean_inline(title).strip()))


def _in_position_column(row: str, position: int, header: Sequence[str], question: str) -> bool:
    """Whether a row's cell at `position` sits under a line-number or index column."""
    index = row[:position].count("|") - 1
    return 0 <= index < len(header) and _is_position_column(header[index], question)


# "what prerequisite …": the thing a unit says is required, after its verb
_REQUIREMENT_HEADS = {"prerequisit", "requir", "dependenc", "precondition"}
_REQUIRED = re.compile(
    r"\b(?:[Rr]equires|[Nn]eeds|[Dd]epends on)\s+(?:an?\s+|the\s+)?([^(),.;:\n]{3,60})"
)
_SIDES = {"before", "after", "above", "below", "inside", "outside"}
_SIDE_AFTER_NOUN = re.compile(r"\s*[\w-]+\s+(\w+)")


def _side_of(unit: str, end: int) -> str:
    """The word after a count's noun ("after" in "15 lines after"), lower-cased."""
    found = _SIDE_AFTER_NOUN.match(unit, end)
    return found.group(1).lower() if found else ""


_WORD_VALUE = re.compile(r"\b(?:which|what)\s+([a-z][a-z_-]+)\s+value\b", re.IGNORECASE)


def _asks_the_value_of(name: str, question: str) -> bool:
    """Whether the question asks for a setting's value by that word ("which X value",
    "the value of X", "what value … the X field") rather than for a quantity ("how
    many", "what rate")."""
    named = re.escape(name)
    return not asks_a_quantity(question) and bool(
        re.search(
            rf"{named}`?\s+value\b|\bvalue\s+(?:of|for)\s+(?:the\s+)?`?{named}"
            rf"|\bvalue\b.*?\b{named}`?\s+(?:field|key|attribute|property)\b",
            question,
            re.IGNORECASE,
        )
    )


def _stated_length(unit: str, question: str) -> str | None:
    """The length a unit gives the thing a "how long" question asks about, said of it
    with "is": "Each query is 10-30 words" for "how long should each query be"."""
    subject = _HOW_LONG_SUBJECT.search(main_clause(question))
    if subject is None:
        return None
    words: list[str] = []
    for word in subject.group(1).lower().split():  # up to "be", a preposition or a verb
        if word in STOPWORDS or (words and word.endswith("ed")):
            break
        words.append(word)
    if not words:
        return None
    noun = re.escape(stem(words[-1]))
    said = re.search(
        rf"\b{noun}\w*\s+(?:is|are|should be|must be)\s+(?:at most\s+|up to\s+|about\s+)?"
        rf"([~≈]?\d[\d.,]*(?:\s*[–-]\s*\d[\d.,]*)?[\s-]*{_MEASURE_UNIT})\b",
        unit,
        re.IGNORECASE,
    )
    return said.group(1) if said else None


# "how many of the six bar-exam questions", "how many of its 8 traces": a count out of
# a total the question gives, which a passage writes "4-5/6" or "8/8"
_HOW_MANY_OF = re.compile(
    r"\bhow many of (?:the|its|their|those|these|all)?\s*(?P<total>\d+|[a-z]+)\b", re.IGNORECASE
)


def _share_of_total(unit: str, question: str) -> str | None:
    """The count a unit gives out of the total the question names ("MC accuracy 4-5/6"
    for "how many of the six questions does it get right"), or None."""
    asked = _HOW_MANY_OF.search(question)
    if asked is None:
        return None
    total = _count_of(asked["total"])
    if total is None:
        return None
    found = re.search(rf"(?<![\w./])(\d+(?:\s*[-–]\s*\d+)?)\s*/\s*{total}(?![\w./])", unit)
    return f"{found.group(1)}/{total}" if found else None


def _explicit_span(
    unit: str, question: str, expectation: Expectation, header: Sequence[str] = ()
) -> Span | None:
    """The value the unit binds to the setting the question names, or the count of the
    unit a "how many" question names (`explicit_value`). `header`: a table row's."""
    question_norm, _, question_terms = _question_words(question)
    name = asked_name(question, expectation)
    if name is not None:
        # "which dry_run_scenario value": the setting's value, of any form; "the learning
        # rate of X" still asks for a number
        numeric = expectation.kind == "number" and not _asks_the_value_of(name, question)
        found = bound_value(unit, name, numeric=numeric)
        if (
            found is not None
            and not _in_question(found[0], question_norm, question_terms)
            and not _in_position_column(unit, found[1], header, question)
        ):
            return Span(found[0], 0.95, f"{BOUND} {name}")
    word = _WORD_VALUE.search(question) if name is None else None
    if word is not None:  # "which method value should it pass": `method="json_mode"`
        found = bound_value(unit, word.group(1))
        if found is not None and not _in_question(found[0], question_norm, question_terms):
            return Span(found[0], 0.95, f"{BOUND} {word.group(1)}")
    label = asked_label(question, expectation)
    if label is not None:
        item = labelled_item(unit, label)
        value = _arrow_target(item[0], question_terms) if item is not None else None
        if value is not None and not _in_question(value, question_norm, question_terms):
            return Span(value, 0.95, f"{BOUND} {' '.join(label)}")
    owner = listed_owner(unit, question)
    if owner is not None:  # "which tool lists those segmenters as its dependencies"
        return Span(owner, 0.95, f"{BOUND} the list of the things the question describes")
    ranged = range_value(unit, question)
    if ranged is not None and not _in_question(ranged[0], question_norm, question_terms):
        return Span(ranged[0], 0.95, f"{BOUND} the range {ranged[1]} the question's value is in")
    change = changed_value(unit, question, _question_stems(question))
    if change is not None and not _in_question(change[0], question_norm, question_terms):
        return Span(change[0], 0.95, f"{BOUND} a change the question names")
    share = _share_of_total(unit, question)
    if share is not None:  # "how many of the six questions …": "4-5/6"
        return Span(share, 0.95, f"{COUNTED} out of the question's total")
    condition = asked_condition(unit, question)
    if condition is not None:  # "what TFZ condition": "TFZ < 5", not a noun near it
        return Span(condition, 0.95, f"{BOUND} the quantity the condition names")
    typed = asked_data_type(unit, question)
    if typed is not None:  # "what data type … step_id": "`step_id` is a float"
        return Span(typed, 0.95, f"{BOUND} the identifier whose type is asked")
    length = _stated_length(unit, question) if expectation.kind == "number" else None
    if length is not None and not _in_question(length, question_norm, question_terms):
        return Span(length, 0.95, f"{BOUND} the asked thing, as its length")
    nouns = asked_unit(question) if expectation.kind == "number" else set()
    numbered = numbered_items_count(unit, nouns) if nouns else None
    if numbered is not None:  # "Level 1: …, Level 2: …, Level 3: …" for "how many levels"
        return Span(numbered, 0.95, f"{COUNTED}, its numbered items")
    for match in _FOR_CASE.finditer(unit) if nouns else ():
        if _for_asked_case(match, question_terms):  # "vs 4 for simple"
            return Span(match.group(1), 0.95, f"{COUNTED}, given for the asked case")
    numbers = [*_NUMBER.finditer(unit), *WORD_NUMBER.finditer(unit)] if nouns else []
    found = sorted((m.start(), m.group(0).strip()) for m in numbers)
    counts = [
        (at, text)
        for at, text in found
        if counts_unit(unit, at, text, nouns)
        and not _in_question(text, question_norm, question_terms)
        and not count_of_another_name(unit, at, question)
        # "scored on processing stage (0-100 points)": the scale, not what a thing gets
        and (not _SCALE_SPAN.match(text) or _ASKS_SCALE.search(question))
    ]
    if not counts:
        return None
    # "R-free (40 pts), Map CC (30 pts)" for "how many points does R-free give": the
    # count a question word labels; else the first. A labelled count outranks others.
    terms = set(_question_words(question)[1])
    labels = [_labelled(unit, at, len(text), terms, question_norm) for at, text in counts]
    # "5 lines before and 15 lines after" for "how many lines after": the side asked
    asked_sides = _SIDES & set(question_norm.split())
    sides = [_side_of(unit, at + len(text)) in asked_sides for at, text in counts]
    if not asked_sides:
        both = _both_sides(unit, counts)
        if both is not None:  # "how many lines around the match": both counts
            return Span(both, 0.9, COUNTED)
    best = max(range(len(counts)), key=lambda i: (sides[i], labels[i] > 0, -i))
    return Span(counts[best][1], 0.9 + 0.1 * (labels[best] > 0), COUNTED)


_SIDE_PAIRS = ({"before", "after"}, {"above", "below"}, {"inside", "outside"})


def _both_sides(unit: str, counts: list[tuple[int, str]]) -> str | None:
    """"5 lines before and 15 lines after" whole, when the unit's first two counts of the
    asked unit stand on opposite sides and the question asks for neither side: either
    count alone would be half the answer."""
    if len(counts) < 2:
        return None
    (first, first_text), (second, second_text) = counts[:2]
    sides = {_side_of(unit, first + len(first_text)), _side_of(unit, second + len(second_text))}
    if sides not in _SIDE_PAIRS:
        return None
    end = _SIDE_AFTER_NOUN.match(unit, second + len(second_text))
    return unit[first : end.end()] if end is not None else None


def _shaped_cell(
    raw: list[str],
    header: list[str],
    question: str,
    expectation: Expectation,
    shape: Shape,
) -> Span | None:
    """The row's values of the shape the question asks for ("which environment
    variable"), from the cell that shares most words with the question besides them —
    "(upstream model)" beside a variable says which of the row's variables is asked."""
    question_terms = set(content_terms(question))
    clause_terms = term_set(question)
    if expectation.head == WHEN:  # "when was it done": the Date column says when
        clause_terms = clause_terms | {"date"}
    question_norm = normalise(question)
    best: tuple[float, int, list[str]] | None = None
    for index, cell in enumerate(raw):
        # No key skip: a cell repeating the question ("`ACME_MODEL` (acme's model)")
        # may still hold the asked value; the question's own names are dropped below.
        parts = [
            p
            for p in shaped_parts(cell, shape)
            if not _in_question(p, question_norm, question_terms)
        ]
        if not parts:
            continue
        rest = cell
        for part in parts:
            rest = rest.replace(part, " ")
        said = len(question_terms & term_set(clean_inline(rest)))
        named = _column_score(header[index], clause_terms, expectation.focus) if header else 0.0
        score = said + named
        if best is None or score > best[0]:
            best = (score, index, parts)
    if best is None:
        return None
    return Span(", ".join(best[2]), 0.9, "table cell of the asked shape")


def _fits(value: str, kind: str) -> float:
    if kind == "yes_no":  # a table answers yes or no with a boolean cell only
        return 1.0 if _BOOLEAN.fullmatch(value.strip("` *")) else 0.0
    if kind == "number":
        return 1.0 if _NUMBER.search(value) else 0.0
    if kind in ("identifier", "list"):
        return 1.0 if (_IDENT.search(value) or "`" in value or len(value.split()) <= 3) else 0.3
    return 1.0 if len(value.split()) <= 6 else 0.5


def _cell_value(cell: str, expectation: Expectation) -> str:
    if expectation.asks_default:
        found = _default_value(cell)
        if found:
            return found[0]
    if expectation.kind == "number":
        match = _NUMBER.search(cell)
        if match and len(clean_inline(cell)) > 24:
            return match.group(0).strip()
    return clean_inline(cell)


_FOR_CASE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s+for\s+(?:an?\s+|the\s+)?([A-Za-z][\w-]*)")


def _for_asked_case(match: re.Match[str] | None, terms: AbstractSet[str]) -> bool:
    """Whether a `_FOR_CASE` match gives its number "for" a case the question names
    ("4 for simple"); an identifier after "for" names no case."""
    if match is None or "_" in match.group(2):
        return False
    stems = content_terms(match.group(2))
    return bool(stems) and stems[0] in terms


def _labelled(
    unit: str,
    position: int,
    length: int,
    terms: set[str],
    question: str,
    focus: AbstractSet[str] = frozenset(),
) -> float:
    """How directly a question word names the number: the identifier assigned to it
    (1.0), the case it is given for ("4 for simple", 0.8), the asked thing's own word
    just before or after it (0.8) or another question word there (0.6); else 0. A
    comma, semicolon or line break ends the label's reach: in "to 2.5 Å, wavelength
    0.9792 Å" the word names 0.9792. A word that opens the next `key: value` labels
    that value, not this one ("Clashscore: 12.46 / MolProbity Score: 2.09")."""
    left = re.split(r"[,;\n]", unit[max(0, position - 30) : position])[-1]
    right = re.split(r"[,;\n]", unit[position + length : position + length + 30])[0]
    before = re.findall(r"[A-Za-z][\w-]*", left)[-1:]
    # "3-stage matching": the joined word is what the number counts, not its label
    counting = right.startswith("-") and unit[position : position + length].isdigit()
    next_key = _NEXT_KEY.match(right) is not None
    after = [] if counting or next_key else re.findall(r"[A-Za-z][\w-]*", right)[:1]
    if before and "_" in before[0]:
        if before[0].lower() in question:
            return 1.0
        parts = {t for part in before[0].split("_") for t in content_terms(part)}
        shared = len(parts & terms) / len(parts) if parts else 0.0
        if shared >= 0.6:  # `REFERENCE_TOKEN_BUDGET = 50000` for "the token budget for
            return 0.6 + 0.3 * shared  # reference following": the name says what is asked
    if _for_asked_case(_FOR_CASE.match(unit, position, position + length + 30), terms):
        return 0.8  # "vs 4 for simple": the number of the case the question names
    for word in before + after:
        if "_" in word:
            continue  # another identifier's parts do not name this number
        stems = content_terms(word)
        if stems and stems[0] in terms:
            # `"sites": 4, "wavelength": 1.1158` for "what wavelength … for Fe sites"
            return FOCUS_LABEL if stems[0] in focus else 0.6
    return 0.0


FOCUS_LABEL = 0.8  # a number labelled by the asked thing's own word, over other question words
# what follows a number when a new `key: value` or `key=value` starts there
_NEXT_KEY = re.compile(r"""\s*["'`]?[A-Za-z][\w .-]{0,24}?["'`]?\s*[:=](?!=)""")


_CLOSING_VERB = re.compile(
    r"\b(?:does|do|did|will|would|can|should|must)\s+(?:[\w'’.-]+\s+){1,6}?([a-z]{3,})"
    r"(?:\s+(?:to|from|on|in|into|with|for|at|by|over|against))?\s*\?\s*$",
    re.IGNORECASE,
)


_NO_WH = r"(?:(?!\b(?:what|which|how|who)\b)[^?])"  # a clause that asks nothing
# "… return *once a segmentation tool has already run*?": when it is asked, not what
_WHEN_CLAUSE = re.compile(
    rf",?\s+(?:once|when|whenever|after|before|while|until|if)\s+{_NO_WH}*?"
    rf"\b(?:has|have|had|is|are|was|were|does|do|did)\b{_NO_WH}*(?=\?\s*$)",
    re.IGNORECASE,
)


def _closing_verb(question: str) -> str:
    """The verb that ends a "which X does Y *search*?" question, stemmed, or ''."""
    match = _CLOSING_VERB.search(_WHEN_CLAUSE.sub("", main_clause(question)))
    return stem(match.group(1).lower()) if match else ""


# "detected that it was running …": the clause a verb takes, up to where the sentence turns
_WORD = re.compile(r"(?<![\w`-])[A-Za-z]{3,}(?![\w`-])")
_TAKEN_CLAUSE = re.compile(r"\s+(?:that\s+)?([^.;:()—\n]{8,160}?)\s*(?:[.;:()—]|$)")
_DETERMINER_BEFORE = re.compile(r"\b(?:the|a|an|this|that|its|their)\s*$", re.IGNORECASE)


# An item's action in the imperative, then one value: "- Action: Return None (…)"
_ORDERED = re.compile(
    r"\s*[-*+]?\s*\**(?:action|returns?|output|result|outcome)\**:\s*\**([A-Za-z]+)\s+"
    r"`?(None|True|False|null|[A-Za-z_][\w.]*(?:\(\))?)`?(?=\s*(?:[(.;,]|$))",
    re.IGNORECASE,
)


def _what_the_verb_takes(unit: str, verb: str) -> str:
    """What a unit says the question's closing verb takes: "The agent detected *that it
    was running the same program repeatedly …*" answers "what did the agent detect?".
    Only a past or third-person form counts: the bare one ("the detect step") is too
    often a noun or a label."""
    ordered = _ORDERED.match(unit)
    if ordered and stem(ordered.group(1).lower()) == verb:
        # "- Action: Return None (…)": the item says what it returns, its verb kept
        return f"{ordered.group(1)} {ordered.group(2)}"
    for word in _WORD.finditer(unit):
        written = word.group(0).lower()
        if not written.endswith(("ed", "s")) or stem(written) != verb:
            continue  # a gerund ("Detecting loops is …") names the act, it takes nothing
        if _DETERMINER_BEFORE.search(unit[: word.start()]):
            continue
        taken = _TAKEN_CLAUSE.match(unit, word.end())
        told = taken.group(1).strip(" *`") if taken else ""
        if len(told.split()) >= 3:
            return told
    return ""


def _object_of(unit: str, position: int, verb: str) -> bool:
    """Whether a candidate follows the question's closing verb within two words: the
    verb's object ("Search ChromaDB", "selects the PLAN node")."""
    before = unit[max(0, position - 40) : position]
    words = re.findall(r"(?<![\w_])[A-Za-z]+(?![\w_])", before)[-3:]
    return any(stem(word.lower()) == verb for word in words)


_ARROW = re.compile(r"→|->|=>|⟶")
_ARROW_BEFORE = re.compile(rf"([\w.-]+)`?\s*(?:{_ARROW.pattern})\s*`?$")


# "which level is that value mapped to", "what is X converted into": the value a
# mapping gives, which a passage writes after "mapped to", never the one before it
_MAPPED_TO = rf"\b{MAPPING}\s+(?:(?:it|them|this|that|the value)\s+)?(?:in)?to\s+[`*'\"]*"
_MAPPED_FROM = rf"[`*'\"]*\s+(?:(?:is|are|gets|get|was|were)\s+)?{MAPPING}\s+(?:in)?to\b"
UNMAPPED = 0.5  # a candidate no mapping in its unit names, for a question that asks one


def _mapping_side(unit: str, text: str) -> str:
    """ "to" when a unit writes a candidate as what something is mapped to ("`expert`
    is mapped to `advanced`"), "from" when as what is mapped, else ''. Any of the
    candidate's places counts: a unit may name it before it says the mapping."""
    name = re.escape(text)
    if re.search(rf"{_MAPPED_TO}{name}(?![\w-])", unit, re.IGNORECASE):
        return "to"
    if re.search(rf"(?<![\w-]){name}{_MAPPED_FROM}", unit, re.IGNORECASE):
        return "from"
    return ""


def _named_in(name: str, question_terms: AbstractSet[str]) -> bool:
    """Whether the question names `name` (`Cell_Analyzer` for `Cell_Analyzer_Tool` too)."""
    name = name.strip("`*").lower()
    return name in question_terms or any(t.startswith(f"{name}_") for t in question_terms)


def _arrow_target(item: str, question_terms: AbstractSet[str]) -> str:
    """ "Cell_Analyzer → Visualizer" labelled by what the question names: the name the
    arrow from the question's name points at ("Visualizer"); any other item as it is."""
    parts = [p.strip(" `*") for p in _ARROW.split(item)]
    if len(parts) == 2 and all(parts) and _named_in(parts[0], question_terms):
        return parts[1]
    return item


_AFTER = re.compile(r"`?\s+(?:right\s+|immediately\s+)?(?:after|following)\s+`?([\w.-]+)")


def _runs_after_question_name(
    unit: str, position: int, text: str, question: str, question_terms: AbstractSet[str]
) -> bool:
    """ "Force `Visualizer_Tool` after `Cell_Analyzer_Tool`" for a question about the
    tool forced "after Cell_Analyzer_Tool": the candidate the unit puts after it."""
    found = _AFTER.match(unit, _end_of(unit, text, position))
    if found is None or "_" not in found.group(1):  # a name ("after every cycle" is none)
        return False
    if not _named_in(found.group(1), question_terms):
        return False
    asked_after = rf"\b(?:after|following)\s+`?{re.escape(found.group(1))}"
    return re.search(asked_after, question, re.IGNORECASE) is not None


def _arrow_from_question(unit: str, position: int, question_terms: AbstractSet[str]) -> bool:
    """Whether a candidate is where an arrow from something the question names points
    (`Cell_Analyzer →` for the question's `Cell_Analyzer_Tool` too)."""
    found = _ARROW_BEFORE.search(unit[max(0, position - 60) : position])
    if found is None:
        return False
    return _named_in(found.group(1), question_terms)


NAMED_BY_ASKED_NOUN = "named by the noun asked for"  # Span.how suffix: "status `INDEXED`"
NAMED_BY_HEAD = 0.7  # added to a candidate the asked noun names ("the `PLAN` node")
# nouns that only say a thing is one of a kind: "which residue type" asks for a residue
_CLASSIFIER_HEADS = frozenset({"type", "kind", "sort", "variety"})


_NOUN_THEN_BRACKETS = re.compile(r"\b([A-Za-z]+)\s*\(([^()\n]{1,40})\)")


def _values_after_noun(unit: str, head: str) -> list[tuple[str, int, float]]:
    """What brackets right after the asked noun hold: "detect language (de/en)"
    answers "which languages does it detect" with "de/en"."""
    return [
        (match.group(2).strip(), match.start(2), 1.0)
        for match in _NOUN_THEN_BRACKETS.finditer(unit)
        if stem(match.group(1).lower()) == head and not _ASIDE.match(match.group(2))
    ]


# "(see below)", "(default)", "(in seconds)", "(optional)": a remark, not values
_ASIDE = re.compile(
    r"\s*(?:see|default|in|for|optional|required|if|when|e\.g\.|i\.e\.|etc|only|not)\b|"
    r"(?:\S+\s+){5,}|.*[<>=]",
    re.IGNORECASE,
)


def _head_modifier_words(unit: str, head: str) -> list[tuple[str, int, float]]:
    """Plain words right before the asked noun, with it, as candidates: "Check
    *comparison keywords* first" answers "which keywords are checked first", "Compute
    *MD5 hash*" answers "which hash", "*cctbx licence*" "under what licence". The noun
    stays: "cctbx" alone names a project, not its licence."""
    found = []
    for match in re.finditer(r"(?<![\w`-])([A-Za-z][\w+-]*)(?=\s+([A-Za-z]+)\b)", unit):
        word = match.group(1)
        if stem(match.group(2).lower()) == head and word.lower() not in STOPWORDS:
            found.append((f"{word} {match.group(2)}", match.start(1), 0.6))
    return found


def _named_by_head(unit: str, position: int, length: int, *heads: str) -> bool:
    """Whether the word just before or after a candidate is the noun the question asks
    for (or one of its modifiers): "the `PLAN` node" answers "which node",
    "molecular_replacement phase" answers "which phase"."""
    end = position + length + (unit[position : position + 1] in "`\"'")  # past its quote
    lead = re.search(r"([A-Za-z][\w-]*)([^A-Za-z]*)$", unit[max(0, position - 20) : position])
    # "the `_x` set (`a`, `b`)": what the brackets hold are members of the set, not it
    before = [lead.group(1)] if lead and not re.search(r"[(\[{]", lead.group(2)) else []
    rest = unit[end : end + 80]
    called = re.match(r"\([^()]{0,60}\)", rest)  # "normalize_url(base_url) helper"
    rest = rest[called.end() :] if called else rest
    # "f(base_url) helper": an argument's next word is its function's
    inside = re.match(r"[`\"']?\s*[),]", rest) is not None
    after = [] if inside else re.findall(r"[A-Za-z][\w-]*", rest[:20])[:1]
    # A neighbouring identifier's last part ("Cell_Segmenter_Tool") names nothing.
    return any("_" not in word and stem(word.lower()) in heads for word in before + after)


_WHICH_PHRASE = re.compile(r"\b(?:which|what)\s+((?:[\w-]+[,;:]?\s+){1,3})", re.IGNORECASE)


_FLAGGED_AS = re.compile(
    r"\b(?:flagged|marked|labell?ed|tagged|listed|annotated)\s+as\s+(?:an?\s+)?([A-Za-z][\w-]+)",
    re.IGNORECASE,
)


def head_modifiers(question: str, head: str) -> tuple[str, ...]:
    """Stems of the words between "which" and the asked noun: "mandatory" in "which
    MANDATORY tool", "plan" in "which plan template"."""
    if not head:
        return ()
    match = _WHICH_PHRASE.search(main_clause(question))
    if match is None:
        return ()
    flagged = _FLAGGED_AS.search(main_clause(question))
    if flagged:  # "which tool is flagged as recommended (rather than mandatory)"
        return (stem(flagged.group(1).lower()),)
    words = [stem(w.strip(",;:").lower()) for w in match.group(1).split()]
    if head not in words:
        return ()
    return tuple(w for w in words[: words.index(head)] if w not in STOPWORDS and len(w) > 2)


def identifier_parts(identifier: str) -> set[str]:
    """Stems of an identifier's parts: `Single_Cell_Cropper_Tool` → single, cell, cropp,
    tool; `expert_kb.yaml` → expert, kb, yaml."""
    return {stem(p) for p in re.split(r"[_./:-]+", identifier.lower()) if p}


# Nouns for a name in a record or a call: the name is chosen to say what it holds
_KEY_NOUNS = (
    "key", "field", "attribute", "property", "parameter", "argument", "keyword", "option",
    "flag", "switch",
)  # fmt: skip
_KEY_HEADS = frozenset(stem(n) for n in _KEY_NOUNS)


def _names_asked_word(identifier: str, words: AbstractSet[str]) -> bool:
    """Whether a compound name (`used_citations`) has a part the question asks about
    ("which key lists the citations"): of a record's keys, the one named for it."""
    parts = identifier_parts(identifier.strip("\"'`"))
    return len(parts) >= 2 and bool(parts & words)


def _named_after(identifier: str, focus: Sequence[str]) -> bool:
    """Whether an identifier's parts spell most of the asked thing's words (two at least):
    the file or name made for it."""
    if len(focus) < 2:
        return False
    parts = identifier_parts(identifier)
    return sum(term in parts for term in focus) * 3 >= len(focus) * 2


# a value the unit gives for every case but the one it names: asked only "otherwise"
_OTHERWISE = re.compile(r"[`\"'*]*\s*,?\s*(?:otherwise|else)\b", re.IGNORECASE)
_ASKS_OTHERWISE = re.compile(r"\b(?:otherwise|else|if not|when not|not on)\b", re.IGNORECASE)
_FROM_BEFORE = re.compile(r"\bfrom\s+$", re.IGNORECASE)
_TO_AFTER = re.compile(r"\s+to\s+[~<>≤≥]?\d")
_ARROW_TO_NUMBER = re.compile(r"`?\s*(?:→|->|⟶)\s*`?[~<>≤≥]?\d")
_ASKS_BEFORE = re.compile(
    r"\b(?:from|before|previous(?:ly)?|original(?:ly)?|old|used to|prior|earlier|baseline)\b",
    re.IGNORECASE,
)


def _changed_away_from(unit: str, position: int, length: int) -> bool:
    """Whether the number at `position` is the old side of "from A to B" or "A → B":
    "rate up from 16.9% to 28.1%" is now 28.1%, "bumped the version 5 → 6" is now 6
    (unless the question asks for the earlier value)."""
    end = position + length
    return bool(
        _FROM_BEFORE.search(unit[max(0, position - 6) : position]) and _TO_AFTER.match(unit, end)
    ) or bool(_ARROW_TO_NUMBER.match(unit, end))


# "X is accepted as an alias for Y", "X is the default mode": what X is said to be
_SAID_TO_BE = re.compile(
    r"`?\s*(?:is|are|was|were)\s+(?:(?:now|also|still|only|accepted|used|kept|treated|"
    r"listed|given)\s+){0,2}(?:as\s+)?(?:a|an|the|its|their)\s+([A-Za-z][\w-]*)"
)
# "(real problem — count it)", ": basic morphology" right after an item: its description
_OWN_DESCRIPTION = re.compile(r"`?\s*(?:\(([^()\n]{3,120})\)|:\s+([^,;:()\n]{3,80}))")
# "not model or search_model", "rather than the ticket": an alternative the text rules out
_RULED_OUT = re.compile(
    r"\b(?:not|rather than|instead of)\s+(?:(?:a|an|the)\s+)?"
    r"(?:`?[\w.-]+`?,?\s+(?:or|nor)\s+)?`?$",
    re.IGNORECASE,
)
_RULED_OUT_IN_QUESTION = re.compile(
    r"\b(?:rather than|instead of|not)\s+((?:[\w-]+\s*){1,3})", re.IGNORECASE
)
_NEGATION = re.compile(r"\b(?:not|never|no|instead|rather)\b|n['’]t\b", re.IGNORECASE)


# "one LLM call per cycle, unless use_rules_only=True is set, in which case there are
# zero": the value before "unless" holds except in the named case, the one after "in
# which case" holds in it
_UNLESS = re.compile(
    r"\bunless\s+(?P<case>[^,;.()]{3,80}?)(?:\s+is\s+(?:set|given|on|used))?"
    r"(?=\s*(?:[,;.()]|$))(?P<exception>\s*,\s*in which case\b)?",
    re.IGNORECASE,
)
UNLESS_NAMED = ", said for the case the question names"
UNLESS_RULE = 0.3  # a value said to hold except in the case the question names


def _named_unless(unit: str, question_norm: str) -> re.Match[str] | None:
    """The unit's "unless X" whose X the question names, or None."""
    for match in _UNLESS.finditer(unit):
        case = normalise(match.group("case")).strip(" `'\"")
        terms = content_terms(case)
        if case in question_norm or (terms and all(t in question_norm for t in terms)):
            return match
    return None


@lru_cache(maxsize=64)
def _question_negations(question: str) -> tuple[bool, frozenset[str]]:
    """Whether the question negates anything, and the words it rules out ("recommended
    *rather than mandatory*"). Cached: read once per question, not once per unit."""
    ruled_out = {t for m in _RULED_OUT_IN_QUESTION.finditer(question) for t in content_terms(m[1])}
    return bool(_NEGATION.search(question)), frozenset(ruled_out)


def _end_of(unit: str, text: str, position: int) -> int:
    """Where a candidate ends in its unit (a code span's position is its backtick)."""
    at = unit.find(text, position)
    return (at if at >= 0 else position) + len(text)


def _said_to_be_head(unit: str, end: int, head: str) -> bool:
    """Whether the text right after a candidate says it is the asked kind of thing."""
    said = _SAID_TO_BE.match(unit, end)
    return said is not None and stem(said.group(1).lower()) == head


def _descriptions_as_asked(
    unit: str,
    candidates: list[tuple[str, int, float]],
    question: str,
    question_terms: AbstractSet[str],
) -> dict[int, float]:
    """{position: share of its description's words the question uses} for candidates
    with a description of their own (a parenthesis or a colon right after them), when at
    least two have one: an enumeration of described items, where the description says
    which item is asked for. A lone parenthesis ("(3 levels total)") describes nothing."""
    # "recommended rather than mandatory": a word the question rules out asks for nothing
    question_terms = question_terms - _question_negations(question)[1]
    shares = {}
    for text, position, _ in candidates:
        described = _OWN_DESCRIPTION.match(unit, _end_of(unit, text, position))
        words = content_terms(described.group(1) or described.group(2)) if described else []
        if words:
            shares[position] = sum(w in question_terms for w in words) / len(words)
    return shares if len(shares) >= 2 else {}


def _ruled_out(unit: str, position: int) -> bool:
    """Whether the text rules a candidate out just before it ("not X or Y")."""
    return _RULED_OUT.search(unit[max(0, position - 40) : position]) is not None


def from_sentence(
    unit: str, question: str, expectation: Expectation, exclude: frozenset[str] = frozenset()
) -> Span | None:
    """The best span of the expected type in a sentence or list item. "One LLM call per
    cycle, unless use_rules_only=True is set, in which case zero" asked with
    use_rules_only=True answers with what follows "in which case"; a value said to hold
    unless the case the question names holds counts for less."""
    unless = _named_unless(unit, _question_words(question)[0])
    if unless is not None and unless["exception"]:
        told = _from_sentence(unit[unless.end() :], question, expectation, exclude)
        if told is not None:
            return replace(told, score=told.score + 0.5, how=told.how + UNLESS_NAMED)
    span = _from_sentence(unit, question, expectation, exclude)
    if span is not None and unless is not None:
        return replace(span, score=span.score * UNLESS_RULE)
    return span


def _named_subject(
    unit: str, question: str, expectation: Expectation, exclude: frozenset[str]
) -> Span | None:
    """For a question that asks which thing does or is something: the name the unit
    writes before the question's own predicate (`predicate_subject`), else the one name
    whose note says it (`annotated_subject`); None when neither names one not excluded."""
    if expectation.kind not in ("name", "identifier", "phrase") or expectation.head in ("", WHEN):
        return None
    readings = (
        (predicate_subject, PREDICATE_SUBJECT),
        (annotated_subject, ANNOTATED_SUBJECT),
    )
    for read, how in readings:
        name = read(unit, question, expectation.head)
        if name is not None and name.lower() not in exclude:
            return Span(name, 1.0, how)
    return None


# "sets `thinking_level=expert`, `create_initial_state()` maps it to `advanced`": what
# the bridge is turned into is its value where the asked thing runs
_MAPPED_VALUE = re.compile(rf"{_MAPPED_TO}([A-Za-z][\w.-]*)", re.IGNORECASE)


def _mapped_value(unit: str, bridge: str) -> tuple[str, int] | None:
    """The value a unit says the bridge is mapped to after naming it, and where."""
    named = find_name(bridge, unit)
    mapped = _MAPPED_VALUE.search(unit, named.end()) if named is not None else None
    if mapped is None:
        return None
    return mapped.group(1).rstrip("."), mapped.start(1)


KEY_OF_NAMED_VALUE = "the key of the entry that lists the value the question names"
# `"phenix.resolve_cryo_em": ["ncs_file"]`: a mapping's entry, its key and its list
_LISTED_ENTRY = re.compile(r"[\"'`]([\w.:/-]+)[\"'`]\s*:\s*\[([^\]]*)\]")
_QUOTED_ITEM = re.compile(r"[\"'`]([^\"'`]{4,})[\"'`]")


def _key_listing_named_value(unit: str, question: str, expectation: Expectation) -> str | None:
    """ "For which program was ncs_file added to the list?" over `"phenix.resolve_cryo_em":
    ["ncs_file"]`: the key whose list holds a value the question writes, when the
    question does not write the key; None when no entry lists one."""
    if expectation.kind not in ("name", "identifier"):
        return None
    asked = question.lower()
    for entry in _LISTED_ENTRY.finditer(unit):
        key = entry.group(1)
        if key.lower() in asked:
            continue
        listed = (m.group(1) for m in _QUOTED_ITEM.finditer(entry.group(2)))
        if any(find_name(v, question) for v in listed):
            return key
    return None


TITLED_NAME = "a proper name that carries the asked noun"
_CODE_KINDS = frozenset(
    stem(k) for k in ("tool", "program", "function", "method", "module", "class", "file",
                      "node", "model", "variable", "setting", "parameter", "field",
                      "provider", "template", "step", "phase", "mode", "flag", "option")
)  # fmt: skip
# "Lawrence Berkeley National Laboratory", "University of California": capitalised
# words, joined by a few lower-case ones
_TITLED = re.compile(r"[A-Z][\w&-]*(?:\s+(?:(?:of|and|for|the|de)\s+)?[A-Z][\w&-]*){1,6}")


def _titled_name(unit: str, expectation: Expectation) -> str | None:
    """ "Which national laboratory …": the proper name in the unit whose own words
    include the asked noun, capitalised ("… BSD-style, Lawrence Berkeley National
    Laboratory"); None when the unit has none or the asked noun is no plain word."""
    head = expectation.head
    if expectation.kind not in ("phrase", "name") or len(head) < 4 or not head.isalpha():
        return None
    if head in _CODE_KINDS:  # "which tool": `Cell_Cropper_Tool`, not "Cell Cropper Tool"
        return None
    for match in _TITLED.finditer(" ".join(unit.split())):
        words = match.group(0).split()
        if any(w[:1].isupper() and stem(w.lower()) == head for w in words[1:]):
            return match.group(0)
    return None


ALIGNED_CELL = "the cell of a space-aligned table under the column the question names"
_CELL_GAP = re.compile(r"\s{2,}")


def _aligned_cell(
    unit: str, chunk_text: str, question: str, expectation: Expectation
) -> str | None:
    """A report printed as a space-aligned table ("Metric  Value  Assessment" over
    "Clashscore  12.5  Acceptable"), which the unit holds with its line breaks read as
    spaces: the cell of the row the question names by its first cell, under the column
    the asked noun names by its title ("what assessment … for the clashscore"); None
    when the unit is no such table or the question names no row and column of it."""
    asked = term_set(question)
    wanted = {expectation.head, *expectation.focus} - {""}
    lines = chunk_text.splitlines()
    squashed = " ".join(unit.split())
    for index, line in enumerate(lines):
        header = _CELL_GAP.split(line.strip())
        if len(header) < 3 or any(ch.isdigit() for ch in line) or " ".join(header) not in squashed:
            continue
        columns = [i for i, title in enumerate(header[1:], 1) if term_set(title) & wanted]
        if len(columns) != 1:
            continue
        for row_line in lines[index + 1 :]:
            if not row_line.strip():
                break
            row = _CELL_GAP.split(row_line.strip())
            key = term_set(row[0])
            if len(row) == len(header) and key and key <= asked and " ".join(row) in squashed:
                return row[columns[0]]
    return None


BETWEEN = "the items a sequence lists between the two the question names"
_BETWEEN = re.compile(
    r"\bbetween\s+(?:the\s+)?[`'\"]?([\w.-]+?)[`'\"]?\s+(?:\w+\s+)?and\s+(?:the\s+)?"
    r"[`'\"]?([\w.-]+?)[`'\"]?(?:\s+\w+)?\s*[?,.]?$",
    re.IGNORECASE,
)
_SEPARATOR = r"(?:,|→|->|=>|⇒|\bthen\b)"
_SEQUENCE_SEPARATOR = re.compile(rf"\s*{_SEPARATOR}\s*")
_OPENS_WITH_SEPARATOR = re.compile(rf"[`'\"*]*\s*{_SEPARATOR}")
_ENDS_WITH_SEPARATOR = re.compile(rf"{_SEPARATOR}\s*[`'\"*]*$")
MAX_BETWEEN = 3  # more items between the two named is a stretch, not what "which X" asks


def _between_named(unit: str, question: str) -> str | None:
    """ "Which phase comes between check_map and ready_to_refine?": the items a
    sequence in the unit ("…, check_map, optimize_map, ready_to_refine, …" or
    "a → b → c") lists between the two names, in order; None when the unit does not
    list both in that order with only separated items between them."""
    asked = _BETWEEN.search(question)
    if asked is None:
        return None
    first, second = (re.escape(name) for name in asked.groups())
    found = re.search(
        rf"(?<![\w.-]){first}(?![\w-])(.{{1,200}}?)(?<![\w.-]){second}(?![\w-])",
        unit,
        re.IGNORECASE | re.DOTALL,
    )
    if found is None:
        return None
    middle = found.group(1)
    if not (_OPENS_WITH_SEPARATOR.match(middle) and _ENDS_WITH_SEPARATOR.search(middle)):
        return None  # "check_map (run first) and ready_to_refine": no sequence of items
    items = [item.strip(" `'\"*()") for item in _SEQUENCE_SEPARATOR.split(middle)]
    items = [item for item in items if item]
    if not 1 <= len(items) <= MAX_BETWEEN or any(len(item.split()) > 3 for item in items):
        return None
    return ", ".join(items)


# `a`, `b`, or `c`: code spans one enumeration lists, however its last item is joined
_ITEM_JOIN = r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)"
_CODE_ENUMERATION = re.compile(rf"`[^`\n]+`(?:{_ITEM_JOIN}`[^`\n]+`)+")


def _whole_enumeration(unit: str, codes: list[str]) -> list[str]:
    """The listed code spans with the items of their enumeration the question happens
    to write: "a file named `README`, `README.txt`, or `README.md`" answers "which
    README file names" with all three, not without the one the question repeats."""
    for found in _CODE_ENUMERATION.finditer(unit):
        items = re.findall(r"`([^`\n]+)`", found.group(0))
        if set(codes) <= set(items):
            return list(dict.fromkeys(items))
    return codes


# "(`a`, `b` for X-ray; `a`, `c` for cryo-EM)": groups of a list, each for one case
_QUALIFIED_GROUP = re.compile(
    r"(?P<items>[^;()]+?)\s+for\s+(?P<case>[\w-]+(?:\s+[\w-]+)?)\s*(?=[;)]|$)"
)


def _case_words(case: str) -> set[str]:
    """Stems of a case's words, a compound by its parts ("cryo-EM": cryo, em)."""
    return {stem(t) for t in tokens(case.lower()) if "-" not in t}


def _group_for_asked_case(unit: str, codes: list[str], question_terms: set[str]) -> list[str]:
    """The listed code spans of the one group whose case the question names ("which
    programs … on a cryo-EM job": the group "for cryo-EM"), when the unit splits its
    list into groups by case; else all of them."""
    groups = list(_QUALIFIED_GROUP.finditer(unit))
    if len(groups) < 2:
        return codes
    asked = [g for g in groups if _case_words(g["case"]) <= question_terms]
    if len(asked) != 1:
        return codes
    return [c for c in codes if c in asked[0]["items"]] or codes


def _from_sentence(
    unit: str, question: str, expectation: Expectation, exclude: frozenset[str]
) -> Span | None:
    question_norm, terms, question_terms = _question_words(question)
    shape = shape_for(expectation, question)
    explicit = _explicit_span(unit, question, expectation)
    if explicit is not None and _tells_the_asked(explicit, expectation, shape):
        return explicit
    between = _between_named(unit, question) if expectation.kind != "number" else None
    if between is not None:
        return Span(between, 1.0, BETWEEN)
    if expectation.asks_default and expectation.kind == "yes_no":
        state = default_state(unit)  # "When checked (default), …": is it on by default?
        if state is not None:
            return Span(yes_or_no(state, question), 0.85, "marked default")
    if expectation.asks_default:
        found = _default_value(unit)
        fits = shape is None or shape(found[0]) if found else False
        if found and expectation.kind == "yes_no" and not _BOOLEAN.fullmatch(found[0]):
            bound = _bound_boolean(found[0], question_terms)
            if bound is not None:  # "`preprocess_advice=True` (default)"
                return Span(yes_or_no(bound, question), 0.85, "marked default")
            fits = False  # "is it on by default?" is not answered by "default: a fresh …"
        if found and fits and not _in_question(found[0], question_norm, question_terms):
            return Span(found[0], 0.85, "marked default")
    if expectation.kind == "phrase" and expectation.head in _REQUIREMENT_HEADS:
        required = _REQUIRED.search(unit)  # "`ligandfit`: Requires prior refinement (for …)"
        if required is not None:
            return Span(required.group(1).strip(), 0.8, "what the unit says is required")
    if expectation.kind == "manner":
        return None  # what happens is told by the whole sentence, not a name in it
    verb = _closing_verb(question) if expectation.kind != "number" else ""
    if expectation.kind == "phrase" and verb and not expectation.head:
        told = _what_the_verb_takes(unit, verb)  # "what did the agent detect?"
        if told:
            return Span(told, 0.8, TAKEN)
    if expectation.kind == "yes_no":
        if _negates_asked_word(unit, terms):
            return Span("No", 0.6, "the asked word negated")
        if _withholds_asked_thing(unit, terms):  # "… drop `temperature`" for "is it sent?"
            asks_withheld = _WITHHOLDS.search(question) is not None
            return Span("Yes" if asks_withheld else "No", 0.6, "the asked thing withheld")
        if _YES.search(unit) and not _NO.search(unit):
            return Span("Yes", 0.6, "affirmative sentence")
        if _NO.search(unit):
            return Span("No", 0.5, "negative sentence")
        return None
    kind = "number" if expectation.kind == "number" else expectation.kind
    modifiers = head_modifiers(question, expectation.head)
    # "which hash algorithm": an arrow from "hash" points at what follows the hash, not
    # at the algorithm, so the asked noun and its modifiers start no arrow that answers
    asked = {expectation.head, *modifiers}
    arrow_sources = frozenset(t for t in question_terms if stem(t) not in asked)
    asks_test = "test" in question_terms
    counted = asked_unit(question) if kind == "number" else set()
    measured_only = kind == "number" and not counted and expectation.head in _NEVER_COUNTS
    asks_version = bool(_ASKS_VERSION.search(question))
    required_of = required_product(question)
    bounds_asked = bool(_ASKS_BOUND.search(question))
    asking = main_clause(question)
    asks_duration = kind == "number" and bool(_ASKS_DURATION.search(asking))
    asks_length = kind == "number" and bool(_HOW_LONG.search(asking))
    asks_count = kind == "number" and bool(re.search(r"\bhow many\b", asking, re.IGNORECASE))
    # a rate asked of a unit that gives percentages is one of them ("a learning rate"
    # elsewhere may be 0.001, so only where the unit writes a percentage)
    asks_share = kind == "number" and bool(_ASKS_SHARE.search(asking)) and "%" in unit
    asks_earlier = bool(_ASKS_BEFORE.search(asking))
    anchors = _anchors(unit, terms)
    negates = _question_negations(question)[0]
    asks_otherwise = bool(_ASKS_OTHERWISE.search(question))
    asks_elapsed = kind == "number" and bool(_ASKS_ELAPSED.search(asking))
    asks_target = bool(ASKS_MAPPED_TARGET.search(question))
    bound_here = values_bound_to_question_names(
        unit, question, question_terms, numeric=kind == "number", focus=set(expectation.focus)
    )
    key_named = kind == "identifier" and expectation.head in _KEY_HEADS
    key_words = frozenset(terms) - {expectation.head, *modifiers} if key_named else frozenset()
    best: Span | None = None
    seen: set[str] = set()
    candidates = _candidates(
        unit, kind, bool(_ASKS_SCALE.search(question)), bool(_ASKS_LINES.search(question))
    )
    setting = kind == "identifier" and asks_assignment(question)
    labels = quoted_phrases(question) if kind == "identifier" else []
    assignments = _assignments(unit, question_terms) if setting else []
    if assignments:  # the whole `name=value` is asked for, not the value bound to the name
        bound_here = {}
        candidates += assignments
    if kind != "number":  # `TIMEOUT = getenv("TIMEOUT", "120")`: a default of any form;
        # a number names no program or model ("max_refine_cycles=1" for "which program")
        if kind != "default":
            bound_here = {at: v for at, v in bound_here.items() if not _NUMBER.fullmatch(v)}
        # a name the question writes may also be a key elsewhere in the unit ('"A": ["B"],
        # "C": ["A"]'): only where the asked name binds it does it answer
        bound_texts = {text.lower() for text in bound_here.values()}
        candidates = [
            c for c in candidates if c[0].lower() not in bound_texts or c[1] in bound_here
        ]
        candidates += [(text, at, 1.0) for at, text in bound_here.items()]
    if expectation.head and kind != "number":
        # "which languages": plain values (a code name is asked by its own form); the
        # brackets after "the `_seed` set" hold its members, not what "which set" asks
        plural = re.search(rf"\b{re.escape(expectation.head)}\w*s\b", question_norm)
        bracketed = (
            _values_after_noun(unit, expectation.head)
            if kind in ("phrase", "list") and plural
            else []
        )
        if bracketed and not _in_question(bracketed[0][0], question_norm, question_terms):
            return Span(bracketed[0][0], 0.9, f"in brackets, {NAMED_BY_ASKED_NOUN}")
        candidates += _head_modifier_words(unit, expectation.head)
        if expectation.head in _CLASSIFIER_HEADS:  # "which residue type": "Met residues"
            for modifier in modifiers:  # named by the asked noun: above an unnamed code span
                candidates += [
                    (text, at, fit + NAMED_BY_HEAD)
                    for text, at, fit in _head_modifier_words(unit, modifier)
                ]
    if shape in PLAIN_WORD_SHAPES:  # "in orange text" for "what color"
        candidates += [(part, unit.find(part), 0.5) for part in shaped_parts(unit, shape)]
    if asks_who(expectation, question):  # "Tom's run … was ignored" for "who set it":
        # where a sentence names a person, not what its capitals or code spans name
        candidates = [(name, at, 0.8) for name, at in people_named(unit)]
    if expectation.head in ("date", WHEN):  # "until when …": "until 2026-08", "May 20, 2026"
        candidates += [(m.group(0), m.start(), 0.5) for m in DATE.finditer(unit)]
    if expectation.kind == "list":
        counted_list = _enumerated_list(unit, question)
        if counted_list:
            return Span(", ".join(counted_list), 1.0, COUNTED_LIST)
        codes = [
            c
            for c, _, fit in candidates
            if fit >= 1.0 and not _in_question(c, question_norm, question_terms)
        ]
        codes = _group_for_asked_case(unit, list(dict.fromkeys(codes)), question_terms)
        if len(codes) >= 2 and len(codes) == _asked_count(question):
            # "Used by `a`, `b`, and `c`" for "which three programs": the count says so
            return Span(", ".join(codes), 1.0, COUNTED_LIST)
        if len(codes) >= 2:
            return Span(", ".join(_whole_enumeration(unit, codes)), 0.8, "list of code spans")
    described = (
        _descriptions_as_asked(unit, candidates, question, question_terms)
        if kind != "number"
        else {}
    )
    for text, position, fit in candidates:
        key = text.lower()
        if key in seen or key in exclude or _in_question(text, question_norm, question_terms):
            continue
        if expectation.asks_default and "default" in key:
            continue  # default_model_for_provider names defaults, it is not one
        if kind == "number" and count_of_another_name(unit, position, question):
            continue  # "`other_name` (9 patterns)": the 9 is another thing's
        if counted and counts_another_noun(unit, position + len(text), counted):
            continue  # "61 tutorials" does not answer how many patterns
        if measured_only and (
            _counts_things(unit, position + len(text), terms) or _A_DATE.fullmatch(text)
        ):
            continue  # "20K passages" or "2026-02-23" is no sampling temperature
        if kind == "number" and VERSION_TOKEN.fullmatch(text) and not asks_version:
            continue  # "v112.78" names a release; it counts or measures nothing
        if (asks_length or asks_count) and _BARE_FRACTION.fullmatch(text):
            continue  # "how long do answers stay cached", "how many times": ">= 0.92" is a
            # score, no time and no count
        if required_of and not _written_after(unit, position, required_of):
            continue  # "the minimum Python version": "Python 3.10", never the agent's "v114"
        if counted and _measures_another_thing(text, counted):
            continue  # "~14s" does not answer how many tests
        if counted and _BOUND_SIGN.match(text) and not bounds_asked:
            continue  # "length <= 25" bounds a length; it counts no phrases
        if kind == "number" and _premise_count(unit, position, text, question):
            continue  # "2+ consecutive cycles" is what "two consecutive cycles" asks about
        seen.add(key)
        if key.startswith("test_") and not asks_test:
            fit *= 0.3  # a test of a check is not the check, unless tests are asked for
        if names_a_file_instead(text, expectation):
            fit *= 0.25  # "which function writes the summary": not `summary.json`
        if verb and _object_of(unit, position, verb):
            fit += 0.4  # "Search ChromaDB collection" for "which database does it search?"
        mapped = _mapping_side(unit, text) if asks_target else ""
        headed = False
        if mapped == "to":
            fit += 0.6  # "`expert` is mapped to `advanced`": the value it becomes
        elif mapped == "from":
            fit *= 0.3  # … and not the value it is mapped from
        elif _arrow_from_question(unit, position, arrow_sources):
            fit += 0.6  # "initial_refinement → molecular_replacement": where the asked thing goes
        elif _runs_after_question_name(unit, position, text, question, question_terms):
            fit += 0.6  # "Force `Visualizer_Tool` after `Analyzer_Tool`"
        elif position in bound_here:  # '"a.b": ["c"]', `EMBED_TIMEOUT', '120'`: what the
            fit += 0.6  # name the question writes or spells holds
        elif labels and _spells_a_label(text, labels):
            fit += 0.6  # `remove_last_n` is the parameter of the "Remove last N cycles" option
        if kind == "number":
            # "TODO_MAX_ITEMS = 15", "wavelength 0.9792", "4 collections": the asked thing's number
            fit += _labelled(
                unit, position, len(text), set(terms), question_norm, set(expectation.focus)
            )
            joined = _COMPOUND_AFTER.match(unit, position + len(text))
            if joined and text.isdigit() and not counted:
                fit *= COMPOUND_MODIFIER  # "3-stage matching" describes, it is no setting
            if asks_duration and _DURATION.search(text):
                fit += 0.4  # "how long is the timeout": "30-second", not "(2)"
            elif asks_elapsed:
                fit *= 0.3  # "how long did the run take": "54s", not the "(6/6)" beside it
            elif asks_length and _LENGTH.search(text):
                fit += 0.4  # "how long should each query be": "10-30 words"
            if asks_share and not _PERCENT.search(text):
                fit *= 0.3  # "what was the failure rate": "28.1%", not "(720 runs)"
            if not asks_earlier and _changed_away_from(unit, position, len(text)):
                fit *= 0.3  # "up from 16.9% to 28.1%": the value it became, unless the old is asked
            if _ordinal_item(unit, position, expectation.head):
                if expectation.head in _MEASURED_HEADS:
                    continue  # "what tolerance …": "(Tier 1)" numbers a tier, it measures nothing
                fit *= ORDINAL_LABEL  # "Tier 2 — … >80% overlap": the 2 numbers a tier
        elif expectation.head and _named_by_head(unit, position, len(text), expectation.head):
            fit += NAMED_BY_HEAD  # named by the noun asked for: above any unnamed code span
            # … unless a mapping is asked: "the default `expert` level" is mapped from
            headed = not asks_target and tagged_by_asked_noun(
                unit, position, len(text), question, expectation.head
            )
        elif expectation.head and _said_to_be_head(
            unit, _end_of(unit, text, position), expectation.head
        ):
            fit += 0.6  # "`debug` is accepted as an alias for verbose" for "which alias"
        elif modifiers and _named_by_head(unit, position, len(text), *modifiers):
            fit += 0.5  # "Cropper_Tool (MANDATORY)" for "which MANDATORY tool"
        if kind != "number" and _given_for_asked_case(unit, position, len(text), question_terms):
            fit += 0.5  # "(a, b for X-ray; a, c for cryo-EM)": c, when cryo-EM is asked
        if position in described:
            # "INPUT_ERROR (agent's fault) vs REAL_FAILURE (real problem)": of items each
            # with its own description, the one whose description the question repeats
            top_share = max(described.values())
            fit = fit + 0.5 * top_share if described[position] == top_share > 0 else fit * 0.5
        if _OTHERWISE.match(unit, position + len(text)) and not asks_otherwise:
            fit *= 0.3  # 'returns "synthesize" on retry, "attribute_sources" otherwise'
        if not negates and _ruled_out(unit, position):
            fit *= 0.3  # "in the generic cif category — not model or search_model"
        if kind == "identifier" and _named_after(text, expectation.focus):
            fit += 0.5  # `expert_knowledge_base_v2.yaml` for "where is the expert knowledge base"
        elif key_named and _names_asked_word(text, key_words):
            fit += 0.4  # "which key lists the citations": `used_citations`, not `type`
        if shape is not None:  # the asked head fixes the form: "bi-encoder" is no model
            fit = fit + 0.6 if shape(text) else fit * 0.25
        if asks_target and not mapped:
            fit *= UNMAPPED  # "levels: `none`, `basic`, …" lists values, it maps none
        if expectation.head not in _TYPE_HEADS and _annotated_type(unit, position):
            fit *= 0.3  # `-> list[WebResult]`: the signature's type, not the service it calls
        score = fit * (0.4 + 0.6 * _proximity(unit, position, anchors))
        if best is None or score > best.score:
            if kind == "number" and text.isdigit():  # "2-space indentation": the 2 is of spaces
                text += _unit_joined(unit, position + len(text))
            how = f"span of type {kind}" + (f", {NAMED_BINDING}" if position in bound_here else "")
            how += f", {NAMED_BY_ASKED_NOUN}" if headed else ""
            best = Span(text.rstrip(".,;:"), score, how)
    return best


_ASKS_VERSION = re.compile(r"\b(?:version|release|v\d)", re.IGNORECASE)
# "the minimum Python version required", "which version of Coot does the guide recommend":
# a version another product must have
_PACKAGE = r"(?:package|library|module|client|sdk|extension|plugin|binary)"
_PRODUCT_VERSION = (
    re.compile(r"\bversion of\s+(?:the\s+)?([A-Z][\w.+-]*)"),
    re.compile(r"\b([A-Z][\w.+-]*)\s+version\b"),
    # "the minimum version of the flashrank package": a package named in lower case
    re.compile(rf"\bversion of\s+(?:the\s+)?`?([a-z][\w.+-]*)`?\s+{_PACKAGE}\b", re.I),
    re.compile(rf"\b`?([a-z][\w.+-]*)`?\s+{_PACKAGE}\s+version\b", re.I),
)
_REQUIREMENT = re.compile(
    r"\b(?:minimum|required|requires?|recommend(?:s|ed)?|supported|needed|compatible)\b", re.I
)


_NOT_PRODUCTS = {"which", "what", "minimum", "maximum", "required", "recommended", "latest",
                 "current", "oldest", "newest", "supported", "compatible"}  # fmt: skip


@lru_cache(maxsize=64)
def required_product(question: str) -> str:
    """The product whose version a requirement question asks for ('Python'), or ''.
    Cached: `from_sentence` asks it for every unit read against the question."""
    if not _REQUIREMENT.search(question):
        return ""
    for pattern in _PRODUCT_VERSION:
        for product in pattern.finditer(question):
            name = product.group(1)
            if name.lower() not in STOPWORDS | _NOT_PRODUCTS:  # "Which version"
                return name
    return ""


def _written_after(unit: str, position: int, name: str) -> bool:
    """Whether `name` stands right before `position` ("Python 3.10", "Coot version 0.9")."""
    before = unit[max(0, position - len(name) - 12) : position]
    return bool(re.search(rf"\b{re.escape(name)}\W{{0,3}}(?:version\W{{0,3}})?$", before, re.I))


# What a number's own suffix measures: a duration, a size, a share, a scale factor.
_MEASURE_SUFFIX = re.compile(
    r"[\d.]\s*(%|Å|MB|GB|KB|ms|s|seconds?|minutes?|hours?|days?|weeks?|months?|years?|"
    r"bytes?|×)$"
)
_SPELLED_OUT = {"s": "seconds", "ms": "milliseconds", "%": "percent", "×": "times"}


def suffix_measures(text: str) -> str | None:
    """The stem of the unit a number's own suffix measures ("91s" → "second"), or None:
    the span names the unit a "how many seconds" question asks, though no word does."""
    measure = _MEASURE_SUFFIX.search(text.strip())
    if measure is None:
        return None
    return stem(_SPELLED_OUT.get(measure.group(1), measure.group(1)).lower())
_COUNT_SUFFIX = re.compile(r"\d\s*-?\s*([A-Za-z]{3,})$")  # "12 templates", "10-30 words"
_BOUND_SIGN = re.compile(r"[<>≤≥]")
# "how many retries at most", "how many cycles must pass before": a bound may answer
_ASKS_BOUND = re.compile(
    r"\b(?:most|least|max(?:imum)?|min(?:imum)?|limit|cap|up to|more than|fewer than|less than|"
    r"before|exceeds?|over|under|above|below|threshold|allowed)\b",
    re.IGNORECASE,
)


# a fraction, or a range of them ("0.67-0.70"): a score or ratio, never a whole count
_FRACTIONAL = re.compile(r"[~≈]?\d*\.\d+(?:\s?[-–]\s?\d*\.\d+)?")
# nouns whose "how many" a fraction may answer ("how many seconds": 0.5)
_MEASURED_NOUNS = frozenset(
    stem(noun)
    for noun in (
        "seconds", "minutes", "hours", "days", "milliseconds", "percent", "angstroms",
        "units", "points", "megabytes", "gigabytes", "times", "dollars",
    )
)  # fmt: skip


# "def web_search(query: str) -> list[" before a name: the name is a type annotation
_SIGNATURE_BEFORE = re.compile(r"\bdef\s+\w+\(.*(?:->|:)\s*(?:[\w.]+\[)*$")
_TYPE_HEADS = frozenset(stem(w) for w in ("type", "class", "return", "annotation", "model"))


def _annotated_type(unit: str, position: int) -> bool:
    """Whether the span at `position` is a type in a function signature (`-> list[X]`,
    `query: X`): what the function takes or returns, not what it uses or calls."""
    line_start = unit.rfind("\n", 0, position) + 1
    return _SIGNATURE_BEFORE.search(unit[line_start:position]) is not None


def _spells_a_label(text: str, labels: list[str]) -> bool:
    """Whether a code name spells the first words of a label the question quotes:
    `remove_last_n` for "Remove last N cycles", `max_cycles` for "Max cycles" — a
    setting's parameter named after its label in the interface."""
    parts = [p for p in re.split(r"[_.-]+", text.split("=", 1)[0].strip("` ").lower()) if p]
    if len(parts) < 2:
        return False
    return any(label.split()[: len(parts)] == parts for label in labels)


def _measures_another_thing(text: str, counted: AbstractSet[str]) -> bool:
    """Whether a number span's own suffix counts or measures something other than the
    asked noun: "how many tests" is not answered by "~14s" (a duration) nor "how many
    R-free values" by "5 cycles". A magnitude ("30B") and the asked noun's own suffix
    ("32 tests") still answer; a joined word ("a 56-entry base") may be a synonym."""
    if _FRACTIONAL.fullmatch(text) and not counted & _MEASURED_NOUNS:
        return True  # "0.9810" counts no documents: things are counted whole
    measure = _MEASURE_SUFFIX.search(text)
    if measure is not None:
        suffix = measure.group(1).lower()
        return not counted & {stem(_SPELLED_OUT.get(suffix, suffix))}
    suffix = _COUNT_SUFFIX.search(text)
    return suffix is not None and stem(suffix.group(1).lower()) not in counted


def _unit_joined(unit: str, end: int) -> str:
    """The unit a hyphen joins to the number ending at `end` ("-space" of "2-space"), or
    nothing: a bare 2 does not say 2 of what."""
    joined = _COMPOUND_AFTER.match(unit, end)
    return joined.group(0) if joined else ""


_BARE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
# What a bare number counts or measures, right after it: "80 chars", "3 retries", "1 second"
_UNIT_AFTER = re.compile(
    r"\s?(%|Å|°|σ|[KMG]B\b|ms\b|px\b|[a-z][a-z-]{1,}s\b|(?:sigma|second|minute|hour|day|week|"
    r"month|year|line|cycle|token|word|character|byte|step|call|retry|attempt|time|file|"
    r"sentence|item|run)\b)"
)
_OUT_OF = re.compile(r"/\d+(?![\w./])")  # "8/8": a count out of a total
_NO_UNITS = frozenset({"is", "was", "has", "does", "its", "as", "us", "yes", "always", "less"})


def with_unit(number: str, unit: str) -> str:
    """A bare number with the unit its sentence writes after it ("80" → "80 chars"): a
    reader of "80" alone asks 80 of what, and an answer given as "80 characters" is
    found in a line that says so."""
    if not _BARE_NUMBER.fullmatch(number):
        return number
    at = re.search(rf"(?<![\w.]){re.escape(number)}(?!\w|[.,]\d)", unit)
    out_of = _OUT_OF.match(unit, at.end()) if at else None
    if out_of is not None:  # "it always passed (8/8 traces)": 8 of 8, not 8
        return f"{number}{out_of.group(0)}"
    after = _UNIT_AFTER.match(unit, at.end()) if at else None
    if after is None or after.group(1) in STOPWORDS or after.group(1) in _NO_UNITS:
        return _column_counted(number, unit)
    return f"{number}{after.group(0)}"


# A table row read as prose ("File: a.py; Tests: 10; Covers: …"): the column a bare
# number sits in says what it counts when its header is a plural noun
_CELL_HEADER = r"(?:^|;\s)((?:[A-Za-z]+ )?[A-Za-z]{3,}s): "
_NOT_PLURAL = ("ss", "us", "is")  # "Status", "Class", "Analysis" name no counted things


def _column_counted(number: str, row: str) -> str:
    """ "10" under a "Tests" column reads "10 tests"; under any other header, "10"."""
    cell = re.search(rf"{_CELL_HEADER}{re.escape(number)}(?:;|$)", row)
    if cell is None or cell.group(1).lower().endswith(_NOT_PLURAL):
        return number
    words = (w if w.isupper() else w.lower() for w in cell.group(1).split())  # LLM stays
    return f"{number} {' '.join(words)}"


HEADED = "named by its section heading"  # Span.how of a section's name under its kind
TIMED_BY_HEADING = "the time its section heading states"
_HEADING_NUMBER = re.compile(r"^\s*(?:\d+(?:\.\d+)+\.?|\d+[.)]|[A-Z][.)])\s+")  # 3. / 3.3 / B)
MAX_HEADING_WORDS = 6


def from_heading(heading: str, expectation: Expectation, question: str = "") -> Span | None:
    """The section's own name when its parent heading names the asked kind: under
    "API Endpoints", "POST /api/agent/stream" is an endpoint, and every sentence below it
    answers "which endpoint …" with it, though none repeats the name. A time the section's
    heading states ("Case study (10 LLM calls, 54s)") is how long what it tells took."""
    parts = [part.strip() for part in heading.split(" > ")]
    if expectation.kind == "number" and _ASKS_ELAPSED.search(main_clause(question)):
        timed = [m.group(0) for m in _NUMBER.finditer(parts[-1]) if _DURATION.search(m.group(0))]
        return Span(timed[0], 0.6, TIMED_BY_HEADING) if len(timed) == 1 else None
    if expectation.kind not in ("identifier", "name") or not expectation.head:
        return None
    if len(parts) < 2:
        return None
    parent_words = {stem(word.lower()) for word in re.findall(r"[A-Za-z]+", parts[-2])}
    name = clean_inline(_HEADING_NUMBER.sub("", parts[-1])).strip()
    if expectation.head not in parent_words or not name:
        return None
    label, colon, named = name.partition(": ")
    if colon and expectation.head in {stem(w.lower()) for w in re.findall(r"[A-Za-z]+", label)}:
        name = named.strip()  # "Critical Tool: Cell_State_Analyzer_Tool": the tool's name
    if len(name.split()) > MAX_HEADING_WORDS:
        return None
    return Span(name, 0.6, HEADED)


def heading_answers(headed: Span | None, span: Span | None) -> bool:
    """Whether the heading's span stands for a unit whose own span is `span`: a section's
    name when the unit offers none; the time a heading states when the unit's own number
    is no time ("3 retries" under "Nightly crawl (95s)")."""
    if headed is None:
        return False
    return span is None or (headed.how == TIMED_BY_HEADING and not _DURATION.search(span.text))


# "Apart from .mtz and .sca, which other extension …", "what other programs besides X":
# the question names items the answer is not
_ASKS_THE_OTHERS = re.compile(
    rf"\b(?:{SETTING_APART})\b|\b(?:which|what)\s+other\b", re.IGNORECASE
)
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")


_QUOTED_TOKEN = re.compile(r"\"[\w.:/-]+\"")  # one word in quotes: a code string's value


def _less_the_named(span: Span | None, question: str) -> Span | None:
    """A listed span without the items a question that asks for the others names: the
    row "`.mtz`, `.sca`, `.hkl`" answers "apart from .mtz and .sca, which other" with
    `.hkl`. A list of nothing but named items is no answer to it."""
    if span is None or not _ASKS_THE_OTHERS.search(question):
        return span
    items = [item for item in _LIST_SEPARATOR.split(span.text) if item]
    if len(items) < 2:
        return span
    question_norm, _, question_terms = _question_words(question)
    rest = [item for item in items if not _in_question(item, question_norm, question_terms)]
    if len(rest) == len(items):
        return span
    return replace(span, text=", ".join(rest)) if rest else None


ITEM_OWNER = "the name of the list item the sub-item describes"
# heads whose answer is a named step of a list ("which node computes X")
_OWNED_HEADS = frozenset(stem(w) for w in ("node", "tool", "step", "stage", "function", "agent"))
# "   - Identifies `gaps` and computes …": an indented item opening with a verb
_SUB_ITEM_VERB = re.compile(r"[ \t]+[-*+][ \t]+([A-Z][a-z]+s)\b")
# "4. **hitl_analyze**: …", "- `rank_node` — …": a list item opening with a code name
_NAMED_ITEM = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s+\**`?([A-Za-z_][\w.]*)`?\**\s*[:—–-]")


def _item_owner(
    unit: str, chunk_text: str, question: str, expectation: Expectation
) -> str | None:
    """ "Which node computes that coverage_score?" over "4. **analyze_node**: LLM analysis
    / - Identifies `gaps` and computes `coverage_score`": an indented item that opens
    with a verb says what its parent item does, so the parent's name is the subject
    asked for, not a name inside the sub-item. The question's verb must be the
    sub-item's ("computes")."""
    if expectation.head not in _OWNED_HEADS or expectation.kind not in ("identifier", "name"):
        return None
    at = unit_offset(unit, chunk_text)
    if at < 0:
        return None
    start = chunk_text.rfind("\n", 0, at) + 1
    opening = chunk_text[start : at + len(unit)]  # the unit with its line's indent
    if not _SUB_ITEM_VERB.match(opening):
        return None
    asked = {stem(w) for w in content_terms(main_clause(question))}
    said = {stem(w) for w in content_terms(unit)}
    verbs = {stem(w) for w in re.findall(r"\b[a-z]+s\b", unit.lower())}
    if not (asked & said & verbs):
        return None
    indent = indent_of(opening)
    for above in reversed(chunk_text[:start].splitlines()):
        if above.strip() and indent_of(above) < indent:  # the parent item
            named = _NAMED_ITEM.match(above)
            return named.group(2) if named is not None else None
    return None


def extract(
    unit: str,
    chunk_text: str,
    question: str,
    expectation: Expectation,
    exclude: frozenset[str] = frozenset(),
) -> Span | None:
    """The answer span of a unit; `exclude` (lower case) names spans that are known not
    to answer, such as the bridge a two-hop question was resolved through. What a unit
    binds to the bridge (`"Forced_Tool": ["Its_Dependency"]`) answers the asking clause
    ("which tool is the dependency of that forced tool")."""
    if is_table_row(unit):
        span = from_row(unit, chunk_text, question, expectation)
        if span is not None and span.text.lower() in exclude:
            return None
        return _less_the_named(span, question)
    aligned = _aligned_cell(unit, chunk_text, question, expectation)
    if aligned is not None:  # "Clashscore  12.5  Acceptable" under "… Assessment"
        return Span(aligned, 1.0, ALIGNED_CELL)
    numeric = expectation.kind == "number"
    for bridge in sorted(exclude):  # a row's next cell is not its value: columns decide
        found = bound_value(unit, bridge, numeric, suffixed=True) or _mapped_value(unit, bridge)
        if found is None or found[0].lower() in exclude:
            continue
        if expectation.head and not numeric and _NUMBER.fullmatch(found[0]):
            continue  # "in which node is that target checked": its 0.70 names no node
        bound = Span(found[0], 0.95, f"{BOUND} {bridge}")
        if _tells_the_asked(bound, expectation, shape_for(expectation, question)):
            return bound
    keyed = _key_listing_named_value(unit, question, expectation)
    if keyed is not None and keyed.lower() not in exclude:
        return Span(keyed, 1.0, KEY_OF_NAMED_VALUE)
    titled = _titled_name(unit, expectation)
    if titled is not None and titled.lower() not in exclude:
        return _less_the_named(Span(titled, 1.0, TITLED_NAME), question)
    owner = _item_owner(unit, chunk_text, question, expectation)
    if owner is not None and owner.lower() not in exclude:
        return Span(owner, 1.0, ITEM_OWNER)
    subject = _named_subject(unit, question, expectation, exclude)
    if subject is not None:
        return subject
    span = from_sentence(unit, question, expectation, exclude)
    if span is not None and _QUOTED_TOKEN.fullmatch(span.text):
        span = replace(span, text=span.text[1:-1])  # returns "synthesize": the node's name
    return _less_the_named(span, question)

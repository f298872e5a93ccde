"""Values a passage states outright for what the question asks: the value bound to a
named setting, and the count of the unit a "how many" question names.

Why: ranking candidate spans by closeness to the question's words picks the nearest
number or name, which in dense technical text is often the wrong one — "2
alternatives" beside "each query is 10-30 words", `REFERENCE_FOLLOW_DEPTH` beside
`REFERENCE_TOKEN_BUDGET = 50000`. When the question names a setting ("what is the
default reference_token_budget") the answer is what the text binds to that name
(`= 50000`, `(0.6)`, `, default 50K tokens`); when it asks "how many tests", the
answer is a number followed by "tests". Such a span is the passage saying the answer,
not a guess, so it outranks proximity.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from functools import lru_cache

from agentcycle.agent.research.answer_type import Expectation, asking_part, main_clause
from agentcycle.agent.research.text import ARROW, STOPWORDS, content_terms, stem

BOUND = "value bound to"  # Span.how prefixes: compose prefers these spans
COUNTED = "count of the asked unit"
NAMED_BINDING = "bound to a name the question writes or spells"  # … a Span.how suffix

_QUESTION_NAME = re.compile(
    r"`([^`\s]{3,60})`|(?<![\w.])(_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w])"
)  # a leading underscore is part of the name: `_ACTION_TABLE`
_VALUE_QUESTION = re.compile(
    r"\bwhat(?:'s| is| was| are)\s+(?:the\s+)?(?:[\w-]+(?:\s+[\w-]+){0,2}(?:'s|’s)\s+)?"
    r"(?:(?:default|current|configured)\s+)?"
    r"(?:value\s+(?:of\s+)?(?:the\s+)?)?`?$",
    re.IGNORECASE,
)
_VALUE_NOUNS = re.compile(
    r"\b(?:default|value|threshold|limit|budget|cutoff|setting)\s+(?:of|for)\s+(?:the\s+)?`?$",
    re.IGNORECASE,
)
# What may stand between a name and its value: `= 5`, `: 5`, `(5)`, `, default 5`,
# `(int, default 5)`, ` is 5`, ` defaults to 5`, a table's `| 5`.
_BINDER = re.compile(
    r"[`\"']?\]?\s*(?:\)\s*)?"  # a subscript's key closes: `state["phase"] = …`
    r"(?:=(?!=)|:(?!:)|\||,?\s*(?:the\s+)?default(?:s to| is| value(?: is)?|:)?"
    r"|\s+(?:is|of|defaults? to|set to)|\s*\((?:[\w\[\].]+,\s*default:?\s*|(?:default:?\s*)?)"
    r"|(?<=[\"'])\s*,)"
    r"\s*\[?\s*(?:[`\"']\s*)?",
    re.IGNORECASE,
)
# A typed name binds what follows its annotation: `min_searches: int = 1`,
# `max_results: Optional[int] = None`, `x: list[str] | None = None`.
_ANNOTATION = re.compile(
    r"\s*:\s*[A-Za-z_][\w.]*(?:\[[^\]\n=]*\])?"
    r"(?:\s*\|\s*[A-Za-z_][\w.]*(?:\[[^\]\n=]*\])?)*\s*=(?!=)\s*[`\"']?"
)
_PROSE_WORD = re.compile(r"[A-Z][a-z]+")  # "Maps": a sentence's first word, not a value
_LITERALS = frozenset({"True", "False", "None"})  # values, though capitalised like prose
_WORD_BINDER = re.compile(r"\b(?:is|of|set to)\s*$", re.IGNORECASE)
_BOUND_VALUE = re.compile(
    r"(?:[<>≤≥~]=?\s*)?-?\d+(?:[.,]\d+)?(?:\s*[-–]\s*\d+(?:[.,]\d+)?)?(?:\s*(?:%|[KMG]B?\b|ms\b|s\b|"
    r"seconds?|minutes?|hours?|tokens?|words?|characters?|chars|cycles?|items?|steps?|"
    r"chunks?|times|calls|retries|Å))*(?![A-Za-z_])"  # "3dnd.pdb" is a name, not a 3
    r"|(?:True|False|None|true|false|null)\b"
    r"|[\"']([^\"'\n]{1,40})[\"']"
    r"|`([^`\n]{1,40})`"
    r"|[A-Za-z_][\w.:-]{1,60}"
)
_HOW_MANY = re.compile(r"\b(?:how many|number of|count of)\s+((?:[\w-]+\s+){0,3}[\w-]+)", re.I)
_UNIT_STOP = STOPWORDS | {
    "are", "is", "do", "does", "did", "can", "will", "were", "was", "has", "have", "long",
}  # fmt: skip


# "what stop_reason does it return / appears in the response": the name's value is asked
_RETURNS = re.compile(
    r"\b(?:return|returns|set|sets|emit|emits|report|reports|reported|assign|assigns|"
    r"appear|appears|shows?|shown|written|recorded|stored)\b"
)


_SCALE = re.compile(r"0(?:\.0)?\s*[-–]\s*(?:1|1\.0|100)")  # a score's scale, not a value
_GLOSSED = re.compile(r"`?\)")
# "what value is written to the state's phase field": the field is named by a plain word
_VALUE_OF_FIELD = re.compile(
    r"\b(?:what|which)\s+value\b.*?\b([A-Za-z][a-z]+)\s+(?:field|key|attribute|property)\b",
    re.IGNORECASE,
)


def asked_name(question: str, expectation: Expectation) -> str | None:
    """The setting whose value the question asks for — `reference_token_budget` in "what
    is the default reference_token_budget" — or None when it asks something else about
    a name ("which function reads X", "where is X defined")."""
    # "Once MAX_X is bumped, how long …": a name before the asking clause places it
    clause = asking_part(main_clause(question))
    for match in _QUESTION_NAME.finditer(clause):
        name = (match.group(1) or match.group(2)).strip("`")
        before = clause[: match.start()]
        if _VALUE_QUESTION.search(before) or _VALUE_NOUNS.search(before):
            return name
        if (
            re.search(r"\b(?:what|which)\s+`?$", before, re.IGNORECASE)
            and "_" in name
            and _RETURNS.search(clause[match.end() :].split(",")[0])
        ):
            return name  # "what stop_reason does it return": the value it is given
        if expectation.kind in ("default", "number") and not expectation.head:
            return name
        if "_" in name and _GLOSSED.match(clause, match.end()) and before.rstrip().endswith("("):
            return name  # "passed as its partial model (partpdb_file)": the setting glossed
    field = _VALUE_OF_FIELD.search(clause)
    if field and field.group(1).lower() not in STOPWORDS:
        return field.group(1)
    return None


EMPTY_LIST = "none (an empty list)"  # how a name bound to [] reads
_QUOTED_VALUE_BEFORE = re.compile(r"[:=]\s*[\"'`]$")  # the name is a key's quoted value


def bound_value(
    unit: str, name: str, numeric: bool = False, suffixed: bool = False
) -> tuple[str, int] | None:
    """The value a text binds to `name` (case-insensitive), and where it starts; only a
    number when `numeric`. `getenv("NAME", "600")` binds its second argument; a call
    (`= int(...)`), a condition (`NAME=none? →`) and prose (`NAME is used`) bind
    nothing. `suffixed`: the name may carry one more part (`Viewer` binds as `Viewer_Tool`,
    for a bridge a heading spelled short)."""
    suffix = r"(?:_[A-Za-z]\w*)?" if suffixed else ""
    pattern = rf"(?<![\w.]){re.escape(name)}{suffix}(?![\w])"
    for match in re.finditer(pattern, unit, re.IGNORECASE):
        binder = _ANNOTATION.match(unit, match.end()) or _BINDER.match(unit, match.end())
        if binder is None or binder.end() == match.end():
            continue
        if _QUOTED_VALUE_BEFORE.search(unit, max(0, match.start() - 4), match.start()):
            continue  # '"after_program": "phenix.autosol", "skip": true': a value, no key
        if binder.group(0).rstrip().endswith("[") and unit[binder.end() :].startswith("]"):
            return EMPTY_LIST, binder.end()  # '"Viewer_Tool": [],': it needs nothing
        listed = _SPACED_LIST.match(unit, binder.end()) if binder.group(0).strip() == "=" else None
        if (
            listed is not None
            and _starts_its_line(unit, match.start())
            and not STOPWORDS.intersection(listed["items"].lower().split())
        ):
            return listed["items"], binder.end()  # `patterns = README README.txt notes.txt`
        value = _BOUND_VALUE.match(unit, binder.end())
        if value is None:
            continue
        quoted = next((g for g in value.groups() if g), None)
        opened = binder.group(0).rstrip().endswith(("`", '"', "'"))  # '"key": ["value"]'
        bare_word = quoted is None and not opened and not any(c.isdigit() for c in value.group(0))
        if bare_word and (
            _WORD_BINDER.search(binder.group(0))
            or ("(" in binder.group(0) and "default" not in binder.group(0).lower())
            or (_PROSE_WORD.fullmatch(value.group(0)) and value.group(0) not in _LITERALS)
        ):
            continue  # "X is used to ...", "X (PHIL choice ...)", "X: Maps ...": prose
        if bare_word and re.match(r"\s*[\w\"'`]", unit[value.end() :]):
            continue  # 'X: needs "Y"': a word followed by more words is prose
        rest = unit[value.end() : value.end() + 40].lstrip(" `'\"")
        word_end = rest.split(None, 1)[0] if rest.strip() else ""
        numeral = any(c.isdigit() for c in value.group(0))
        if rest.startswith("(") or "?" in word_end or (numeric and not numeral):
            continue
        if "(" in binder.group(0) and _SCALE.fullmatch(value.group(0).strip()):
            continue  # "computes coverage_score (0-1)": the scale it is measured on
        text = (quoted or value.group(0)).strip().rstrip(".,;:)")
        if quoted is None and text in _TYPE_NAMES and ":" in binder.group(0):
            continue  # "iteration_count: int  # … (max 4)": a type annotation, no value
        if text and text.lower() != name.lower() and text.lower() not in STOPWORDS:
            return text, value.start()
    return None


# A PHIL or config line binding a list of space-separated names, to its line's end or
# the next attribute: `readme_file_patterns = README README.txt notes.txt .type = strings`
_SPACED_LIST = re.compile(
    r"(?P<items>(?:[\w.*/-]+[ \t]+)+[\w.*/-]+?)[ \t]*(?=$|\n|\s+\.\w+\s*=)"
)


def _starts_its_line(unit: str, start: int) -> bool:
    """Whether the name at `start` opens its line: a binding, not a name in prose."""
    return not unit[unit.rfind("\n", 0, start) + 1 : start].strip()


# `field: int`, `name: str | None`: what a type annotation binds is a type, not a value
_TYPE_NAMES = frozenset(
    {"int", "float", "str", "bool", "bytes", "list", "dict", "tuple", "set", "Any",
     "Optional", "List", "Dict", "Tuple", "Set", "None", "number", "string", "boolean"}
)  # fmt: skip


_CHANGE_VERBS = (
    "change", "changed", "raise", "raised", "lower", "lowered", "increase", "increased",
    "decrease", "decreased", "reduce", "reduced", "bump", "bumped", "move", "moved", "switch",
    "switched", "rename", "renamed", "update", "updated", "tighten", "tightened", "relax",
    "relaxed", "go", "went", "gone", "drop", "dropped", "fall", "fell", "fallen", "rise", "rose",
    "risen", "grow", "grew", "grown", "improve", "improved", "climb", "climbed", "decline",
    "declined", "jump", "jumped", "shrink", "shrank", "shrunk",
)  # fmt: skip
_CHANGE_VERB = rf"(?:{'|'.join(_CHANGE_VERBS)})"
_ASKS_NEW = re.compile(rf"\b{_CHANGE_VERB}\s+to\b|\breplaced\b|\bnew (?:value|default)\b", re.I)
_ASKS_OLD = re.compile(
    rf"\b{_CHANGE_VERB}\s+from\b|\bold (?:value|default)\b"
    r"|\b(?:previously|formerly|originally|used\s+to\s+be)\b",
    re.I,
)
# a default asked for on one side of a release: "before version 114.1, what was the
# default X" is the old value of X's change, "since v115, what is the default X" the new
# one ("after v121 turned X into Y, what rate was measured" asks of no change)
_RELEASE = r"(?:the\s+)?(?:version|release|v\s?\d)"
_BEFORE_RELEASE = re.compile(rf"\b(?:before|prior\s+to|until|up\s+to)\s+{_RELEASE}", re.I)
_SINCE_RELEASE = re.compile(rf"\b(?:since|after|from)\s+{_RELEASE}", re.I)
_DEFAULT = re.compile(r"\bdefault\b", re.I)
_CHANGE_VALUE = (
    r"[`\"']?([\w.%:/-]+?(?:\s(?:ms|s|min|h|Å|[KMG]B|tokens?|seconds?|minutes?|words?|cycles?))?)"
    r"[`\"']?"
)
_FROM_TO = re.compile(
    rf"\bfrom\s+{_CHANGE_VALUE}\s+to\s+{_CHANGE_VALUE}(?=[\s,;:)|]|\.(?!\d)|$)"
    rf"|{_CHANGE_VALUE}\s*{ARROW}\s*{_CHANGE_VALUE}(?=[\s,;:)|]|\.(?!\d)|$)"
)
CHANGE_REACH = 60  # characters before a change that may name what changed
# Words that say a change happened, not what changed: they name no subject.
_CHANGE_WORDS = frozenset(stem(w) for w in [*_CHANGE_VERBS, "replaced", "value", "old", "new"])


_IN_CHAIN = re.compile(rf"\s*{ARROW}")  # a third step after "A → B"
_CHAIN_BEFORE = re.compile(rf"{ARROW}\s*$")  # … or one before it


def changed_value(unit: str, question: str, subject: AbstractSet[str]) -> tuple[str, int] | None:
    """The new value of a change the question asks about ("what was X changed to") — `B`
    in "X changed from A to B" or "X A→B" — or the old one when it asks what X changed
    from. Of several changes (a release note lists many), the one that follows a word of
    `subject` (stems of what the question names) most closely is X's."""
    of_default = bool(_DEFAULT.search(question))
    wants_old = bool(_ASKS_OLD.search(question)) or (
        of_default and bool(_BEFORE_RELEASE.search(question))
    )
    wants_new = _ASKS_NEW.search(question) or (of_default and _SINCE_RELEASE.search(question))
    if not wants_old and not wants_new:
        return None
    subject = subject - _CHANGE_WORDS
    best: tuple[int, str, int] | None = None
    for match in _FROM_TO.finditer(unit):
        if _IN_CHAIN.match(unit, match.end()) or _CHAIN_BEFORE.search(
            unit, max(0, match.start() - 4), match.start()
        ):
            continue  # "perceive → think → plan": a flow's steps, not a change
        window = unit[max(0, match.start() - CHANGE_REACH) : match.start()].lower()
        named = [w for w in re.finditer(r"[a-z][a-z0-9_]*", window) if stem(w.group(0)) in subject]
        if not named:
            continue
        distance = len(window) - named[-1].end()
        group = (1 if match.group(1) else 3) + (0 if wants_old else 1)
        if best is None or distance < best[0]:
            best = (distance, match.group(group), match.start(group))
    return None if best is None else (best[1], best[2])


def asked_unit(question: str) -> set[str]:
    """Stems of the noun a "how many" question counts ("how many plan *templates*")."""
    match = _HOW_MANY.search(main_clause(question))
    if not match:
        return set()
    words = []
    for word in match.group(1).lower().split():
        if word in _UNIT_STOP:
            break
        words.append(word)
    # The first plural is the counted noun ("how many tests cover X": not "cover").
    plural = next((w for w in words if w.endswith("s") and not w.endswith(("ss", "us"))), None)
    if not words:
        return set()
    counted = stem(plural or words[-1])
    return {counted, *_COUNTED_ALIKE.get(counted, ())}


# "(no program-specific code)", "without a retry": what the counted things lack, which
# a passage counting them says in other words ("pure YAML")
_LACKING = re.compile(
    r"\(\s*(?:no|not|without)\b[^)]*\)|\bwithout\s+(?:[\w-]+\s+){0,3}[\w-]+", re.IGNORECASE
)


# an auxiliary and a new subject after the counted noun: the counted things are its object
_SUBJECT_FOLLOWS = re.compile(
    r"\s+(?:does|do|did|will|would|can|could|should|must|may|is|are|was|were|has|have)\s+"
    r"(?:the|a|an|this|that|these|those|its|their|each|every|[A-Z]|`|\w+[_.(])",
)


def counted_predicate(question: str) -> set[str]:
    """Stems of what a "how many" question says of the things it counts, after their
    noun ("how many registered programs *were pure YAML as of v115.05*"), less what it
    says they lack: the words a passage counting those very things repeats. None when
    the counted things are another subject's object ("how many cycles does the run
    take"): a passage names that subject before the count, not after."""
    asking = main_clause(question)
    match = _HOW_MANY.search(asking)
    if not match:
        return set()
    nouns = asked_unit(question)
    rest = asking[match.start(1) :]
    words = list(re.finditer(r"[\w-]+", rest))
    after = next((w.end() for w in words if stem(w.group(0).lower()) in nouns), None)
    if after is None or _SUBJECT_FOLLOWS.match(rest, after):
        return set()  # "how many cycles does *the tutorial* take": another subject's act
    return set(content_terms(_LACKING.sub(" ", rest[after:]))) - nouns


# nouns that count the same thing: "(up to 3 attempts)" says how many retries
_COUNTED_ALIKE = {
    "retr": ("attempt", "tri"),
    "attempt": ("retr", "tri"),
    "tri": ("retr", "attempt"),
}


@lru_cache(maxsize=64)
def _names_in(question: str) -> frozenset[str]:
    """The identifiers the question's main clause names, lower-cased (read once per
    question, not once per number of every unit)."""
    return frozenset(
        (m.group(1) or m.group(2)).strip("`").lower()
        for m in _QUESTION_NAME.finditer(main_clause(question))
    )


_CODE_NAME = re.compile(r"`([^`\s]{3,60})`|(?<![\w.])([A-Za-z_][\w]*(?:[._][\w]+)+)(?![\w])")


@lru_cache(maxsize=64)
def code_names_in(question: str) -> frozenset[str]:
    """Every code name the question writes: `quoted`, snake_case and dotted
    (`phenix.resolve_cryo_em`, `contract.py`)."""
    return frozenset(
        (m.group(1) or m.group(2)).strip("`") for m in _CODE_NAME.finditer(question)
    )


# `NAME = `, `"key": [`, `getenv("NAME", `: a binding written as code
_ASSIGNED = re.compile(r"[`\"']?\s*(?:=|:|,)\s*\[?\s*[`\"']?")
# a leading underscore is part of the name: `_CELL_ANGLE_TOL_DEG=0.5`
_UNIT_CONSTANT = re.compile(r"(?<![\w.])_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])")
SPELLED_SHARE = 0.6  # of a constant's parts the question must write, in words


def spelled(part: str, words: AbstractSet[str]) -> bool:
    """Whether the question writes a constant's part: its stem, or a word it or its stem
    begins (EMBED in "embedding", TOL in "tolerance", on_COMPLETE in "on completion")."""
    begins = {part, *(t for t in content_terms(part) if len(t) >= 5)}
    return bool(set(content_terms(part)) & words) or any(
        w.startswith(b) for w in words for b in begins if len(b) >= 3
    )


_INLINE_COMMENT = re.compile(r"\s*#\s*([^#\n]*?)(?=\s+[A-Za-z_]\w*\s*=|\n|$)")
_GLOSSED_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # REFERENCE_RELEVANCE_THRESHOLD
COMMENT_WORD = 0.1  # per question word a constant's inline comment writes, to break ties


def _comment_after(unit: str, name_end: int) -> str:
    """The inline comment of the line a name is assigned on ('# Max tasks in list')."""
    value_end = re.match(r"[^#\n]*", unit[name_end:])
    start = name_end + (value_end.end() if value_end else 0)
    comment = _INLINE_COMMENT.match(unit, start)
    return comment.group(1) if comment else ""


def _spelled_share(
    unit: str, match: re.Match[str], words: AbstractSet[str], focus: AbstractSet[str]
) -> float:
    """How well the question spells a constant: the share of its parts written in words,
    and, when the question's focus is known, nothing unless the name or its inline
    comment writes a focus word ("which relevance score": REFERENCE_FOLLOW_DEPTH shares
    the premise's "followed reference", not what is asked); the comment's words break ties
    (TODO_MAX_ITEMS "# Max tasks in list" against MAX_ITERATIONS_PER_TASK)."""
    parts = [p.lower() for p in match.group(0).split("_") if content_terms(p)]
    written = [p for p in parts if spelled(p, words)]
    share = len(written) / len(parts) if parts else 0.0
    if share < SPELLED_SHARE:
        return 0.0
    comment = content_terms(_comment_after(unit, match.end()))
    if focus and not any(spelled(p, focus) for p in parts) and not set(comment) & focus:
        return 0.0
    return share + COMMENT_WORD * len(set(comment) & words)


def values_bound_to_question_names(
    unit: str,
    question: str,
    words: AbstractSet[str],
    numeric: bool = False,
    focus: AbstractSet[str] = frozenset(),
) -> dict[int, str]:
    """The unit's values bound to a name the question names, by where they start (or one
    character later, past an opening quote):
    `"phenix.resolve_cryo_em": ["ncs_file"]` for "which parameter … for
    phenix.resolve_cryo_em" (the value, not the table's name, answers), and a name whose
    parts the question spells in words (`EMBED_TIMEOUT = getenv("EMBED_TIMEOUT", "120")`
    for "the timeout for embedding requests"; `words`: the question's words and their
    stems; `focus`: the stems of what it asks for). A constant glossed with its value in
    parentheses ("REFERENCE_RELEVANCE_THRESHOLD (0.6)") binds it too."""
    names = set(code_names_in(question))
    spelled: dict[str, float] = {}  # of PLAN_TIMEOUT and EMBED_TIMEOUT, the best spelled
    for match in _UNIT_CONSTANT.finditer(unit):
        share = _spelled_share(unit, match, words, focus)
        if share > spelled.get(match.group(0), 0.0):
            spelled[match.group(0)] = share
    names |= {name for name, share in spelled.items() if share == max(spelled.values())}
    found: dict[int, str] = {}
    for name in names:
        hit = bound_value(unit, name, numeric)
        if hit is None:
            continue
        end = unit.lower().rfind(name.lower(), 0, hit[1]) + len(name)
        between = unit[end : hit[1]]
        glossed = _GLOSSED_CONSTANT.fullmatch(name) and re.fullmatch(r"\s*\(\s*", between)
        if _ASSIGNED.fullmatch(unit, end, hit[1]) or glossed:  # not "multi_hop (6/6)": prose
            found[hit[1]] = found[hit[1] + 1] = hit[0]
    return found


_OWNED_COUNT = re.compile(r"`?([A-Za-z_][\w.]*_[\w.]*)`?\s*\(\s*[~≈]?\s*$")


def count_of_another_name(unit: str, position: int, question: str) -> bool:
    """Whether the number at `position` counts an identifier the question does not name:
    in "`retry_codes` (9 patterns)" the 9 is retry_codes' own, so it cannot answer
    "how many patterns does `skip_codes` hold" (a near-miss when skip_codes' count is
    never given)."""
    owner = _OWNED_COUNT.search(unit, max(0, position - 80), position)
    if owner is None:
        return False
    named = _names_in(question)
    owned = owner.group(1).lower()
    if _described_by(owned, question):
        return False  # `_ACTION_TABLE` (14 actions) for "how many actions does the table hold"
    return bool(named) and not any(
        owned == n or owned.startswith(f"{n}.") or n.startswith(f"{owned}.") for n in named
    )  # `skill.md` is the question's `skill`


def _described_by(name: str, question: str) -> bool:
    """Whether the question spells out every word of a code name ("the actions table"
    for `_ACTION_TABLE`): it asks about that name without writing it."""
    words = [w for w in re.split(r"[_.]+", name) if w]
    asked = set(content_terms(question))
    return len(words) >= 2 and all(stem(w) in asked for w in words)


_WORD = r"([A-Za-z][A-Za-z0-9-]+)"  # "TIER-1", "MR-SAD": one modifier
_NEXT_WORDS = re.compile(rf"\s*{_WORD}(?:\s+{_WORD})?(?:\s+{_WORD})?")


def counts_another_noun(text: str, end: int, counted: AbstractSet[str]) -> bool:
    """Whether the number ending at `end` is followed by a noun other than the one the
    question counts: "from all 3 queries" does not say 3 passages, while "1100 unit
    tests" does say 1100 tests (the counted noun may follow a modifier or two); "3+
    consecutive failures" counts failures as "3 failures" does."""
    if text.startswith("+", end):
        end += 1
    words = _NEXT_WORDS.match(text, end)
    if words is None or words.group(1).lower() in STOPWORDS:
        return False
    return not any(w and stem(w.lower()) in counted for w in words.groups())


# Counts written as words: "Two LLM calls per cycle" answers "how many calls".
WORD_NUMBER = re.compile(
    r"(?<![\w-])(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?![\w-])",
    re.IGNORECASE,
)


_JOINED_UNIT = re.compile(r"-([A-Za-z]+)\b(?!-)")


# a status line of labels and values ("SEARCHES DONE: 2 CITATIONS OPENED: 1"): a value
# right after its label's colon, and the next capitalised label, colon and all
_LABEL_VALUE_BEFORE = re.compile(r"[A-Za-z]\s*:\s*$")
_NEXT_LABEL = re.compile(r"\s+[A-Z][A-Z_]*(?:\s+[A-Z][A-Z_]*){0,3}\s*:")


def counts_unit(unit: str, position: int, text: str, nouns: set[str]) -> bool:
    """Whether the number `text` at `position` is followed by the asked noun, directly or
    past a modifier or two: "17 templates", "(~1100 tests)", "10-30 words", "Two LLM
    calls"; not past a stopword ("3 failures per call") or a table cell's "|"."""
    rest = unit[position + len(text) : position + len(text) + 40]
    if _LABEL_VALUE_BEFORE.search(unit, 0, position) and _NEXT_LABEL.match(rest):
        return False  # "SEARCHES DONE: 2 CITATIONS OPENED: 1": two labels' values
    joined = _JOINED_UNIT.match(rest)
    if joined is not None and not WORD_NUMBER.fullmatch(text):
        # "a 10-phase testing framework" counts phases: the joined word is the unit
        return stem(joined.group(1).lower()) in nouns
    if not WORD_NUMBER.fullmatch(text):
        rest = re.sub(r"^[^\d]*[\d.,\s–-]+", "", text + rest)
    words = _NEXT_WORDS.match(rest)
    if words is None:
        return False
    for word in words.groups():
        if not word or word.lower() in STOPWORDS:
            return False
        if stem(word.lower()) in nouns:
            return True
    return False


_COUNT = re.compile(r"(?<![\w.])[~≈]?\d[\d,.]*")


def counts_only_other_names(unit: str, question: str, nouns: AbstractSet[str]) -> bool:
    """Whether the unit counts the asked noun for other names only: "`retry_codes` (9
    patterns), `skip_codes` (16 patterns)" asked about `wait_codes`. The corpus counts
    such things, just not the asked one: a near-miss, whatever other number is nearby."""
    counts = [m for m in _COUNT.finditer(unit) if counts_unit(unit, m.start(), m.group(0), nouns)]
    return bool(counts) and all(count_of_another_name(unit, m.start(), question) for m in counts)


# "Level 2", "Phase 4", "Stage 3": a numbered item the question asks about by its label.
_NUMBERED_LABEL = re.compile(r"\b([A-Za-z][a-z]{2,})\s+(\d{1,3})\b(?![.,]\d)")


def asked_label(question: str, expectation: Expectation) -> tuple[str, str] | None:
    """(word, number) of the numbered item a "what does Level 2 cover" question asks
    about; None for a number question, where "cycle 5" only places the asked value."""
    if expectation.kind in ("number", "yes_no"):
        return None
    match = _NUMBERED_LABEL.search(main_clause(question))
    if match is None or match.group(1).lower() in STOPWORDS:
        return None
    return match.group(1), match.group(2)


def _items(unit: str, word: str) -> list[re.Match[str]]:
    """The unit's "Word N: text" items, in order."""
    pattern = rf"\b{re.escape(word)}\s+(\d{{1,3}})\s*[:=–—]\s*([^,;)\n]{{1,80}})"
    return list(re.finditer(pattern, unit, re.IGNORECASE))


def numbered_items_count(unit: str, nouns: AbstractSet[str]) -> str | None:
    """How many numbered items of an asked noun a unit sets out, numbered from 1 without
    a gap ("Level 1: counting, Level 2: …, Level 3: …" for "how many levels"), or None."""
    for word in {match.group(1) for match in re.finditer(r"\b([A-Za-z]{3,})\s+1\s*[:=–—]", unit)}:
        if not {stem(word.lower()), stem(f"{word.lower()}s")} & nouns:  # "Mode" of "modes"
            continue
        numbers = sorted({int(m.group(1)) for m in _items(unit, word)})
        if len(numbers) >= 2 and numbers == list(range(1, len(numbers) + 1)):
            return str(len(numbers))
    return None


def labelled_item(unit: str, label: tuple[str, str]) -> tuple[str, int] | None:
    """What the unit says of the asked item: "basic morphology" for Level 2 in
    "(Level 1: counting, Level 2: basic morphology, Level 3: ...)"."""
    word, number = label
    for match in _items(unit, word):
        if match.group(1) == number:
            return match.group(2).strip().rstrip(".*`"), match.start(2)
    return None


def names_item(unit: str, label: tuple[str, str]) -> bool:
    """Whether the unit names the asked numbered item ("Phase 1: Created …")."""
    return any(m.group(1) == label[1] for m in _items(unit, label[0]))


def lists_only_other_items(unit: str, label: tuple[str, str]) -> bool:
    """Whether the unit lists numbered items of the asked kind, but not the asked one:
    Levels 1 to 3 for a question about Level 4."""
    items = _items(unit, label[0])
    return bool(items) and all(m.group(1) != label[1] for m in items)


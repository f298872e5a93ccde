"""What the answer to a "which X" question looks like, judged from X alone.

Some head nouns fix the surface form of their answer: an environment variable is
written `UPPER_SNAKE`, a file extension starts with a dot, a model is named with a
version or size digit ("DINOv3", "qwen2.5:7b", "ms-marco-MiniLM-L-12-v2"), a
test function starts with `test_`, a file has an extension or a path, an exact
phrase is quoted. A span without that form is not the answer even when it sits next to
the question's words — "bi-encoder" is not a model name, "portkey" is not an
environment variable — so extraction prefers spans of the shape and refusal counts "no
span of the shape anywhere in the evidence" as a near-miss.
Heads without a fixed form (a node, a phase, a category) have no shape: anything goes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentcycle.agent.research.answer_type import WHEN, Expectation, main_clause
from agentcycle.agent.research.text import STOPWORDS, VERSION_TOKEN, stem

Shape = Callable[[str], bool]

_ENV_VAR = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,8}")
_TEST = re.compile(r"test_\w+(?:\(\))?")
_FILE = re.compile(r"[\w.~/-]*\w\.[A-Za-z][A-Za-z0-9]{0,5}|[\w.-]+(?:/[\w.-]+)+/?|\w*[Ff]ile")
_MODULE = re.compile(r"[\w./-]*\w\.py|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_PREFIX = re.compile(r"[\w.-]*[_.-]")  # what a name opens with: `EDITED_`, `tmp-`
_SUFFIX = re.compile(r"[_.-][\w.-]*")  # what it ends with: `_001`, `.pdb`
# A function or method: a lower-case (or private) name, maybe qualified, maybe called
_FUNCTION = re.compile(r"(?:[A-Za-z_][\w]*\.)*_*[a-z][\w]*(?:\(\))?")
_CAMEL = re.compile(r"_?[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+")
# An exception is named as a class: `AttributeError`, `ImportError`, `KeyboardInterrupt`
_EXCEPTION = re.compile(r"[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)")
_QUOTED = re.compile(r'"[^"\n]{2,80}"')
# A log marker is written in capitals between brackets (`[DIRECTIVE_CORRECTION]`,
# `[STEP_1F]`), so a constant or a function beside it is not one
_MARKER = re.compile(r"\[[A-Z][A-Z0-9_ -]*[A-Z0-9]\]")
_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November"
    r"|December)"
)
# a day ("2026-05-20", "20 May 2026", "May 20, 2026") or a month ("2026-08", "August 2026")
DATE = re.compile(
    rf"\d{{4}}-\d{{2}}(?:-\d{{2}})?|\d{{1,2}} [A-Z][a-z]+ \d{{4}}|[A-Z][a-z]+ \d{{1,2}},? \d{{4}}"
    rf"|{_MONTH} \d{{4}}"
)
_COLOR = re.compile(
    r"(?:light |dark |bright |pale )?(?:red|orange|yellow|green|blue|purple|violet|pink|grey"
    r"|gray|black|white|brown|cyan|magenta|amber|teal|gold)",
    re.IGNORECASE,
)
# Punctuation is named in words ("semicolons"), a closed class like colours
_PUNCTUATION = re.compile(
    r"(?:semicolon|colon|comma|period|full stop|backslash|slash|apostrophe|quotation mark|quote"
    r"|hyphen|dash|bracket|parenthes[ie]s|brace|asterisk|ampersand|pipe|tilde|underscore"
    r"|exclamation mark|question mark|hash|caret|backtick)(?:e?s)?",
    re.IGNORECASE,
)
_WORDING_HEADS = {"phras", "wording", "text", "string", "sentenc", "quot"}  # stems
_ENVIRONMENT = re.compile(r"\b(?:environment|env)[ -]?var", re.IGNORECASE)
# A parameter set on a command line (`log_directory=run1`, `display_and_stop=basic`),
# asked for as a "command-line setting" or "parameter setting"
ASSIGNMENT = re.compile(r"(?<![\w.=-])([A-Za-z_][\w.]*[A-Za-z0-9_])=([\w.:/-]+)(?![\w=])")
_ASKS_ASSIGNMENT = re.compile(
    r"\b(?:command[- ]line|parameter|phil)\s+(?:parameter\s+)?setting\b", re.IGNORECASE
)
_TEST_FUNCTION = re.compile(r"\btest (?:function|case|method)\b|\bwhich test\b", re.IGNORECASE)


# "which environment variable holds the Tavily API key": variables are named for what
# they hold (`…_API_KEY`, `…_MODEL`, `…_URL`), so one that holds a key says KEY
_VARIABLE_HOLDS = re.compile(
    r"\b(?:holds?|stores?|contains?|sets?|overrides?|keeps?)\s+"
    r"(?:(?!for\b|whose\b|of\b|to\b|when\b|if\b)[\w'’-]+\s+){0,3}?"
    r"(key|token|secret|password|url|model|port|host|path|timeout)s?\b",
    re.IGNORECASE,
)


def _env_var_naming(held: str) -> Shape:
    """An environment variable whose name has the word for what it holds."""
    word = held.upper()

    def fits(text: str) -> bool:
        name = text.strip(" `'\"")
        return bool(_ENV_VAR.fullmatch(name)) and word in name.split("_")

    return fits


def _every(pattern: re.Pattern[str]) -> Shape:
    """Each comma-separated item matches (a list answer keeps the shape per item)."""

    def fits(text: str) -> bool:
        items = [i.strip(" `'\"") for i in text.split(",") if i.strip(" `'\"")]
        return bool(items) and all(pattern.fullmatch(i) for i in items)

    return fits


def _model_name(text: str) -> bool:
    """A model's name carries a version or size digit ("DINOv3", "qwen3:14b",
    "Gemma 3 27B"); a brand ("OpenAI") or an UPPER_SNAKE variable holding a model is
    not one."""
    bare = text.strip(" `'\"")
    if not bare or len(bare.split()) > 4 or "_" in bare:
        return False
    return any(c.isdigit() for c in bare) and any(c.isalpha() for c in bare)


# heads whose answer is named in words or by its makers ("Leiden", "ChromaDB", "JSON"),
# never by a code name of another kind: a `Cropper_Tool` is a tool, `rank_node` a node
_NAMED_NOT_CODED = frozenset({"algorithm", "librar", "databas", "format", "languag", "servic"})
# a code name whose last part says what kind of thing it is
_KIND_SUFFIXED = re.compile(
    r"\w+?(?:_|(?<=[a-z])(?=[A-Z]))(?:tool|node|agent|skill|file|class|function)s?",
    re.IGNORECASE,
)


def _not_another_kind(text: str) -> bool:
    """Not a file name, a call, a literal (`true`) or a code name of a named kind
    (`Single_Cell_Cropper_Tool`): each would name the tool, function or file that does
    the asked thing, or a setting's value, not the thing."""
    bare = text.strip(" `'\"")
    return bool(bare) and bare.lower() not in _LITERALS and not (
        _FILE_NAME.fullmatch(bare) or _KIND_SUFFIXED.fullmatch(bare) or _CALLED.search(bare)
    )


# heads whose value is always a number, whatever the question's wording
_NUMERIC_HEADS = frozenset(
    stem(w) for w in ("temperature", "threshold", "tolerance", "cutoff", "probability")
)


def _numeric(text: str) -> bool:
    """A value that is a number ("0.2", "<= 0.05"): not a digit inside a name
    ("gemini-2.5-pro") nor a number some word labels ("HTTP 400")."""
    return re.match(r"[\s`~≈<>=≤≥]*\d+(?:\.\d+)?(?![\w-])", text) is not None


_LITERALS = {"true", "false", "none", "null", "yes", "no"}  # a setting's value names nothing
_CALLED = re.compile(r"[A-Za-z_]\w*\(")  # `_requires_full_analysis(question: str)`


# a person's name: capitalised words ("Tom", "Billy K. Poon"), never a file, an
# identifier or a call ("ai_agent.py" answers no "who")
_NOT_A_PERSON = re.compile(r"[_/()=<>:@\d]|\.\w{1,4}$")
_ASKS_WHO = re.compile(r"^\W*who\b", re.IGNORECASE)
_NAME_WORD = re.compile(r"[A-Z][a-z]+(?:['’]s)?|[A-Z]\.")  # "Tom", "Tom's", "K." (not "OWN")


# where a person is named in a sentence: a capitalised word that owns something ("Tom's
# run") or stands inside the sentence ("reported by Tom"), not one that merely opens it
_PERSON_IN_TEXT = re.compile(
    r"\b[A-Z][a-z]+(?=['’]s\b)|(?<=[a-z,;] )[A-Z][a-z]+(?: [A-Z]\.)?(?: [A-Z][a-z]+)?"
)


def people_named(unit: str) -> list[tuple[str, int]]:
    """(name, position) of each word of a unit that may name a person (see `_person`)."""
    return [(m.group(0), m.start()) for m in _PERSON_IN_TEXT.finditer(unit) if _person(m.group(0))]


def asks_who(expectation: Expectation, question: str) -> bool:
    """Whether the question asks who: a person answers it."""
    return expectation.kind == "name" and _ASKS_WHO.search(main_clause(question)) is not None


_ENDPOINT = re.compile(r"(?:(?:GET|POST|PUT|PATCH|DELETE)\s+)?`?(?:https?://\S+|/[\w/{}:.-]*)`?")


def _date_or_version(text: str) -> bool:
    bare = text.strip(" `*")
    return bool(DATE.fullmatch(bare) or VERSION_TOKEN.fullmatch(bare))


def _person(text: str) -> bool:
    bare = text.strip(" `'\"*")
    words = bare.split()
    return (
        1 <= len(words) <= 4
        and all(_NAME_WORD.fullmatch(word) for word in words)
        and not any(word.lower() in STOPWORDS for word in words)  # "This", "When"
        and _NOT_A_PERSON.search(bare) is None
    )


_PART = re.compile(r'("[^"\n]{2,80}")|`([^`\n]{1,80})`|[^\s,;()|`]+')


def shaped_parts(text: str, shape: Shape) -> list[str]:
    """The code spans and words of a text that have the shape, in order, no repeats."""
    found: list[str] = []
    for match in _PART.finditer(text):
        quoted = match.group(1)
        part = quoted or (match.group(2) or match.group(0)).strip(" '\"").rstrip(".:")
        if part and shape(part) and part not in found:
            found.append(part)
    return found


# "what protocol/schema/API version": a numbered format, whose versions may be plain
# integers; a release ("which version of the agent") is a version token
# "In which version was X raised?", "since what release": a preposition may lead
# "X was widened in which release?": the wh-word may come late in the clause
_ASKS_WHICH = re.compile(r"\b(?:which|what)\s+(?:[a-z][\w-]*\s+)?(?:version|release)\b", re.I)
_QUALIFIED_VERSION = re.compile(r"\b(?:which|what)\s+(?!the\b|a\b)[a-z][\w-]*\s+version\b", re.I)


def _qualified_version(text: str) -> bool:
    return bool(VERSION_TOKEN.fullmatch(text) or re.fullmatch(r"\d+", text))


_color_word = _every(_COLOR)
_exception_class = _every(_EXCEPTION)
_punctuation_word = _every(_PUNCTUATION)
# Shapes of a closed class of plain words: any word of the class is a candidate, though
# no markup sets it apart ("in orange text"); an open shape (a model's digit) is not.
PLAIN_WORD_SHAPES: frozenset[Shape] = frozenset({_color_word, _punctuation_word})
# Shapes whose form itself says what kind of thing a span is (stems): `AttributeError`
# names an exception though the sentence around it never writes the word.
KIND_NAMED_BY_FORM: dict[Shape, frozenset[str]] = {
    _exception_class: frozenset({"exception"}),
    _punctuation_word: frozenset({"punctu", "charact"}),  # a semicolon is one
}


# A function, flag or parameter is named in code, never by the file that holds it:
# "which function writes the summary" is not answered by `session_summary.json`
_FILE_NAME = re.compile(
    r"[\w./~-]*\w\.(?:py|ya?ml|md|json|txt|html?|log|csv|cfg|toml|ini|sh|phil|eff|dat|"
    r"pdb|cif|mtz|sca|hkl|mrc|ccp4|map|seq|fasta|fa|tiff?|png|jpe?g|h5|npy|zarr)"
)  # code and config files, and data files (models, reflections, maps, images)
_CODE_NAMED_HEADS = {"function", "method", "flag", "paramet", "attribut", "field", "option"}


def names_a_file_instead(text: str, expectation: Expectation) -> bool:
    """Whether `text` is a file name where a thing named in code (a function, a flag) is
    asked for: the file holds or is written by the thing, it is not the thing."""
    return expectation.head in _CODE_NAMED_HEADS and bool(_FILE_NAME.fullmatch(text.strip("`")))


def asks_assignment(question: str) -> bool:
    """ "What command-line setting gives …": a whole `name=value`, not a bare value."""
    return bool(_ASKS_ASSIGNMENT.search(main_clause(question)))


def shape_for(expectation: Expectation, question: str) -> Shape | None:
    """The surface form the asked-for head noun demands, or None when it fixes none."""
    head = expectation.head
    clause = main_clause(question)
    # "which environment variable (setting|name)": the variable is what is named
    if _ENVIRONMENT.search(clause) and head in {"variabl", "var", "env", "sett", "name"}:
        held = _VARIABLE_HOLDS.search(clause)
        return _every(_ENV_VAR) if held is None else _env_var_naming(held.group(1))
    if head == "file" and expectation.kind in ("identifier", "name", "phrase"):
        return _every(_FILE)
    if expectation.kind == "identifier" and asks_assignment(clause):
        return ASSIGNMENT.fullmatch  # `display_and_stop=basic`, not "basic"
    if head == "modul" and re.search(r"\bpython\b", clause, re.IGNORECASE):
        return _every(_MODULE)  # "which Python module": a .py path or a dotted name
    if head in _WORDING_HEADS and "exact" in clause.lower():
        return _QUOTED.fullmatch  # "which exact phrase": the words as quoted
    if head == "extension":
        return _every(_EXTENSION)
    if head in ("model", "checkpoint", "llm") and expectation.kind in (
        "name", "default", "identifier", "phrase"
    ):
        return _model_name
    if head in {"function", "method", "test", "case"} and _TEST_FUNCTION.search(clause):
        return _every(_TEST)
    if head in _NUMERIC_HEADS:
        return _numeric  # "what default sampling temperature": 0.2, never `top_p`
    if head in _NAMED_NOT_CODED and expectation.kind in ("name", "identifier", "phrase"):
        return _not_another_kind  # "which clustering algorithm": no `Cropper_Tool`
    if head in {"color", "colour"}:  # "what color is the banner": orange, not "banner"
        return _color_word
    if re.search(r"\bpunctuation\b", clause, re.I) and head in {"charact", "mark", "punctuat"}:
        return _punctuation_word  # "which punctuation character": semicolons, not "non-space"
    if head == "mark" and re.search(r"\bmarkers?\b", clause, re.I):
        return _every(_MARKER)  # "which log marker": [DIRECTIVE_CORRECTION]
    if head in {"endpoint", "rout", "url"}:  # "which endpoint": POST /api/run, not "real-time"
        return _ENDPOINT.fullmatch
    if head == "date":  # "on what date": 2026-05-20, 20 May 2026, May 20, 2026
        return DATE.fullmatch
    if head == WHEN:  # "when was it done": a date or the release it came in
        return _date_or_version
    if head == "exception" or (  # "which exception", "what exception type is raised"
        head in {"type", "clas"} and re.search(r"\bexception (?:type|class)\b", clause, re.I)
    ):
        return _exception_class
    if head in {"prefix", "suffix"}:  # "which name prefixes": `EDITED_`, `TEMP_`
        return _every(_PREFIX if head == "prefix" else _SUFFIX)
    if head in {"function", "method"}:  # "which helper function": `get_image_info()`,
        return _every(_FUNCTION)  # not the `ImageProcessor` class it uses
    if asks_who(expectation, question):
        return _person  # "who is the author": a person, not the file the passage is about
    if head == "clas":  # stem of "class"
        return _every(_CAMEL)
    if head in {"version", "releas"} and _ASKS_WHICH.search(clause):
        if _QUALIFIED_VERSION.search(clause):  # "what protocol version": 3 is one
            return _qualified_version
        return VERSION_TOKEN.fullmatch  # "which release": v38, not the 4 of "Phase 4"
    return None

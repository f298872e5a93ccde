"""Words, sentences and the corpus vocabulary: the rules-only pipeline's raw material.

Everything the rules-only research agent decides (query keywords, which sentence
answers, whether the evidence supports an answer at all) rests on one idea: a question
term is worth as much as it is rare in the corpus (IDF). The vocabulary is computed
from the corpus's own chunks, so the same code works on any corpus without a model.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

# Identifiers (snake_case, dotted, versions like v120, numbers like 0.345) stay whole.
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-/:%]*[A-Za-z0-9%]|[A-Za-z0-9]")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]*`]*\s+(?=[A-Z0-9\"'(\[*`_|-])")
_LIST_OR_TABLE = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\||#{1,6}\s|```|>)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s)")  # a Markdown list item's line
# "MAX_DEPTH = 2   # Max nesting levels": a line of code that binds a name is one
# statement, not a piece of a paragraph running on into the next binding; the lines
# below it that bind nothing (".type = choice(…)" of a PHIL parameter) go with it
# (a parameter line of a signature, "top_k: int | None = None,", is no statement)
_BINDING_LINE = re.compile(
    r"^\s*[A-Za-z_][\w.]*(?:\s*:\s*[\w\[\], .|]+)?\s*=\s*[^=\s](?!.*,\s*$)"
)

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "whether",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "per",
        "via",
        "i.e",
        "e.g",
        "etc",
        "according",
        "say",
        "says",
        "said",
        "listed",
        "defined",
        "given",
        "used",
        "using",
        "use",
        "uses",
        "one",
        "ones",
        "does",
        "do",
        "it's",
        "actually",
        # prepositions and conjunctions: they place or join what is asked, never name it
        # ("how many lines *around* the match")
        "around",
        "across",
        "among",
        "amongst",
        "within",
        "toward",
        "towards",
        "upon",
        "throughout",
        "onto",
        "amid",
        "beneath",
        "underneath",
        "since",
        "unless",
        "though",
        "although",
        "whereas",
        "despite",
        "without",
        "beyond",
        "besides",
        # hedges: "*roughly* how long", "what does it *usually* return": how sure the
        # asker is, never what a passage must say
        "roughly",
        "approximately",
        "typically",
        "usually",
        "generally",
        "exactly",
        "precisely",
        "nearly",
        "almost",
    ]
)
# Words that shape the question but never name what is asked about.
QUESTION_WORDS = frozenset(
    [
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "when",
        "where",
        "why",
        "how",
        "many",
        "much",
        "long",
        "value",
        "values",
        "number",
        "kind",
        "type",
        "name",
        "named",
        "called",
        "recommend",
        "recommends",
        "recommended",
        "describe",
        "explain",
        "tell",
        "exactly",
        "specific",
        "particular",
    ]
)


def normalise(text: str) -> str:
    """Lower case, whitespace collapsed, Markdown emphasis and code marks removed."""
    text = re.sub(r"[*`]+", "", text)
    return " ".join(text.split()).lower()


def tokens(text: str) -> list[str]:
    """Lower-case tokens; compound identifiers also yield their parts (p9-sad → p9, sad)."""
    found: list[str] = []
    for match in _TOKEN.finditer(text.replace("`", " ").replace("*", " ")):
        token = match.group(0).lower().strip(".:/-")
        if not token:
            continue
        found.append(token)
        parts = [p for p in re.split(r"[_.\-/:]", token) if p]
        if len(parts) > 1:
            found.extend(parts)
    return found


# Short forms technical prose writes for a unit or a noun ("40 pts", "30 secs",
# "params"): they stem to the full word's stem, so "how many points" finds "40 pts".
# Only unambiguous ones: "min" (minute or minimum) and "docs" (a folder name) are left.
_SHORT_FORMS = {
    "pt": "point", "pts": "point", "sec": "second", "secs": "second", "mins": "minut",
    "hr": "hour", "hrs": "hour", "param": "paramet", "params": "paramet", "msg": "messag",
    "msgs": "messag", "char": "charact", "chars": "charact", "arg": "argu", "args": "argu",
}  # fmt: skip


@lru_cache(maxsize=1 << 16)
def stem(token: str) -> str:
    """A small suffix stripper: retire/retired/retirement, apply/applies, split/splitting.

    Cached: a corpus's vocabulary and unit index stem every token of every chunk, and
    the same few thousand words recur (halves building them: 0.66 → 0.33 s).

    No stemming library ships here; this folds the inflections that decide whether a
    question's word appears in a passage, and leaves identifiers and numbers alone.
    """
    if token in _SHORT_FORMS:
        return _SHORT_FORMS[token]
    if len(token) <= 4 or not token.isalpha():
        return token
    for suffix in (
        "ations",
        "ation",
        "ements",
        "ement",
        "ments",
        "ment",
        "ness",
        "ings",
        "ing",
        "ies",
        "ied",
        "ers",
        "er",
        "ed",
        "es",
        "s",
        "ly",
    ):
        # "-ment" leaves a root of four letters at least: element and comment stay
        # whole (not "ele", "com"), argument and retirement lose it.
        shortest = 4 if suffix.endswith(("ment", "ments")) else 3
        if token.endswith(suffix) and len(token) - len(suffix) >= shortest:
            token = token[: -len(suffix)]
            break
    if len(token) > 4 and token[-1] == token[-2] and token[-1] not in "aeiousl":
        token = token[:-1]
    if len(token) > 4 and token[-1] in "ey":
        token = token[:-1]
    return token


def content_terms(text: str) -> list[str]:
    """Stemmed content words without stopwords or question words, in order, no repeats.

    A hyphenated compound counts by its parts ("free-text" is matched by "free" and
    "text"); identifiers with '_', '.' or '/' count whole and by their parts.
    """
    seen: dict[str, None] = {}
    for token in tokens(text):
        if len(token) < 2 or token in STOPWORDS or token in QUESTION_WORDS:
            continue
        if "-" in token and not re.search(r"[_./:]", token):
            continue  # its parts follow in tokens()
        seen.setdefault(stem(token), None)
    return list(seen)


def term_set(text: str) -> set[str]:
    """Every stemmed token of a text (stopwords included: membership tests only)."""
    return {stem(t) for t in tokens(text)}


def abbreviations(text: str) -> set[str]:
    """Parts of code identifiers, which abbreviate words (`_CELL_LENGTH_TOL_FRAC`)."""
    parts: set[str] = set()
    for token in tokens(text):
        if "_" in token:
            parts.update(p for p in token.split("_") if len(p) >= 3 and p.isalpha())
    return parts


# Languages and formats that files name by their extension: "14 .py" counts Python files.
_EXTENSION_OF = {
    "python": "py", "javascript": "js", "typescript": "ts", "markdown": "md", "yaml": "yml",
    "shell": "sh", "bash": "sh", "rust": "rs", "ruby": "rb", "text": "txt", "perl": "pl",
}  # fmt: skip


# the arrows a passage writes a change or a sequence with: "3 → 5", "proposed -> testing"
ARROW = r"(?:→|->|⇒)"
# A version token ("v114", "v115.09b", "2.3.1") names a version or release by itself.
VERSION_TOKEN = re.compile(r"(?<![\w.])(?:v\d+(?:\.\d+)*[a-z]?\d*|\d+\.\d+\.\d+)(?![\w])")
_VERSION_STEMS = frozenset({"version", "releas"})
# A magnitude written as a suffix names its word: "<30B parameters" says billion.
_MAGNITUDE_OF = {
    stem(word): re.compile(rf"\d(?:[.,]\d+)?\s?{suffix}\b")
    for word, suffix in (("billion", "B"), ("million", "M"), ("thousand", "K"))
}


# Words a document writes for the same relation as the question's word: what a tool
# "needs first" is its prerequisite, its dependency, its requirement.
_SAME_RELATION = {
    "prerequisit": ("dependenc", "depend", "requir"),
    "dependenc": ("prerequisit", "depend", "requir"),
    # a sum of parts: "the combined score" is the "total"
    "combin": ("total",),
    "total": ("combin",),
    # text made shorter: "cut off at" is "truncated at"
    "cut": ("truncat",),
    "truncat": ("cut",),
}


def present_terms(terms: Iterable[str], text: str) -> set[str]:
    """The terms a text contains, by stem, as an identifier abbreviation (tol →
    tolerance), as a file extension (.py → python), for "version" as a version token
    (v114), or for "billion" as a magnitude suffix (30B)."""
    stems = term_set(text)
    short = abbreviations(text)
    # "unbounded growth" says "without bound": a negating prefix still names the word
    negated = {s[2:] for s in stems if s.startswith("un") and len(s) > 5}
    found = set()
    for term in terms:
        abbreviated = short and len(term) > 4 and any(term.startswith(p) for p in short)
        version = term in _VERSION_STEMS and VERSION_TOKEN.search(text)
        magnitude = term in _MAGNITUDE_OF and _MAGNITUDE_OF[term].search(text)
        related = any(other in stems for other in _SAME_RELATION.get(term, ()))
        if (
            term in stems
            or term in negated
            or abbreviated
            or _EXTENSION_OF.get(term) in stems
            or version
            or magnitude
            or related
        ):
            found.add(term)
    return found


_NUMBER = re.compile(r"(?<![A-Za-z_\d])\d+(?:[.,]\d+)*(?![A-Za-z_])")


def find_name(name: str, text: str, start: int = 0) -> re.Match[str] | None:
    """Where `text` writes `name` whole, ignoring case: not inside a longer identifier or
    dotted name ("ncs_file" is not in "my_ncs_file", "autosol" not in "phenix.autosol2")."""
    return re.compile(rf"(?<![\w.]){re.escape(name)}(?![\w])", re.IGNORECASE).search(text, start)


def has_number(text: str) -> bool:
    """A standalone number (20, 0.345, 41%, 2026-05-20), not a digit inside v120 or K_H4."""
    return bool(_NUMBER.search(text))


@dataclass(frozen=True)
class Unit:
    """One answerable piece of a chunk: a sentence, a list item or a table row."""

    text: str
    start: int  # offset in the chunk text, for ordering


# `  on_complete: build_from_phases`, `- program: phenix.autosol`: a YAML mapping line
_YAML_KEY = re.compile(r"^\s*(?:-\s+)?[\"']?[A-Za-z_][\w.-]*[\"']?:(?:\s|$)")
YAML_SHARE = 0.6  # of a block's lines that are mapping lines: the block is YAML


def _yaml_units(block: str, start: int) -> Iterator[Unit]:
    """Units of a YAML block: each mapping line with the lines it wraps onto (a
    folded string, a continued list). Joined as prose or as list items, a line
    ran on into its parent's sibling ("- not_done: autosol transitions: on_complete:
    build_from_phases"), and the key a value sits under became a stranger's."""
    cursor = start
    current: list[str] = []
    at = start
    for line in block.split("\n"):
        if (_YAML_KEY.match(line) and not _same_record(current, line)) or not current:
            if current:
                yield Unit(" ".join(part.strip() for part in current).strip(), at)
            current, at = [line], cursor
        else:
            current.append(line)
        cursor += len(line) + 1
    joined = " ".join(part.strip() for part in current).strip()
    if len(joined) >= 3:
        yield Unit(joined, at)


def _same_record(unit_lines: list[str], line: str) -> bool:
    """Whether a key line is another key of the list item the unit opens ("- d_max: 2.0"
    then "  target: 0.25"): one record, whose keys mean something only together."""
    if not unit_lines:
        return False
    first = unit_lines[0]
    item = re.match(r"^(\s*)-\s+", first)
    return item is not None and indent_of(line) == len(item.group(0))


def indent_of(line: str) -> int:
    """How many whitespace characters open the line."""
    return len(line) - len(line.lstrip())


_YAML_OPENER = re.compile(r"^([ \t]*)(?:-[ \t]+)?[\"']?([A-Za-z_][\w.-]*)[\"']?:[ \t]*(?:#.*)?$")
RECORD_LINES = 12  # of a YAML block, what a record of its key holds


def yaml_records(text: str) -> Iterator[tuple[str, str]]:
    """(key, "key: the lines under it") for each YAML key that opens a block in `text`:
    the mapping that describes the key ("sad_phasing:" over its `applicable_when:`
    lines), which line-by-line units split apart. Up to a blank line, and at most
    `RECORD_LINES` lines."""
    lines = text.split("\n")
    for index, line in enumerate(lines):
        opener = _YAML_OPENER.match(line)
        if opener is None:
            continue
        depth = len(opener.group(1))
        body: list[str] = []
        for below in lines[index + 1 :]:
            if not below.strip() and body:
                break  # a blank line closes the key's first group, as it does a paragraph
            if below.strip() and indent_of(below) <= depth:
                break
            if below.strip():
                body.append(below.strip())
        if body:
            yield opener.group(2), f"{opener.group(2)}: {' '.join(body[:RECORD_LINES])}"


def _is_yaml(lines: list[str]) -> bool:
    """Whether a block is a YAML mapping: most of its lines are `key:` lines, at
    least two of them, one opening a nested block (prose has "Note: …" lines too)."""
    filled = [line for line in lines if line.strip() and not line.strip().startswith("#")]
    keys = [line for line in filled if _YAML_KEY.match(line)]
    opens = any(line.rstrip().endswith(":") for line in keys)
    return len(keys) >= 2 and opens and len(keys) >= YAML_SHARE * len(filled)


def sentences(text: str) -> Iterator[Unit]:
    """Split chunk text into verbatim sentences, list items and table rows.

    Lines of lists and tables are units of their own; a wrapped paragraph is joined
    before splitting at sentence ends; a YAML block is split at its mapping lines.
    Every unit is a substring of the chunk after whitespace normalisation, which is
    what citation grounding checks.
    """
    offset = 0
    for block in re.split(r"\n\s*\n", text):
        start = text.find(block, offset)
        offset = start + len(block)
        lines = block.split("\n")
        if _is_yaml(lines):
            yield from (unit for unit in _yaml_units(block, start) if len(unit.text) >= 3)
            continue
        paragraph: list[str] = []
        para_start = start

        def flush(lines_: list[str], at: int) -> Iterator[Unit]:
            joined = " ".join(line.strip() for line in lines_).strip()
            position = at
            for piece in _SENTENCE_END.split(joined):
                piece = piece.strip()
                if len(piece) >= 3:
                    yield Unit(piece, position)
                    position += len(piece)

        cursor = start
        item = False  # the paragraph being gathered is a list item's text
        for line in lines:
            stripped = line.strip()
            is_item = bool(LIST_ITEM.match(line))
            binding = bool(_BINDING_LINE.match(line))
            if is_item or binding or _LIST_OR_TABLE.match(line) or stripped.startswith("|"):
                if paragraph:
                    yield from flush(paragraph, para_start)
                    paragraph = []
                item = is_item or binding
                if item:  # its wrapped lines follow: gather them with it
                    para_start = cursor
                    paragraph.append(line)
                elif stripped and not re.fullmatch(r"[|\-:\s`]+", stripped):
                    yield from flush([stripped], cursor)
            elif item and paragraph:
                paragraph.append(line)  # a wrapped list item goes on (lazy continuation)
            else:
                if not paragraph:
                    para_start = cursor
                paragraph.append(line)
            cursor += len(line) + 1
        if paragraph:
            yield from flush(paragraph, para_start)


@dataclass
class Vocabulary:
    """Document frequencies of stemmed terms over a corpus's chunks."""

    documents: int = 0
    frequency: Counter[str] = field(default_factory=Counter)
    forms: dict[str, Counter[str]] = field(default_factory=dict)
    # every token and stem each file of the corpus writes: what a whole document names
    file_terms: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Vocabulary:
        vocabulary = cls()
        for text in texts:
            vocabulary.documents += 1
            raw = tokens(text)
            vocabulary.frequency.update({stem(t) for t in raw})
            for token in set(raw):
                vocabulary.forms.setdefault(stem(token), Counter())[token] += 1
        return vocabulary

    def with_files(self, texts_by_file: dict[str, list[str]]) -> Vocabulary:
        """This vocabulary, knowing which tokens and stems each file writes."""
        for file, texts in texts_by_file.items():
            raw = {t for text in texts for t in tokens(text)}
            self.file_terms[file] = frozenset(raw | {stem(t) for t in raw})
        return self

    def names_in_file(self, file: str) -> frozenset[str]:
        """The tokens and stems a file writes anywhere (empty when not known)."""
        return self.file_terms.get(file, frozenset())

    def idf(self, term: str) -> float:
        """Smoothed inverse document frequency; unseen terms count as very rare."""
        n = self.documents or 1
        return math.log((n + 1) / (self.frequency.get(term, 0) + 0.5))

    def known(self, term: str) -> bool:
        return term in self.frequency

    def surface_forms(self, term: str, limit: int = 2) -> list[str]:
        """How the corpus spells a stemmed term, most frequent first (query expansion)."""
        return [form for form, _ in self.forms.get(term, Counter()).most_common(limit)]

    def weights(self, terms: Iterable[str]) -> dict[str, float]:
        return {term: self.idf(term) for term in terms}

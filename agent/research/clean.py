"""Reader-facing text: Markdown markup removed, table rows turned into prose.

Evidence is cited verbatim (grounding compares the raw unit with its chunk), but what a
person reads must not show table pipes, `**`, heading hashes, code fences or box
drawing. A table row is only meaningful with its header, so a row becomes
"column: value; column: value" using the header line found above it in the chunk.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterator

from agentcycle.agent.research.text import LIST_ITEM, indent_of

_BOX = re.compile(r"[\u2500-\u257f\u2580-\u259f\u25a0-\u25ff]+")
_SEPARATOR = re.compile(r"^\s*\|?[\s:|-]+\|[\s:|-]*$")


def is_table_row(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith("|") and stripped.count("|") >= 2


def cells(row: str) -> list[str]:
    """The cells of a Markdown table row, raw (markup kept), outer pipes dropped."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def header_for(row: str, chunk_text: str) -> list[str]:
    """The header cells of the table a row belongs to ([] when none is found).

    The header is the row directly above the |---| separator that precedes `row` in
    the chunk; a row whose cell count differs from the header's gets none.
    """
    lines = chunk_text.splitlines()
    index = next(_lines_of(row, lines), -1)
    above = _header_above(lines, index) if index >= 0 else None
    if above is None:
        return []
    header = [clean_inline(c) for c in cells(lines[above])]
    return header if len(header) == len(cells(row)) else []


def is_header_row(row: str, chunk_text: str) -> bool:
    """Whether a row is its table's header (the line right above the |---| separator):
    it names columns and states no fact."""
    lines = chunk_text.splitlines()
    return any(i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]) for i in _lines_of(row, lines))


def _lines_of(row: str, lines: list[str]) -> Iterator[int]:
    """The indices of the lines that are this row, whitespace aside, first one first
    (lazily: `header_for` runs per table row while ranking and needs only the first)."""
    target = " ".join(row.split())
    return (i for i, line in enumerate(lines) if " ".join(line.split()) == target)


def _header_above(lines: list[str], index: int) -> int | None:
    """The index of the header line of the table whose rows run up to `lines[index]`
    (the line above its |---| separator), or None when a non-table line comes first."""
    for i in range(index, 0, -1):
        if _SEPARATOR.match(lines[i]) and is_table_row(lines[i - 1]):
            return i - 1
        if not is_table_row(lines[i]):
            return None
    return None


def table_headers(text: str) -> list[list[str]]:
    """The header cells of every table in `text` (each the row above a |---| line)."""
    lines = text.splitlines()
    return [
        [clean_inline(c).strip() for c in cells(line)]
        for line, below in itertools.pairwise(lines)
        if is_table_row(line) and _SEPARATOR.match(below)
    ]


def open_table_header(text: str) -> str:
    """The header and separator lines of the table `text` ends inside of, or ''."""
    lines = [line for line in text.splitlines() if line.strip()]
    above = _header_above(lines, len(lines) - 1)
    return "" if above is None else f"{lines[above]}\n{lines[above + 1]}"


def starts_headless_table(text: str) -> bool:
    """Whether a text opens with table rows whose header is not in it (a continuation)."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or not is_table_row(lines[0]) or _SEPARATOR.match(lines[0]):
        return False
    return not (len(lines) > 1 and _SEPARATOR.match(lines[1]))


def clean_inline(text: str) -> str:
    """One line of Markdown as plain text."""
    text = _BOX.sub(" ", text)
    text = text.replace("`", "")
    text = re.sub(r"\*\*|__", "", text)
    text = re.sub(r"(?<![\w*])\*(?=\S)([^*]+?)\*(?!\w)", r"\1", text)
    text = re.sub(r"^\s*#{1,6}\s+", "", text)
    # a list or quote mark; "> 0.80" in a table cell is a bound, kept
    text = re.sub(r"^\s*(?:[-*+]|>(?!\s*\d)|\d+[.)])\s+", "", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # links keep their words
    text = text.replace("```", " ")
    return " ".join(text.split())


def row_prose(row: str, header: list[str]) -> str:
    """'column: value; column: value' for a table row (cells only when no header)."""
    values = [clean_inline(c) for c in cells(row)]
    if header and len(header) == len(values):
        parts = [f"{h}: {v}" if h else v for h, v in zip(header, values, strict=True) if v]
    else:
        parts = [v for v in values if v]
    return "; ".join(parts)


def clean_unit(text: str, chunk_text: str = "") -> str:
    """A unit (sentence, list item or table row) as clean prose."""
    if is_table_row(text):
        return row_prose(text, header_for(text, chunk_text) if chunk_text else [])
    return clean_inline(text)


_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)


def find_words(words: list[str], text: str) -> re.Match[str] | None:
    """Where `text` writes `words` in order with any whitespace between them, or None:
    a unit joins its lines with one space ("repeat: max_cycles: 4 until: …")."""
    return re.search(r"\s+".join(map(re.escape, words)), text) if words else None


def in_code_block(unit: str, chunk_text: str) -> bool:
    """Whether a unit sits inside a fenced code block of its chunk: a YAML or code
    fragment ("repeat: max_cycles: 4 until: any:") reads as noise beside a sentence."""
    found = find_words(unit.split()[:6], chunk_text)
    return found is not None and len(_FENCE.findall(chunk_text, 0, found.start())) % 2 == 1


def is_clean(text: str) -> bool:
    """No pipes between words, emphasis markers, heading hashes, fences or box drawing."""
    return not (
        "**" in text
        or "```" in text
        or "`" in text
        or _BOX.search(text)
        or re.search(r"(^|\n)\s*#{1,6}\s", text)
        or re.search(r"\s\|\s", text)
    )


_LABEL = re.compile(r"^\s*\*\*([^*\n]{2,60})\*\*\s*(?:\([^)\n]*\))?\s*$", re.MULTILINE)


_OPENS_BLOCK = re.compile(r":[ \t]*(?:#[^\n]*)?\n(?:[ \t]*\n)*[ \t]+\S")


def unit_offset(unit: str, chunk_text: str) -> int:
    """Where a unit starts in its chunk, or -1. A unit joins its lines with one space
    ("- range: [1.5, 2.5] value: 0.25" of a two-line YAML item), so its opening words
    are looked for with any whitespace between them."""
    at = chunk_text.find(unit[:40])
    if at >= 0:
        return at
    found = find_words(unit[:40].split(), chunk_text)
    return found.start() if found else -1


def enclosing_line(unit: str, chunk_text: str) -> str:
    """The lines above the unit that are less indented and open a block, outermost
    first ("targets: r_free:", "class Verbosity:"), or '': what an indented binding
    belongs to ('NORMAL = "normal"  # (default)' is the Verbosity class's; YAML's
    `default: 0.25` is the R-free target's only under `targets:` and `r_free:`)."""
    if _OPENS_BLOCK.search(chunk_text) is None:
        return ""  # prose: no line opens an indented block (most chunks; checked at once)
    at = unit_offset(unit, chunk_text)
    if at <= 0:
        return ""
    start = chunk_text.rfind("\n", 0, at) + 1
    indent = at - start
    if indent == 0 or chunk_text[start:at].strip():
        return ""
    openers: list[str] = []
    for line in reversed(chunk_text[:start].splitlines()):
        if not line.strip():
            continue
        depth = indent_of(line)
        if depth < indent:
            if not line.rstrip().endswith(":"):
                break  # a less indented statement: the unit is not in a block of it
            openers.append(line.strip())
            indent = depth
            if depth == 0:
                break
    return " ".join(reversed(openers))


def list_lead_in(unit: str, chunk_text: str) -> str:
    """The line that opens the list a list item belongs to ("For each nested chunk from
    resolved references:", "**search_docs:**"), or '': an item says its piece of what
    the lead-in names ("- Include only if score > 0.6"), and seldom names it again."""
    if not LIST_ITEM.match(unit):
        return ""
    return _lead_in(unit, chunk_text, _in_list, loose=True)


def _in_list(line: str) -> bool:
    """An earlier item of the same list, or an item's second line."""
    return bool(LIST_ITEM.match(line)) or indent_of(line) > 0


def table_lead_in(unit: str, chunk_text: str) -> str:
    """The line that introduces the table a row belongs to ("**Pattern conventions**
    (see `crawl.yaml`):"), or '': a row's cells name their row, the lead-in what the
    whole table is about."""
    if not is_table_row(unit):
        return ""
    # the header and the rows above; a table's rows are never spaced by blank lines
    return _lead_in(unit, chunk_text, lambda line: line.strip().startswith("|"), loose=False)


def _lead_in(unit: str, chunk_text: str, in_block: Callable[[str], bool], loose: bool) -> str:
    """The line ending in ':' right above the block that holds the unit (`in_block`
    says which lines above it still belong to the block), or '' past a paragraph break:
    a second blank line on the way up. In a `loose` block (a list whose items are spaced
    by blank lines) each line of the block starts the count again."""
    at = unit_offset(unit, chunk_text)
    if at <= 0:
        return ""
    blanks = 0
    for line in reversed(chunk_text[: chunk_text.rfind("\n", 0, at) + 1].splitlines()):
        if not line.strip():
            blanks += 1
            if blanks > 1:  # a paragraph break, not a loose list's spacing
                return ""
            continue
        if in_block(line):
            if loose:
                blanks = 0
            continue
        return line.strip() if line.strip().strip("*_`").endswith(":") else ""
    return ""


def label_above(unit: str, chunk_text: str) -> str:
    """The bold label line closest above a unit in its chunk (a setting's name in a
    user guide), or ''; labels more than two paragraphs up do not count."""
    at = unit_offset(unit, chunk_text)
    if at <= 0:
        return ""
    labels = list(_LABEL.finditer(chunk_text, 0, at))
    if not labels:
        return ""
    last = labels[-1]
    if chunk_text.count("\n\n", last.end(), at) > 2:
        return ""
    return last.group(1)


def context_label(unit: str, chunk_text: str, bold: bool = True) -> str:
    """What names the thing a unit speaks of when the unit itself does not: the bold
    label above it (`bold`), the block it is indented in, or the lead-in of its list
    or table."""
    return (
        (label_above(unit, chunk_text) if bold else "")
        or enclosing_line(unit, chunk_text)
        or list_lead_in(unit, chunk_text)
        or table_lead_in(unit, chunk_text)
    )

"""A code value written right beside the noun a question asks for, as its tag.

"What status must a document have?" over "Documents must have status `INDEXED`": the
value stands beside the asked noun, quoted as code, in a sentence that says what the
question says of it. Such a unit states the answer as plainly as `status = INDEXED`,
though it may share fewer words with the question than a code comment that happens to
repeat its names. Naming alone is not enough: "the `x` category captures these files"
names a category, and says nothing of the case asked about.
"""

from __future__ import annotations

import re

from agentcycle.agent.research.answer_type import main_clause
from agentcycle.agent.research.text import STOPWORDS, stem

# a plain word, not part of a code name or a call ("`x`", "a.b", "f(")
_PLAIN_WORD = re.compile(r"(?<![\w`.-])[A-Za-z]{3,}(?![\w`.(-])")
# what a question writes when it names one thing of a kind itself
_CODE_WORD = re.compile(r"`[^`]+`|[A-Za-z]\w*[_.]\w+|[A-Z][A-Z0-9]{2,}")
_POINTER = re.compile(r"\b(?:that|this|the same)$", re.IGNORECASE)


def tagged_by_asked_noun(unit: str, position: int, length: int, question: str, head: str) -> bool:
    """Whether the candidate at `position` (`length` characters, maybe from its opening
    quote) is a code value tagged by the asked noun `head` (stemmed), in a unit that
    says what the question says of that noun, while the question names no other thing
    of the kind (then the noun tells the asked one from none)."""
    return (
        _beside_head(unit, position, length, head)
        and _says_what_the_question_says(unit, question, head)
        and not names_one_of_its_kind(question, head)
    )


def _beside_head(unit: str, position: int, length: int, head: str) -> bool:
    """Whether a code-quoted candidate stands right beside the asked noun, nothing but a
    space between: "must have status `INDEXED`", "emits one `PP_FILE_METRIC` line".
    Punctuation between ("[GATE] Phase", "program, `mtz_info`") or a candidate in plain
    text ("the PHIL parameter", "no module re-defines") names something else."""
    inner = position + (unit[position : position + 1] == "`")
    start, end = inner - 1, inner + length + 1
    if start < 0 or unit[start] != "`" or unit[end - 1 : end] != "`":
        return False
    before = re.search(r"(?<![\w`-])([A-Za-z][\w-]*) $", unit[max(0, start - 30) : start])
    after = re.match(r" ([A-Za-z][\w-]*)(?![\w`-])", unit[end : end + 30])
    return any(m is not None and stem(m.group(1).lower()) == head for m in (before, after))


def _says_what_the_question_says(unit: str, question: str, head: str) -> bool:
    """Whether the unit writes, in plain words, a word the asking clause says after the
    asked noun ("what status must a *document* have" and "*Documents* must have status
    `INDEXED`")."""
    asking = main_clause(question)
    at = next(
        (m.end() for m in _PLAIN_WORD.finditer(asking) if stem(m.group(0).lower()) == head), None
    )
    if at is None:
        return False
    said = {stem(w.lower()) for w in _PLAIN_WORD.findall(asking[at:])} - STOPWORDS - {head}
    return bool(said & {stem(w.lower()) for w in _PLAIN_WORD.findall(unit)})


def names_one_of_its_kind(question: str, head: str) -> bool:
    """Whether the question itself names a thing of the asked kind by a code name beside
    the noun ("the experimental_phasing phase", "status `FAILED`"), or points back at
    one ("which phase does *that phase* go to")."""
    if not head:
        return False
    for match in re.finditer(r"[A-Za-z][\w-]*", question):
        if stem(match.group(0).lower()) != head:
            continue
        before = question[max(0, match.start() - 40) : match.start()].rstrip()
        after = question[match.end() : match.end() + 40].lstrip()
        if _POINTER.search(before) or re.search(rf"(?:{_CODE_WORD.pattern})$", before):
            return True
        if _CODE_WORD.match(after):
            return True
    return False

"""Scorers: pure functions from (what the agent did, what was expected) to a `Score`.

Pure so they are unit-testable without a corpus or Prefect: grounding takes the cited
chunks' texts as an argument instead of reading the corpus table. Every score records
the value, the expectation, a 0–1 score and a one-line explanation, because a bare
"wrong" in a 100-question report is useless. Rules follow `dev.yaml`'s own description
(contains, case/whitespace-normalised; MC by letter; unanswerable = INSUFFICIENT), as
`benchmarks/qa_dev_accuracy.py` applied them first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Score:
    scorer: str
    value: str
    expected: str
    score: float
    explanation: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Chunk:
    """What grounding needs of a cited chunk (read from the corpus table by the caller)."""

    text: str
    file: str = ""
    start: int = -1
    end: int = -1


def norm(text: str) -> str:
    """Lower case, single spaces, Markdown emphasis and code marks dropped."""
    return " ".join(text.replace("*", "").replace("`", "").split()).lower()


def exact(value: str, expected: Sequence[str]) -> Score:
    ok = any(norm(value) == norm(e) for e in expected)
    why = "equals an accepted answer" if ok else "differs from every accepted answer"
    return Score("exact", value, " | ".join(expected), float(ok), why)


def contains(value: str, expected: Sequence[str]) -> Score:
    hit = next((e for e in expected if norm(e) and norm(e) in norm(value)), None)
    why = f"contains {hit!r}" if hit else "contains no accepted answer"
    return Score("contains", value[:300], " | ".join(expected), float(hit is not None), why)


def numeric(value: str, expected: str, tolerance: float) -> Score:
    """Any number in the answer within `tolerance` of the expected number."""
    try:
        target = float(expected.replace(",", ""))
    except ValueError:
        return Score("numeric", value[:300], expected, 0.0, "expected value is not a number")
    numbers = [float(n.replace(",", ".")) for n in _NUMBER.findall(value)]
    best = min(numbers, key=lambda n: abs(n - target), default=None)
    ok = best is not None and abs(best - target) <= tolerance
    why = "no number in the answer" if best is None else f"closest {best:g} (±{tolerance:g})"
    return Score("numeric", value[:300], expected, float(ok), why)


def mc_letter(letter: str | None, expected: str) -> Score:
    got = (letter or "").strip().upper()
    want = expected.strip().upper()
    ok = got == want
    why = "right letter" if ok else ("no letter chosen" if not got else f"chose {got}")
    return Score("mc_letter", got, want, float(ok), why)


def insufficient(flagged: bool, answer: str) -> Score:
    """An unanswerable question is right only when the agent declines."""
    ok = flagged or "insufficient evidence" in norm(answer)
    why = "declined" if ok else "answered a question the corpus cannot answer"
    return Score("insufficient", answer[:300], "INSUFFICIENT", float(ok), why)


def _overlaps(chunk: Chunk, file: str, span: tuple[int, int] | None) -> bool:
    if span is None or chunk.start < 0 or not chunk.file:
        return False
    same_file = chunk.file == file or file.endswith("/" + chunk.file) or chunk.file.endswith(file)
    return same_file and chunk.start < span[1] and span[0] < chunk.end


def grounding(
    cited: Sequence[str],
    chunks: Mapping[str, Chunk],
    sources: Sequence[tuple[str, str, tuple[int, int] | None]],
) -> Score:
    """Is some cited chunk the evidence? It contains a source quote (normalised) or
    overlaps the quote's character span in its file. `sources` are (file, quote, span)."""
    expected = " | ".join(f"{f}: {q[:60]}" for f, q, _ in sources)
    if not cited:
        return Score("grounding", "", expected, 0.0, "no citations")
    for chunk_id in cited:
        chunk = chunks.get(chunk_id)
        if chunk is None:
            continue
        for file, quote, span in sources:
            if quote and norm(quote) in norm(chunk.text):
                return Score("grounding", chunk_id, expected, 1.0, f"{chunk_id} quotes {file}")
            if _overlaps(chunk, file, span):
                return Score("grounding", chunk_id, expected, 1.0, f"{chunk_id} overlaps {file}")
    missing = [c for c in cited if c not in chunks]
    why = "no cited chunk holds a source quote"
    if missing:
        why += f" ({len(missing)} cited chunk(s) not in the corpus)"
    return Score("grounding", " ".join(cited), expected, 0.0, why)


def sequence_match(programs: Sequence[str], expected: Sequence[str]) -> Score:
    ok = list(programs) == list(expected)
    why = (
        "same programs in order"
        if ok
        else f"first difference at step {_first_diff(programs, expected)}"
    )
    return Score("sequence", " > ".join(programs), " > ".join(expected), float(ok), why)


def _first_diff(a: Sequence[str], b: Sequence[str]) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index + 1
    return min(len(a), len(b)) + 1


# ---------------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Answer:
    """What the agent gave for a QA sample: its text, whether it declined, its MC letter."""

    text: str
    flagged: bool = False
    letter: str | None = None


QaScorer = Callable[[Any, Answer], Score | None]
SCORERS: dict[str, QaScorer] = {}


def scorer(name: str) -> Callable[[QaScorer], QaScorer]:
    """Register a QA scorer under `name`: adding a scorer is one decorated function.

    A scorer takes (sample, answer) and returns a `Score`, or None where it does not
    apply to the sample. `score_qa` runs every registered scorer in registration order;
    the first score decides `correct`, the others are recorded beside it.
    """

    def register(function: QaScorer) -> QaScorer:
        if name in SCORERS:
            raise ValueError(f"scorer {name!r} is registered twice")
        SCORERS[name] = function
        return function

    return register


def _accepted(sample: Any) -> list[str]:
    return [sample.answer, *sample.accept]


@scorer("mc_letter")
def _mc_letter(sample: Any, answer: Answer) -> Score | None:
    return mc_letter(answer.letter, sample.answer) if sample.type == "mc" else None


@scorer("insufficient")
def _insufficient(sample: Any, answer: Answer) -> Score | None:
    return insufficient(answer.flagged, answer.text) if sample.type == "unanswerable" else None


@scorer("numeric")
def _numeric(sample: Any, answer: Answer) -> Score | None:
    """Before `contains`, so a numeric sample is decided within its tolerance."""
    if sample.type in ("mc", "unanswerable") or answer.flagged or sample.tolerance is None:
        return None
    return numeric(answer.text, sample.answer, sample.tolerance)


@scorer("contains")
def _contains(sample: Any, answer: Answer) -> Score | None:
    if sample.type in ("mc", "unanswerable"):
        return None
    if answer.flagged:  # declining an answerable question is wrong
        expected = " | ".join(_accepted(sample))
        return Score("contains", answer.text[:300], expected, 0.0, "declined")
    return contains(answer.text, _accepted(sample))


def first_line(text: str) -> str:
    """The first non-empty line: what a reader sees as the answer."""
    return next((line for line in text.splitlines() if line.strip()), "")


def _plain(text: str) -> str:
    """`norm` plus the markup a reader never reads as words: pipes, hashes, quotes."""
    return " ".join(re.sub(r"[|#\"“”]", " ", norm(text)).split())


def direct(value: str, expected: Sequence[str], choice: str | None = None) -> Score:
    """An accepted answer appears in the first line (case, spaces and markup aside).

    For multiple choice, `expected` is the letter and `choice` the option's text: both
    must be on the first line, as "(B) option text".
    """
    line = first_line(value)
    plain = _plain(line)
    if choice is not None:
        letter = expected[0].strip().upper()
        ok = bool(re.search(rf"\(\s*{letter.lower()}\s*\)|\b{letter.lower()}\)", plain)) and (
            _plain(choice) in plain
        )
        why = "letter and option on the first line" if ok else "first line lacks letter/option"
        return Score("direct", line[:300], f"({letter}) {choice}", float(ok), why)
    hit = next((e for e in expected if _on_line(_plain(e), plain)), None)
    why = f"first line contains {hit!r}" if hit else "no accepted answer on the first line"
    return Score("direct", line[:300], " | ".join(expected), float(hit is not None), why)


_WHOLE_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")


def _on_line(expected: str, line: str) -> bool:
    """Whether an accepted answer is on the line. A number is read as a number: "6" is
    not on "~60" (a substring is), and "0.7" is on "0.70"; other answers as text."""
    if not expected:
        return False
    if _WHOLE_NUMBER.fullmatch(expected):
        written = re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?!\.?\d)", line)  # "91s" writes 91
        return any(float(n) == float(expected) for n in written)
    return expected in line


@scorer("direct")
def _direct(sample: Any, answer: Answer) -> Score | None:
    """Beside `contains`: judges only the first line, which is what a reader sees."""
    if sample.type == "unanswerable":
        return None
    if sample.type == "mc":
        choice = (sample.choices or {}).get(sample.answer.strip().upper(), "")
        return direct(answer.text, [sample.answer], choice)
    if answer.flagged:
        expected = " | ".join(_accepted(sample))
        return Score("direct", first_line(answer.text)[:300], expected, 0.0, "declined")
    return direct(answer.text, _accepted(sample))


def score_qa(sample: Any, answer: str, flagged: bool, letter: str | None) -> list[Score]:
    """Every registered scorer that applies to the sample; the first decides `correct`."""
    given = Answer(answer, flagged, letter)
    return [s for s in (function(sample, given) for function in SCORERS.values()) if s]

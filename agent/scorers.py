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
from collections.abc import Mapping, Sequence
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


def score_qa(sample: Any, answer: str, flagged: bool, letter: str | None) -> list[Score]:
    """The correctness scorers for a QA sample; the first decides `correct`."""
    expected = [sample.answer, *sample.accept]
    if sample.type == "mc":
        return [mc_letter(letter, sample.answer)]
    if sample.type == "unanswerable":
        return [insufficient(flagged, answer)]
    if flagged:
        declined = Score("contains", answer[:300], " | ".join(expected), 0.0, "declined")
        return [declined]
    scores = [contains(answer, expected)]
    if sample.tolerance is not None:
        scores.insert(0, numeric(answer, sample.answer, sample.tolerance))
    return scores

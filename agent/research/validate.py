"""Validation gate and citation grounding before an answer is final (DocuChat seed).

Constraints are parsed from the question (minimum searches, an exact quote, an
insufficiency disclosure). The gate checks a draft against them and against the
evidence: a citation to a chunk that was never retrieved is stripped; a cited sentence
must appear in its cited chunk (verbatim after whitespace normalisation for extractive
answers; for generated ones, its rare words must); a quote must be verbatim in a cited
chunk. Unmet constraints send the draft back (bounded by MAX_REPROMPTS); what still
fails is removed, and an answer with nothing grounded left becomes "insufficient".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentcycle.agent.research.state import Citation, Evidence
from agentcycle.agent.research.text import content_terms, normalise, present_terms, tokens

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_MIN_SEARCHES = re.compile(
    r"\b(?:at least|minimum of|no fewer than)\s+(\d+|one|two|three|four|five)\s+"
    r"(?:separate\s+|different\s+)?(?:searches|queries|retrievals|lookups)",
    re.IGNORECASE,
)
_QUOTE = re.compile(
    r"\b(quote|verbatim|exact (?:text|line|wording|sentence|words))\b", re.IGNORECASE
)
_DISCLOSE = re.compile(
    r"\b(say|state|answer|reply|write)\b[^.?!]{0,20}['\"“]?insufficient"
    r"|\bif (?:it is |this is )?not (?:found|documented|covered|stated)",
    re.IGNORECASE,
)
_QUOTED_SPAN = re.compile(r"[“\"]([^”\"]{8,})[”\"]")
_CITATION = re.compile(r"\s*\[(\d+)\]")


@dataclass(frozen=True)
class Constraints:
    min_searches: int = 0
    requires_quote: bool = False
    requires_disclosure: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "min_searches": self.min_searches,
            "requires_quote": self.requires_quote,
            "requires_disclosure": self.requires_disclosure,
        }


def parse_constraints(question: str) -> Constraints:
    searches = 0
    match = _MIN_SEARCHES.search(question)
    if match:
        word = match.group(1).lower()
        searches = _NUMBERS.get(word) or int(word)
    return Constraints(searches, bool(_QUOTE.search(question)), bool(_DISCLOSE.search(question)))


def grounded(sentence: str, chunk_text: str) -> bool:
    """Is the sentence (without its [n] marks) verbatim in the chunk, whitespace aside?"""
    bare = normalise(_CITATION.sub("", sentence))
    return bool(bare) and bare in normalise(chunk_text)


def grounded_claim(sentence: str, chunk_text: str) -> bool:
    """For generated sentences: every number and most content words are in the chunk."""
    bare = _CITATION.sub("", sentence)
    if grounded(bare, chunk_text):
        return True
    chunk = normalise(chunk_text)
    numbers = [t for t in tokens(bare) if re.fullmatch(r"\d+(?:[.,]\d+)*%?", t)]
    if any(n not in chunk for n in numbers):
        return False
    terms = content_terms(bare)
    return not terms or len(present_terms(terms, chunk_text)) >= 0.6 * len(terms)


@dataclass
class GateReport:
    errors: list[str] = field(default_factory=list)
    stripped: int = 0
    citations: list[Citation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def check(
    citations: list[Citation],
    evidence: dict[str, Evidence],
    constraints: Constraints,
    searches: int,
    insufficient: bool,
    answer: str,
    verbatim: bool = True,
) -> GateReport:
    """Strip citations that are not grounded; list the constraints still unmet."""
    report = GateReport()
    test = grounded if verbatim else grounded_claim
    for citation in citations:
        hit = evidence.get(citation.chunk_id)
        if hit is None or not test(citation.sentence, hit.text):
            report.stripped += 1
            continue
        report.citations.append(citation)
    if report.stripped:
        report.errors.append(
            f"UNGROUNDED_CITATIONS: {report.stripped} citation(s) point at "
            "text the cited chunk does not contain"
        )
    if not insufficient and not report.citations:
        report.errors.append("NO_GROUNDED_CLAIMS: no sentence of the answer is grounded")
    if searches < constraints.min_searches:
        report.errors.append(f"MIN_SEARCHES_UNMET: {searches} of {constraints.min_searches}")
    if constraints.requires_quote and not insufficient:
        quotes = _QUOTED_SPAN.findall(answer)
        cited_text = " ".join(normalise(evidence[c.chunk_id].text) for c in report.citations)
        if not any(normalise(q) in cited_text for q in quotes):
            report.errors.append("EXACT_QUOTE_MISSING: no verbatim quote from a cited chunk")
    if constraints.requires_disclosure and insufficient and "insufficient" not in answer.lower():
        report.errors.append("DISCLOSURE_MISSING: say 'insufficient evidence'")
    return report

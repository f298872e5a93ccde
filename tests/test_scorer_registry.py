"""Scorers are a registry: one decorated function adds a scorer to every QA sample.

Pure: real suite samples and the real `score_qa`, no corpus or Prefect.
"""

from __future__ import annotations

from typing import Any

import pytest

from agentcycle.evaluation import scorers
from agentcycle.evaluation.scorers import Answer, Score, score_qa, scorer
from agentcycle.evaluation.suites import QaSample


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> dict:
    """A copy of the registry, so a test's scorer does not outlive the test."""
    copy = dict(scorers.SCORERS)
    monkeypatch.setattr(scorers, "SCORERS", copy)
    return copy


def sample(kind: str = "simple", answer: str = "20", tolerance: float | None = None) -> QaSample:
    choices = {"A": "ten", "B": "twenty"} if kind == "mc" else None
    return QaSample(
        id="q", type=kind, question="How many?", answer=answer, tolerance=tolerance, choices=choices
    )


def test_a_decorated_function_is_a_scorer(registry: dict) -> None:
    @scorer("length")
    def _length(item: Any, given: Answer) -> Score | None:
        if item.type == "mc":
            return None
        return Score("length", given.text, "< 20 chars", float(len(given.text) < 20), "short")

    assert "length" in registry
    names = [s.scorer for s in score_qa(sample(), "it is 20", False, None)]
    assert names[-1] == "length" and names[0] != "length"  # registered last, reported beside
    mc = sample("mc", "B")
    assert "length" not in [s.scorer for s in score_qa(mc, "", False, "B")]
    with pytest.raises(ValueError, match="registered twice"):
        scorer("length")(_length)


def test_the_first_score_decides_and_numeric_comes_before_contains(registry: dict) -> None:
    numeric = score_qa(sample(answer="0.245", tolerance=0.001), "R-free 0.2449", False, None)
    assert numeric[0].scorer == "numeric" and numeric[0].score == 1.0
    declined = score_qa(sample(), "INSUFFICIENT", True, None)
    assert declined[0].scorer == "contains" and declined[0].score == 0.0
    unanswerable = score_qa(sample("unanswerable"), "no evidence", True, None)
    assert [s.scorer for s in unanswerable] == ["insufficient"]

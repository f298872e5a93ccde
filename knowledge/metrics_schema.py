"""`metrics.yaml`: what "good" means, when refinement is finished, and which file is best.

Kept apart from the program and workflow schema because it is judgement, not
mechanics: thresholds (good / acceptable / poor, resolution-dependent), the quality
table of the session summary, the stop rules and the best-files scoring.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from agentcycle.knowledge.schema import FieldProblem, Strict

Quality = Literal["good", "acceptable", "poor"]


class Band(Strict):
    """Thresholds that apply up to a resolution (Å); the first band that covers it wins."""

    up_to: float = Field(gt=0)
    good: float
    acceptable: float


class Threshold(Strict):
    lower_is_better: bool = True
    good: float | None = None
    acceptable: float | None = None
    by_resolution: list[Band] = Field(default_factory=list)

    @model_validator(mode="after")
    def _some_threshold(self) -> Threshold:
        if not self.by_resolution and (self.good is None or self.acceptable is None):
            raise FieldProblem(("good",), "give good and acceptable, or by_resolution bands")
        return self

    def limits(self, resolution: float | None) -> tuple[float, float]:
        """(good, acceptable) for the data's resolution (the last band if unknown)."""
        if self.by_resolution:
            bands = sorted(self.by_resolution, key=lambda b: b.up_to)
            chosen = bands[-1]
            if resolution is not None:
                chosen = next((b for b in bands if resolution <= b.up_to), bands[-1])
            return chosen.good, chosen.acceptable
        assert self.good is not None and self.acceptable is not None
        return self.good, self.acceptable

    def assess(self, value: float, resolution: float | None = None) -> Quality:
        good, acceptable = self.limits(resolution)
        if self.lower_is_better:
            return "good" if value < good else "acceptable" if value < acceptable else "poor"
        return "good" if value > good else "acceptable" if value > acceptable else "poor"


class SummaryRow(Strict):
    metric: str
    label: str


class PlateauRule(Strict):
    cycles: int = Field(default=2, ge=1)
    min_improvement: float = Field(default=0.005, ge=0)


class StopRules(Strict):
    """The stop conditions of the seed, evaluated in one place (agent/stop_rules.py)."""

    target: str = Field(description="The metric whose 'good' threshold means success.")
    resolution_metric: str | None = "resolution"
    refinement_programs: list[str] = Field(min_length=1)
    validation_programs: list[str] = Field(default_factory=list)
    plateau: PlateauRule | None = Field(default_factory=PlateauRule)
    hopeless_above: float | None = Field(
        default=0.50, description="Stop when the target metric is above this after refining."
    )
    hopeless_below: float | None = Field(
        default=None,
        description="For a higher-is-better target (map CC): stop when it is below this.",
    )
    max_refinements: int | None = Field(default=3, ge=1)
    refine_after: list[str] = Field(
        default_factory=list,
        description="Programs that change the model (ligand fitting): after one of them "
        "refinement is required again, whatever the metrics say.",
    )


class MetricPoints(Strict):
    """Points for a metric: linear (higher is better) or linear_inverse, clamped to [low, high]."""

    metric: str
    points: float = Field(gt=0)
    mode: Literal["linear", "linear_inverse"]
    low: float
    high: float

    @model_validator(mode="after")
    def _range(self) -> MetricPoints:
        if self.high <= self.low:
            raise FieldProblem(("high",), "must be greater than low")
        return self

    def score(self, value: float) -> float:
        fraction = (min(max(value, self.low), self.high) - self.low) / (self.high - self.low)
        return self.points * (fraction if self.mode == "linear" else 1 - fraction)


class CategoryScoring(Strict):
    stages: dict[str, float] = Field(
        default_factory=dict,
        description="Stage points by producing program; 'input' for the user's own files.",
    )
    metrics: list[MetricPoints] = Field(default_factory=list)


class MetricsFile(Strict):
    thresholds: dict[str, Threshold] = Field(default_factory=dict)
    summary: list[SummaryRow] = Field(default_factory=list)
    stop_rules: StopRules | None = None
    workflow_stop_rules: dict[str, StopRules] = Field(
        default_factory=dict,
        description="Stop rules for one workflow or experiment type (cryoem succeeds on "
        "map CC, not R-free); `stop_rules` governs every other workflow.",
    )
    best_files_scoring: dict[str, CategoryScoring] = Field(default_factory=dict)

    def rules_for(self, *scopes: str | None) -> StopRules | None:
        """The stop rules of the first scope (workflow name, experiment type) that has
        its own, else the pack-wide ones."""
        for scope in scopes:
            if scope and scope in self.workflow_stop_rules:
                return self.workflow_stop_rules[scope]
        return self.stop_rules

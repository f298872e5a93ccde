"""The workflow engine: where the session stands and which programs are valid next.

Everything is derived from the history of finished cycles; nothing is stored but that
history, so a resumed session lands in exactly the phase it left. A failed run never
counts as done.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from agentcycle.agent.program.state import CycleRecord, MetricValue
from agentcycle.knowledge.schema import Condition, Workflow


@dataclass(frozen=True)
class History:
    """What conditions may look at: the finished cycles (zombies already removed) and the
    facts PERCEIVE derived from them and from the files."""

    cycles: tuple[CycleRecord, ...]
    placement: str | None = None  # "placed", "not_placed" or None (nobody can tell yet)
    placement_uncertain: bool = False
    file_categories: frozenset[str] = frozenset()
    at_target: bool = False

    @property
    def flags(self) -> frozenset[str]:
        return frozenset(f for c in self.cycles if c.succeeded for f in c.flags)

    def successful_runs(self, program: str) -> list[CycleRecord]:
        return [c for c in self.cycles if c.program == program and c.succeeded]

    def done(self, program: str) -> bool:
        return bool(self.successful_runs(program))

    def latest_metric(self, metric: str) -> MetricValue | None:
        for cycle in reversed(self.cycles):
            if cycle.succeeded and metric in cycle.metrics:
                return cycle.metrics[metric]
        return None

    def metric_series(self, metric: str) -> list[float]:
        return [
            float(c.metrics[metric])
            for c in self.cycles
            if c.succeeded and isinstance(c.metrics.get(metric), int | float)
        ]


def holds(condition: Condition, history: History) -> bool:
    """Evaluate one transition condition against the history."""
    if condition.done is not None:
        return history.done(condition.done)
    if condition.not_done is not None:
        return not history.done(condition.not_done)
    if condition.runs_at_least is not None:
        rule = condition.runs_at_least
        return len(history.successful_runs(rule.program)) >= rule.n
    if condition.metric_below is not None:
        value = history.latest_metric(condition.metric_below.metric)
        return isinstance(value, int | float) and value < condition.metric_below.value
    if condition.metric_above is not None:
        value = history.latest_metric(condition.metric_above.metric)
        return isinstance(value, int | float) and value > condition.metric_above.value
    if condition.metric_equals is not None:
        return (
            history.latest_metric(condition.metric_equals.metric) == condition.metric_equals.value
        )
    if condition.plateau is not None:
        rule = condition.plateau
        return is_plateau(history.metric_series(rule.metric), rule.cycles, rule.min_improvement)
    if condition.flag is not None:
        return condition.flag in history.flags
    if condition.has_file is not None:
        return condition.has_file in history.file_categories
    if condition.if_placed is not None:
        return (history.placement == "placed") == condition.if_placed
    if condition.if_not_placed is not None:
        return (history.placement == "not_placed") == condition.if_not_placed
    if condition.placement_uncertain is not None:
        return history.placement_uncertain == condition.placement_uncertain
    if condition.at_target is not None:
        return history.at_target == condition.at_target
    if condition.not_ is not None:
        return not holds(condition.not_, history)
    if condition.any is not None:
        return any(holds(child, history) for child in condition.any)
    if condition.all is not None:
        return all(holds(child, history) for child in condition.all)
    raise AssertionError("a validated condition always has one key")


def is_plateau(series: list[float], cycles: int, min_improvement: float) -> bool:
    """A lower-is-better metric improved by less than `min_improvement` (relative) in each
    of the last `cycles` runs."""
    if len(series) < cycles + 1:
        return False
    recent = series[-(cycles + 1) :]
    return all(
        before > 0 and (before - after) / before < min_improvement
        for before, after in pairwise(recent)
    )


def current_phase(workflow: Workflow, history: History) -> tuple[str, tuple[str, ...]]:
    """Follow transitions from the start phase while their conditions hold."""
    phase = workflow.start
    path = [phase]
    while True:
        moved = next(
            (t.to for t in workflow.phases[phase].transitions if holds(t.when, history)), None
        )
        if moved is None or moved in path:
            return phase, tuple(path)
        phase = moved
        path.append(phase)

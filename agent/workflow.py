"""The workflow engine: where the session stands and which programs are valid next.

Everything is derived from the history of finished cycles; nothing is stored but that
history, so a resumed session lands in exactly the phase it left. A failed run never
counts as done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from agentcycle.agent.directives import Directives
from agentcycle.agent.state import CycleRecord, MetricValue
from agentcycle.knowledge.schema import STOP, Condition, Pack, Workflow


@dataclass(frozen=True)
class History:
    """Read-only views of the finished cycles that conditions need."""

    cycles: tuple[CycleRecord, ...]

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
        return is_plateau(history.metric_series(condition.plateau.metric), condition)
    if condition.any is not None:
        return any(holds(child, history) for child in condition.any)
    if condition.all is not None:
        return all(holds(child, history) for child in condition.all)
    raise AssertionError("a validated condition always has one key")


def is_plateau(series: list[float], condition: Condition) -> bool:
    """Lower-is-better metric improved by less than `min_improvement` (relative) per run."""
    rule = condition.plateau
    assert rule is not None
    if len(series) < rule.cycles + 1:
        return False
    recent = series[-(rule.cycles + 1) :]
    for before, after in pairwise(recent):
        if before <= 0 or (before - after) / before >= rule.min_improvement:
            return False
    return True


@dataclass(frozen=True)
class PhaseView:
    """The session's place in the workflow and the programs valid there."""

    phase: str
    path: tuple[str, ...]
    valid_programs: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)


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


def valid_programs(
    pack: Pack, workflow: Workflow, history: History, directives: Directives | None = None
) -> PhaseView:
    """Programs of the current phase that may still run, shaped by the user's directives;
    STOP when none is left. Directives act here, on the list, and nowhere later."""
    phase, path = current_phase(workflow, history)
    directives = directives or Directives()
    valid = []
    notes = []
    for program in workflow.phases[phase].programs:
        if program == STOP:
            valid.append(program)
            continue
        spec = pack.programs[program]
        if spec.done_tracking.strategy == "run_once" and history.done(program):
            notes.append(f"{program} already done (run_once)")
            continue
        if program in directives.skip:
            notes.append(f"directive: skip {program}")
            continue
        valid.append(program)
    starters = [p for p in directives.start_with if p in pack.programs and not history.done(p)]
    if starters and not any(c.succeeded for c in history.cycles):
        valid = starters
        notes.append(f"directive: start with {', '.join(starters)}")
    preferred = [p for p in valid if p in directives.prefer]
    if preferred:
        valid = preferred + [p for p in valid if p not in preferred]
        notes.append(f"directive: prefer {', '.join(preferred)}")
    if not valid:
        valid.append(STOP)
        notes.append(f"no program left in phase {phase!r}")
    return PhaseView(phase=phase, path=path, valid_programs=tuple(valid), notes=tuple(notes))


def directive_stop(directives: Directives, history: History, cycle: int) -> str | None:
    """Why the user's directives say the session is over, or None."""
    if directives.stop_after and all(history.done(p) for p in directives.stop_after):
        return f"directive: stop after {' and '.join(directives.stop_after)}"
    if directives.stop_after_cycle is not None and cycle > directives.stop_after_cycle:
        return f"directive: stop after cycle {directives.stop_after_cycle}"
    targets = directives.metric_targets
    if targets and all(t.met(history.latest_metric(t.metric)) for t in targets):
        met = ", ".join(f"{t.metric}={history.latest_metric(t.metric)}" for t in targets)
        return f"directive: metric targets met ({met})"
    return None

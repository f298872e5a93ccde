"""When is refinement finished? All stop conditions, evaluated in one place.

From `metrics.yaml`: `stop_rules`, or the `workflow_stop_rules` of the session's
workflow or experiment type (X-ray succeeds on R-free for its resolution, cryo-EM on
map-model CC). Success (target metric 'good'), plateau (< min_improvement relative gain
for N refinements), hopeless (target past a bail-out value after refining), hard limit
(N refinements). The target's threshold says which direction is better. At target,
refinement programs leave the valid list; the validation gate keeps STOP away until
validation has run (unless the session is hopeless, where validation would not help).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from agentcycle.agent.program.workflow import History
from agentcycle.knowledge.metrics_schema import MetricsFile, StopRules


@dataclass(frozen=True)
class StopVerdict:
    at_target: bool = False
    reason: str | None = None
    hopeless: bool = False
    validation_pending: tuple[str, ...] = ()
    refinement_programs: tuple[str, ...] = ()


def _refinement_series(history: History, programs: list[str], metric: str) -> list[float]:
    return [
        float(c.metrics[metric])
        for c in history.cycles
        if c.program in programs and c.succeeded and isinstance(c.metrics.get(metric), int | float)
    ]


def plateaued(series: list[float], cycles: int, min_improvement: float, lower: bool) -> bool:
    """The target improved by less than `min_improvement` (relative) in each of the
    last `cycles` runs, in the direction that is better for it."""
    if len(series) < cycles + 1:
        return False
    recent = series[-(cycles + 1) :]
    return all(
        before != 0 and ((before - after) if lower else (after - before)) / abs(before)
        < min_improvement
        for before, after in pairwise(recent)
    )


def _hopeless(rules: StopRules, latest: float) -> str | None:
    if rules.hopeless_above is not None and latest > rules.hopeless_above:
        return f"hopeless: {rules.target} {latest:.4g} > {rules.hopeless_above} after refinement"
    if rules.hopeless_below is not None and latest < rules.hopeless_below:
        return f"hopeless: {rules.target} {latest:.4g} < {rules.hopeless_below} after refinement"
    return None


def evaluate(metrics: MetricsFile, history: History, *scopes: str | None) -> StopVerdict:
    """The verdict for the history as it stands, under the rules of the first scope
    (workflow name, experiment type) that has its own; no rules → never at target."""
    rules = metrics.rules_for(*scopes)
    if rules is None:
        return StopVerdict()
    programs = tuple(rules.refinement_programs)
    series = _refinement_series(history, rules.refinement_programs, rules.target)
    if not series:
        return StopVerdict(refinement_programs=programs)
    last = next((c.program for c in reversed(history.cycles) if c.succeeded), None)
    if last in rules.refine_after:
        return StopVerdict(refinement_programs=programs)  # the model changed since
    latest = series[-1]
    pending = tuple(p for p in rules.validation_programs if not history.done(p))
    hopeless = _hopeless(rules, latest)
    if hopeless:
        return StopVerdict(True, hopeless, hopeless=True, refinement_programs=programs)
    reason = None
    threshold = metrics.thresholds.get(rules.target)
    lower = threshold.lower_is_better if threshold else True
    resolution = history.latest_metric(rules.resolution_metric) if rules.resolution_metric else None
    resolution = float(resolution) if isinstance(resolution, int | float) else None
    if threshold and threshold.assess(latest, resolution) == "good":
        good, _ = threshold.limits(resolution)
        reason = f"success: {rules.target} {latest:.4g} {'<' if lower else '>'} {good} (good)"
    elif rules.plateau and plateaued(
        series, rules.plateau.cycles, rules.plateau.min_improvement, lower
    ):
        reason = f"plateau: {rules.target} improved < {rules.plateau.min_improvement:.1%} per run"
    elif rules.max_refinements is not None and len(series) >= rules.max_refinements:
        reason = f"hard limit: {len(series)} refinements"
    if reason is None:
        return StopVerdict(refinement_programs=programs)
    return StopVerdict(True, reason, validation_pending=pending, refinement_programs=programs)

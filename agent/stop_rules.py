"""When is refinement finished? All stop conditions, evaluated in one place.

From `metrics.yaml` `stop_rules`: success (target metric 'good' for the resolution),
plateau (< min_improvement relative gain for N refinements), hopeless (target above a
bail-out value after refining), hard limit (N refinements). At target, refinement
programs leave the valid list; the validation gate keeps STOP away until validation
has run (unless the session is hopeless, where validation would not help).
"""

from __future__ import annotations

from dataclasses import dataclass

from agentcycle.agent.workflow import History, is_plateau
from agentcycle.knowledge.metrics_schema import MetricsFile


@dataclass(frozen=True)
class StopVerdict:
    at_target: bool = False
    reason: str | None = None
    hopeless: bool = False
    validation_pending: tuple[str, ...] = ()


def _refinement_series(history: History, programs: list[str], metric: str) -> list[float]:
    return [
        float(c.metrics[metric])
        for c in history.cycles
        if c.program in programs and c.succeeded and isinstance(c.metrics.get(metric), int | float)
    ]


def evaluate(metrics: MetricsFile, history: History) -> StopVerdict:
    """The verdict for the history as it stands; no rules → never at target."""
    rules = metrics.stop_rules
    if rules is None:
        return StopVerdict()
    series = _refinement_series(history, rules.refinement_programs, rules.target)
    if not series:
        return StopVerdict()
    last = next((c.program for c in reversed(history.cycles) if c.succeeded), None)
    if last in rules.refine_after:
        return StopVerdict()  # the model changed since the last refinement
    latest = series[-1]
    pending = tuple(p for p in rules.validation_programs if not history.done(p))
    if rules.hopeless_above is not None and latest > rules.hopeless_above:
        return StopVerdict(
            True,
            f"hopeless: {rules.target} {latest:.4g} > {rules.hopeless_above} after refinement",
            hopeless=True,
        )
    reason = None
    threshold = metrics.thresholds.get(rules.target)
    resolution = history.latest_metric(rules.resolution_metric) if rules.resolution_metric else None
    resolution = float(resolution) if isinstance(resolution, int | float) else None
    if threshold and threshold.assess(latest, resolution) == "good":
        good, _ = threshold.limits(resolution)
        reason = f"success: {rules.target} {latest:.4g} < {good} (good)"
    elif rules.plateau and is_plateau(series, rules.plateau.cycles, rules.plateau.min_improvement):
        reason = f"plateau: {rules.target} improved < {rules.plateau.min_improvement:.1%} per run"
    elif rules.max_refinements is not None and len(series) >= rules.max_refinements:
        reason = f"hard limit: {len(series)} refinements"
    if reason is None:
        return StopVerdict()
    return StopVerdict(True, reason, validation_pending=pending)

"""Read quality metrics and failure from a program log, by the pack's patterns.

Logs are normalised first (bare CR characters become line breaks) because real
programs print progress with CR and grep and `splitlines()` then disagree.
Failure is the exit code or a terminal phrase from the pack, never any word "error".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from agentcycle.agent.state import MetricValue
from agentcycle.knowledge.schema import MetricPattern, Program

TRUE_WORDS = frozenset({"true", "yes", "y", "1", "on"})


@dataclass(frozen=True)
class ParsedLog:
    metrics: dict[str, MetricValue] = field(default_factory=dict)
    failed: bool = False
    failure_reason: str | None = None
    flags: tuple[str, ...] = ()


def normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


def _convert(raw: str, kind: str) -> MetricValue | None:
    raw = raw.strip()
    try:
        if kind == "float":
            return float(raw.rstrip("%"))
        if kind == "int":
            return int(raw)
    except ValueError:
        return None
    if kind == "bool":
        return raw.lower() in TRUE_WORDS
    return raw


def _matches(pattern: str, text: str) -> list[str]:
    found = []
    for match in _compiled(pattern).finditer(text):
        found.append(match.group(1) if match.groups() else match.group(0))
    return found


def extract_metric(spec: MetricPattern, text: str) -> MetricValue | None:
    """One metric: all matches of the pattern (or the fallback), converted, then picked."""
    raws = _matches(spec.pattern, text)
    if not raws and spec.fallback_pattern:
        raws = _matches(spec.fallback_pattern, text)
    if not raws:
        return None
    if spec.value is not None:
        return _convert(spec.value, spec.type)
    values = [v for v in (_convert(raw, spec.type) for raw in raws) if v is not None]
    if not values:
        return None
    if spec.pick_min:
        return min(values)  # type: ignore[type-var]
    if spec.pick_max:
        return max(values)  # type: ignore[type-var]
    return values[0] if spec.extract == "first" else values[-1]


def failure_marker(text: str, markers: list[str]) -> str | None:
    """The first terminal phrase found at the start of a line, if any."""
    for marker in markers:
        if re.search(rf"^\s*{re.escape(marker)}", text, re.MULTILINE):
            return marker
    return None


def parse_log(
    text: str, program: Program, failure_markers: list[str], exit_code: int | None = 0
) -> ParsedLog:
    """Metrics plus a verdict: failed by exit code, by a terminal phrase, or by silence."""
    text = normalise(text)
    metrics: dict[str, MetricValue] = {}
    for name, spec in program.log_parsing.items():
        value = extract_metric(spec, text)
        if value is not None:
            metrics[name] = value
    if exit_code not in (0, None):
        return ParsedLog(metrics, True, f"exit code {exit_code}")
    marker = failure_marker(text, failure_markers)
    if marker is not None:
        return ParsedLog(metrics, True, f"log says {marker!r}")
    if program.expect_metrics and program.log_parsing and not metrics:
        return ParsedLog(metrics, True, "no metrics in log (silent failure)")
    tracking = program.done_tracking
    flags: tuple[str, ...] = ()
    if (
        tracking.strategy == "set_flag"
        and tracking.flag
        and (not tracking.markers or any(m in text for m in tracking.markers))
    ):
        flags = (tracking.flag,)
    return ParsedLog(metrics, False, None, flags)


def detect_program(text: str, programs: dict[str, Program]) -> str | None:
    """Which program wrote this log: the first whose `log_detection` phrases all appear."""
    text = normalise(text)
    for name, program in programs.items():
        if program.log_detection and all(m in text for m in program.log_detection):
            return name
    return None


def detect_failure_excerpt(text: str, lines: int = 12) -> str:
    """The tail of a log, for messages that must show what went wrong."""
    return "\n".join(normalise(text).rstrip().splitlines()[-lines:])

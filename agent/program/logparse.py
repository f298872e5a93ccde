"""Read quality metrics and failure from a program log, by the pack's patterns.

Logs are normalised first (bare CR characters become line breaks) because real
programs print progress with CR and grep and `splitlines()` then disagree.
Failure is the exit code or a terminal phrase from the pack, never any word "error".
A trailing summary block (the PHENIX agent's FINAL QUALITY METRICS REPORT) is cut off
before the program's own output is read and only fills metrics that output lacks, so a
log gives the same values with the block and without it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from agentcycle.agent.program.log_identify import Identification, by_content, identify
from agentcycle.agent.program.state import MetricValue
from agentcycle.knowledge.log_schema import MetricPattern, SummaryBlock
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import Program

TRUE_WORDS = frozenset({"true", "yes", "y", "1", "on"})
UNDECLARED_TAIL_LINES = 40


@dataclass(frozen=True)
class ParsedLog:
    metrics: dict[str, MetricValue] = field(default_factory=dict)
    failed: bool = False
    failure_reason: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class LogReading:
    """A log read without being told its program: who wrote it, and what it says."""

    program: str | None
    declared: bool
    evidence: str
    parsed: ParsedLog


def normalise(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE)


@cache
def _line_literal(pattern: str) -> str | None:
    """For a pattern anchored at a line start ('^\\s*Clashscore...'), the longest literal
    every match holds, so only lines holding it are tried: Python's re tries `^` at every
    position, five to ten times slower than finding the literal first."""
    try:
        from re import _parser  # the stdlib's own parser; without it, a plain scan

        parsed = list(_parser.parse(pattern, re.MULTILINE))
        flags = _parser.parse(pattern, re.MULTILINE).state.flags
    except (ImportError, AttributeError, re.error):
        return None
    if flags & re.IGNORECASE or not parsed or str(parsed[0][1]) != "AT_BEGINNING":
        return None  # not anchored at a line start (\\b is an AT too)
    best, run = "", ""
    for op, arg in parsed[1:]:
        if str(op) == "LITERAL" and arg != 10:
            run += chr(arg)
        else:
            best, run = max(best, run, key=len), ""
    best = max(best, run, key=len)
    return best if len(best) >= 3 else None


def finditer(
    pattern: str, text: str, start: int = 0, end: int | None = None
) -> Iterator[re.Match[str]]:
    """`re.finditer` (MULTILINE) of a pack pattern, line-anchored ones tried only on
    lines that hold their literal; the matches are the same."""
    end = len(text) if end is None else end
    compiled, literal = _compiled(pattern), _line_literal(pattern)
    if literal is None:
        yield from compiled.finditer(text, start, end)
        return
    pos = start
    while (hit := text.find(literal, pos, end)) >= 0:
        line = max(text.rfind("\n", start, hit) + 1, start)
        match = compiled.match(text, line, end)
        if match is not None:
            yield match
        newline = text.find("\n", hit, end)
        if newline < 0:
            return
        pos = max(newline + 1, match.end() if match else 0)


def snake_case(name: str) -> str:
    """'Molprobity Score' → 'molprobity_score': summary names as metric keys."""
    return re.sub(r"[^0-9a-z]+", "_", name.lower()).strip("_")


def _convert(raw: str, kind: str) -> MetricValue | None:
    raw = raw.strip()
    try:
        if kind == "float":
            return float(raw.rstrip("%").strip())
        if kind == "int":
            return int(raw)
    except ValueError:
        return None
    if kind == "bool":
        return raw.lower() in TRUE_WORDS
    return raw


def _sections(spec: MetricPattern, text: str) -> list[tuple[int, int]]:
    """Spans to search: the whole text, or each `after` match up to the next `until`."""
    if spec.after is None:
        return [(0, len(text))]
    spans = []
    for start in finditer(spec.after, text):
        end = len(text)
        if spec.until is not None:
            stop = next(finditer(spec.until, text, start.end()), None)
            end = stop.start() if stop else end
        spans.append((start.start(), end))
    return spans


def _matches(pattern: str, text: str, spans: list[tuple[int, int]], group: int) -> list[str]:
    compiled = _compiled(pattern)
    found = []
    for start, end in spans:
        for match in finditer(pattern, text, start, end):
            if not compiled.groups:
                found.append(match.group(0))
                continue
            value = match.group(group) if group <= compiled.groups else None
            if value is None:  # alternation: the first group that took part
                value = next((g for g in match.groups() if g is not None), match.group(0))
            found.append(value)
    return found


def extract_metric(spec: MetricPattern, text: str) -> MetricValue | None:
    """One metric: all matches of the pattern (or the fallback), converted, then picked."""
    spans = _sections(spec, text)
    raws = _matches(spec.pattern, text, spans, spec.group)
    if not raws and spec.fallback_pattern:
        raws = _matches(spec.fallback_pattern, text, spans, spec.group)
    if not raws:
        return None
    if spec.value is not None:
        return _convert(spec.value, spec.type)
    values = [v for v in (_convert(raw, spec.type) for raw in raws) if v is not None]
    if not values:
        return None
    if spec.pick_min:
        value = min(values)  # type: ignore[type-var]
    elif spec.pick_max:
        value = max(values)  # type: ignore[type-var]
    else:
        value = values[0] if spec.extract == "first" else values[-1]
    if spec.round is not None and isinstance(value, float):
        value = round(value, spec.round)
    return value


def split_summary(text: str, block: SummaryBlock | None) -> tuple[str, dict[str, str]]:
    """(the log without its trailing summary block, the block's entries by snake_case name).

    Only a block that ends the log counts: one in the middle is a quote of another run.
    """
    if block is None:
        return text, {}
    starts = list(finditer(block.start, text))
    if not starts:
        return text, {}
    head = starts[-1]
    close = next(finditer(block.end, text, head.end()), None)
    if close is None or text[close.end() :].strip():
        return text, {}
    entries = {}
    for match in finditer(block.line, text, head.end(), close.start()):
        entries[snake_case(match.group(1))] = match.group(2)
    body_end = head.start()
    rule = text.rfind("\n", 0, body_end - 1) + 1  # a rule line right above the heading
    if rule < body_end and _compiled(block.end).fullmatch(text, rule, body_end - 1):
        body_end = rule
    return text[:body_end], entries


def failure_marker(text: str, markers: list[str]) -> str | None:
    """The first terminal phrase found at the start of a line, if any."""
    for marker in markers:  # the substring test first: a regex scan per line is slower
        if marker in text and next(finditer(rf"^[ \t]*{re.escape(marker)}", text), None):
            return marker
    return None


def parse_log(
    text: str,
    program: Program,
    failure_markers: list[str],
    exit_code: int | None = 0,
    summary: SummaryBlock | None = None,
) -> ParsedLog:
    """Metrics plus a verdict: failed by exit code, by a terminal phrase, or by silence."""
    text, block = split_summary(normalise(text), summary)
    metrics: dict[str, MetricValue] = {}
    for name, spec in program.log_parsing.items():
        value = extract_metric(spec, text)
        if value is None and name in block:
            value = _convert(block[name], spec.type)
            if spec.round is not None and isinstance(value, float):
                value = round(value, spec.round)
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
    """Which declared program wrote this log, by content alone (no pack-wide header rules)."""
    found = by_content(normalise(text), programs)
    return found[0] if len(found) == 1 else None


def read_log(
    text: str, pack: Pack, program: str | None = None, exit_code: int | None = 0
) -> LogReading:
    """Identify the program (unless given) and read its log: the one entry point that the
    cycle flow and `agentcycle parse` share."""
    text = normalise(text)
    rules = pack.log_identification
    if program is None:
        found = identify(text, pack.programs, rules)
    else:
        found = Identification(program, program in pack.programs, "given")
    if found.program is None or not found.declared:
        # No patterns to read; a terminal phrase counts only in the log's tail, since a
        # long-tail log (the PHENIX agent's own) quotes other runs' failures mid-file.
        body, _ = split_summary(text, rules.summary_block)
        tail = "\n".join(body.rstrip().splitlines()[-UNDECLARED_TAIL_LINES:])
        failed = exit_code not in (0, None)
        reason = f"exit code {exit_code}" if failed else None
        if not failed and (marker := failure_marker(tail, pack.failure_markers)):
            failed, reason = True, f"log says {marker!r}"
        return LogReading(found.program, False, found.evidence, ParsedLog({}, failed, reason))
    parsed = parse_log(
        text, pack.programs[found.program], pack.failure_markers, exit_code, rules.summary_block
    )
    return LogReading(found.program, True, found.evidence, parsed)


def detect_failure_excerpt(text: str, lines: int = 12) -> str:
    """The tail of a log, for messages that must show what went wrong."""
    return "\n".join(normalise(text).rstrip().splitlines()[-lines:])

"""Experience: what earlier sessions of the same pack learnt, turned into decisions.

Pure Python (no Prefect, no LanceDB): the `retrieve` task in `tasks/experience.py` finds
past cycles and documentation passages and hands them in as an `Experience`; the graph
applies four rules, each use an `experience` event naming the source session and cycle:

1. a recovery that fixed an error for a program on the same or similar data is applied
   at once, before the program fails again;
2. a setting that failed before on similar data is not tried again;
3. a program that was hopeless on similar data (every run failed or was diagnosed) is
   ranked down behind the other valid programs;
4. the best settings found on the same data (best stop-rule target, or the fix that
   made the program succeed there) are the start.

The same `Experience` is in the decision state, so an LLM planner can read it
(`Experience.prompt_text()`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcycle.agent.program.events import event
from agentcycle.agent.program.files import categorise
from agentcycle.agent.program.logparse import normalise
from agentcycle.agent.program.outcomes import StopKind
from agentcycle.agent.program.placement import cells_match, read_cell
from agentcycle.agent.program.state import CycleRecord
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import STOP

RESOLUTION_TOLERANCE = 0.5  # Å: data within this of each other count as "similar"
SPACE_GROUP_METRICS = ("space_group", "spacegroup")
SUMMARY_LINES = 6


@dataclass(frozen=True)
class DataFeatures:
    """What the session's data looks like, as far as is known at this cycle."""

    experiment_type: str
    data_key: str
    input_categories: tuple[str, ...] = ()
    resolution: float | None = None
    space_group: str = ""
    unit_cell: tuple[float, ...] | None = None

    def text(self) -> str:
        parts = [f"experiment {self.experiment_type}"]
        if self.resolution is not None:
            parts.append(f"resolution {self.resolution:.2f} A")
        if self.space_group:
            parts.append(f"space group {self.space_group}")
        if self.unit_cell:
            parts.append("cell " + " ".join(f"{v:.1f}" for v in self.unit_cell))
        if self.input_categories:
            parts.append("inputs " + ", ".join(self.input_categories))
        return "; ".join(parts)


def data_key(paths: Iterable[Path]) -> str:
    """Same bytes, same key, whatever the files are called or where they were copied."""
    digests = sorted(hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.is_file())
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()[:32]


def data_features(
    pack: Pack, workflow: str, inputs: Sequence[Path], cycles: Sequence[CycleRecord], key: str = ""
) -> DataFeatures:
    """Features from the inputs (categories, unit cell) and the metrics measured so far."""
    spec = pack.workflows.get(workflow)
    experiment = (spec.experiment_type if spec is not None else None) or workflow
    categories = sorted({c for p in inputs for c in categorise(p, pack.file_categories)})
    resolution: float | None = None
    space_group = ""
    for record in cycles:
        value = record.metrics.get("resolution")
        if isinstance(value, int | float) and not isinstance(value, bool):
            resolution = float(value)
        for name in SPACE_GROUP_METRICS:
            if isinstance(record.metrics.get(name), str):
                space_group = str(record.metrics[name])
    cell = next((c for c in (read_cell(p) for p in sorted(inputs)) if c is not None), None)
    return DataFeatures(
        experiment_type=experiment,
        data_key=key or data_key(inputs),
        input_categories=tuple(categories),
        resolution=resolution,
        space_group=space_group,
        unit_cell=tuple(round(v, 3) for v in cell) if cell else None,
    )


def similar_data(row: Mapping[str, Any], features: DataFeatures) -> bool:
    """Same data, or the same experiment type with no known feature disagreeing and at
    least one agreeing (resolution within 0.5 Å, space group, unit cell within 5 %)."""
    if row.get("data_key") and row["data_key"] == features.data_key:
        return True
    if row.get("experiment_type") != features.experiment_type:
        return False
    agree = 0
    if row.get("resolution") is not None and features.resolution is not None:
        if abs(row["resolution"] - features.resolution) > RESOLUTION_TOLERANCE:
            return False
        agree += 1
    if row.get("space_group") and features.space_group:
        if row["space_group"].replace(" ", "") != features.space_group.replace(" ", ""):
            return False
        agree += 1
    cell = row.get("unit_cell")
    if cell and features.unit_cell and len(cell) == 6:
        if not cells_match(tuple(cell), features.unit_cell):  # type: ignore[arg-type]
            return False
        agree += 1
    return agree > 0


def error_kind(pack: Pack, program: str, log_text: str) -> str:
    """The pack's name for the error a log shows (diagnosable first), or ''."""
    text = normalise(log_text)
    for rules in (pack.diagnosable_errors, pack.recoverable_errors):
        for name, rule in rules.items():
            if (not rule.programs or program in rule.programs) and re.search(rule.detect, text):
                return name
    return ""


def outcome(record: CycleRecord, recovered: bool) -> str:
    if record.program == STOP:
        return "diagnosed" if record.stop_kind == StopKind.DIAGNOSED else "ok"
    if record.failed:
        return "failed"
    return "recovered" if recovered else "ok"


def log_summary(log_text: str, record: CycleRecord) -> str:
    """A few lines a reader can judge the run by: metrics, else the log's last lines."""
    if record.metrics and not record.failed:
        return ", ".join(f"{k}={v}" for k, v in record.metrics.items())
    lines = [line.strip() for line in normalise(log_text).splitlines() if line.strip()]
    return "\n".join(lines[-SUMMARY_LINES:])[:600]


def run_row(
    session_id: str,
    pack_name: str,
    record: CycleRecord,
    features: DataFeatures,
    settings: Mapping[str, str],
    recovered_error: str,
    log_text: str,
    pack: Pack,
) -> dict[str, Any]:
    """One `runs` row (without its vector) for a finished cycle."""
    kind = recovered_error or (error_kind(pack, record.program, log_text) if record.failed else "")
    if record.stop_kind == StopKind.DIAGNOSED and record.reason.startswith("diagnosed: "):
        kind = record.reason.removeprefix("diagnosed: ").split(" ", 1)[0]
    rules = pack.metrics.stop_rules
    target = record.metrics.get(rules.target) if rules else None
    result = outcome(record, bool(recovered_error))
    error = record.failure_reason or ""
    row = {
        "run_id": f"{session_id}/{record.cycle}",
        "session_id": session_id,
        "cycle": record.cycle,
        "pack": pack_name,
        "program": record.program,
        "argv": list(record.argv),
        "settings": json.dumps(dict(settings), sort_keys=True),
        "input_categories": list(features.input_categories),
        "experiment_type": features.experiment_type,
        "data_key": features.data_key,
        "resolution": features.resolution,
        "space_group": features.space_group,
        "unit_cell": list(features.unit_cell) if features.unit_cell else None,
        **dict(zip(("cell_a", "cell_b", "cell_c"), (features.unit_cell or (None,) * 3)[:3],
                   strict=True)),
        "metrics": json.dumps(record.metrics, sort_keys=True, default=str),
        "target_value": float(target) if isinstance(target, int | float) else None,
        "outcome": result,
        "error_kind": kind,
        "error": error,
        "log_summary": log_summary(log_text, record),
    }
    row["text"] = case_text(record.program, features, result, kind, error)
    return row


def case_text(program: str, features: DataFeatures, result: str, kind: str, error: str) -> str:
    """What a `runs` row's embedding is made of: program + data features + outcome + error."""
    text = f"{program} on {features.text()}: {result}"
    return f"{text}; error {kind} {error}".strip() if (kind or error) else text


# --------------------------------------------------------------------------- evidence

@dataclass(frozen=True)
class PastCase:
    """One earlier cycle judged relevant to this one."""

    session_id: str
    cycle: int
    program: str
    outcome: str
    same_data: bool
    similarity: float = 0.0
    same_error: bool = False  # the same error kind the last cycle of this session hit
    error_kind: str = ""
    error: str = ""
    settings: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    target_value: float | None = None
    log_summary: str = ""

    @property
    def source(self) -> str:
        return f"session {self.session_id} cycle {self.cycle}"

    def line(self) -> str:
        bits = [f"{self.program} {self.outcome}"]
        if self.error_kind:
            bits.append(f"error {self.error_kind}")
        if self.settings:
            bits.append("settings " + ", ".join(f"{k}={v}" for k, v in self.settings.items()))
        if self.target_value is not None:
            bits.append(f"target {self.target_value:.4g}")
        data = "same data" if self.same_data else "similar data"
        return f"{self.source} ({data}): {'; '.join(bits)}"


@dataclass(frozen=True)
class DocPassage:
    """A passage of the pack's documentation corpus, cited by file and section."""

    file: str
    heading: str
    text: str
    score: float = 0.0

    @property
    def source(self) -> str:
        return f"{Path(self.file).name} § {self.heading or '(top)'}"


@dataclass(frozen=True)
class Experience:
    """Everything the retrieve task found for one cycle."""

    cases: tuple[PastCase, ...] = ()
    passages: tuple[DocPassage, ...] = ()
    problem: str = ""  # memory could not be read: said once per session, then silent

    def prompt_text(self, limit: int = 8) -> str:
        """The evidence as plain lines for an LLM planner's prompt."""
        lines = [f"past case: {c.line()}" for c in self.cases[:limit]]
        lines += [f"documentation {p.source}: {p.text[:300]}" for p in self.passages[:3]]
        return "\n".join(lines)

    def for_program(self, program: str) -> list[PastCase]:
        return [c for c in self.cases if c.program == program]


def rank_programs(
    valid: Sequence[str], experience: Experience | None
) -> tuple[list[str], list[dict[str, str]]]:
    """Rule 3: programs whose every run on similar data failed go behind the others."""
    if experience is None or len(valid) < 2:
        return list(valid), []
    hopeless: dict[str, PastCase] = {}
    for program in valid:
        cases = experience.for_program(program)
        if cases and all(c.outcome in ("failed", "diagnosed") for c in cases):
            hopeless[program] = cases[0]
    if not hopeless or len(hopeless) == len(valid):
        return list(valid), []
    ordered = [p for p in valid if p not in hopeless] + [p for p in valid if p in hopeless]
    events = [
        event("experience", f"{p} ranked down: it failed on similar data in {case.source}"
              f" ({case.error_kind or case.error or case.outcome})")
        for p, case in hopeless.items()
    ]
    return ordered, events


def _better(case: PastCase, best: PastCase | None, lower_is_better: bool) -> bool:
    if case.target_value is None:
        return best is None
    if best is None or best.target_value is None:
        return True
    if lower_is_better:
        return case.target_value < best.target_value
    return case.target_value > best.target_value


def memory_problem(experience: Experience | None) -> list[dict[str, str]]:
    """Memory that could not be read is said once (the retrieve task sends it once)."""
    if experience is None or not experience.problem:
        return []
    return [event("warning", f"memory unavailable, going on without experience: "
                  f"{experience.problem}")]


@dataclass
class SettingsAdvice:
    """What experience says about the chosen program's settings.

    `start` goes under the session's own settings (stored fixes, directives), `override`
    over a recovery the pack proposes for the error just hit, `avoid` is stripped.
    """

    start: dict[str, str] = field(default_factory=dict)
    override: dict[str, str] = field(default_factory=dict)
    avoid: dict[str, str] = field(default_factory=dict)
    events: list[dict[str, str]] = field(default_factory=list)


def _pairs(settings: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in settings.items())


def starting_settings(program: str, pack: Pack, experience: Experience | None) -> SettingsAdvice:
    """Rules 1, 2 and 4 for the chosen program. Only settings the program takes (its
    strategy flags) count, and only the same data may set the starting point."""
    advice = SettingsAdvice()
    if experience is None or program not in pack.programs:
        return advice
    known = set(pack.programs[program].strategy_flags)
    rules = pack.metrics.stop_rules
    threshold = pack.metrics.thresholds.get(rules.target) if rules else None
    lower_is_better = threshold is None or threshold.lower_is_better
    cases = experience.for_program(program)
    for case in cases:  # rule 1: the fix that worked for the error just hit
        fix = {k: v for k, v in case.settings.items() if k in known}
        if case.same_error and case.outcome == "recovered" and fix and \
                not fix.items() <= advice.override.items():
            advice.override.update(fix)
            advice.events.append(event(
                "experience", f"{program}: applying at once the fix for {case.error_kind} "
                f"that worked in {case.source}: {_pairs(fix)}"))
    best: PastCase | None = None  # rule 4: the best settings found on the same data
    for case in cases:
        measured = case.target_value is not None or case.outcome == "recovered"
        if case.same_data and case.outcome in ("ok", "recovered") and measured and \
                any(k in known for k in case.settings) and _better(case, best, lower_is_better):
            best = case  # settings that reached a target value, or fixed a failure
    if best is not None:
        advice.start = {k: v for k, v in best.settings.items() if k in known}
        why = f", which fixed {best.error_kind}" if best.outcome == "recovered" else ""
        advice.events.append(event(
            "experience", f"{program}: starting from the best settings on this data "
            f"({best.source}{why}): {_pairs(advice.start)}"))
    worked = {(k, v) for c in cases if c.outcome in ("ok", "recovered")
              for k, v in c.settings.items()}
    for case in cases:  # rule 2: a setting that failed on similar data is not tried again
        if case.outcome not in ("failed", "diagnosed"):
            continue
        for key, value in case.settings.items():
            if key in known and (key, value) not in worked and key not in advice.avoid:
                advice.avoid[key] = value
                advice.events.append(event(
                    "experience", f"{program}: not trying {key}={value} again: it failed on "
                    f"similar data in {case.source} ({case.error_kind or case.error})"))
    for chosen in (advice.start, advice.override):
        for key, value in advice.avoid.items():
            if chosen.get(key) == value:
                del chosen[key]
    return advice


def recall_events(program: str, experience: Experience | None) -> list[dict[str, str]]:
    """When no rule changed anything: what the record says about the chosen program on
    this data (it stays the choice), so the reader sees the evidence was consulted."""
    if experience is None:
        return []
    cases = [c for c in experience.for_program(program) if c.same_data] or \
        experience.for_program(program)
    if not cases:
        return []
    best = cases[0]
    return [event("experience", f"{program}: kept; {best.line()}")]

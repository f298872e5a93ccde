"""What to do after a failed run: recover with a fix, or diagnose and stop.

A diagnosable error (terminal) stops the session cleanly with an explanation. A
recoverable error yields one strategy setting, stored for the input file for the rest
of the session, and forces a retry of the same program with it. A second failure with
the same fix is not retried again (the loop guard): it becomes a diagnosis.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from agentcycle.agent.program.logparse import detect_failure_excerpt, normalise
from agentcycle.agent.program.state import CycleRecord
from agentcycle.knowledge.errors_schema import RecoverableError
from agentcycle.knowledge.pack import Pack


@dataclass(frozen=True)
class Diagnosis:
    name: str
    program: str
    cycle: int
    excerpt: str
    what: str
    cause: str
    fix: str


@dataclass(frozen=True)
class Recovery:
    name: str
    program: str
    input_file: str
    settings: dict[str, str] = field(default_factory=dict)


def _applies(programs: list[str], program: str) -> bool:
    return not programs or program in programs


def choose_array(rule: RecoverableError, program: str, material: str) -> str | None:
    """Pick the array the program needs from a list of `file:LABELS` choices."""
    labels = [line.strip().rsplit(":", 1)[-1] for line in material.splitlines() if line.strip()]
    if not labels:
        return None
    want = rule.resolution.prefer.get(program, rule.resolution.prefer.get("default", "merged"))
    anomalous = [label for label in labels if "(+)" in label or "(-)" in label]
    merged = [label for label in labels if label not in anomalous]
    pool = anomalous if want == "anomalous" else merged
    return (pool or labels)[0]


def recovery_for(
    pack: Pack, record: CycleRecord, text: str
) -> tuple[str, RecoverableError, dict[str, str]] | None:
    """The first recoverable error the log shows, with the settings that fix it."""
    for name, rule in pack.recoverable_errors.items():
        if not _applies(rule.programs, record.program) or not re.search(rule.detect, text):
            continue
        material = text
        if rule.extract:
            match = re.search(rule.extract, text, re.MULTILINE)
            material = match.group(1) if match else ""
        if rule.resolution.strategy == "choose_array":
            value = choose_array(rule, record.program, material)
        else:
            value = rule.resolution.value
        if value:
            return name, rule, {rule.resolution.parameter: value}
    return None


def examine_failure(
    pack: Pack,
    record: CycleRecord,
    log_text: str,
    recoveries: Mapping[str, Mapping[str, str]],
) -> Diagnosis | Recovery | None:
    """Diagnose a terminal failure, or propose a recovery; None when neither applies."""
    text = normalise(log_text)
    excerpt = detect_failure_excerpt(text)
    for name, rule in pack.diagnosable_errors.items():
        if _applies(rule.programs, record.program) and re.search(rule.detect, text):
            return Diagnosis(
                name, record.program, record.cycle, excerpt, rule.what, rule.cause, rule.fix
            )
    found = recovery_for(pack, record, text)
    if found is None:
        return None
    name, rule, settings = found
    input_file = record.input_files[0] if record.input_files else ""
    already = recoveries.get(input_file, {})
    if all(already.get(k) == v for k, v in settings.items()):
        return Diagnosis(
            f"{name}_not_recovered",
            record.program,
            record.cycle,
            excerpt,
            what=f"{record.program} failed with '{name}' again after the automatic fix "
            f"{', '.join(f'{k}={v}' for k, v in settings.items())}.",
            cause=rule.description or "The automatic fix did not resolve the problem.",
            fix="Check the input file, then resume with advice giving the right setting "
            "(for example key=value in --goal).",
        )
    return Recovery(name, record.program, input_file, settings)

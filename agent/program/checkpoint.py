"""Checkpoints: when a person is asked before a program runs, what they see, what they may say.

Modes: `never`; `before-each` (every program); `after-failure` (the previous cycle
failed); `on-doubt` (the rules found several valid programs for the phase, a recovery
is about to be applied, or a hopeless/plateau stop is at hand). The answer approves the
proposal, picks another valid program, changes strategy settings (checked by the same
post-processor every command passes) or stops the session. This module is pure: the
Prefect side (pausing the flow run, the form in the UI) lives in `tasks/checkpoint.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.postprocess import postprocess
from agentcycle.agent.program.state import (
    CycleRecord,
    SessionState,
    load_session,
    save_session,
    write_atomic,
)
from agentcycle.errors import UserError
from agentcycle.knowledge import Pack
from agentcycle.knowledge.schema import STOP

CheckpointMode = Literal["never", "before-each", "on-doubt", "after-failure"]
MODES: tuple[str, ...] = ("never", "before-each", "on-doubt", "after-failure")
CHECKPOINT_FILE = "checkpoint.json"
DOUBT_WORDS = ("hopeless", "plateau")
SETTING = re.compile(r"^([A-Za-z_][\w.]{0,60})=(.{1,200})$")


class CheckpointAnswer(BaseModel):
    """A person's answer at a checkpoint; all defaults = approve the proposal as it is."""

    model_config = ConfigDict(extra="forbid")

    program: str = Field(
        default="", description="Run this valid program instead (empty: the proposed one)."
    )
    settings: list[str] = Field(
        default_factory=list, description="Strategy settings as key=value, one per entry."
    )
    stop: bool = Field(default=False, description="Stop the session here.")

    @property
    def approves(self) -> bool:
        return not self.program and not self.settings and not self.stop

    def summary(self) -> str:
        if self.stop:
            return "stop"
        parts = [f"program {self.program}"] if self.program else []
        parts += [f"set {', '.join(self.settings)}"] if self.settings else []
        return "; ".join(parts) or "approve"


class Proposal(BaseModel):
    """What waits for an answer: written to `checkpoint.json` for `agentcycle approve`."""

    session_id: str
    cycle: int
    mode: str
    why: list[str]
    program: str
    argv: list[str] = Field(default_factory=list)
    reason: str = ""
    events: list[str] = Field(default_factory=list)
    valid_programs: list[str] = Field(default_factory=list)
    metrics: dict[str, float | int | str | bool] = Field(default_factory=dict)
    flow_run_id: str = ""
    pause_key: str = ""
    problem: str | None = None


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise UserError(f"--checkpoint: {mode!r} is not one of {', '.join(MODES)}")
    return mode


def _near_stop(decision: Decision) -> str | None:
    texts = [decision.reason] + [e.get("message", "") for e in decision.events]
    return next((t for t in texts if any(w in t.lower() for w in DOUBT_WORDS)), None)


def doubts(mode: str, decision: Decision, cycles: Sequence[CycleRecord]) -> list[str]:
    """Why this decision waits for a person under `mode`; empty: it goes ahead."""
    if mode == "never":
        return []
    near = _near_stop(decision)
    if decision.stop and not (mode == "on-doubt" and near):
        return []  # nothing would run; a stop can be resumed
    if mode == "before-each":
        return [f"before each program ({decision.program})"]
    if mode == "after-failure":
        last = cycles[-1] if cycles else None
        if last is not None and last.failed:
            return [f"cycle {last.cycle} ({last.program}) failed: {last.failure_reason}"]
        return []
    why = []
    options = [p for p in decision.valid_programs if p != STOP]
    if len(options) > 1:
        why.append(f"the rules found several valid programs: {', '.join(options)}")
    if decision.recovery is not None:
        fix = ", ".join(f"{k}={v}" for k, v in decision.recovery.settings.items())
        why.append(f"recovery {decision.recovery.name} about to be applied ({fix})")
    if near:
        why.append(f"stop near: {near}")
    return why


def latest_metrics(cycles: Sequence[CycleRecord]) -> dict[str, float | int | str | bool]:
    metrics: dict[str, float | int | str | bool] = {}
    for record in cycles:
        if record.succeeded:
            metrics.update(record.metrics)
    return metrics


def make_proposal(
    state: SessionState, decision: Decision, mode: str, why: list[str], problem: str | None = None
) -> Proposal:
    return Proposal(
        session_id=state.session_id,
        cycle=state.next_cycle,
        mode=mode,
        why=why,
        program=decision.program,
        argv=decision.argv,
        reason=decision.reason,
        events=[e.get("message", "") for e in decision.events if e.get("level") != "verbose"],
        valid_programs=[p for p in decision.valid_programs if p != STOP] or [decision.program],
        metrics=latest_metrics(state.cycles),
        problem=problem,
    )


def proposal_markdown(proposal: Proposal) -> str:
    """The form's description in the Prefect UI: what is proposed, why it waits, the
    metrics so far and how to answer."""
    lines = [
        f"### Checkpoint: cycle {proposal.cycle} of session `{proposal.session_id}`",
        "",
        f"**Proposed program:** `{proposal.program}` — {proposal.reason}",
        "",
        f"**Command:** `{' '.join(proposal.argv) or '(none)'}`",
        "",
        f"**Why it waits ({proposal.mode}):** " + "; ".join(proposal.why),
        "",
        f"**Valid programs:** {', '.join(proposal.valid_programs)}",
        "",
        "**Metrics so far:** "
        + (", ".join(f"{k}={v}" for k, v in proposal.metrics.items()) or "none yet"),
        "",
        "**Reasons:**",
        *(f"- {message}" for message in proposal.events[-8:]),
        "",
        "Submit as is to approve; or name another valid program; or add settings "
        "(key=value); or tick stop. CLI: `agentcycle approve SESSION [--program P] "
        "[--set key=value] [--stop]`.",
    ]
    if proposal.problem:
        lines[1:1] = ["", f"**Your last answer was refused:** {proposal.problem}"]
    return "\n".join(lines)


def parse_settings(entries: Sequence[str]) -> dict[str, str]:
    settings = {}
    for entry in entries:
        for item in (t for t in re.split(r"[\s;]+", entry.strip()) if t):
            match = SETTING.match(item)
            if match is None:
                raise ValueError(f"setting {item!r}: expected key=value")
            settings[match.group(1)] = match.group(2)
    return settings


def answer_problem(answer: CheckpointAnswer, proposal: Proposal, pack: Pack) -> str | None:
    """Why the answer cannot be applied, or None: the same checks the command builder runs."""
    if answer.stop:
        return None
    program = answer.program or proposal.program
    if program not in proposal.valid_programs:
        return f"program {program!r} is not valid now (valid: {', '.join(proposal.valid_programs)})"
    try:
        settings = parse_settings(answer.settings)
    except ValueError as exc:
        return str(exc)
    if settings and program not in pack.programs:
        return f"{program}: takes no settings"
    if settings:
        checked = postprocess(pack.programs[program], settings)
        refused = [note for note in checked.notes if note.startswith("stripped")]
        if refused:
            return f"{program}: " + "; ".join(refused)
    return None


def save_proposal(session_dir: Path, proposal: Proposal) -> None:
    write_atomic(session_dir / CHECKPOINT_FILE, proposal.model_dump_json(indent=2))


def load_proposal(session_dir: Path) -> Proposal:
    path = Path(session_dir) / CHECKPOINT_FILE
    try:
        return Proposal.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise UserError(f"{session_dir}: no session is waiting at a checkpoint here") from None
    except ValueError as exc:
        first = str(exc).splitlines()[0]
        raise UserError(f"{path}: not a valid checkpoint file: {first}") from None


def set_checkpoint(session_dir: Path, mode: str, timeout_s: int) -> SessionState:
    """Record the session's checkpoint mode (kept on resume) and its answer timeout."""
    check_mode(mode)
    if timeout_s < 1:
        raise UserError(f"--checkpoint-timeout: must be at least 1 s (got {timeout_s})")
    state = load_session(session_dir)
    state.checkpoint, state.checkpoint_timeout_s = mode, timeout_s  # type: ignore[assignment]
    save_session(session_dir, state)
    return state

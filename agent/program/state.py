"""The session record: what the agent was given and every cycle it finished.

`session.json` is the single source of truth for a session. It is rewritten
atomically after every cycle (temp file, fsync, rename), so a crash or a kill at
any moment leaves either the previous complete record or the new one, never half.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from agentcycle.agent.program.directives import Directives
from agentcycle.agent.program.outcomes import CycleOutcome, SessionStatus, StopKind
from agentcycle.errors import UserError

SESSION_FILE = "session.json"
LOG_NAME = "program.log"  # in each run folder: what the program printed

MetricValue = float | int | str | bool


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class CycleRecord(BaseModel):
    """One finished cycle: the decision, the run and what its log said."""

    cycle: int
    program: str
    reason: str = ""
    argv: list[str] = Field(default_factory=list)
    input_files: list[str] = Field(default_factory=list)
    run_dir: str = ""
    exit_code: int | None = None
    timed_out: bool = False
    duration_s: float = 0.0
    failed: bool = False
    failure_reason: str | None = None
    metrics: dict[str, MetricValue] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    events: list[dict[str, str]] = Field(default_factory=list)
    started_at: str = ""
    finished_at: str = ""
    llm_calls: int = 0  # the LLM planner's calls, tokens and latency in this decision
    llm_tokens: int = 0
    llm_latency_ms: float = 0.0
    planned_by: str = ""  # "llm", "rules" (an LLM session's fallback) or "" (rules session)
    stop_kind: StopKind | None = None  # why the graph stopped (STOP cycles only)
    outcome: CycleOutcome = CycleOutcome.OK  # set when the record is made

    @property
    def succeeded(self) -> bool:
        return not self.failed


class SessionState(BaseModel):
    """Everything needed to resume or audit a session."""

    session_id: str
    pack: str
    workflow: str
    input_dir: str
    inputs: list[str]
    input_names: dict[str, str] = Field(
        default_factory=dict,
        description="Copied input -> the name the user gave it, where intake made it safe.",
    )
    goal: str = ""
    directives: Directives = Field(default_factory=Directives)
    advice_digest: str = ""
    advice_removed: list[str] = Field(
        default_factory=list, description="What sanitising took out of the advice, for audit."
    )
    recoveries: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="Per input file, settings that fixed a recoverable error this session.",
    )
    diagnosis: str | None = Field(default=None, description="failure_diagnosis.html, if any.")
    blacklist: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Per program, user settings that made it fail in this session.",
    )
    advice_changed: bool = Field(
        default=False, description="New advice on resume: one cycle may step back a phase."
    )
    max_cycles: int = Field(ge=1)
    created_at: str = Field(default_factory=utc_now)
    status: SessionStatus = SessionStatus.RUNNING
    stop_reason: str | None = None
    cycles: list[CycleRecord] = Field(default_factory=list)
    best_files: dict[str, str] = Field(default_factory=dict)
    replay_dir: str | None = Field(
        default=None, description="A scenario folder whose recorded runs replace the programs."
    )
    locked_files: dict[str, str] = Field(
        default_factory=dict,
        description="Files fixed for the whole session (the reflection file with R-free flags).",
    )
    llm: dict[str, Any] = Field(
        default_factory=dict,
        description="LLM planner settings (provider, model, base_url, timeout_s); empty: rules.",
    )
    checkpoint: Literal["never", "before-each", "on-doubt", "after-failure"] = Field(
        default="never", description="When a person approves a decision (agentcycle approve)."
    )
    checkpoint_timeout_s: int = Field(
        default=3600, ge=1, description="Unanswered this long, a checkpoint approves."
    )

    @property
    def next_cycle(self) -> int:
        return len(self.cycles) + 1

    @property
    def finished(self) -> bool:
        return self.status != SessionStatus.RUNNING


def write_atomic(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old or the new content, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_session(session_dir: Path, state: SessionState) -> None:
    write_atomic(session_dir / SESSION_FILE, state.model_dump_json(indent=2))


def load_session(session_dir: Path) -> SessionState:
    path = Path(session_dir) / SESSION_FILE
    try:
        return SessionState.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise UserError(f"{path}: no session here (missing {SESSION_FILE})") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a valid session file: not UTF-8 text") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read session file: {exc.strerror}") from None
    except (json.JSONDecodeError, ValidationError) as exc:
        first = str(exc).splitlines()[0]
        raise UserError(f"{path}: not a valid session file: {first}") from None

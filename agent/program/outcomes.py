"""The vocabulary of how things end: session status, why a session stopped, cycle outcome.

Each value is set where it is decided (the graph knows why it stops, the session knows
whether a run failed or ran a recovery's fix) and carried from there; nothing reads it
back out of a reason's text. `StrEnum`s, so session.json, Parquet and DuckDB keep the
plain words they held before ("stopped", "diagnosed", ...).
"""

from __future__ import annotations

from enum import StrEnum


class SessionStatus(StrEnum):
    RUNNING = "running"
    STOPPED = "stopped"
    MAX_CYCLES = "max_cycles"
    FAILED = "failed"
    DIAGNOSED = "diagnosed"


class StopKind(StrEnum):
    """Why the graph chose STOP."""

    COMPLETE = "complete"  # the workflow (or its stop rules, or the goal) says done
    DIRECTIVE = "directive"  # the user's directives say stop
    MAX_CYCLES = "max_cycles"  # the session's cycle limit
    DIAGNOSED = "diagnosed"  # a failure the pack diagnoses: no retry can fix it
    NO_PROGRAM = "no_program"  # nothing could be built in three tries (FALLBACK)
    PERSON = "person"  # a person stopped it at a checkpoint


class CycleOutcome(StrEnum):
    OK = "ok"
    FAILED = "failed"
    RECOVERED = "recovered"  # ran with a recoverable error's fix and succeeded
    DIAGNOSED = "diagnosed"  # the STOP cycle that diagnosed the previous failure


def status_after_stop(kind: StopKind | None) -> SessionStatus:
    """The session's status once it stops for `kind` (unknown: plainly stopped)."""
    if kind == StopKind.MAX_CYCLES:
        return SessionStatus.MAX_CYCLES
    if kind == StopKind.DIAGNOSED:
        return SessionStatus.DIAGNOSED
    return SessionStatus.STOPPED


def cycle_outcome(stop_kind: StopKind | None, failed: bool, recovery: bool) -> CycleOutcome:
    """A cycle's outcome from what was decided (`stop_kind`, a recovery) and what ran."""
    if stop_kind == StopKind.DIAGNOSED:
        return CycleOutcome.DIAGNOSED
    if failed:
        return CycleOutcome.FAILED
    return CycleOutcome.RECOVERED if recovery else CycleOutcome.OK

"""Flatten agent records into rows of the Parquet datasets (schemas in storage/datasets.py)."""

from __future__ import annotations

from collections.abc import Iterable

from agentcycle.agent.state import CycleRecord, SessionState


def cycle_rows(state: SessionState, record: CycleRecord) -> list[dict]:
    return [
        {
            "session_id": state.session_id,
            "pack": state.pack,
            "cycle": record.cycle,
            "program": record.program,
            "reason": record.reason,
            "argv": record.argv,
            "exit_code": record.exit_code,
            "failed": record.failed,
            "failure_reason": record.failure_reason,
            "duration_s": record.duration_s,
            "outputs": record.outputs,
            "started_at": record.started_at,
            "finished_at": record.finished_at,
        }
    ]


def metric_rows(state: SessionState, record: CycleRecord) -> list[dict]:
    """One row per metric; numbers in `value`, everything in `text_value`."""
    rows = []
    for name, value in record.metrics.items():
        numeric = float(value) if isinstance(value, int | float) else None
        rows.append(
            {
                "session_id": state.session_id,
                "pack": state.pack,
                "cycle": record.cycle,
                "program": record.program,
                "metric": name,
                "value": numeric,
                "text_value": str(value),
            }
        )
    return rows


def event_rows(session_id: str, cycle: int, events: Iterable[dict[str, str]]) -> list[dict]:
    return [{"session_id": session_id, "cycle": cycle, **event} for event in events]

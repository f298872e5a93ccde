"""Flatten agent records into typed rows of the Parquet datasets (storage/schemas.py).

Typed rows, not dicts: a misspelt field is a TypeError here, not a silently dropped column.
"""

from __future__ import annotations

from collections.abc import Iterable

from agentcycle.agent.program.state import CycleRecord, SessionState
from agentcycle.storage.schemas import CycleRow, EventRow, MetricRow


def cycle_rows(state: SessionState, record: CycleRecord) -> list[CycleRow]:
    return [
        CycleRow(
            session_id=state.session_id,
            pack=state.pack,
            cycle=record.cycle,
            program=record.program,
            reason=record.reason,
            argv=record.argv,
            exit_code=record.exit_code,
            failed=record.failed,
            failure_reason=record.failure_reason,
            duration_s=record.duration_s,
            outputs=record.outputs,
            started_at=record.started_at,
            finished_at=record.finished_at,
            llm_calls=record.llm_calls,
            llm_tokens=record.llm_tokens,
            llm_latency_ms=record.llm_latency_ms,
            planned_by=record.planned_by,
        )
    ]


def metric_rows(state: SessionState, record: CycleRecord) -> list[MetricRow]:
    """One row per metric; numbers in `value`, everything in `text_value`."""
    rows = []
    for name, value in record.metrics.items():
        numeric = float(value) if isinstance(value, int | float) else None
        rows.append(
            MetricRow(
                session_id=state.session_id,
                pack=state.pack,
                cycle=record.cycle,
                program=record.program,
                metric=name,
                value=numeric,
                text_value=str(value),
            )
        )
    return rows


def event_rows(session_id: str, cycle: int, events: Iterable[dict[str, str]]) -> list[EventRow]:
    return [EventRow(session_id=session_id, cycle=cycle, **event) for event in events]

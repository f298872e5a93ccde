"""One typed row model per Parquet dataset; each model defines its dataset's Arrow schema.

A row is a frozen dataclass: its fields, in order, are the dataset's columns, and the
Arrow type of each column follows from the field's annotation (`int` → int32, `float`
→ float64, `str`, `bool`, `datetime` → UTC timestamp, `list[...]`, a nested dataclass
→ struct; `Annotated[int, pa.int64()]` where the default does not fit). A field with no
default is required; `X | None = None` may be left out and is stored as null.

`check_row` is what `datasets.append_rows` applies to every row given as a mapping: a
misspelt or unknown key, or a missing required one, fails loudly instead of being
silently dropped or nulled. `recorded_at` and `schema_version` are the store's own
columns, added to every dataset.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Union

import pyarrow as pa

STORE_COLUMNS: tuple[tuple[str, pa.DataType], ...] = (
    ("recorded_at", pa.timestamp("us", tz="UTC")),
    ("schema_version", pa.int16()),
)
_SCALARS: dict[Any, pa.DataType] = {
    str: pa.string(),
    int: pa.int32(),
    float: pa.float64(),
    bool: pa.bool_(),
    datetime: pa.timestamp("us", tz="UTC"),
}
INT64 = pa.int64()


def arrow_type(hint: Any) -> pa.DataType:
    """The Arrow type of one annotation (see the module docstring for the rules)."""
    if typing.get_origin(hint) is Annotated:
        return next(a for a in hint.__metadata__ if isinstance(a, pa.DataType))
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(hint) if a is not type(None)]
        return arrow_type(inner)
    if origin is list:
        return pa.list_(arrow_type(typing.get_args(hint)[0]))
    if dataclasses.is_dataclass(hint):
        return pa.struct(_fields(hint))
    return _SCALARS[hint]


def _fields(model: type) -> list[tuple[str, pa.DataType]]:
    hints = typing.get_type_hints(model, include_extras=True)
    return [(f.name, arrow_type(hints[f.name])) for f in dataclasses.fields(model)]


def arrow_schema(model: type) -> pa.Schema:
    """The dataset's schema: the model's fields in order, then the store's columns."""
    return pa.schema([*_fields(model), *STORE_COLUMNS])


def required_fields(model: type) -> set[str]:
    return {
        f.name
        for f in dataclasses.fields(model)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }


def check_row(dataset: str, model: type, row: Mapping[str, Any]) -> None:
    """Fail loudly on a key the model does not have or a required key the row lacks."""
    known = {f.name for f in dataclasses.fields(model)} | {n for n, _ in STORE_COLUMNS}
    unknown = sorted(set(row) - known)
    if unknown:
        raise ValueError(f"dataset {dataset}: unknown field(s) {', '.join(unknown)}")
    missing = sorted(required_fields(model) - set(row))
    if missing:
        raise ValueError(f"dataset {dataset}: missing field(s) {', '.join(missing)}")


def row_dict(dataset: str, model: type, row: Any) -> dict[str, Any]:
    """A row (model instance or mapping) as the dict Arrow writes, checked."""
    if isinstance(row, model):
        return dataclasses.asdict(row)
    if dataclasses.is_dataclass(row):
        raise ValueError(f"dataset {dataset}: got a {type(row).__name__}, not a {model.__name__}")
    check_row(dataset, model, row)
    return dict(row)


_row = dataclass(frozen=True, kw_only=True)


@_row
class ScoreStruct:
    """One scorer's verdict on one sample (`evaluation.scorers.Score`)."""

    scorer: str | None = None
    value: str | None = None
    expected: str | None = None
    score: float | None = None
    explanation: str | None = None


@_row
class TypeAccuracy:
    """Accuracy of one question type in an evaluation run, with its binomial std. error."""

    type: str | None = None
    n: int | None = None
    correct: int | None = None
    accuracy: float | None = None
    se: float | None = None


@_row
class CycleRow:
    """`cycles`: one finished cycle of a program-agent session."""

    session_id: str
    pack: str | None = None
    cycle: int
    program: str
    reason: str | None = None
    argv: list[str] | None = None
    exit_code: int | None = None
    failed: bool | None = None
    failure_reason: str | None = None
    duration_s: float | None = None
    outputs: list[str] | None = None
    started_at: str | None = None
    finished_at: str | None = None
    # v2: the LLM planner's share of the decision (planned_by "llm" or "rules").
    llm_calls: int | None = None
    llm_tokens: Annotated[int, INT64] | None = None
    llm_latency_ms: float | None = None
    planned_by: str | None = None


@_row
class MetricRow:
    """`metrics`: one metric a cycle's log gave (numbers in `value`, all in `text_value`)."""

    session_id: str
    pack: str | None = None
    cycle: int
    program: str | None = None
    metric: str
    value: float | None = None
    text_value: str | None = None


@_row
class EventRow:
    """`events`: one event of a cycle's decision or run."""

    session_id: str
    cycle: int
    event: str
    level: str | None = None
    message: str | None = None


@_row
class RetrievalRow:
    """`retrievals`: one retrieved passage of one search (rank 1 = best)."""

    session_id: str | None = None
    query_id: str
    query: str | None = None
    corpus: str | None = None
    mode: str | None = None
    k: int | None = None
    rank: int | None = None
    chunk_id: str | None = None
    file: str | None = None
    heading: str | None = None
    score: float | None = None
    latency_ms: float | None = None
    cycle: int | None = None  # the program agent's cycle (null for the research agent)


@_row
class AnswerRow:
    """`answers`: one answer the research agent gave (cached answers included)."""

    session_id: str | None = None
    question_id: str | None = None
    question: str
    answer: str
    citations: list[str] | None = None
    confidence: float | None = None
    insufficient: bool | None = None
    from_cache: bool | None = None
    latency_s: float | None = None
    corpus: str | None = None
    question_type: str | None = None
    refused: bool | None = None
    mc_letter: str | None = None
    steps_completed: int | None = None
    llm_calls: int | None = None
    retrieval_calls: int | None = None
    chars_in: Annotated[int, INT64] | None = None
    chars_out: Annotated[int, INT64] | None = None
    parse_failures: int | None = None


@_row
class EvalSampleRow:
    """`eval_samples`: one question (per epoch) of one evaluation run; a retried sample
    adds a row and readers take the newest per (run_id, sample_id)."""

    run_id: str
    suite: str
    sample_id: str
    sample_type: str
    epoch: int | None = None
    question: str | None = None
    expected: str | None = None
    accept: list[str] | None = None
    answer: str | None = None
    correct: bool
    score: float | None = None
    scores: list[ScoreStruct] | None = None
    grounded: bool | None = None
    citations: list[str] | None = None
    llm_calls: int | None = None
    retrieval_calls: int | None = None
    latency_s: float | None = None
    error: str | None = None
    # v3: LLM calls that failed, steps that fell back to rules, unparseable replies.
    llm_failed_calls: int | None = None
    llm_fallbacks: int | None = None
    parse_failures: int | None = None


@_row
class EvalRunRow:
    """`eval_runs`: one evaluation run (the aggregate of its samples); a resumed run
    adds a row and readers take the newest per run_id."""

    run_id: str
    suite: str
    suite_path: str | None = None
    suite_hash: str | None = None
    code_version: str | None = None
    provider: str | None = None
    model: str | None = None
    corpus: str | None = None
    kind: str | None = None
    sample_limit: int | None = None
    epochs: int | None = None
    concurrency: int | None = None
    # v4: Dask worker processes the samples ran on (None: threads of one process);
    # dask_address names an external scheduler.
    workers: int | None = None
    dask_address: str | None = None
    samples: int | None = None
    correct: int | None = None
    accuracy: float | None = None
    se: float | None = None
    by_type: list[TypeAccuracy] | None = None
    errors: int | None = None
    grounding_rate: float | None = None
    latency_p50: float | None = None
    latency_p95: float | None = None
    mean_latency_s: float | None = None
    calls_per_question: float | None = None
    llm_calls_per_question: float | None = None
    # v3: LLM calls that failed and steps that fell back to rules, over the run.
    llm_failed_calls: int | None = None
    llm_fallbacks: int | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None


ROW_MODELS: dict[str, type] = {
    "cycles": CycleRow,
    "metrics": MetricRow,
    "events": EventRow,
    "retrievals": RetrievalRow,
    "answers": AnswerRow,
    "eval_samples": EvalSampleRow,
    "eval_runs": EvalRunRow,
}

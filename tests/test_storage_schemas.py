"""Typed dataset rows: each model defines its Arrow schema; bad keys fail loudly.

Real Parquet files on a temporary home, read back with DuckDB through the views.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pytest

from agentcycle.storage import datasets, query
from agentcycle.storage.schemas import (
    ROW_MODELS,
    AnswerRow,
    EvalRunRow,
    EvalSampleRow,
    EventRow,
    ScoreStruct,
    TypeAccuracy,
    arrow_schema,
    required_fields,
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_every_dataset_has_one_model_and_its_schema_is_the_models() -> None:
    assert set(ROW_MODELS) == set(datasets.SCHEMAS)
    for name, model in ROW_MODELS.items():
        schema = datasets.SCHEMAS[name]
        fields = [f.name for f in dataclasses.fields(model)]
        assert schema.names == [*fields, "recorded_at", "schema_version"], name
    assert arrow_schema(AnswerRow).field("chars_in").type == pa.int64()
    assert arrow_schema(EvalSampleRow).field("scores").type == pa.list_(
        pa.struct(
            [("scorer", pa.string()), ("value", pa.string()), ("expected", pa.string()),
             ("score", pa.float64()), ("explanation", pa.string())]
        )
    )  # fmt: skip


def test_a_misspelt_or_missing_field_fails_loudly_and_writes_nothing() -> None:
    with pytest.raises(ValueError, match=r"events: unknown field.*mesage"):
        datasets.append_rows(
            "events", [{"session_id": "s", "cycle": 1, "event": "e", "mesage": "m"}]
        )
    with pytest.raises(ValueError, match=r"events: missing field.*cycle"):
        datasets.append_rows("events", [{"session_id": "s", "event": "e"}])
    with pytest.raises(ValueError, match="not a EventRow"):
        datasets.append_rows("events", [AnswerRow(question="q", answer="a")])
    with pytest.raises(TypeError):
        EventRow(session_id="s", cycle=1, event="e", mesage="m")  # type: ignore[call-arg]
    assert datasets.row_count("events") == 0
    assert required_fields(EventRow) == {"session_id", "cycle", "event"}


def test_typed_rows_round_trip_through_duckdb() -> None:
    datasets.append_rows(
        "eval_samples",
        [
            EvalSampleRow(
                run_id="r", suite="s", sample_id="q1", sample_type="simple", correct=True,
                scores=[ScoreStruct(scorer="contains", score=1.0, explanation="ok")],
            )
        ],
    )  # fmt: skip
    datasets.append_rows(
        "eval_runs",
        [EvalRunRow(run_id="r", suite="s", by_type=[TypeAccuracy(type="simple", n=1, correct=1)])],
    )
    sample = query.run_query("SELECT sample_id, correct, scores FROM eval_samples").to_pylist()
    assert sample[0]["correct"] is True and sample[0]["scores"][0]["scorer"] == "contains"
    run = query.run_query("SELECT by_type FROM eval_runs").to_pylist()
    assert run[0]["by_type"][0]["n"] == 1

"""Evaluation suites: a YAML or JSONL file naming its kind, its corpus and its samples.

The QA format is `shared/data/qa/dev.yaml` (questions with type, answer, accepted
alternatives and source quotes; corpus globs relative to `corpus_root`). Scenario suites
list replay scenario folders. Samples are validated one by one so a schema error names
the file, the sample id and the field, which is what a person editing 100 questions
needs to find the mistake.

A scenario suite may name its samples by `scenario_glob` (folders relative to the suite
holding a `scenario.yaml`; each folder's name is its id) instead of listing them.

JSONL suites: one sample per line; an optional first line `{"suite": {...}}` carries the
suite-level fields (name, kind, corpus_root, corpus).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agentcycle.errors import UserError

SampleType = Literal["simple", "multi_hop", "mc", "unanswerable"]


class SuiteError(UserError):
    """A suite file that cannot be used; the message names file, sample and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Source(_Strict):
    """Where the answer is written: a file (relative to corpus_root) and a verbatim quote."""

    file: str
    quote: str = ""


class QaSample(_Strict):
    id: str
    type: SampleType
    question: str = Field(min_length=1)
    choices: dict[str, str] | None = None
    answer: str
    accept: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    tolerance: float | None = Field(default=None, ge=0, description="Numeric tolerance.")

    @field_validator("answer", mode="before")
    @classmethod
    def _text_answer(cls, value: Any) -> Any:
        """YAML reads `answer: 20` as an int; answers are compared as text."""
        return str(value) if isinstance(value, int | float) else value

    @field_validator("accept", mode="before")
    @classmethod
    def _text_accept(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [str(v) if isinstance(v, int | float) else v for v in value]
        return value


class ScenarioSample(_Strict):
    """A replay scenario folder (relative to the suite file); its `scenario.yaml` holds
    the expected program sequence, final decision and metric bounds."""

    id: str
    type: Literal["scenario"] = "scenario"
    scenario: str


class Suite(_Strict):
    name: str
    description: str = ""
    kind: Literal["qa", "scenario"] = "qa"
    corpus_root: str = "."
    corpus: list[str] = Field(default_factory=list)
    path: Path
    digest: str
    samples: list[QaSample | ScenarioSample]

    @property
    def root(self) -> Path:
        """The folder corpus globs and source files are relative to."""
        return (self.path.parent / self.corpus_root).resolve()

    def corpus_files(self) -> list[Path]:
        files = {p.resolve() for glob in self.corpus for p in self.root.glob(glob) if p.is_file()}
        return sorted(files)


def _field(error: dict[str, Any]) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(sample)"


def _read(path: Path) -> tuple[dict[str, Any], list[Any]]:
    """(suite-level fields, raw samples) from YAML or JSONL."""
    text = path.read_text()
    if path.suffix == ".jsonl":
        header: dict[str, Any] = {}
        raw = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SuiteError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if number == 1 and isinstance(item, dict) and set(item) == {"suite"}:
                header = dict(item["suite"])
            else:
                raw.append(item)
        return header, raw
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise SuiteError(f"{path}: not YAML ({exc})") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: a suite is a mapping with samples")
    raw = data.pop("samples", None) or data.pop("questions", None) or []
    return data, raw


def load_suite(path: Path) -> Suite:
    """Read and validate a suite; every sample is checked, the first error is raised."""
    path = Path(path).resolve()
    if not path.is_file():
        raise SuiteError(f"{path}: no such suite file")
    header, raw = _read(path)
    kind = header.get("kind", "qa")
    pattern = header.pop("scenario_glob", None)
    if kind == "scenario" and pattern:  # every scenario folder matching the glob
        found = sorted(p.parent for p in path.parent.glob(f"{pattern.rstrip('/')}/scenario.yaml"))
        listed = {item.get("scenario") for item in raw if isinstance(item, dict)}
        raw = raw + [
            {"id": f.name, "scenario": str(f.relative_to(path.parent))}
            for f in found
            if str(f.relative_to(path.parent)) not in listed
        ]
    model: type[BaseModel] = ScenarioSample if kind == "scenario" else QaSample
    samples: list[QaSample | ScenarioSample] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        sample_id = item.get("id", f"#{index + 1}") if isinstance(item, dict) else f"#{index + 1}"
        try:
            sample = model.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise SuiteError(
                f"{path}: sample {sample_id}: field {_field(first)}: {first['msg']}"
            ) from None
        if sample.id in seen:  # type: ignore[attr-defined]
            raise SuiteError(f"{path}: sample {sample_id}: field id: duplicate id")
        seen.add(sample.id)  # type: ignore[attr-defined]
        samples.append(sample)  # type: ignore[arg-type]
    header.setdefault("name", path.stem)
    try:
        return Suite(
            **header,
            path=path,
            digest=hashlib.sha256(path.read_bytes()).hexdigest()[:16],
            samples=samples,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        raise SuiteError(f"{path}: suite field {_field(first)}: {first['msg']}") from None

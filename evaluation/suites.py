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
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from agentcycle.errors import UserError
from agentcycle.knowledge.safe_yaml import YamlLimitError, check_size, compose_limited, construct

SampleType = Literal["simple", "multi_hop", "mc", "unanswerable"]


class SuiteError(UserError):
    """A suite file that cannot be used; the message names file, sample and field."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Source(_Strict):
    """Where the answer is written: a file (relative to corpus_root) and a verbatim quote."""

    file: str
    quote: str = ""


SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _safe_id(value: Any) -> Any:
    """Ids name files, runs and deployments: letters, digits, `._-`, no path parts."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str) and not SAFE_ID.fullmatch(value):
        raise ValueError("must be 1-128 letters, digits, '.', '_' or '-', starting with a "
                         f"letter or digit (got {value[:40]!r})")
    return value


class QaSample(_Strict):
    id: str
    type: SampleType
    question: str = Field(min_length=1)
    choices: dict[str, str] | None = None
    answer: str
    accept: list[str] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    tolerance: float | None = Field(default=None, ge=0, description="Numeric tolerance.")

    _check_id = field_validator("id", mode="before")(_safe_id)

    @model_validator(mode="after")
    def _mc_has_choices(self) -> QaSample:
        """A multiple-choice question needs two or more choices, and its answer is one."""
        if self.type != "mc":
            return self
        if not self.choices or len(self.choices) < 2:
            raise ValueError("choices: a multiple-choice (mc) question needs at least 2 choices")
        if self.answer.strip() not in self.choices:
            raise ValueError(f"answer: {self.answer!r} is not one of the choices "
                             f"({', '.join(self.choices)})")
        return self

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

    _check_id = field_validator("id", mode="before")(_safe_id)


class Suite(_Strict):
    name: str
    description: str = ""
    kind: Literal["qa", "scenario"] = "qa"
    corpus_root: str = "."
    corpus: list[str] = Field(default_factory=list)
    path: Path
    digest: str
    samples: list[QaSample | ScenarioSample]

    _check_name = field_validator("name", mode="before")(_safe_id)

    @property
    def root(self) -> Path:
        """The folder corpus globs and source files are relative to."""
        return (self.path.parent / self.corpus_root).resolve()

    def corpus_files(self) -> list[Path]:
        files = {p.resolve() for glob in self.corpus for p in self.root.glob(glob) if p.is_file()}
        return sorted(files)


def _field(error: dict[str, Any]) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(sample)"


def _read(path: Path) -> tuple[dict[str, Any], list[Any], list[int]]:
    """(suite-level fields, raw samples, each sample's line) from YAML or JSONL."""
    try:
        check_size(path)
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise SuiteError(f"{path}: (file): not UTF-8 text (byte {exc.start})") from None
    except (OSError, YamlLimitError) as exc:
        raise SuiteError(f"{path}: (file): {getattr(exc, 'strerror', None) or exc}") from None
    if path.suffix == ".jsonl":
        header: dict[str, Any] = {}
        raw: list[Any] = []
        lines: list[int] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SuiteError(f"{path}:{number}: not JSON ({exc.msg})") from None
            if number == 1 and isinstance(item, dict) and set(item) == {"suite"}:
                if not isinstance(item["suite"], dict):
                    raise SuiteError(f"{path}:1: suite: must be a mapping")
                header = dict(item["suite"])
            else:
                raw.append(item)
                lines.append(number)
        return header, raw, lines
    import yaml

    try:
        node = compose_limited(text)
        data = construct(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = f":{mark.line + 1}" if mark else ""
        raise SuiteError(f"{path}{line}: (yaml): {exc.problem or exc.context}") from None
    except (yaml.YAMLError, YamlLimitError) as exc:
        raise SuiteError(f"{path}: (yaml): {' '.join(str(exc).split())[:200]}") from None
    if not isinstance(data, dict):
        raise SuiteError(f"{path}: (suite): a suite is a mapping with `questions` or `samples`")
    key = "samples" if "samples" in data else "questions"
    raw = data.pop(key, None)
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise SuiteError(f"{path}: {key}: must be a list of samples")
    lines = [1] * len(raw)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if key_node.value == key and isinstance(value_node, yaml.SequenceNode):
                lines = [item.start_mark.line + 1 for item in value_node.value]
    return data, raw, lines


def load_suite(path: Path) -> Suite:
    """Read and validate a suite; every sample is checked, the first error is raised."""
    path = Path(path).resolve()
    if not path.exists():
        raise SuiteError(f"{path}: no such suite file")
    if not path.is_file():
        raise SuiteError(f"{path}: not a regular file (a suite is a YAML file)")
    header, raw, lines = _read(path)
    kind = header.get("kind", "qa")
    pattern = header.pop("scenario_glob", None)
    if pattern is not None and not isinstance(pattern, str):
        raise SuiteError(f"{path}: scenario_glob: must be text")
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
        where = f"{path}:{lines[index]}" if index < len(lines) else str(path)
        try:
            sample = model.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            message = first["msg"].removeprefix("Value error, ")
            field = _field(first)
            if not first["loc"] and ": " in message:  # a whole-sample rule names its field
                field, message = message.split(": ", 1)
            raise SuiteError(
                f"{where}: sample {sample_id!s:.40}: field {field}: {message}"
            ) from None
        if sample.id in seen:  # type: ignore[attr-defined]
            raise SuiteError(f"{where}: sample {sample_id}: field id: duplicate id")
        seen.add(sample.id)  # type: ignore[attr-defined]
        samples.append(sample)  # type: ignore[arg-type]
    header.setdefault("name", path.stem)
    if not samples:
        raise SuiteError(f"{path}: questions: the suite has no samples")
    try:
        suite = Suite(
            **header,
            path=path,
            digest=hashlib.sha256(path.read_bytes()).hexdigest()[:16],
            samples=samples,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        where = f"{path}:{_top_level_line(path, str(first['loc'][0]))}" if first["loc"] else path
        raise SuiteError(f"{where}: suite field {_field(first)}: {message}") from None
    _check_places(suite)
    return suite


def _top_level_line(path: Path, key: str) -> int:
    """The line of a suite-level key (YAML: `key:` unindented; JSONL: the header line)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith((f"{key}:", f'"{key}":', f"'{key}':")):
            return number
    return 1


def _check_places(suite: Suite) -> None:
    """Everything the suite points at exists: corpus root and files, scenario folders."""
    path = suite.path
    if suite.kind == "qa":
        if not suite.root.is_dir():
            raise SuiteError(f"{path}: corpus_root: {suite.corpus_root}: no such folder "
                             f"(resolved to {suite.root})")
        for glob in suite.corpus:
            if Path(glob).is_absolute() or ".." in Path(glob).parts:
                raise SuiteError(f"{path}: corpus: {glob!r} must be relative to corpus_root "
                                 "without '..'")
        if suite.corpus and not suite.corpus_files():
            raise SuiteError(f"{path}: corpus: no file under {suite.root} matches "
                             f"{', '.join(suite.corpus)}")
        return
    for sample in suite.samples:
        folder = path.parent / sample.scenario  # type: ignore[union-attr]
        if not (folder / "scenario.yaml").is_file():
            raise SuiteError(f"{path}: sample {sample.id}: field scenario: {folder} has no "
                             "scenario.yaml")

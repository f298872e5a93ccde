"""Load a knowledge pack from YAML into pydantic models, with `file:line: field: problem` errors.

PyYAML's composer keeps the line of every node; we index those lines by their key path
so that a pydantic error location such as ``('programs', 'refine', 'timeout')`` can be
reported at the line the user has to edit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from agentcycle.errors import UserError
from agentcycle.knowledge.errors_schema import DiagnosableErrorsFile, RecoverableErrorsFile
from agentcycle.knowledge.metrics_schema import MetricsFile
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.probes import CONTENT_PROBES, PROBES
from agentcycle.knowledge.safe_yaml import YamlLimitError, check_size, compose_limited, construct
from agentcycle.knowledge.schema import (
    STOP,
    FieldProblem,
    FileCategoriesFile,
    ProgramsFile,
    WorkflowsFile,
)

PACKS_DIR = Path(__file__).resolve().parent / "packs"

LinePath = tuple[str | int, ...]


class PackError(UserError):
    """One or more problems in a pack; each line reads `file:line: field: what is wrong`."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class YamlDocument:
    """Parsed YAML plus the line of every key path in it."""

    path: Path
    data: Any
    lines: dict[LinePath, int]

    def line_of(self, loc: LinePath) -> int:
        """The line of the deepest part of `loc` that exists in the file."""
        for end in range(len(loc), -1, -1):
            line = self.lines.get(tuple(loc[:end]))
            if line is not None:
                return line
        return 1

    def problem(self, loc: LinePath, message: str) -> str:
        field = ".".join(str(part) for part in loc) or "(top level)"
        return f"{self.path}:{self.line_of(loc)}: {field}: {message}"


def _index_lines(node: yaml.Node, path: LinePath, lines: dict[LinePath, int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            child = (*path, key_node.value)
            lines[child] = key_node.start_mark.line + 1
            _index_lines(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index_lines(item, (*path, index), lines)


def read_yaml(path: Path) -> YamlDocument:
    """Parse one YAML file; syntax errors and duplicate keys become PackErrors with a line."""
    try:
        check_size(path)
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PackError([f"{path}:1: (file): not found"]) from None
    except YamlLimitError as exc:
        raise PackError([f"{path}:1: (file): {exc}"]) from None
    except UnicodeDecodeError:
        raise PackError([f"{path}:1: (file): not UTF-8 text"]) from None
    except OSError as exc:
        raise PackError([f"{path}:1: (file): cannot read: {exc.strerror or exc}"]) from None
    try:
        node = compose_limited(text)
        data = construct(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        raise PackError([f"{path}:{line}: (yaml): {exc.problem or exc.context}"]) from None
    except yaml.YAMLError as exc:
        raise PackError([f"{path}:1: (yaml): {' '.join(str(exc).split())[:200]}"]) from None
    except YamlLimitError as exc:
        raise PackError([f"{path}:1: (yaml): {exc}"]) from None
    lines: dict[LinePath, int] = {}
    if node is not None:
        _index_lines(node, (), lines)
        duplicates = list(_duplicate_keys(node, ()))
        if duplicates:
            raise PackError([f"{path}:{line}: {key}: duplicate key" for key, line in duplicates])
    return YamlDocument(path=path, data=data, lines=lines)


def _duplicate_keys(node: yaml.Node, path: LinePath) -> Iterator[tuple[str, int]]:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            child = (*path, key_node.value)
            if key_node.value in seen:
                yield ".".join(map(str, child)), key_node.start_mark.line + 1
            seen.add(key_node.value)
            yield from _duplicate_keys(value_node, child)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _duplicate_keys(item, (*path, index))


def _describe(error: dict[str, Any]) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown field (misspelled?)"
    if kind == "missing":
        return "required field is missing"
    message = error["msg"]
    return message.removeprefix("Value error, ")


def validate_document(doc: YamlDocument, model: type[BaseModel]) -> BaseModel:
    """Validate a document against a model, turning every pydantic error into a located line."""
    if not isinstance(doc.data, dict):
        raise PackError(
            [doc.problem((), f"expected a mapping at the top, got {type(doc.data).__name__}")]
        )
    try:
        return model.model_validate(doc.data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            # Drop pydantic's union-branch markers ('str', 'list[str]') from the location.
            loc = tuple(part for part in error["loc"] if not _is_type_tag(part))
            cause = (error.get("ctx") or {}).get("error")
            if isinstance(cause, FieldProblem):
                loc = (*loc, *cause.path)
            problems.append(doc.problem(loc, _describe(error)))
        raise PackError(sorted(set(problems), key=problems.index)) from None


def _is_type_tag(part: str | int) -> bool:
    return isinstance(part, str) and (part in {"str", "list[str]"} or part.startswith("function-"))


def pack_dir(name_or_path: str | Path) -> Path:
    """A pack given by name (under knowledge/packs) or by a directory path."""
    candidate = Path(name_or_path)
    if candidate.is_dir():
        return candidate
    if "/" not in str(name_or_path) and (PACKS_DIR / str(name_or_path)).is_dir():
        return PACKS_DIR / str(name_or_path)
    available = ", ".join(sorted(p.name for p in PACKS_DIR.iterdir() if p.is_dir()))
    raise UserError(f"knowledge pack {str(name_or_path)!r} not found (available: {available})")


def load_pack(name_or_path: str | Path) -> Pack:
    """Load and cross-check a pack; raise PackError listing every problem found.

    Loaded packs are memoised on their files' modification times: a decision loads the
    pack every cycle, and re-parsing YAML each time would dominate decision latency.
    """
    directory = pack_dir(name_or_path).resolve()
    stamps = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(directory.glob("*.yaml")))
    return _load_pack_cached(directory, stamps)


@lru_cache(maxsize=16)
def _load_pack_cached(directory: Path, stamps: tuple[tuple[str, int], ...]) -> Pack:
    files: dict[str, tuple[type[BaseModel], bool]] = {
        "programs.yaml": (ProgramsFile, True),
        "workflows.yaml": (WorkflowsFile, True),
        "file_categories.yaml": (FileCategoriesFile, False),
        "metrics.yaml": (MetricsFile, False),
        "recoverable_errors.yaml": (RecoverableErrorsFile, False),
        "diagnosable_errors.yaml": (DiagnosableErrorsFile, False),
    }
    problems: list[str] = []
    docs: dict[str, YamlDocument] = {}
    parsed: dict[str, Any] = {}
    for filename, (model, required) in files.items():
        path = directory / filename
        if not required and not path.exists():
            continue
        try:
            docs[filename] = read_yaml(path)
            parsed[filename] = validate_document(docs[filename], model)
        except PackError as exc:
            problems.extend(exc.problems)
    if problems:
        raise PackError(problems)
    programs_file: ProgramsFile = parsed["programs.yaml"]
    workflows_file: WorkflowsFile = parsed["workflows.yaml"]
    categories_file: FileCategoriesFile | None = parsed.get("file_categories.yaml")
    problems.extend(_cross_check(programs_file, workflows_file, docs["workflows.yaml"]))
    if categories_file is not None:
        problems.extend(
            _check_categories(
                programs_file, categories_file, docs["programs.yaml"], docs["file_categories.yaml"]
            )
        )
    for name in ("recoverable_errors.yaml", "diagnosable_errors.yaml"):
        if name in parsed:
            problems.extend(_check_error_programs(programs_file, parsed[name], docs[name]))
    if "metrics.yaml" in parsed:
        problems.extend(
            _check_metrics(
                programs_file, parsed["metrics.yaml"], docs["metrics.yaml"], workflows_file
            )
        )
    if problems:
        raise PackError(problems)
    default = workflows_file.default or next(iter(workflows_file.workflows))
    return Pack(
        name=directory.name,
        directory=str(directory),
        failure_markers=programs_file.failure_markers,
        log_identification=programs_file.log_identification,
        programs=programs_file.programs,
        workflows=workflows_file.workflows,
        default_workflow=default,
        file_categories=categories_file.categories if categories_file else {},
        metrics=parsed.get("metrics.yaml") or MetricsFile(),
        recoverable_errors=_errors(parsed.get("recoverable_errors.yaml")),
        diagnosable_errors=_errors(parsed.get("diagnosable_errors.yaml")),
    )


def _errors(document: Any) -> dict[str, Any]:
    return dict(document.errors) if document is not None else {}


def _cross_check(programs: ProgramsFile, workflows: WorkflowsFile, doc: YamlDocument) -> list[str]:
    """Every program and phase a workflow names must exist; so must the default workflow."""
    known = set(programs.programs) | {STOP}
    problems = []

    def check_programs(loc: LinePath, names: Iterable[str]) -> None:
        for name in names:
            if name not in known:
                problems.append(doc.problem(loc, f"unknown program {name!r}"))

    if workflows.default and workflows.default not in workflows.workflows:
        problems.append(doc.problem(("default",), f"unknown workflow {workflows.default!r}"))
    for wf_name, workflow in workflows.workflows.items():
        wf_loc = ("workflows", wf_name)
        if workflow.start not in workflow.phases:
            problems.append(doc.problem((*wf_loc, "start"), f"unknown phase {workflow.start!r}"))
        for phase_name, phase in workflow.phases.items():
            base = (*wf_loc, "phases", phase_name)
            for index, program in enumerate(phase.programs):
                check_programs((*base, "programs", index), [program])
            for index, transition in enumerate(phase.transitions):
                if transition.to not in workflow.phases:
                    problems.append(
                        doc.problem(
                            (*base, "transitions", index, "to"), f"unknown phase {transition.to!r}"
                        )
                    )
                check_programs(
                    (*base, "transitions", index, "when"), sorted(transition.when.programs())
                )
            for index, rule in enumerate(phase.stop_rules):
                check_programs((*base, "stop_rules", index, "when"), sorted(rule.when.programs()))
        for key in ("skip", "prefer"):
            check_programs((*wf_loc, "preferences", key), getattr(workflow.preferences, key))
        chain = workflow.tool_chain
        for program, needs in chain.dependencies.items():
            check_programs((*wf_loc, "tool_chain", "dependencies", program), [program, *needs])
        for before, after in chain.mandatory_next.items():
            check_programs((*wf_loc, "tool_chain", "mandatory_next", before), [before, after])
        for index, goal in enumerate(chain.goal_classes):
            check_programs((*wf_loc, "tool_chain", "goal_classes", index, "chain"), goal.chain)
        if workflow.placement_probe:
            probe = workflow.placement_probe
            check_programs((*wf_loc, "placement_probe"), [probe.program, *probe.placed_by])
    return problems


def _check_error_programs(programs: ProgramsFile, errors: Any, doc: YamlDocument) -> list[str]:
    """Error rules name real programs, and a recovery sets a declared strategy flag."""
    problems = []
    for name, rule in errors.errors.items():
        for index, program in enumerate(rule.programs):
            if program not in programs.programs:
                loc = ("errors", name, "programs", index)
                problems.append(doc.problem(loc, f"unknown program {program!r}"))
        resolution = getattr(rule, "resolution", None)
        if resolution is None:
            continue
        targets = rule.programs or list(programs.programs)
        if not any(
            resolution.parameter in programs.programs[p].strategy_flags
            for p in targets
            if p in programs.programs
        ):
            loc = ("errors", name, "resolution", "parameter")
            problems.append(
                doc.problem(loc, f"{resolution.parameter!r} is no strategy flag of these programs")
            )
    return problems


def _check_metrics(
    programs: ProgramsFile,
    metrics: MetricsFile,
    doc: YamlDocument,
    workflows: WorkflowsFile | None = None,
) -> list[str]:
    """Stop rules and best-file stages name real programs; scoped stop rules a real
    workflow or experiment type."""
    problems = []
    names = set(programs.programs)
    if workflows is not None:
        scopes = set(workflows.workflows) | {
            w.experiment_type for w in workflows.workflows.values() if w.experiment_type
        }
        for scope in metrics.workflow_stop_rules:
            if scope not in scopes:
                loc = ("workflow_stop_rules", scope)
                problems.append(doc.problem(loc, f"no workflow or experiment type {scope!r}"))
    scoped = [(("stop_rules",), metrics.stop_rules)] + [
        (("workflow_stop_rules", scope), rules)
        for scope, rules in metrics.workflow_stop_rules.items()
    ]
    for where, rules in scoped:
        if rules is None:
            continue
        for key in ("refinement_programs", "validation_programs", "refine_after"):
            for index, name in enumerate(getattr(rules, key)):
                if name not in names:
                    loc = (*where, key, index)
                    problems.append(doc.problem(loc, f"unknown program {name!r}"))
    for category, scoring in metrics.best_files_scoring.items():
        for stage in scoring.stages:
            if stage != "input" and stage not in names:
                loc = ("best_files_scoring", category, "stages", stage)
                problems.append(doc.problem(loc, f"unknown program {stage!r} (or 'input')"))
    return problems


def _check_categories(
    programs: ProgramsFile,
    categories: FileCategoriesFile,
    doc: YamlDocument,
    categories_doc: YamlDocument,
) -> list[str]:
    """Every category an input slot names must be declared in file_categories.yaml, and
    every probe a category names must exist."""
    problems = []
    for name, category in categories.categories.items():
        for key in ("content", "lock_when"):
            probe = getattr(category, key)
            if probe and probe not in CONTENT_PROBES:
                problems.append(
                    categories_doc.problem(
                        ("categories", name, key),
                        f"unknown content probe {probe!r} (known: {', '.join(CONTENT_PROBES)})",
                    )
                )
    for prog_name, program in programs.programs.items():
        for slot_name, slot in program.inputs.items():
            for index, category in enumerate(slot.categories):
                if category not in categories.categories:
                    loc = ("programs", prog_name, "inputs", slot_name, "categories", index)
                    problems.append(doc.problem(loc, f"unknown file category {category!r}"))
        for slot_name, slot in program.inputs.items():
            for index, category in enumerate(slot.exclude_categories):
                if category not in categories.categories:
                    loc = ("programs", prog_name, "inputs", slot_name, "exclude_categories", index)
                    problems.append(doc.problem(loc, f"unknown file category {category!r}"))
        for param_name, param in program.parameters.items():
            if param.derive and param.derive.probe not in PROBES:
                loc = ("programs", prog_name, "parameters", param_name, "derive", "probe")
                problems.append(
                    doc.problem(
                        loc, f"unknown probe {param.derive.probe!r} (known: {', '.join(PROBES)})"
                    )
                )
        for index, output in enumerate(program.outputs):
            if output.category and output.category not in categories.categories:
                loc = ("programs", prog_name, "outputs", index, "category")
                problems.append(doc.problem(loc, f"unknown file category {output.category!r}"))
    return problems

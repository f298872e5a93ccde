"""Pydantic models of a knowledge pack: what programs exist and how a workflow moves on.

Everything the program agent knows about a domain is declared in YAML and validated
here. Models forbid unknown keys so a misspelled field is an error, not a silent default.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agentcycle.knowledge.log_schema import (
    LogIdentification,
    LogIdentity,
    MetricPattern,
    valid_regex,
)

STOP = "STOP"
"""The pseudo-program that ends a session; a decision like any program."""

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""`{name}` in a command token: an input slot, a parameter or a built-in value."""

BUILTIN_VALUES = frozenset({"cycle", "prefix", "program", "pack_dir"})
"""Values the command builder always knows: cycle number, output prefix, program name,
and the pack's own directory (for helper scripts shipped with a pack)."""


class FieldProblem(ValueError):
    """A cross-field check's error that knows which sub-field is wrong.

    Model validators only get the model's location from pydantic; the loader appends
    `path` so the error points at the exact line the user has to edit.
    """

    def __init__(self, path: tuple[str | int, ...], message: str):
        super().__init__(message)
        self.path = path


def dotted_extensions(value: list[str]) -> list[str]:
    """Extensions are compared lower-case and must carry their dot, as Path.suffix gives them."""
    for ext in value:
        if not ext.startswith("."):
            raise ValueError(f"extension {ext!r} must start with '.'")
    return [ext.lower() for ext in value]


class Strict(BaseModel):
    """Base for every pack model: unknown keys are errors, values are not coerced silently."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class InputSlot(Strict):
    """One named input file of a program, filled from the session's files."""

    extensions: list[str] = Field(min_length=1, description="Accepted suffixes, e.g. ['.mtz'].")
    categories: list[str] = Field(
        default_factory=list, description="File categories preferred for this slot, in order."
    )
    required: bool = True
    exclude_patterns: list[str] = Field(
        default_factory=list,
        description="Name words that disqualify a file (word-boundary: 'ligand' matches "
        "atp_ligand.pdb, not noligand.pdb).",
    )
    prefer_patterns: list[str] = Field(
        default_factory=list, description="Name words that make a file win among candidates."
    )
    exclude_categories: list[str] = Field(
        default_factory=list, description="Categories a file must not have to fill this slot."
    )
    locked: bool = Field(
        default=False,
        description="Use the session's locked file of the slot's first category (e.g. the "
        "reflection file with R-free flags) whenever there is one.",
    )

    _dotted = field_validator("extensions")(classmethod(lambda cls, v: dotted_extensions(v)))


class DerivedValue(Strict):
    """A command value computed from an input file by a named probe (e.g. MTZ labels)."""

    probe: str = Field(description="Name of a probe in knowledge/probes.py.")
    input: str | None = Field(
        default=None, description="The input slot whose file the probe reads, if any."
    )


class Parameter(Strict):
    """A command value that is not a file: a default, an environment value or a probe."""

    default: str | int | float | None = None
    env: str | None = Field(default=None, description="Environment variable that overrides it.")
    derive: DerivedValue | None = None
    from_metric: str | None = Field(
        default=None,
        description="Auto-fill from the latest value of a metric in the history "
        "(e.g. the resolution xtriage reported).",
    )
    required: bool = True


class CommandGroup(Strict):
    """Tokens that appear together or not at all (a flag and its value).

    Written as a plain list in YAML when it only depends on its values being known;
    as `{args: [...], when: CONDITION}` when the history decides (e.g. `--twin` once
    data analysis has reported twinning).
    """

    args: list[str] = Field(min_length=1)
    when: Condition | None = None


CommandItem = str | list[str] | CommandGroup


class OutputSpec(Strict):
    """Files a run leaves in its directory, and the category they belong to."""

    pattern: str = Field(description="Glob relative to the run directory, e.g. '*.mtz'.")
    category: str | None = Field(
        default=None, description="Category of matching files; else file_categories decide."
    )


class DoneTracking(Strict):
    """How the workflow counts a program as done.

    `run_once`: one successful run and it is never offered again; `count`: may run again,
    its runs are counted; `set_flag`: a successful run whose log contains one of the
    `markers` sets `flag`, which conditions can test.
    """

    strategy: Literal["run_once", "count", "set_flag"] = "run_once"
    flag: str | None = None
    markers: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _flag_needs_name(self) -> DoneTracking:
        if self.strategy == "set_flag" and not self.flag:
            raise FieldProblem(("flag",), "strategy set_flag needs a flag name")
        return self


class StrategyFlag(Strict):
    """One allowed key=value setting of a program: its type, a hint, and how it is written."""

    type: Literal["float", "int", "string", "bool", "choice"] = "string"
    hint: str = ""
    choices: list[str] = Field(default_factory=list)
    args: list[str] = Field(
        default_factory=lambda: ["{key}={value}"],
        description="Tokens for the setting; {key} and {value} are filled in.",
    )
    minimum: float | None = None
    maximum: float | None = None


class Program(Strict):
    """A real program the agent can run, declared entirely in the pack."""

    description: str
    category: str = "general"
    experiment_types: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(
        default_factory=list, description="Words users use for it in goals ('refinement')."
    )
    log_detection: list[str] = Field(
        default_factory=list, description="Phrases that identify this program's log."
    )
    log_identity: LogIdentity = Field(
        default_factory=LogIdentity,
        description="Other names and phrase sets that identify this program's log.",
    )
    command: list[CommandItem] = Field(min_length=1)
    inputs: dict[str, InputSlot] = Field(default_factory=dict)
    parameters: dict[str, Parameter] = Field(default_factory=dict)
    strategy_flags: dict[str, StrategyFlag] = Field(
        default_factory=dict, description="The only settings that may be added to the command."
    )
    defaults: dict[str, str | int | float | bool] = Field(
        default_factory=dict, description="Strategy settings applied unless overridden."
    )
    keep_half_maps_with_full_map: bool = Field(
        default=False,
        description="Pass half maps too when a full map is given (else half-map slots "
        "are left empty once a full map fills its slot).",
    )
    outputs: list[OutputSpec] = Field(default_factory=list)
    log_parsing: dict[str, MetricPattern] = Field(default_factory=dict)
    expect_metrics: bool = Field(
        default=False,
        description="A run that yields none of its metrics counts as failed (silent failures).",
    )
    done_tracking: DoneTracking = Field(default_factory=DoneTracking)
    timeout: float = Field(default=600, gt=0, description="Seconds before the run is killed.")
    transient_errors: list[str] = Field(
        default_factory=list, description="Log phrases that make a failed run worth retrying."
    )

    @field_validator("command")
    @classmethod
    def _first_is_executable(cls, value: list[CommandItem]) -> list[CommandItem]:
        if not isinstance(value[0], str) or PLACEHOLDER.search(value[0]):
            raise ValueError("the first token must be a literal executable name")
        for item in value:
            if isinstance(item, list) and not item:
                raise ValueError("an argument group must not be empty")
        return value

    def groups(self) -> list[CommandGroup]:
        """The template as groups; a bare token is a group of one that must be filled."""
        return [
            item
            if isinstance(item, CommandGroup)
            else CommandGroup(args=[item])
            if isinstance(item, str)
            else CommandGroup(args=item)
            for item in self.command
        ]

    @model_validator(mode="after")
    def _placeholders_known(self) -> Program:
        known = set(self.inputs) | set(self.parameters) | BUILTIN_VALUES
        for index, group in enumerate(self.groups()):
            for token in group.args:
                for name in PLACEHOLDER.findall(token):
                    if name not in known:
                        raise FieldProblem(
                            ("command", index),
                            f"token {token!r} uses {{{name}}}, which is neither an input, "
                            f"a parameter nor one of {sorted(BUILTIN_VALUES)}",
                        )
        for key in self.defaults:
            if key not in self.strategy_flags:
                raise FieldProblem(("defaults", key), "not a declared strategy flag")
        for name, param in self.parameters.items():
            if param.derive and param.derive.input and param.derive.input not in self.inputs:
                raise FieldProblem(
                    ("parameters", name, "derive", "input"),
                    f"unknown input {param.derive.input!r}",
                )
        return self

    def tokens(self) -> list[str]:
        """Every literal token of the command template, groups flattened."""
        return [token for group in self.groups() for token in group.args]


class Condition(Strict):
    """One test on the session's history; exactly one key is set.

    Conditions are the vocabulary of workflow transitions: they read done flags,
    run counts and the latest metric values, never anything outside the history.
    """

    done: str | None = Field(default=None, description="Program has at least one successful run.")
    not_done: str | None = None
    runs_at_least: RunCount | None = None
    metric_below: MetricBound | None = None
    metric_above: MetricBound | None = None
    metric_equals: MetricValue | None = None
    plateau: Plateau | None = None
    flag: str | None = Field(default=None, description="A done-tracking flag is set.")
    has_file: str | None = Field(default=None, description="A file of this category exists.")
    if_placed: bool | None = Field(
        default=None, description="true: the model is known to be placed (any tier)."
    )
    if_not_placed: bool | None = Field(
        default=None, description="true: the model is known not to be placed."
    )
    placement_uncertain: bool | None = Field(
        default=None, description="true: no tier could tell yet (run the probe)."
    )
    at_target: bool | None = Field(
        default=None,
        description="true: metrics.yaml stop rules say refinement is finished "
        "(success, plateau, hopeless or hard limit).",
    )
    not_: Condition | None = Field(
        default=None, alias="not", description="The condition does not hold."
    )
    any: list[Condition] | None = None
    all: list[Condition] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Condition:
        fields = type(self).model_fields
        set_keys = [fields[key].alias or key for key, value in self if value is not None]
        if len(set_keys) != 1:
            names = ", ".join(f.alias or n for n, f in type(self).model_fields.items())
            raise ValueError(
                f"a condition needs exactly one of: {names} (got {set_keys or 'none'})"
            )
        return self

    def programs(self) -> set[str]:
        """Programs this condition refers to, for cross-reference checks."""
        named: set[str] = set()
        for value in (self.done, self.not_done):
            if value:
                named.add(value)
        if self.runs_at_least:
            named.add(self.runs_at_least.program)
        for child in [*(self.any or []), *(self.all or []), *([self.not_] if self.not_ else [])]:
            named |= child.programs()
        return named


class RunCount(Strict):
    program: str
    n: int = Field(ge=1)


class MetricBound(Strict):
    metric: str
    value: float


class MetricValue(Strict):
    metric: str
    value: str | float | int | bool


class Plateau(Strict):
    """A lower-is-better metric improved by less than `min_improvement` (relative) per run,
    for `cycles` runs in a row."""

    metric: str
    cycles: int = Field(default=2, ge=1)
    min_improvement: float = Field(default=0.005, ge=0)


class Transition(Strict):
    to: str
    when: Condition


class PhaseStop(Strict):
    """A phase-specific stop rule: offer STOP once this holds while in the phase."""

    when: Condition
    reason: str


class Phase(Strict):
    description: str = ""
    programs: list[str] = Field(min_length=1)
    transitions: list[Transition] = Field(default_factory=list)
    stop_rules: list[PhaseStop] = Field(default_factory=list)


class Preferences(Strict):
    """Workflow-wide preferences: never offer `skip`, offer `prefer` first."""

    skip: list[str] = Field(default_factory=list)
    prefer: list[str] = Field(default_factory=list)


class GoalClass(Strict):
    """A kind of request answered by a fixed, short chain ("how many ..." → count, STOP)."""

    patterns: list[str] = Field(min_length=1, description="Regexes on the goal (case-insensitive).")
    chain: list[str] = Field(min_length=1, description="Programs to run in order, then STOP.")

    _regex = field_validator("patterns")(
        classmethod(lambda cls, v: [valid_regex(pattern) for pattern in v])
    )


class ToolChain(Strict):
    """Code-enforced chain rules (the bioimage planner's): they override the plan, logged."""

    dependencies: dict[str, list[str]] = Field(
        default_factory=dict, description="program: programs that must have run before it."
    )
    mandatory_next: dict[str, str] = Field(
        default_factory=dict, description="After program A succeeds, B must come next."
    )
    goal_classes: list[GoalClass] = Field(default_factory=list)


class Workflow(Strict):
    """Phases, the programs valid in each, and when to move from one to the next."""

    description: str = ""
    experiment_type: str | None = Field(
        default=None, description="xray, cryoem, ... (for display and detection)."
    )
    detect_categories: list[str] = Field(
        default_factory=list,
        description="The workflow fits a session whose inputs include any of these categories.",
    )
    start: str
    phases: dict[str, Phase] = Field(min_length=1)
    preferences: Preferences = Field(default_factory=Preferences)
    tool_chain: ToolChain = Field(default_factory=ToolChain)
    placement_probe: PlacementProbe | None = None


class PlacementProbe(Strict):
    """Tier 3 of model placement: one diagnostic run whose metric says placed or not."""

    program: str
    metric: str
    below: float | None = None
    above: float | None = None
    model_category: str = "model"
    data_categories: list[str] = Field(default_factory=list)
    placed_by: list[str] = Field(
        default_factory=list,
        description="Tier 2: a successful run of any of these means the model is placed.",
    )


class FileCategory(Strict):
    """A kind of file, recognised by extension and (optionally) by words in its name."""

    description: str = ""
    extensions: list[str] = Field(min_length=1)
    name_patterns: list[str] = Field(
        default_factory=list, description="At least one must match (word-boundary)."
    )
    exclude_patterns: list[str] = Field(
        default_factory=list, description="None may match (word-boundary)."
    )
    content: str | None = Field(
        default=None,
        description="A content probe (knowledge/probes.py) that must say yes, e.g. pdb_is_ligand.",
    )
    lock_when: str | None = Field(
        default=None,
        description="Lock the first file of this category that this content probe accepts "
        "(e.g. mtz_has_free_flags) for the whole session.",
    )

    _dotted = field_validator("extensions")(classmethod(lambda cls, v: dotted_extensions(v)))


class FileCategoriesFile(Strict):
    """`file_categories.yaml`."""

    categories: dict[str, FileCategory] = Field(min_length=1)


class ProgramsFile(Strict):
    """`programs.yaml`."""

    failure_markers: list[str] = Field(
        default_factory=list,
        description="Terminal phrases that mark a run as failed even with exit code 0.",
    )
    log_identification: LogIdentification = Field(default_factory=LogIdentification)
    programs: dict[str, Program] = Field(min_length=1)


class WorkflowsFile(Strict):
    """`workflows.yaml`."""

    default: str | None = None
    workflows: dict[str, Workflow] = Field(min_length=1)


# Models that refer to classes defined after them resolve their annotations now.
for _model in (Condition, CommandGroup, Program, Workflow, WorkflowsFile, ProgramsFile):
    _model.model_rebuild()

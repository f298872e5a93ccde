"""Scenarios: a recorded session the agent must reproduce, decision for decision.

A scenario folder holds `scenario.yaml` (what is expected), `inputs/` (the user's
files) and `runs/<program>/<n>/` (recorded runs, see agent/replay.py). Running it
creates a real session in replay mode and drives it through the real Prefect flows, so
what is checked is the agent's decisions, not the programs. Kept apart from the tests
so an evaluation suite (or `agentcycle scenario run`) can reuse it unchanged.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentcycle.agent.program.llm_plan import set_session_llm
from agentcycle.agent.program.outcomes import SessionStatus
from agentcycle.agent.program.session import create_session
from agentcycle.agent.program.state import SessionState, load_session, save_session
from agentcycle.demo_data import demo_data_ready, prepare_demo_data
from agentcycle.errors import UserError
from agentcycle.flows.agent_session import run_session
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.loader import read_yaml, validate_document

SCENARIO_FILE = "scenario.yaml"
DEMO_DATA_ENV = "AGENTCYCLE_DEMO_DATA"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MetricBound(_Strict):
    """The session's latest value of `metric` must lie in [min, max]."""

    metric: str
    min: float | None = None
    max: float | None = None


class Interruption(_Strict):
    """Run `after_cycles` cycles, delete the outputs of `delete_outputs_of`'s latest run,
    then resume: the zombie test (a done program whose outputs vanished runs again)."""

    after_cycles: int = Field(ge=1)
    delete_outputs_of: str


class Scenario(_Strict):
    """`scenario.yaml`: the request and what the agent must do with it."""

    pack: str = Field(description="Knowledge pack name or directory.")
    description: str = ""
    goal: str = ""
    max_cycles: int = Field(default=20, ge=1)
    workflow: str | None = Field(default=None, description="Expected detected workflow.")
    demo_inputs: list[str] = Field(
        default_factory=list,
        description="Files under the demo data folder (agentcycle.demo_data) copied into the "
        "inputs at run time, so real binary files need not be committed.",
    )
    expected_programs: list[str] = Field(
        min_length=1, description="Every cycle's program in order, STOP included."
    )
    stop_reason: str | None = Field(default=None, description="Substring of the stop reason.")
    metrics: list[MetricBound] = Field(default_factory=list)
    events: list[str] = Field(
        default_factory=list, description="Substrings some cycle event message must contain."
    )
    zombie: Interruption | None = None


@dataclass
class ScenarioResult:
    """What the session did, and every way it differs from the scenario's expectations."""

    name: str
    session_dir: Path
    programs: list[str]
    status: str
    stop_reason: str | None
    workflow: str
    metrics: dict[str, object] = field(default_factory=dict)
    expected_programs: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


def load_scenario(directory: Path) -> Scenario:
    """Read and validate `scenario.yaml`; errors read `file:line: field: problem`."""
    path = Path(directory) / SCENARIO_FILE
    if not path.is_file():
        raise UserError(f"{path}: not a scenario (missing {SCENARIO_FILE})")
    scenario = validate_document(read_yaml(path), Scenario)
    assert isinstance(scenario, Scenario)
    if not (Path(directory) / "inputs").is_dir() and not scenario.demo_inputs:
        raise UserError(f"{path}: the scenario has no inputs/ folder and no demo_inputs")
    return scenario


XTAL_EXTRA_MODULES = ("coot_headless_api", "servalcat", "gemmi")


def list_scenarios(root: Path) -> list[Path]:
    """Scenario folders directly under `root`, sorted by name."""
    return sorted(p.parent for p in Path(root).glob(f"*/{SCENARIO_FILE}"))


def demo_data_root(demo_data: Path | None = None) -> Path:
    """The prepared demo data folder: the argument, $AGENTCYCLE_DEMO_DATA or ./.demo-data."""
    root = demo_data or Path(os.environ.get(DEMO_DATA_ENV, ".demo-data"))
    return prepare_demo_data(root).root


def _check_demo_data_can_be_had(directory: Path, demo_data: Path | None) -> None:
    """Building demo data needs the `xtal` extra; say so in one line instead of failing
    deep inside the build."""
    root = demo_data or Path(os.environ.get(DEMO_DATA_ENV, ".demo-data"))
    if demo_data_ready(root):
        return
    missing = [m for m in XTAL_EXTRA_MODULES if importlib.util.find_spec(m) is None]
    if missing:
        raise UserError(
            f"scenario {Path(directory).name} needs demo data (demo_inputs), not prepared in "
            f"{root}; building it needs the xtal extra: pip install 'agentcycle[xtal]'"
        )


def assemble_inputs(
    directory: Path, scenario: Scenario, work_dir: Path, demo_data: Path | None = None
) -> Path:
    """The input folder for the session: `inputs/` itself, or a copy plus the demo files."""
    own = Path(directory) / "inputs"
    if not scenario.demo_inputs:
        return own
    target = work_dir / "inputs"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    if own.is_dir():
        for item in own.iterdir():
            if item.is_file():
                shutil.copy2(item, target / item.name)
    _check_demo_data_can_be_had(directory, demo_data)
    root = demo_data_root(demo_data)
    for relative in scenario.demo_inputs:
        source = root / relative
        if not source.is_file():
            raise UserError(f"{directory / SCENARIO_FILE}: demo_inputs: {source} not found")
        shutil.copy2(source, target / source.name)
    return target


def delete_latest_outputs(session_dir: Path, state: SessionState, program: str) -> list[str]:
    """Delete every output file of `program`'s latest successful run; say which."""
    record = next((c for c in reversed(state.cycles) if c.program == program and c.succeeded), None)
    if record is None:
        raise UserError(f"zombie: {program} has not run in the first part of the scenario")
    for relative in record.outputs:
        (session_dir / relative).unlink(missing_ok=True)
    return list(record.outputs)


def reopen(session_dir: Path, max_cycles: int) -> SessionState:
    """Undo a max_cycles stop so the session continues, as a user resuming it would."""
    state = load_session(session_dir)
    if state.cycles and state.cycles[-1].program == "STOP":
        state.cycles.pop()
    state.status, state.stop_reason, state.max_cycles = SessionStatus.RUNNING, None, max_cycles
    save_session(session_dir, state)
    return state


def check(scenario: Scenario, result: ScenarioResult) -> list[str]:
    """Every difference between what the scenario expects and what the session did."""
    problems = []
    if result.programs != scenario.expected_programs:
        problems.append(
            f"programs: expected {' → '.join(scenario.expected_programs)}, "
            f"got {' → '.join(result.programs)}"
        )
    if scenario.workflow and result.workflow != scenario.workflow:
        problems.append(f"workflow: expected {scenario.workflow}, got {result.workflow}")
    if scenario.stop_reason and scenario.stop_reason not in (result.stop_reason or ""):
        problems.append(
            f"stop reason: expected …{scenario.stop_reason}…, got {result.stop_reason!r}"
        )
    for bound in scenario.metrics:
        value = result.metrics.get(bound.metric)
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        low_ok = bound.min is None or (numeric and value >= bound.min)  # type: ignore[operator]
        high_ok = bound.max is None or (numeric and value <= bound.max)  # type: ignore[operator]
        if not (numeric and low_ok and high_ok):
            problems.append(f"metric {bound.metric}: {value!r} not in [{bound.min}, {bound.max}]")
    for wanted in scenario.events:
        if not any(wanted in message for message in result.events):
            problems.append(f"events: no event mentions {wanted!r}")
    return problems


def _result(name: str, session_dir: Path) -> ScenarioResult:
    state = load_session(session_dir)
    metrics: dict[str, object] = {}
    for record in state.cycles:
        if record.succeeded:
            metrics.update(record.metrics)
    return ScenarioResult(
        name=name,
        session_dir=session_dir,
        programs=[c.program for c in state.cycles],
        status=state.status,
        stop_reason=state.stop_reason,
        workflow=state.workflow,
        metrics=metrics,
        events=[e["message"] for c in state.cycles for e in c.events],
    )


def run_scenario(
    directory: Path,
    session_dir: Path,
    demo_data: Path | None = None,
    llm: dict[str, Any] | None = None,
) -> ScenarioResult:
    """Create a replay session for the scenario, run it through the Prefect flows
    (rules only, or planned by `llm`: see llm_plan.session_llm) and compare. Needs a
    Prefect API (tests: the `prefect_api` fixture)."""

    directory = Path(directory).resolve()
    scenario = load_scenario(directory)
    session_dir = Path(session_dir).resolve()
    work_dir = session_dir.with_name(f"{session_dir.name}.scenario")
    inputs = assemble_inputs(directory, scenario, work_dir, demo_data)
    pack = load_pack(scenario.pack)
    first_part = scenario.zombie.after_cycles if scenario.zombie else scenario.max_cycles
    create_session(
        pack,
        scenario.pack,
        inputs,
        session_dir,
        goal=scenario.goal,
        max_cycles=first_part,
        replay_dir=directory,
    )
    if llm:
        set_session_llm(session_dir, llm)
    run_session(session_dir, verbosity="quiet")
    deleted: list[str] = []
    if scenario.zombie:
        state = load_session(session_dir)
        deleted = delete_latest_outputs(session_dir, state, scenario.zombie.delete_outputs_of)
        reopen(session_dir, scenario.max_cycles)
        run_session(session_dir, verbosity="quiet")
    result = _result(directory.name, session_dir)
    result.events.extend(f"scenario deleted {path}" for path in deleted)
    result.expected_programs = list(scenario.expected_programs)
    result.problems = check(scenario, result)
    return result

"""What the decision graph decides (`Decision`) and the state its nodes share.

Apart from graph.py so the session, the tasks and the decision service can speak of a
decision without the nodes. LangGraph reads `DecisionState`'s annotations at run time,
so every type it names is imported here for real.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypedDict

from agentcycle.agent.program import experience as exp
from agentcycle.agent.program.command import BuiltCommand, FilePool
from agentcycle.agent.program.directives import Directives
from agentcycle.agent.program.llm_plan import LLMPlanner
from agentcycle.agent.program.outcomes import StopKind
from agentcycle.agent.program.recovery import Diagnosis, Recovery
from agentcycle.agent.program.state import CycleRecord
from agentcycle.agent.program.workflow import History
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import STOP


@dataclass(frozen=True)
class Decision:
    """What the graph decided for one cycle, and why."""

    program: str
    reason: str
    argv: list[str] = field(default_factory=list)
    input_files: dict[str, str] = field(default_factory=dict)
    phase: str = ""
    valid_programs: list[str] = field(default_factory=list)
    events: list[dict[str, str]] = field(default_factory=list)
    recovery: Recovery | None = None
    diagnosis: Diagnosis | None = None
    settings: dict[str, str] = field(default_factory=dict)  # the key=value settings used
    llm: dict[str, Any] = field(default_factory=dict)  # planner calls, tokens, latency
    stop_kind: StopKind | None = None  # why, when the program is STOP

    @property
    def stop(self) -> bool:
        return self.program == STOP


class DecisionState(TypedDict, total=False):
    # Given by the caller.
    pack: Pack
    workflow: str
    cycles: list[CycleRecord]
    files: list[Path]
    output_categories: Mapping[Path, str]
    best_files: Mapping[str, str]
    cycle: int
    max_cycles: int
    environ: Mapping[str, str] | None
    directives: Directives | None
    goal: str
    session_dir: Path | None
    locked_files: Mapping[str, str]
    advice_changed: bool
    blacklist: Mapping[str, list[str]]
    recoveries: Mapping[str, Mapping[str, str]]
    experience: exp.Experience | None  # past cases and doc passages (tasks/experience.py)
    planner: LLMPlanner | None  # set when the session plans with an LLM (llm_plan.py)
    # Worked out by the nodes.
    settings: dict[str, str]
    strategy: dict[str, str]
    recovery: Recovery | None
    target_note: str | None
    pool: FilePool
    history: History
    phase: str
    valid: list[str]
    rejected: list[str]
    attempts: int
    chosen: str
    built: BuiltCommand | None
    feedback: Annotated[list[str], operator.add]
    events: Annotated[list[dict[str, str]], operator.add]
    decision: Decision

"""The program agent's decision graph: PERCEIVE → PLAN → BUILD → VALIDATE → OUTPUT.

A failed BUILD or VALIDATE goes back to PLAN with feedback (the program is set aside)
up to three times, then FALLBACK explains why nothing could run and stops. STOP is a
decision like any program. Pure Python and LangGraph: no Prefect, no I/O but reading
the files it is given, so it can be tested and benchmarked on its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from langgraph.graph import END, START, StateGraph

from agentcycle.agent.program import experience as exp
from agentcycle.agent.program.command import CommandContext, FilePool, build_command
from agentcycle.agent.program.decision import Decision, DecisionState
from agentcycle.agent.program.directives import Directives
from agentcycle.agent.program.duplicates import duplicate_problem
from agentcycle.agent.program.engine import directive_stop, valid_programs
from agentcycle.agent.program.events import event
from agentcycle.agent.program.file_facts import file_exists, read_log
from agentcycle.agent.program.llm_plan import LLMPlanner
from agentcycle.agent.program.outcomes import StopKind
from agentcycle.agent.program.perception import perceive_history
from agentcycle.agent.program.recovery import Diagnosis, Recovery, examine_failure
from agentcycle.agent.program.state import CycleRecord
from agentcycle.agent.program.workflow import History
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import STOP, Program

MAX_ATTEMPTS = 3


def _note_event(note: str) -> dict[str, str]:
    if note.startswith("directive"):
        return event("directive_applied", note)
    if note.startswith(("tool chain", "stop rules", "validation gate", "at target")):
        return event("program_modified", note)
    if note.startswith("ZOMBIE"):
        return event("warning", note)
    return event("workflow_note", note, "verbose")


def _trend_events(pack: Pack, history: History) -> list[dict[str, str]]:
    """The stop-rule target metric across runs, so a reader sees the direction."""
    rules = pack.metrics.stop_rules
    if rules is None:
        return []
    series = history.metric_series(rules.target)
    if len(series) < 2:
        return []
    trend = " → ".join(f"{v:.4g}" for v in series[-5:])
    return [event("metrics_trend", f"{rules.target}: {trend}")]


def _last_failure(state: DecisionState) -> Diagnosis | Recovery | None:
    """Examine the log of the previous cycle if it failed (recover or diagnose)."""
    cycles, session_dir = state["cycles"], state.get("session_dir")
    if not cycles or not cycles[-1].failed or session_dir is None or not cycles[-1].run_dir:
        return None
    text = read_log(session_dir / cycles[-1].run_dir / "program.log")
    if text is None:
        return None
    return examine_failure(state["pack"], cycles[-1], text, state.get("recoveries") or {})


def perceive(state: DecisionState) -> dict[str, Any]:
    """Where does the session stand? Files, history facts, phase and valid programs."""
    pack = state["pack"]
    workflow = pack.workflow(state["workflow"])
    directives = state.get("directives") or Directives()
    pool = FilePool.build(
        state["files"],
        pack.file_categories,
        state["best_files"],
        state["output_categories"],
        state.get("locked_files") or {},
    )
    seen = perceive_history(
        pack, workflow, state["cycles"], pool.categories, state.get("session_dir")
    )
    history = seen.history
    view = valid_programs(
        pack,
        workflow,
        history,
        directives,
        seen.verdict,
        state.get("goal", ""),
        step_back=state.get("advice_changed", False),
    )
    events = [
        event("cycle_start", f"cycle {state['cycle']}"),
        event("state_detected", f"phase {view.phase} (path {' → '.join(view.path)})"),
        *_trend_events(pack, history),
        *(_note_event(note) for note in (*seen.diagnostics, *view.notes)),
        *exp.memory_problem(state.get("experience")),
    ]
    update: dict[str, Any] = {
        "pool": pool,
        "history": history,
        "target_note": seen.verdict.reason if seen.verdict.at_target else None,
        "phase": view.phase,
        "valid": list(view.valid_programs),
        "rejected": [],
        "attempts": 0,
        "events": events,
    }
    verdict = _last_failure(state)
    if isinstance(verdict, Diagnosis):
        update["decision"] = Decision(
            STOP,
            f"diagnosed: {verdict.name} ({verdict.program}, cycle {verdict.cycle})",
            phase=view.phase,
            diagnosis=verdict,
            stop_kind=StopKind.DIAGNOSED,
        )
        update["events"] = [*events, event("error", f"diagnosed {verdict.name}: {verdict.what}")]
        return update
    if isinstance(verdict, Recovery):
        update["valid"] = [verdict.program]
        update["recovery"] = verdict
        fix = ", ".join(f"{k}={v}" for k, v in verdict.settings.items())
        update["events"] = [
            *events,
            event(
                "program_modified", f"recovery {verdict.name}: retry {verdict.program} with {fix}"
            ),
        ]
    by_directive = directive_stop(directives, history, state["cycle"])
    stop_reason = by_directive or view.stop_reason
    kind = StopKind.DIRECTIVE if by_directive else StopKind.COMPLETE
    if state["cycle"] > state["max_cycles"]:
        stop_reason = f"max_cycles reached ({state['max_cycles']})"
        kind = StopKind.MAX_CYCLES
    if stop_reason:
        update["decision"] = Decision(STOP, stop_reason, phase=view.phase, stop_kind=kind)
        update["events"] = [*events, event("stop_decision", stop_reason)]
    return update


def plan(state: DecisionState) -> dict[str, Any]:
    """The LLM's choice when the session has a planner, else the rules': the first valid
    program not set aside by an earlier attempt."""
    remaining = [p for p in state["valid"] if p not in state["rejected"]]
    remaining, ranked = exp.rank_programs(remaining, state.get("experience"))
    if state.get("planner") is not None and remaining:  # the LLM chooses, rules guard
        planned = state["planner"].plan(state, remaining)
        return {**planned, "events": [*ranked, *planned["events"]]}
    chosen = remaining[0] if remaining else STOP
    reason = "first valid program in phase" if remaining else "every valid program was rejected"
    events = [*ranked, event("program_selected", f"{chosen}: {reason}")]
    return {"chosen": chosen, "events": events}


def _stored_fixes(state: DecisionState, program: Program) -> dict[str, str]:
    """Recovery settings stored for any file this program could read, if it takes them."""
    fixes: dict[str, str] = {}
    for settings in (state.get("recoveries") or {}).values():
        fixes.update({k: v for k, v in settings.items() if k in program.strategy_flags})
    return fixes


def build(state: DecisionState) -> dict[str, Any]:
    """Fill the chosen program's template from the session's files."""
    if state["chosen"] == STOP:
        return {"built": None}
    pack = state["pack"]
    program = pack.programs[state["chosen"]]
    directives = state.get("directives") or Directives()
    blacklist = frozenset((state.get("blacklist") or {}).get(state["chosen"], []))
    learnt = exp.starting_settings(state["chosen"], pack, state.get("experience"))
    fixes = {k: v for k, v in _stored_fixes(state, program).items() if learnt.avoid.get(k) != v}
    user = {**learnt.start, **(state.get("strategy") or {}), **fixes, **directives.parameters}
    recovery = state.get("recovery")
    if recovery is not None and recovery.program == state["chosen"]:
        user.update({**recovery.settings, **learnt.override})
    used = learnt.events or exp.recall_events(state["chosen"], state.get("experience"))
    built = build_command(
        CommandContext(
            program_name=state["chosen"],
            program=program,
            pool=state["pool"],
            cycle=state["cycle"],
            pack_dir=pack.directory,
            history=state["history"],
            environ=state["environ"],
            user_settings=user,
            directives=directives,
            blacklist=blacklist,
        )
    )
    chosen_files = ", ".join(f"{slot}={Path(f).name}" for slot, f in built.input_files.items())
    return {
        "built": built,
        "settings": user,
        "events": [
            *used,
            *(event("program_modified", f"{state['chosen']}: {note}") for note in built.notes),
            event("files_selected", f"{state['chosen']}: {chosen_files or 'no files'}"),
            event("command_built", " ".join(built.argv), "verbose"),
        ],
    }


def validation_problem(state: DecisionState) -> str | None:
    """Why the built command must not run, or None when it may."""
    chosen, built = state["chosen"], state.get("built")
    if chosen == STOP:
        return None
    if built is None or not built.argv:
        return f"{chosen}: empty command"
    if built.missing:
        return f"{chosen}: cannot fill {', '.join(built.missing)}"
    for path in built.input_files.values():
        if not file_exists(Path(path)):
            return f"{chosen}: input file vanished: {path}"
    return duplicate_problem(built.argv, chosen, state["cycle"], state["history"].cycles)


def validate(state: DecisionState) -> dict[str, Any]:
    problem = validation_problem(state)
    if problem is None:
        return {}
    return {
        "rejected": [*state["rejected"], state["chosen"]],
        "attempts": state["attempts"] + 1,
        "feedback": [problem],
        "events": [event("warning", problem)],
    }


def fallback(state: DecisionState) -> dict[str, Any]:
    """Nothing could be built in three tries: stop and say exactly why."""
    feedback = state.get("feedback", [])
    kind = (
        "all_commands_duplicate"
        if feedback and all("duplicate of cycle" in f for f in feedback)
        else "cannot_build_any_program"
    )
    reason = f"{kind}: " + "; ".join(feedback)
    decision = Decision(
        STOP, reason, phase=state["phase"], valid_programs=state["valid"],
        stop_kind=StopKind.NO_PROGRAM,
    )  # fmt: skip
    return {"decision": decision}


def output(state: DecisionState) -> dict[str, Any]:
    decision = state.get("decision")
    if decision is None:
        built = state.get("built")
        chosen = state["chosen"]
        reason = f"phase {state['phase']}"
        if chosen == STOP:
            target = state.get("target_note")
            reason = f"workflow complete ({target})" if target else "workflow complete"
        decision = Decision(
            program=chosen,
            reason=reason,
            argv=built.argv if built else [],
            input_files=built.input_files if built else {},
            phase=state["phase"],
            valid_programs=state["valid"],
            recovery=state.get("recovery") if chosen != STOP else None,
            stop_kind=StopKind.COMPLETE if chosen == STOP else None,
            settings=dict(state.get("settings") or {}) if chosen != STOP else {},
        )
    events = [
        *state.get("events", []),
        event("decision", f"{decision.program}: {decision.reason}"),
    ]
    return {"decision": Decision(**{**decision.__dict__, "events": events})}


def _after_perceive(state: DecisionState) -> str:
    return "output" if state.get("decision") else "plan"


def _after_validate(state: DecisionState) -> str:
    if not state.get("feedback") or state["chosen"] not in state["rejected"]:
        return "output"
    untried = [p for p in state["valid"] if p not in state["rejected"]]
    return "fallback" if state["attempts"] >= MAX_ATTEMPTS or not untried else "plan"


@cache
def decision_graph() -> Any:
    """The compiled graph; compiled once per process because compiling costs milliseconds."""
    graph = StateGraph(DecisionState)
    for name, node in (
        ("perceive", perceive),
        ("plan", plan),
        ("build", build),
        ("validate", validate),
        ("fallback", fallback),
        ("output", output),
    ):
        graph.add_node(name, node)
    graph.add_edge(START, "perceive")
    graph.add_conditional_edges("perceive", _after_perceive, ["plan", "output"])
    graph.add_edge("plan", "build")
    graph.add_edge("build", "validate")
    graph.add_conditional_edges("validate", _after_validate, ["plan", "fallback", "output"])
    graph.add_edge("fallback", "output")
    graph.add_edge("output", END)
    return graph.compile()


def decide(
    pack: Pack,
    workflow: str,
    cycles: list[CycleRecord],
    files: list[Path],
    cycle: int,
    max_cycles: int,
    best_files: Mapping[str, str] | None = None,
    output_categories: Mapping[Path, str] | None = None,
    environ: Mapping[str, str] | None = None,
    directives: Directives | None = None,
    goal: str = "",
    session_dir: Path | None = None,
    locked_files: Mapping[str, str] | None = None,
    advice_changed: bool = False,
    blacklist: Mapping[str, list[str]] | None = None,
    recoveries: Mapping[str, Mapping[str, str]] | None = None,
    experience: exp.Experience | None = None,
    llm: Mapping[str, Any] | None = None,
) -> Decision:
    """Run the graph once and return its decision for cycle `cycle` (`llm`: the session's
    planner settings; none: the rules plan)."""
    planner = LLMPlanner.from_session(llm or {})
    result = decision_graph().invoke(
        {
            "pack": pack,
            "workflow": workflow,
            "cycles": cycles,
            "files": files,
            "output_categories": output_categories or {},
            "best_files": best_files or {},
            "cycle": cycle,
            "max_cycles": max_cycles,
            "environ": environ,
            "directives": directives,
            "goal": goal,
            "session_dir": session_dir,
            "locked_files": locked_files or {},
            "advice_changed": advice_changed,
            "blacklist": blacklist or {},
            "recoveries": recoveries or {},
            "experience": experience,
            "planner": planner,
            "recovery": None,
            "feedback": [],
            "events": [],
        }
    )
    return planner.finish(result["decision"]) if planner else result["decision"]

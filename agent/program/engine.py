"""Layer 1 of a decision: the list of valid programs, every rule applied in one order.

phase programs → done tracking → workflow preferences → directives (skip) → stop rules
(at target: refinement out, STOP in, validation gate) → phase stop rules → tool-chain
rules (dependencies, mandatory successor, goal class) → directives (start with, prefer).
Later layers (PLAN, an LLM) only choose from this list; nothing downstream re-adds what
a rule removed. Every change leaves a note that becomes an event.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agentcycle.agent.program.directives import Directives
from agentcycle.agent.program.stop_rules import StopVerdict
from agentcycle.agent.program.workflow import History, current_phase, holds
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import STOP, ToolChain, Workflow


@dataclass(frozen=True)
class PhaseView:
    """The session's place in the workflow and the programs valid there."""

    phase: str
    path: tuple[str, ...]
    valid_programs: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)
    stop_reason: str | None = None  # set when STOP is the only sensible choice


@dataclass
class _Options:
    valid: list[str]
    notes: list[str] = field(default_factory=list)
    stop_reason: str | None = None

    def remove(self, programs: set[str], note: str) -> None:
        removed = [p for p in self.valid if p in programs]
        if removed:
            self.valid = [p for p in self.valid if p not in programs]
            self.notes.append(f"{note}: {', '.join(removed)}")

    def add(self, program: str, note: str) -> None:
        if program not in self.valid:
            self.valid.append(program)
            self.notes.append(f"{note}: {program}")


def _done_filter(pack: Pack, history: History, options: _Options) -> None:
    for program in list(options.valid):
        if program == STOP:
            continue
        tracking = pack.programs[program].done_tracking
        if tracking.strategy == "run_once" and history.done(program):
            options.remove({program}, "already done (run_once)")
        elif tracking.strategy == "set_flag" and tracking.flag in history.flags:
            options.remove({program}, f"flag {tracking.flag} already set")


def _apply_stop_rules(pack: Pack, verdict: StopVerdict, options: _Options) -> None:
    if not verdict.at_target:
        return
    options.notes.append(f"stop rules: {verdict.reason}")
    default = pack.metrics.stop_rules
    programs = verdict.refinement_programs or (default.refinement_programs if default else [])
    options.remove(set(programs), "at target, refinement removed")
    if verdict.hopeless:
        options.valid = [STOP]
        options.stop_reason = verdict.reason
        return
    if verdict.validation_pending:
        options.remove({STOP}, "validation gate, STOP removed until validation ran")
        for program in verdict.validation_pending:
            options.add(program, "validation gate")
    else:
        options.add(STOP, "at target and validated")


def _apply_tool_chain(chain: ToolChain, history: History, goal: str, options: _Options) -> None:
    """Code-level enforcement, in order: the goal's class (shortest chain, then STOP),
    a mandatory successor, then dependencies. Every override leaves a note."""
    for goal_class in chain.goal_classes:
        if any(re.search(p, goal, re.IGNORECASE) for p in goal_class.patterns):
            remaining = [p for p in goal_class.chain if not history.done(p)]
            options.valid = remaining[:1] or [STOP]
            options.notes.append(
                f"tool chain: goal class {goal_class.patterns[0]!r} → "
                f"{' → '.join(goal_class.chain)} → STOP (override)"
            )
            if not remaining:
                options.stop_reason = "goal answered by the shortest chain"
            return
    last = next((c for c in reversed(history.cycles) if c.succeeded and c.program != STOP), None)
    if last is not None and last.program in chain.mandatory_next:
        successor = chain.mandatory_next[last.program]
        options.valid = [successor]
        options.notes.append(f"tool chain: {successor} must follow {last.program} (override)")
        return
    for program, needs in chain.dependencies.items():
        missing = [n for n in needs if not history.done(n)]
        if program in options.valid and missing:
            options.remove({program}, f"tool chain: needs {', '.join(missing)} first")


def _apply_directives(
    pack: Pack, directives: Directives, history: History, options: _Options
) -> None:
    starters = [p for p in directives.start_with if p in pack.programs and not history.done(p)]
    if starters and not any(c.succeeded for c in history.cycles):
        options.valid = starters
        options.notes.append(f"directive: start with {', '.join(starters)}")
    preferred = [p for p in options.valid if p in directives.prefer]
    if preferred:
        options.valid = preferred + [p for p in options.valid if p not in preferred]
        options.notes.append(f"directive: prefer {', '.join(preferred)}")


def valid_programs(
    pack: Pack,
    workflow: Workflow,
    history: History,
    directives: Directives | None = None,
    verdict: StopVerdict | None = None,
    goal: str = "",
    step_back: bool = False,
) -> PhaseView:
    """The programs that may run next, and why the list looks the way it does.

    `step_back`: the user gave new advice to a finished session; if the phase offers
    only STOP, offer the previous phase's programs for one cycle so the request can run.
    """
    directives = directives or Directives()
    phase, path = current_phase(workflow, history)
    options = _Options(valid=list(workflow.phases[phase].programs))
    if step_back and options.valid == [STOP] and len(path) > 1:
        phase = path[-2]
        options = _Options(valid=[*workflow.phases[phase].programs, STOP])
        options.notes.append(f"advice changed: stepped back to phase {phase} for one cycle")
    else:
        _done_filter(pack, history, options)
    options.remove(set(workflow.preferences.skip), "workflow preference: skip")
    options.remove(set(directives.skip), "directive: skip")
    preferred = [p for p in options.valid if p in workflow.preferences.prefer]
    if preferred:
        options.valid = preferred + [p for p in options.valid if p not in preferred]
    _apply_stop_rules(pack, verdict or StopVerdict(), options)
    for rule in workflow.phases[phase].stop_rules:
        if holds(rule.when, history):
            options.add(STOP, f"phase stop rule ({rule.reason})")
    if options.stop_reason is None:
        _apply_tool_chain(workflow.tool_chain, history, goal, options)
    if options.stop_reason is None:
        _apply_directives(pack, directives, history, options)
    if not options.valid:
        options.valid = [STOP]
        options.notes.append(f"no program left in phase {phase!r}")
    return PhaseView(
        phase=phase,
        path=path,
        valid_programs=tuple(options.valid),
        notes=tuple(options.notes),
        stop_reason=options.stop_reason,
    )


def directive_stop(directives: Directives, history: History, cycle: int) -> str | None:
    """Why the user's directives say the session is over, or None."""
    if directives.stop_after and all(history.done(p) for p in directives.stop_after):
        return f"directive: stop after {' and '.join(directives.stop_after)}"
    if directives.stop_after_cycle is not None and cycle > directives.stop_after_cycle:
        return f"directive: stop after cycle {directives.stop_after_cycle}"
    targets = directives.metric_targets
    if targets and all(t.met(history.latest_metric(t.metric)) for t in targets):
        met = ", ".join(f"{t.metric}={history.latest_metric(t.metric)}" for t in targets)
        return f"directive: metric targets met ({met})"
    return None

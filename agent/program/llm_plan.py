"""LLM planning for the program agent's PLAN step, with the rules as guard rails.

The PHENIX agent's shape: the model chooses the next program among the ones the
workflow allows, with its reasons and strategy settings; code checks the answer.
Here the choice is constrained twice: by the server's JSON-schema output (an enum of
the valid programs) and by `_check` afterwards (a server without constrained output
can answer anything). An unusable answer is asked again once with the problem named;
then the rules decide. A server that cannot be reached is not asked again within the
decision, so a dead server costs one connection attempt (or one timeout) per cycle.
The strategy goes into the build as settings, where `postprocess` checks them like
every other setting. Pure Python: no Prefect.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agentcycle.agent.llm import (
    Completion,
    LLMSettings,
    LLMUnavailable,
    complete_json,
)
from agentcycle.agent.program.events import event
from agentcycle.agent.program.state import SessionState, load_session, save_session
from agentcycle.knowledge.schema import STOP

PLAN_SYSTEM = (
    "You plan the next step of an automated scientific workflow. Choose the next program "
    "from the valid programs listed (STOP ends the session), give short reasons, and "
    "optionally strategy settings for that program (only keys listed for it). "
    "Follow the user's directives. Reply with one JSON object: "
    '{"program": ..., "strategy": {...}, "reasons": ...}.'
)
# A plan's reply: the program, its strategy and reasons kept to REASONS_MAX characters;
# a model that rambles past that is cut, not waited for. AGENTCYCLE_LLM_MAX_TOKENS (the
# session's `max_tokens`) lowers it further on a slow CPU, as it does for every skill.
MAX_TOKENS = 200
REASONS_MAX = 300


@dataclass
class PlanStats:
    """What planning cost in one decision: calls, tokens and wall time."""

    calls: int = 0
    tokens: int = 0
    latency_ms: float = 0.0
    planned_by: str = ""  # "llm", "rules" (fallback) or "" (PLAN never ran)

    def add(self, completion: Completion) -> None:
        self.tokens += completion.prompt_tokens + completion.completion_tokens


def reply_schema(programs: Sequence[str], flags: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """The JSON schema the server constrains its answer to: one of `programs`, reasons,
    and strategy keys of those programs (values are strings; postprocess types them)."""
    keys = sorted({key for program in programs for key in flags.get(program, ())})
    return {
        "type": "object",
        "properties": {
            "program": {"type": "string", "enum": list(programs)},
            "strategy": {
                "type": "object",
                "properties": {key: {"type": "string"} for key in keys},
                "additionalProperties": False,
            },
            "reasons": {"type": "string"},  # trimmed after: maxLength bloats the grammar
        },
        "required": ["program", "strategy", "reasons"],
        "additionalProperties": False,
    }


def plan_prompt(state: Mapping[str, Any], remaining: Sequence[str]) -> str:
    """The facts the model plans from: phase, programs, history, trend, directives,
    evidence and why earlier choices of this decision were set aside."""
    pack = state["pack"]
    lines = [
        f"Phase: {state['phase']}",
        f"Cycle: {state['cycle']} of at most {state['max_cycles']}",
    ]
    if state.get("goal"):
        lines.append(f"User goal: {state['goal']}")
    directives = state.get("directives")
    if directives is not None and directives.recognised:
        lines.append("User directives: " + "; ".join(directives.recognised))
    lines.append("Valid programs:")
    for name in remaining:
        spec = pack.programs.get(name)
        if spec is None:
            lines.append(f"- {name}: end the session")
            continue
        flags = ", ".join(spec.strategy_flags) or "none"
        lines.append(f"- {name}: {spec.description.strip()[:200]} (strategy keys: {flags})")
    history = state["history"]
    done = [c for c in history.cycles if c.program != STOP][-6:]
    if done:
        lines.append("Programs run so far:")
        for c in done:
            outcome = f"failed: {c.failure_reason}" if c.failed else "ok"
            metrics = ", ".join(f"{k}={v}" for k, v in list(c.metrics.items())[:6])
            lines.append(f"- cycle {c.cycle} {c.program}: {outcome}; {metrics or 'no metrics'}")
    rules = pack.metrics.stop_rules
    if rules is not None:
        series = history.metric_series(rules.target)
        if series:
            trend = " -> ".join(f"{v:.4g}" for v in series[-5:])
            lines.append(f"Trend of {rules.target}: {trend}")
    experience = state.get("experience")  # past cases and documentation (experience.py)
    evidence = experience.prompt_text() if experience is not None else ""
    if evidence:
        lines += ["Evidence from earlier sessions and the documentation:", evidence]
    if state.get("feedback"):
        lines.append("Set aside this cycle: " + "; ".join(state["feedback"]))
    return "\n".join(lines)


def _check(text: str, remaining: Sequence[str]) -> tuple[str, str, dict[str, str]]:
    """(program, reasons, strategy) from the reply, or ValueError naming the problem."""
    try:
        # strict=False: llama.cpp's grammar lets raw newlines into strings
        reply = json.loads(text, strict=False)
    except json.JSONDecodeError as exc:
        try:  # cut off by the token limit inside `reasons`, the last field: close it
            reply = json.loads(text + '"}', strict=False)
        except json.JSONDecodeError:
            raise ValueError(f"not JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(reply, dict):
        raise ValueError("not a JSON object")
    program = reply.get("program")
    if program not in remaining:
        raise ValueError(f"program {program!r} is not one of {', '.join(remaining)}")
    strategy = reply.get("strategy") or {}
    if not isinstance(strategy, dict):
        raise ValueError("strategy is not an object")
    reasons = " ".join(str(reply.get("reasons", "")).split())[:REASONS_MAX]
    return program, reasons, {str(k): str(v) for k, v in strategy.items()}


@dataclass
class LLMPlanner:
    """Asks the configured model in PLAN; one instance per decision (its stats are the
    decision's). Events: `llm_plan` with choice and reasons, or `llm_fallback` with why."""

    settings: LLMSettings
    stats: PlanStats
    down: str | None = None

    @classmethod
    def from_session(cls, llm: Mapping[str, Any]) -> LLMPlanner | None:
        """The planner a session's stored settings ask for; None means rules plan."""
        if not llm or llm.get("provider", "rules") == "rules":
            return None
        settings = LLMSettings.resolve(
            llm["provider"], llm.get("model"), llm.get("base_url"), llm.get("timeout_s")
        )
        return cls(settings=settings, stats=PlanStats())

    def plan(self, state: Mapping[str, Any], remaining: list[str]) -> dict[str, Any]:
        """The graph update of PLAN: chosen program, strategy and events."""
        pack = state["pack"]
        flags = {name: list(spec.strategy_flags) for name, spec in pack.programs.items()}
        schema = reply_schema(remaining, flags)
        prompt = plan_prompt(state, remaining)
        problem = f"server unavailable earlier in this decision: {self.down}"
        cap = min(MAX_TOKENS, self.settings.max_tokens)
        for attempt in range(2):
            if self.down is not None:
                break
            user = prompt if attempt == 0 else f"{prompt}\n\nYour last reply was {problem}."
            started = time.perf_counter()
            self.stats.calls += 1
            try:
                completion = complete_json(self.settings, PLAN_SYSTEM, user, schema, cap)
            except LLMUnavailable as exc:
                self.stats.latency_ms += (time.perf_counter() - started) * 1000
                self.down = problem = f"server unavailable: {exc}"
                break
            self.stats.latency_ms += completion.latency_s * 1000
            self.stats.add(completion)
            try:
                program, reasons, strategy = _check(completion.text, remaining)
            except ValueError as exc:
                problem = f"unusable: {exc}"
                continue
            self.stats.planned_by = "llm"
            shown = ", ".join(f"{k}={v}" for k, v in strategy.items())
            return {
                "chosen": program,
                "strategy": strategy if program != STOP else {},
                "events": [
                    event(
                        "llm_plan",
                        f"{program}: {reasons or '(no reasons)'}"
                        + (f" [strategy {shown}]" if shown else ""),
                    ),
                    event("program_selected", f"{program}: chosen by the LLM"),
                ],
            }
        self.stats.planned_by = "rules"
        chosen = remaining[0]
        return {
            "chosen": chosen,
            "strategy": {},
            "events": [
                event("llm_fallback", f"{problem}; rules chose {chosen}"),
                event("program_selected", f"{chosen}: first valid program in phase"),
            ],
        }

    def finish(self, decision: Any) -> Any:
        """The decision with this planner's stats; a decision made before PLAN (stop
        rules, a diagnosis, the cycle limit) gets an `llm_fallback` saying so."""
        events = list(decision.events)
        if not any(e["event"] in ("llm_plan", "llm_fallback") for e in events):
            why = f"not consulted: the rules decided before planning ({decision.reason})"
            events.append(event("llm_fallback", why))
        stats = {
            "llm_calls": self.stats.calls,
            "llm_tokens": self.stats.tokens,
            "llm_latency_ms": round(self.stats.latency_ms, 1),
            "planned_by": self.stats.planned_by or "rules",
        }
        return replace(decision, events=events, llm=stats)


def session_llm(
    provider: str | None, model: str | None = None, base_url: str | None = None
) -> dict[str, Any]:
    """Settings to store in a session (checked now: a bad provider is a UserError before
    anything is written); {} for rules. No API key is ever stored."""
    settings = LLMSettings.resolve(provider, model, base_url)
    return {} if settings.provider == "rules" else settings.describe()


def set_session_llm(session_dir: Path, llm: Mapping[str, Any]) -> SessionState:
    """Store the planner settings in session.json (atomically), e.g. on resume."""
    state = load_session(session_dir)
    state.llm = dict(llm)
    save_session(session_dir, state)
    return state

"""What memory contributed, for the session summary and the failure diagnosis.

Quotes the documentation passages the `retrieve` task found (file § section) and the
past cases it consulted (session + cycle), and lists every `experience` event, so a
reader can check each use of experience against its source. Input is what
`tasks.experience.retrieved` returns: {cycle: {"query", "cases", "passages"}}.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentcycle.agent.program.state import SessionState

QUOTE_CHARS = 320

Memory = Mapping[int, Mapping[str, Any]]


def _quote(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= QUOTE_CHARS else flat[: QUOTE_CHARS - 1].rstrip() + "…"


def passage_source(passage: Mapping[str, Any]) -> str:
    return f"{Path(passage['file']).name} § {passage['heading'] or '(top)'}"


def case_source(case: Mapping[str, Any]) -> str:
    return f"session {case['session_id']} cycle {case['cycle']}"


def case_line(case: Mapping[str, Any]) -> str:
    bits = [f"{case['program']} {case['outcome']}"]
    if case.get("error_kind"):
        bits.append(f"error {case['error_kind']}")
    if case.get("settings"):
        bits.append("settings " + ", ".join(f"{k}={v}" for k, v in case["settings"].items()))
    if case.get("target_value") is not None:
        bits.append(f"target {case['target_value']:.4g}")
    return f"{case_source(case)}: {'; '.join(bits)}"


def unique_items(memory: Memory, key: str, ident: Any) -> list[Mapping[str, Any]]:
    """Cases or passages of every cycle, each once, in the order first seen."""
    seen, out = set(), []
    for cycle in sorted(memory):
        for item in memory[cycle].get(key, []):
            if ident(item) not in seen:
                seen.add(ident(item))
                out.append(item)
    return out


def experience_events(state: SessionState) -> list[tuple[int, str]]:
    return [(c.cycle, e["message"]) for c in state.cycles for e in c.events
            if e["event"] == "experience"]


def memory_markdown(state: SessionState, memory: Memory) -> list[str]:
    """The summary's `What memory contributed` section (no lines when nothing was found)."""
    used = experience_events(state)
    cases = unique_items(memory, "cases", case_source)
    passages = unique_items(memory, "passages", passage_source)
    if not (used or cases or passages):
        return []
    lines = ["", "## What memory contributed", ""]
    lines += [f"- cycle {cycle}: {message}" for cycle, message in used] or ["- no decision used it"]
    if cases:
        lines += ["", "Past cases consulted:", ""]
        lines += [f"- {case_line(case)}" for case in cases[:12]]
    if passages:
        lines += ["", "Documentation quoted:", ""]
        lines += [f"- {passage_source(p)}: > {_quote(p['text'])}" for p in passages[:6]]
    return lines


def memory_html(state: SessionState, memory: Memory) -> str:
    """The same section for the HTML summary."""
    esc = html.escape
    used = experience_events(state)
    cases = unique_items(memory, "cases", case_source)[:12]
    passages = unique_items(memory, "passages", passage_source)[:6]
    if not (used or cases or passages):
        return ""
    items = "".join(f"<li>cycle {c}: {esc(m)}</li>" for c, m in used) or \
        "<li>no decision used it</li>"
    case_items = "".join(f"<li>{esc(case_line(c))}</li>" for c in cases)
    quotes = "".join(f"<li><b>{esc(passage_source(p))}</b><blockquote>{esc(_quote(p['text']))}"
                     "</blockquote></li>" for p in passages)
    return (f"<h2>What memory contributed</h2><ul>{items}</ul>"
            + (f"<h3>Past cases consulted</h3><ul>{case_items}</ul>" if cases else "")
            + (f"<h3>Documentation quoted</h3><ul>{quotes}</ul>" if passages else ""))


def diagnosis_evidence_html(found: Mapping[str, Any] | None, error_name: str) -> str:
    """For failure_diagnosis.html: the passages retrieved for the failing cycle, and past
    cases that hit the same error (how they ended, what fixed it)."""
    if not found:
        return ""
    esc = html.escape
    base = error_name.removesuffix("_not_recovered")
    same = [c for c in found.get("cases", []) if c.get("error_kind") == base]
    quotes = "".join(
        f"<dt>{esc(passage_source(p))}</dt><dd><blockquote>{esc(_quote(p['text']))}"
        "</blockquote></dd>" for p in found.get("passages", []))
    cases = "".join(f"<li>{esc(case_line(c))}</li>" for c in same)
    return ((f"<h2>What the documentation says</h2><dl>{quotes}</dl>" if quotes else "")
            + (f"<h2>Earlier sessions with this error</h2><ul>{cases}</ul>" if cases else ""))

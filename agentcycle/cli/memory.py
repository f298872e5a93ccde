"""CLI output for the program agent's memory: `search runs` and the `experience` section
of `agentcycle show`."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from agentcycle.agent.program.state import SessionState
from agentcycle.errors import UserError
from agentcycle.storage.runs import MemoryUnavailable, search_runs
from agentcycle.tasks.experience import retrieved

RUNS_CORPUS = "runs"  # `agentcycle search runs "..."` searches past cycles, not a corpus


def echo_run_hits(query: str, k: int, as_json: bool) -> None:
    """Past cycles nearest to the query, with session, cycle, outcome and error."""
    try:
        rows = search_runs(query, k=k)
    except MemoryUnavailable as exc:
        raise UserError(f"search runs: {exc}") from None
    if as_json:
        typer.echo(json.dumps(rows, indent=1, default=str))
        return
    if not rows:
        typer.echo("no results")
    for rank, row in enumerate(rows, start=1):
        typer.echo(f"{rank:2d}. session {row['session_id']} cycle {row['cycle']}: "
                   f"{row['program']} {row['outcome']}  score {row['similarity']:.4f}")
        facts = [f"pack {row['pack']}", f"data {row['experiment_type']}"]
        if row["resolution"] is not None:
            facts.append(f"{row['resolution']:.2f} A")
        if row["error_kind"] or row["error"]:
            facts.append(f"error {row['error_kind'] or ''} {row['error'] or ''}".strip())
        settings = json.loads(row["settings"] or "{}")
        if settings:
            facts.append("settings " + ", ".join(f"{k}={v}" for k, v in settings.items()))
        typer.echo("    " + "; ".join(facts))
        if row["log_summary"]:
            typer.echo("    " + row["log_summary"].splitlines()[-1][:160])


def echo_experience(state: SessionState, session_dir: Path, detailed: bool) -> None:
    """What memory gave each cycle and what the agent did with it."""
    found = retrieved(session_dir)
    used = [(c.cycle, e["message"]) for c in state.cycles for e in c.events
            if e["event"] == "experience"]
    cases = sum(len(v.get("cases", [])) for v in found.values())
    passages = sum(len(v.get("passages", [])) for v in found.values())
    typer.echo(f"\nexperience: {len(found)} cycles retrieved, {cases} past cases, "
               f"{passages} documentation passages, {len(used)} used")
    for cycle, message in used:
        typer.echo(f"  cycle {cycle}: {message}")
    if not detailed:
        return
    for cycle, item in sorted(found.items()):
        for case in item.get("cases", []):
            typer.echo(f"  cycle {cycle} consulted session {case['session_id']} cycle "
                       f"{case['cycle']}: {case['program']} {case['outcome']}"
                       + (f" ({case['error_kind']})" if case["error_kind"] else ""))
        for passage in item.get("passages", []):
            typer.echo(f"  cycle {cycle} read {Path(passage['file']).name} § "
                       f"{passage['heading'] or '(top)'}")

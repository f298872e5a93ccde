"""PERCEIVE: turn the raw history and the files on disk into the facts rules look at.

Zombie clearing (a finished program whose outputs vanished is treated as not done, in
memory only, with a diagnostic), the categories of files present, model placement and
the stop-rule verdict. Nothing here writes anything.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from agentcycle.agent.program.file_facts import declared_facts
from agentcycle.agent.program.placement import placement
from agentcycle.agent.program.state import CycleRecord
from agentcycle.agent.program.stop_rules import StopVerdict, evaluate
from agentcycle.agent.program.workflow import History
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import Workflow


@dataclass(frozen=True)
class Perception:
    history: History
    verdict: StopVerdict
    diagnostics: tuple[str, ...]


def clear_zombies(
    pack: Pack, cycles: list[CycleRecord], session_dir: Path | None
) -> tuple[list[CycleRecord], list[str]]:
    """Drop successful cycles whose declared outputs are all gone from disk."""
    if session_dir is None:
        return list(cycles), []
    declared = declared_facts()  # a remote decision: the client said which files exist
    exists = declared.exists if declared else Path.exists
    kept, notes = [], []
    for record in cycles:
        spec = pack.programs.get(record.program)
        vanished = (
            record.succeeded
            and spec is not None
            and spec.outputs
            and record.outputs
            and not any(exists(session_dir / rel) for rel in record.outputs)
        )
        if vanished:
            notes.append(
                f"ZOMBIE STATE — cycle {record.cycle} ({record.program}) finished but its "
                f"outputs are gone ({', '.join(record.outputs[:3])}); done flag cleared"
            )
            continue
        kept.append(record)
    return kept, notes


def perceive_history(
    pack: Pack,
    workflow: Workflow,
    cycles: list[CycleRecord],
    categories: Mapping[Path, tuple[str, ...]],
    session_dir: Path | None = None,
) -> Perception:
    effective, diagnostics = clear_zombies(pack, cycles, session_dir)
    present = frozenset(c for cats in categories.values() for c in cats)
    verdict_placement: str | None = None
    uncertain = False
    if workflow.placement_probe is not None:
        probe = workflow.placement_probe
        model = next((f for f, cats in categories.items() if probe.model_category in cats), None)
        data = [f for f, cats in categories.items() if set(cats) & set(probe.data_categories)][:1]
        verdict_placement, uncertain = placement(probe, effective, model, data)
        if verdict_placement:
            diagnostics.append(f"model placement: {verdict_placement}")
        elif uncertain:
            diagnostics.append("model placement uncertain: probe with " + probe.program)
    history = History(
        cycles=tuple(effective),
        placement=verdict_placement,
        placement_uncertain=uncertain,
        file_categories=present,
    )
    name = next((n for n, w in pack.workflows.items() if w == workflow), None)
    verdict = evaluate(pack.metrics, history, name, workflow.experiment_type)
    return Perception(replace(history, at_target=verdict.at_target), verdict, tuple(diagnostics))

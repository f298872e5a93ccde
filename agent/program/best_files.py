"""Best file per category, scored by `metrics.yaml`, and files locked for the session.

A file's score is its stage points (which program made it; 'input' for the user's own
files) plus metric points from the run that made it (linear or linear_inverse). The
best files are recomputed from the whole history each time, so pruning or resuming a
session can never leave a stale choice behind.
"""

from __future__ import annotations

from pathlib import Path

from agentcycle.agent.program.files import categorise
from agentcycle.agent.program.state import CycleRecord, SessionState
from agentcycle.knowledge.metrics_schema import CategoryScoring
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.probes import CONTENT_PROBES


def declared_category(pack: Pack, program: str, path: Path) -> str | None:
    """The category a program's output spec gives this file, if any."""
    from fnmatch import fnmatch

    spec = pack.programs.get(program)
    for output in spec.outputs if spec else []:
        if output.category and fnmatch(path.name, output.pattern):
            return output.category
    return None


def categories_of(pack: Pack, path: Path, program: str | None) -> list[str]:
    declared = declared_category(pack, program, path) if program else None
    return [declared] if declared else categorise(path, pack.file_categories)


def score(scoring: CategoryScoring | None, record: CycleRecord | None) -> float:
    if scoring is None:
        return 0.0
    stage = record.program if record else "input"
    total = scoring.stages.get(stage, 0.0)
    for rule in scoring.metrics:
        value = record.metrics.get(rule.metric) if record else None
        if isinstance(value, int | float) and not isinstance(value, bool):
            total += rule.score(float(value))
    return total


def rebuild_best_files(state: SessionState, pack: Pack, session_dir: Path) -> dict[str, str]:
    """Highest-scoring existing file per category; later files win ties."""
    candidates: list[tuple[str, CycleRecord | None]] = [(rel, None) for rel in state.inputs]
    for record in state.cycles:
        if record.succeeded:
            candidates.extend((rel, record) for rel in record.outputs)
    best: dict[str, tuple[float, int, str]] = {}
    for order, (rel, record) in enumerate(candidates):
        path = session_dir / rel
        if not path.is_file():
            continue
        for category in categories_of(pack, path, record.program if record else None):
            points = score(pack.metrics.best_files_scoring.get(category), record)
            if category not in best or (points, order) >= best[category][:2]:
                best[category] = (points, order, rel)
    return {category: rel for category, (_, _, rel) in sorted(best.items())}


def update_locks(state: SessionState, pack: Pack, session_dir: Path) -> list[str]:
    """Lock the first file of each lockable category that passes its probe; say what was locked."""
    locked = []
    files = list(state.inputs) + [
        rel for record in state.cycles if record.succeeded for rel in record.outputs
    ]
    for name, category in pack.file_categories.items():
        if not category.lock_when or name in state.locked_files:
            continue
        probe = CONTENT_PROBES[category.lock_when]
        for rel in files:
            path = session_dir / rel
            if path.is_file() and name in categorise(path, pack.file_categories) and probe(path):
                state.locked_files[name] = rel
                locked.append(f"{name}: {rel}")
                break
    return locked

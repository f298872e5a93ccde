"""Is the user's model already placed in the crystal (or map)? Three tiers.

Tier 1 compares unit cells read with gemmi (5 % tolerance; an unreadable file gives no
verdict). Tier 2 reads the history: a successful run of a program that only works on
a placed model. Tier 3 is one diagnostic probe run (e.g. model_vs_data: R-free < 0.50
→ placed) whose first result before any placing program decides, and never repeats.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agentcycle.agent.program.file_facts import declared_facts
from agentcycle.agent.program.state import CycleRecord
from agentcycle.knowledge.schema import PlacementProbe

CELL_TOLERANCE = 0.05

Cell = tuple[float, float, float, float, float, float]


def read_cell(path: Path) -> Cell | None:
    """Unit cell of a model, reflection file or map; None when it cannot be read."""
    try:
        import gemmi

        suffix = path.suffix.lower()
        if suffix == ".mtz":
            cell = gemmi.read_mtz_file(str(path), with_data=False).cell
        elif suffix in (".map", ".ccp4", ".mrc"):
            header = gemmi.read_ccp4_header(str(path))  # words 11-16: the map's cell
            return _usable(tuple(header.header_float(word) for word in range(11, 17)))
        elif suffix in (".pdb", ".ent", ".cif", ".mmcif"):
            cell = gemmi.read_structure(str(path)).cell
        else:
            return None
    except (ImportError, RuntimeError, ValueError, OSError):
        return None
    return _usable((cell.a, cell.b, cell.c, cell.alpha, cell.beta, cell.gamma))


def _usable(values: tuple[float, ...]) -> Cell | None:
    """None for placeholder cells: a model without CRYST1 gets 1 Å cubic, or zeros."""
    if len(values) != 6 or min(values) <= 0 or values[:3] == (1.0, 1.0, 1.0):
        return None
    return values  # type: ignore[return-value]


def cells_match(first: Cell, second: Cell, tolerance: float = CELL_TOLERANCE) -> bool:
    return all(
        abs(a - b) <= tolerance * max(abs(a), abs(b)) for a, b in zip(first, second, strict=True)
    )


def cell_mismatch(model: Path | None, data: Iterable[Path]) -> bool:
    """Tier 1: True only for a definite mismatch; any unreadable file means 'cannot tell'."""
    if model is None:
        return False
    declared = declared_facts()  # a remote decision: the client read the cells
    cell_of = declared.cell if declared else read_cell
    model_cell = cell_of(model)
    data_cells = [cell_of(path) for path in data]
    if model_cell is None or not data_cells or any(c is None for c in data_cells):
        return False
    return not any(cells_match(model_cell, c) for c in data_cells if c is not None)


def probe_result(probe: PlacementProbe, cycles: Iterable[CycleRecord]) -> str | None:
    """Tier 3: the verdict of the first probe run before any placing program, if any."""
    for cycle in cycles:
        if cycle.program in probe.placed_by and cycle.succeeded:
            return None  # placement was settled by tier 2 before any probe
        if cycle.program != probe.program or not cycle.succeeded:
            continue
        value = cycle.metrics.get(probe.metric)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return None  # unparseable: fail safe, no verdict
        placed = (probe.below is None or value < probe.below) and (
            probe.above is None or value > probe.above
        )
        return "placed" if placed else "not_placed"
    return None


def placement(
    probe: PlacementProbe, cycles: list[CycleRecord], model: Path | None, data: list[Path]
) -> tuple[str | None, bool]:
    """(verdict, uncertain): verdict 'placed' / 'not_placed' / None; uncertain means the
    probe should run now (no tier could tell and it has not run)."""
    if any(c.program in probe.placed_by and c.succeeded for c in cycles):
        return "placed", False
    if cell_mismatch(model, data):
        return "not_placed", False
    verdict = probe_result(probe, cycles)
    if verdict is not None:
        return verdict, False
    probed = any(c.program == probe.program and c.succeeded for c in cycles)
    return None, model is not None and bool(data) and not probed

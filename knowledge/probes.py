"""Named file probes that packs may use to derive command values.

A pack says *which* probe fills a parameter (`derive: {probe: mtz_amplitude_labels,
input: data}`); the probe itself is code because reading binary formats is code.
Every probe returns a string or None (could not tell), never raises on a bad file.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

Probe = Callable[[Path | None], str | None]


def mtz_amplitude_labels(path: Path | None) -> str | None:
    """`F,SIGF,FREE`-style labels for refinement: amplitudes (or intensities) plus free flags."""
    if path is None:
        return None
    try:
        import gemmi

        mtz = gemmi.read_mtz_file(str(path), with_data=False)  # the header is enough
    except (ImportError, RuntimeError, ValueError, OSError):
        return None
    columns = list(mtz.columns)
    free = next((c.label for c in columns if c.type == "I" and "free" in c.label.lower()), None)
    for wanted in ("F", "J"):  # merged amplitudes first, then merged intensities
        for index, column in enumerate(columns):
            if column.type != wanted:
                continue
            sigma = next((c for c in columns[index + 1 :] if c.type == "Q"), None)
            if sigma is None:
                continue
            labels = [column.label, sigma.label] + ([free] if free else [])
            return ",".join(labels)
    return None


def coot_monomer_library(_: Path | None = None) -> str | None:
    """The CCP4-format monomer library shipped inside the `coot-headless-api` wheel."""
    spec = importlib.util.find_spec("coot_headless_api")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        candidate = Path(root) / "share" / "coot" / "lib" / "data" / "monomers"
        if (candidate / "list" / "mon_lib_list.cif").is_file():
            return str(candidate)
    return None


def _pdb_record_counts(path: Path, limit: int = 400) -> tuple[int, int]:
    """(ATOM, HETATM) records among the first `limit` coordinate lines of a PDB file."""
    atoms = hetatms = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("ATOM  "):
                    atoms += 1
                elif line.startswith("HETATM"):
                    hetatms += 1
                if atoms + hetatms >= limit:
                    break
    except OSError:
        pass
    return atoms, hetatms


def pdb_is_ligand(path: Path) -> bool:
    """A PDB with coordinates that are all HETATM records: a small molecule, not a model."""
    if path.suffix.lower() not in (".pdb", ".ent"):
        return False
    atoms, hetatms = _pdb_record_counts(path)
    return hetatms > 0 and atoms == 0


def pdb_is_model(path: Path) -> bool:
    """Not a PDB (mmCIF models pass), or a PDB with > 150 records, mostly ATOM."""
    if path.suffix.lower() not in (".pdb", ".ent"):
        return True
    atoms, hetatms = _pdb_record_counts(path)
    return (atoms + hetatms > 150 and atoms > hetatms) or (atoms > 0 and hetatms == 0)


def mtz_has_free_flags(path: Path) -> bool:
    """An MTZ with an integer column named like an R-free flag set."""
    try:
        import gemmi

        mtz = gemmi.read_mtz_file(str(path), with_data=False)
    except (ImportError, RuntimeError, ValueError, OSError):
        return False
    return any(c.type == "I" and "free" in c.label.lower() for c in mtz.columns)


ContentProbe = Callable[[Path], bool]

CONTENT_PROBES: dict[str, ContentProbe] = {
    "pdb_is_ligand": pdb_is_ligand,
    "pdb_is_model": pdb_is_model,
    "mtz_has_free_flags": mtz_has_free_flags,
}

PROBES: dict[str, Probe] = {
    "mtz_amplitude_labels": mtz_amplitude_labels,
    "coot_monomer_library": coot_monomer_library,
}

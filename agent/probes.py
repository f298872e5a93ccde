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


PROBES: dict[str, Probe] = {
    "mtz_amplitude_labels": mtz_amplitude_labels,
    "coot_monomer_library": coot_monomer_library,
}

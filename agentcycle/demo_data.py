"""Reproducible real crystallography data for the ``xtal`` demo pack.

Why this module exists: the demo pack must run real programs (cctbx/mmtbx,
servalcat, gemmi) on real diffraction data, and the machines reach only PyPI and
Debian.  Two real structures with data ship inside servalcat's *source*
distribution on PyPI, and a working monomer library ships inside the
``coot-headless-api`` wheel, so everything can be rebuilt from package registries
alone, on any fresh machine, with no file committed to the repository.

Layout written under DEST::

    DEST/manifest.json          marker: written last, makes a second run a no-op
    DEST/monomers/              monomer library (list/mon_lib_list.cif, ener_lib.cif, a/..z/)
    DEST/1l2h/1l2h_shaken.cif   deposited 1l2h with every atom moved (0.4 A RMS, fixed seed)
    DEST/1l2h/1l2h.mtz          FreeR_flag, IMEAN, SIGIMEAN (P 43, hemihedrally twinned)
    DEST/5e5z/5e5z.pdb          tiny peptide, as shipped
    DEST/5e5z/5e5z.mtz          FREE, FP, SIGFP, I, SIGI (P 1 21 1)

In both MTZ files the free set is flag value 0.  A cold build takes about 6 s.

The 1l2h model is shaken so that refinement has something to do (R-free starts
high and drops); the deposited model is deliberately *not* put in the input
folder, so an agent cannot simply hand it back, and its deposited R-factors are
dropped from the shaken file.

Run ``python -m agentcycle.demo_data [DEST]`` (default ``./.demo-data``).
"""

from __future__ import annotations

import gzip
import importlib.metadata
import importlib.util
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: Used when servalcat is not installed; this version's sdist is known to carry the data.
FALLBACK_SERVALCAT_VERSION = "0.4.142"
#: Bump when the layout or the shaking changes, so old folders are rebuilt.
FORMAT_VERSION = 2
SHAKE_RMS = 0.4  # Angstrom, RMS length of the per-atom displacement vector
SHAKE_SEED = 20251122
PEPTIDE_BONDED = 2.0  # Angstrom: C-N closer than this in the input is a peptide bond
MAX_SHAKEN_CN = 1.8  # Angstrom: stay clear of the ~2.0 A gap cut-off of gemmi/servalcat
MANIFEST = "manifest.json"
PIP_TIMEOUT_S = 600  # about 6 s with a cold pip cache; generous for slow mirrors

# member name (relative to the sdist's tests/ folder) -> (subfolder, output name)
_TEST_FILES: dict[str, tuple[str, str]] = {
    "1l2h/1l2h.cif.gz": ("1l2h", "1l2h_deposited.cif"),  # shaken, then removed
    "1l2h/1l2h.mtz.gz": ("1l2h", "1l2h.mtz"),
    "5e5z/5e5z.pdb.gz": ("5e5z", "5e5z.pdb"),
    "5e5z/5e5z.mtz.gz": ("5e5z", "5e5z.mtz"),
}


@dataclass(frozen=True)
class DemoPaths:
    """Where the prepared inputs are; every path is absolute."""

    root: Path
    dir_1l2h: Path  # 1l2h_shaken.cif + 1l2h.mtz
    dir_5e5z: Path  # 5e5z.pdb + 5e5z.mtz
    monlib: Path  # pass as --monlib (servalcat) or --monomers (gemmi)

    @classmethod
    def under(cls, root: Path) -> DemoPaths:
        """The paths for a DEST folder, whether or not it is prepared yet."""
        root = Path(root).resolve()
        return cls(
            root=root,
            dir_1l2h=root / "1l2h",
            dir_5e5z=root / "5e5z",
            monlib=root / "monomers",
        )


def servalcat_version() -> str:
    """The installed servalcat's version, so data and program match; else the fallback."""
    try:
        return importlib.metadata.version("servalcat")
    except importlib.metadata.PackageNotFoundError:
        return FALLBACK_SERVALCAT_VERSION


def find_monlib_source() -> Path:
    """The monomer library inside the installed ``coot_headless_api`` package.

    Found with importlib (without importing the package) because site-packages differs
    between venvs.  Debian's refmac-dictionary is no substitute: it lacks
    ``list/mon_lib_list.cif``, which servalcat and gemmi need.
    """
    spec = importlib.util.find_spec("coot_headless_api")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "coot_headless_api is not installed; install the 'xtal' extra "
            "(pip install coot-headless-api) to get a monomer library"
        )
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "share" / "coot" / "lib" / "data" / "monomers"
        if (candidate / "list" / "mon_lib_list.cif").is_file():
            return candidate
    raise RuntimeError("coot_headless_api has no share/coot/lib/data/monomers/list")


def _download_sdist(workdir: Path, version: str) -> Path:
    """Fetch servalcat's sdist with pip (the only registry client we may use).

    ``--no-binary servalcat``, not ``:all:``: pip prepares the sdist's metadata in an
    isolated build env, and ``:all:`` also forces that env's build tools to be built
    from source, recursively (over 10 min on a cold pip cache, 2 cores); with binary
    build tools it takes about 6 s.
    """
    cmd = [
        sys.executable, "-m", "pip", "download",
        "--no-binary", "servalcat", "--no-deps",
        f"servalcat=={version}",
        "-d", str(workdir),
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    tarballs = sorted(workdir.glob("servalcat-*.tar.gz"))
    if proc.returncode != 0 or not tarballs:
        raise RuntimeError(
            f"pip download of servalcat=={version} failed (exit {proc.returncode}):\n"
            + (proc.stderr or proc.stdout)[-2000:]
        )
    return tarballs[0]


def _extract_test_data(tarball: Path, out: Path) -> None:
    """Decompress only the four test files we need, by name (no tar path games)."""
    wanted = {f"tests/{name}": target for name, target in _TEST_FILES.items()}
    found: set[str] = set()
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar:
            # members look like servalcat-0.4.142/tests/1l2h/1l2h.cif.gz
            rel = member.name.split("/", 1)[-1]
            if rel not in wanted or not member.isfile():
                continue
            sub, name = wanted[rel]
            fileobj = tar.extractfile(member)
            assert fileobj is not None
            (out / sub).mkdir(parents=True, exist_ok=True)
            with gzip.open(fileobj) as src, open(out / sub / name, "wb") as dst:
                shutil.copyfileobj(src, dst)
            found.add(rel)
    missing = set(wanted) - found
    if missing:
        raise RuntimeError(f"{tarball.name} lacks {sorted(missing)}")


def _peptide_links(chains: list) -> list[tuple[int, int]]:
    """Flat atom-index pairs (C of residue i, N of residue i+1) bonded in the input.

    Indices follow the chain/residue/atom iteration order, the same order in which
    ``shake_model`` lists the atoms (gemmi hands out fresh wrapper objects on every
    iteration, so atoms are identified by position, not by object identity).
    """
    links: list[tuple[int, int]] = []
    offset = 0
    for chain in chains:
        residues = list(chain)
        starts = []
        for res in residues:
            starts.append(offset)
            offset += len(res)
        for k, (prev, cur) in enumerate(itertools.pairwise(residues)):
            for i, c in enumerate(prev):
                if c.name != "C":
                    continue
                for j, n in enumerate(cur):
                    if n.name == "N" and c.pos.dist(n.pos) < PEPTIDE_BONDED:
                        links.append((starts[k] + i, starts[k + 1] + j))
    return links


def shake_model(src: Path, dst: Path, rms: float = SHAKE_RMS, seed: int = SHAKE_SEED) -> float:
    """Move every atom by a random vector; the RMS vector length is exactly ``rms``.

    Gaussian vectors from a seeded numpy generator, rescaled so the RMS is exact: the
    same seed gives the same model on every machine, so R-free before and after
    refinement is reproducible.  Returns the achieved RMS displacement.

    Why peptide links are checked: refinement programs (servalcat via gemmi) call two
    residues unlinked when C-N exceeds about 2.0 A, and then never restrain that bond,
    so a naive 0.4 A shake of 1l2h leaves seven artificial chain breaks that refinement
    cannot close.  Displacements of the two atoms of any stretched link are redrawn
    (from the same generator, so still deterministic) until C-N <= MAX_SHAKEN_CN.
    """
    import gemmi  # heavy; only needed when building
    import numpy as np

    st = gemmi.read_structure(str(src))
    st.setup_entities()
    chains = [chain for model in st for chain in model]
    atoms = [atom for chain in chains for res in chain for atom in res]
    links = _peptide_links(chains)
    start = np.array([[a.pos.x, a.pos.y, a.pos.z] for a in atoms])
    rng = np.random.default_rng(seed)
    shifts = rng.normal(size=(len(atoms), 3))
    for _ in range(1000):
        shifts *= rms / math.sqrt(float(np.mean(np.sum(shifts**2, axis=1))))
        new = start + shifts
        bad = sorted(
            {i for c, n in links if np.linalg.norm(new[c] - new[n]) > MAX_SHAKEN_CN for i in (c, n)}
        )
        if not bad:
            break
        shifts[bad] = rng.normal(scale=rms / math.sqrt(3), size=(len(bad), 3))
    else:
        raise RuntimeError("could not shake without breaking peptide links")
    for atom, (x, y, z) in zip(atoms, new, strict=True):
        atom.pos = gemmi.Position(float(x), float(y), float(z))
    # The deposited R-factors describe the unshaken model: drop them so nobody reads
    # a stale R-free of 0.193 off the shaken file.
    st.meta.refinement = []
    doc = st.make_mmcif_document()
    doc.write_file(str(dst))
    return float(math.sqrt(np.mean(np.sum(shifts**2, axis=1))))


def _read_manifest(root: Path) -> dict | None:
    try:
        data = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def demo_data_ready(dest: Path) -> bool:
    """True when DEST holds prepared demo data (nothing needs building or installing)."""
    return _is_ready(DemoPaths.under(dest).root)


def _is_ready(root: Path) -> bool:
    data = _read_manifest(root)
    return data is not None and data.get("format_version") == FORMAT_VERSION


def _build(tmp: Path, version: str) -> None:
    """Fill ``tmp`` with the full layout; the manifest is written last."""
    download = tmp / ".download"
    download.mkdir()
    tarball = _download_sdist(download, version)
    _extract_test_data(tarball, tmp)

    deposited = tmp / "1l2h" / "1l2h_deposited.cif"
    achieved = shake_model(deposited, tmp / "1l2h" / "1l2h_shaken.cif")
    deposited.unlink()
    shutil.rmtree(download)

    monlib_src = find_monlib_source()
    shutil.copytree(monlib_src, tmp / "monomers")

    manifest = {
        "format_version": FORMAT_VERSION,
        "source": f"servalcat=={version} sdist (PyPI), tests/1l2h and tests/5e5z",
        "sdist": tarball.name,
        "monlib_source": "coot_headless_api/share/coot/lib/data/monomers",
        "shake": {
            "rms_angstrom": achieved,
            "seed": SHAKE_SEED,
            "rng": "numpy default_rng",
            "max_peptide_cn_angstrom": MAX_SHAKEN_CN,
        },
        "files": sorted(
            str(p.relative_to(tmp))
            for p in tmp.rglob("*")
            if p.is_file() and "monomers" not in p.parts
        ),
    }
    (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


def _is_replaceable(root: Path) -> bool:
    """An empty folder, or one of ours from another format version."""
    return root.is_dir() and (not any(root.iterdir()) or _read_manifest(root) is not None)


def prepare_demo_data(dest: Path) -> DemoPaths:
    """Build DEST once; later calls only read the manifest and return at once.

    Atomic: everything is built in a temporary sibling folder and renamed into place,
    so an interrupted run never leaves a half-filled DEST that looks ready, and an
    older-format DEST stays usable until its replacement is complete.  If another
    process wins the race, its result is kept and ours is discarded.  A DEST that
    holds anything else is never touched (FileExistsError).
    """
    paths = DemoPaths.under(dest)
    root = paths.root
    if _is_ready(root):
        return paths
    if root.exists() and not _is_replaceable(root):
        raise FileExistsError(f"{root} exists and was not made by prepare_demo_data")
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{root.name}.tmp-", dir=root.parent))
    try:
        _build(tmp, servalcat_version())
        try:
            os.rename(tmp, root)  # also replaces an empty folder
        except OSError:
            if _is_ready(root):  # a concurrent run finished first
                return paths
            if not _is_replaceable(root):
                raise
            old = Path(tempfile.mkdtemp(prefix=f".{root.name}.old-", dir=root.parent))
            os.rename(root, old / "data")
            os.rename(tmp, root)
            shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return paths


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m agentcycle.demo_data [DEST]``; prints the prepared paths."""
    args = sys.argv[1:] if argv is None else argv
    usage = "usage: python -m agentcycle.demo_data [DEST]   (default DEST: ./.demo-data)"
    if args and args[0] in {"-h", "--help"}:
        print(__doc__)
        print(usage)
        return 0
    if len(args) > 1:
        print(usage, file=sys.stderr)
        return 2
    dest = Path(args[0]) if args else Path.cwd() / ".demo-data"
    paths = prepare_demo_data(dest)
    print(f"root     {paths.root}")
    print(f"1l2h     {paths.dir_1l2h}")
    print(f"5e5z     {paths.dir_5e5z}")
    print(f"monlib   {paths.monlib}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

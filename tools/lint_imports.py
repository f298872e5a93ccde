"""Run `lint-imports` (the layering contracts in pyproject.toml) over the installed layout.

The source keeps agent/, flows/, tasks/, ... at the top level and installs them as
`agentcycle.<folder>` (pyproject `package-dir`); import-linter finds a package's modules
by walking its one folder, so it would see only `agentcycle/`. This script assembles a
view of the package as it is installed, symlinks into the checkout (nothing is copied),
and runs `lint-imports` on it. Usage: `python tools/lint_imports.py` (exit status is
lint-imports'). `make test` runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT_S = 300


def package_dirs() -> dict[str, str]:
    """`agentcycle.<name>` → folder, as pyproject maps them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return config["tool"]["setuptools"]["package-dir"]


def build_view(target: Path) -> Path:
    """`target/agentcycle/` holding agentcycle/'s entries and one link per mapped folder."""
    package = target / "agentcycle"
    package.mkdir()
    for entry in (ROOT / "agentcycle").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for name, folder in package_dirs().items():
        if name != "agentcycle":
            (package / name.removeprefix("agentcycle.")).symlink_to(ROOT / folder)
    return target


def main() -> int:
    lint = Path(sys.executable).with_name("lint-imports")
    with tempfile.TemporaryDirectory(prefix="import-view-") as folder:
        view = build_view(Path(folder))
        env = {**os.environ, "PYTHONPATH": str(view)}
        result = subprocess.run(
            [str(lint), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
            cwd=view,
            env=env,
            timeout=TIMEOUT_S,
            check=False,
        )
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())

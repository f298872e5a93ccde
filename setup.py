"""Package discovery for the top-level layout (see ``[tool.setuptools]`` in pyproject.toml).

``pyproject.toml`` maps each top-level folder onto a sub-package of ``agentcycle``;
setuptools' own ``find`` cannot add that prefix, so the packages below each mapped
root are discovered here instead of being listed by hand.
"""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).parent
PACKAGE_DIRS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
    "setuptools"
]["package-dir"]


def discovered_packages() -> list[str]:
    """Every package under every mapped root, named with its ``agentcycle.`` prefix."""
    packages: set[str] = set()
    for name, folder in PACKAGE_DIRS.items():
        packages.add(name)
        for sub in find_packages(where=str(ROOT / folder)):
            packages.add(f"{name}.{sub}")
    return sorted(packages)


setup(packages=discovered_packages())

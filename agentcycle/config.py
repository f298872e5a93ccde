"""Where agentcycle keeps its state on disk.

One place decides the home directory so that the CLI, the flows and the tests agree:
``AGENTCYCLE_HOME`` when set, else ``./.agentcycle`` in the current directory.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def home_dir() -> Path:
    """The store directory (Parquet datasets, LanceDB, Prefect server state)."""
    return Path(os.environ.get("AGENTCYCLE_HOME", ".agentcycle")).resolve()


def datasets_dir() -> Path:
    return home_dir() / "datasets"


def prefect_home() -> Path:
    return home_dir() / "prefect"


def sessions_dir() -> Path:
    return home_dir() / "sessions"

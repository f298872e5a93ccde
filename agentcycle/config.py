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


def user_cache_dir() -> Path:
    """What one user's homes share and can rebuild: `$XDG_CACHE_HOME/agentcycle`
    (default `~/.cache/agentcycle`): assembled model weights, the migrated Prefect database."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "agentcycle"

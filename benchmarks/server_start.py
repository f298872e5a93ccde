"""How long `agentcycle server start` takes: first of a Prefect version, new home, old home.

    .venv/bin/python benchmarks/server_start.py [--homes 3]

In a temporary user cache (so the migrated template is built here) and temporary homes:

1. the first start of this Prefect version: builds the template, then copies it;
2. `--homes` starts in new homes: each copies the template (no migrations);
3. a restart of a home that has its database (what every later session meets).

Each start is timed from the command to a healthy server; the server is stopped after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "agentcycle.cli.main"]


def timed_start(home: Path, cache: Path) -> float:
    env = {**os.environ, "AGENTCYCLE_HOME": str(home), "XDG_CACHE_HOME": str(cache)}
    env.pop("PREFECT_API_URL", None)
    started = time.perf_counter()
    subprocess.run([*CLI, "server", "start"], env=env, check=True, capture_output=True,
                   timeout=300)  # fmt: skip
    elapsed = time.perf_counter() - started
    subprocess.run([*CLI, "server", "stop"], env=env, check=True, capture_output=True,
                   timeout=120)  # fmt: skip
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--homes", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="server-start-") as tmp:
        cache, root = Path(tmp) / "cache", Path(tmp)
        first = timed_start(root / "home-0", cache)
        print(f"first start of this Prefect version (builds the template): {first:6.1f} s")
        new = [timed_start(root / f"home-{i}", cache) for i in range(1, args.homes + 1)]
        print(f"new home, database copied (median of {len(new)}):{statistics.median(new):>13.1f} s")
        again = timed_start(root / "home-1", cache)
        print(f"home with its database (restart):{again:>27.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

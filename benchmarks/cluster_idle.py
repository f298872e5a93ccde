"""What an idle evaluation cluster costs the cores: Dask's defaults against the slowed
housekeeping of `flows.evaluate.local_cluster` (`CLUSTER_CONFIG`).

    .venv/bin/python benchmarks/cluster_idle.py [--workers 2] [--seconds 20]

For each, start a local cluster of `--workers` processes (one thread each, as evaluation
makes them), let it settle for 3 s, then count the CPU seconds its worker processes and
this process (the scheduler and the nannies) use over `--seconds` with nothing to run.
On a 2-core machine whatever the cluster burns is taken from the samples it runs.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Mapping
from typing import Any

SETTLE_S = 3.0


def idle_cpu(workers: int, config: Mapping[str, Any], seconds: float) -> tuple[float, float]:
    """(workers', this process's) CPU seconds over `seconds` of an idle evaluation
    cluster of `workers` processes started with the Dask `config`."""
    import psutil

    from agentcycle.flows.evaluate import local_cluster

    def used(process: psutil.Process) -> float:
        times = process.cpu_times()
        return times.user + times.system

    own = psutil.Process()
    with local_cluster(workers, config):
        time.sleep(SETTLE_S)
        children = own.children(recursive=True)
        before = (sum(map(used, children)), used(own))
        time.sleep(seconds)
        after = (sum(map(used, children)), used(own))
    return after[0] - before[0], after[1] - before[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    import distributed  # noqa: F401 - its import sets its logger's level: ours comes after

    from agentcycle.flows.evaluate import CLUSTER_CONFIG

    logging.getLogger("distributed").setLevel(logging.WARNING)  # as `evaluate` holds it

    for label, config in (("Dask defaults:", {}), ("evaluation's cluster:", CLUSTER_CONFIG)):
        workers, scheduler = idle_cpu(args.workers, config, args.seconds)
        print(f"{label:22} {args.workers} idle workers {workers:.2f} core-s, scheduler and "
              f"nannies {scheduler:.2f} core-s per {args.seconds:.0f} s "
              f"({(workers + scheduler) / args.seconds:.3f} of a core)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Latency of one rules-only decision: the graph with 50 cycles of history and 200 files.

    .venv/bin/python benchmarks/decision_latency.py [--runs 200]

Prints p50 and p95 in milliseconds (target p50 <= 20 ms). The decision reads the real
`xtal` pack and categorises every file, as a session's `decide` task does.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from agentcycle.agent.graph import decide
from agentcycle.agent.state import CycleRecord
from agentcycle.demo_data import prepare_demo_data
from agentcycle.knowledge import load_pack


def make_files(folder: Path, count: int) -> list[Path]:
    """Real 1l2h data and model (so probes read real headers) plus filler files."""
    demo = prepare_demo_data(Path(".demo-data")).dir_1l2h
    files = [shutil.copy(demo / "1l2h_shaken.cif", folder), shutil.copy(demo / "1l2h.mtz", folder)]
    files = [Path(f) for f in files]
    kinds = [".mmcif", ".mtz", ".log", ".json", ".pdb"]
    for index in range(count - len(files)):
        path = folder / f"refine_map_{index:03d}{kinds[index % len(kinds)]}"
        path.write_text("x\n")
        files.append(path)
    return files


def make_history(count: int) -> list[CycleRecord]:
    history = [
        CycleRecord(
            cycle=1, program="xtriage", argv=["mmtbx.xtriage", "d.mtz"], metrics={"resolution": 1.5}
        ),
        CycleRecord(
            cycle=2,
            program="model_vs_data",
            argv=["mmtbx.model_vs_data", "m", "d"],
            metrics={"r_free": 0.36},
        ),
    ]
    for cycle in range(3, count + 1):
        # Failed refinements keep the session in the refine phase for all 50 cycles.
        history.append(
            CycleRecord(
                cycle=cycle,
                program="refine",
                failed=True,
                argv=["servalcat", str(cycle)],
                failure_reason="exit code 1",
            )
        )
    return history


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    pack = load_pack("xtal")
    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(Path(tmp), 200)
        history = make_history(50)
        decision = decide(pack, "xray", history, files, cycle=51, max_cycles=100)
        timings = []
        for _ in range(args.runs):
            started = time.perf_counter()
            decide(pack, "xray", history, files, cycle=51, max_cycles=100)
            timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    p95 = timings[int(0.95 * (len(timings) - 1))]
    print(f"decision: {decision.program} ({decision.reason[:60]})")
    print(f"history 50 cycles, 200 files, {args.runs} runs")
    print(f"p50 {statistics.median(timings):.2f} ms   p95 {p95:.2f} ms   (target p50 <= 20 ms)")


if __name__ == "__main__":
    main()

"""Latency of one rules-only decision: the graph with 50 cycles of history and 200 files.

    .venv/bin/python benchmarks/decision_latency.py [--runs 200] [--no-remote]

Prints p50 and p95 in milliseconds (target p50 <= 20 ms). The decision reads the real
`xtal` pack and categorises every file, as a session's `decide` task does. Then the same
decision through `agentcycle agent serve` on localhost (a real uvicorn in its own
process; the client serialises the request, facts read from files included) beside it:
target, remote adds <= 20 ms at p50.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.remote_client import RemoteDecisionError, check_service, decide_remote
from agentcycle.agent.program.state import CycleRecord
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


def _timed(call: Callable[[], object], runs: int) -> list[float]:
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        timings.append((time.perf_counter() - started) * 1000)
    return sorted(timings)


def _figures(label: str, timings: list[float]) -> str:
    p95 = timings[int(0.95 * (len(timings) - 1))]
    return f"{label:<8} p50 {statistics.median(timings):6.2f} ms   p95 {p95:6.2f} ms"


@contextlib.contextmanager
def decision_service(token: str) -> Iterator[str]:
    """`agentcycle agent serve` on a free localhost port, in its own process."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    argv = [sys.executable, "-m", "agentcycle.cli.main", "agent", "serve", "--port", str(port)]
    server = subprocess.Popen(
        [*argv, "--token", token], stderr=subprocess.DEVNULL, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                check_service(url, token, timeout_s=2)
                break
            except RemoteDecisionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.5)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--no-remote", action="store_true", help="Only the in-process figure.")
    args = parser.parse_args()
    pack = load_pack("xtal")
    with tempfile.TemporaryDirectory() as tmp:
        files = make_files(Path(tmp), 200)
        history = make_history(50)
        inputs = dict(pack=pack, workflow="xray", cycles=history, files=files, cycle=51)
        inputs["max_cycles"] = 100
        decision = decide(**inputs)
        local = _timed(lambda: decide(**inputs), args.runs)
        print(f"decision: {decision.program} ({decision.reason[:60]})")
        print(f"history 50 cycles, 200 files, {args.runs} runs")
        print(_figures("local", local) + "   (target p50 <= 20 ms)")
        if args.no_remote:
            return
        token = secrets.token_hex(8)
        with decision_service(token) as url:
            first = time.perf_counter()
            remote_decision = decide_remote(inputs, "xtal", url, token)  # cold: files probed
            cold = (time.perf_counter() - first) * 1000
            assert remote_decision == decision, "the service decided differently"
            remote = _timed(lambda: decide_remote(inputs, "xtal", url, token), args.runs)
    print(_figures("remote", remote) + f"   (first call {cold:.1f} ms; {url}, same decision)")
    added = statistics.median(remote) - statistics.median(local)
    print(f"remote adds {added:+.2f} ms at p50   (target <= 20 ms on localhost)")


if __name__ == "__main__":
    main()

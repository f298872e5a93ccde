"""Orchestration overhead per cycle: Prefect flows vs. the bare graph + subprocess.

Runs sessions of 20 no-op cycles (and STOP) through the `agent_session`/`agent_cycle`
flows against the local Prefect server, and through the same plain functions with no
Prefect (the session's recovery checks, summaries and run vectors included),
alternating, `--sessions` times each (default 3). Prints ms per cycle of every session,
the median of each path, the overhead (difference of medians, the target's figure) and
the mean; then how soon a new `agentcycle run` process begins its first cycle.

It also counts collisions with a locked database. On SQLite, a write the server
receives while one of its own services commits can fail with "database is locked"; our
server runs such a request again itself (`agentcycle.prefect_app`, one line each in its
log), and only a lock that outlasts its patience reaches Prefect's client as a 503 (the
client then waits ~2 s). The median is the typical session; the mean and the collision
lines show what those waits add.

    .venv/bin/python benchmarks/cycle_overhead.py [--sessions 3]
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

NOOP_PACK = Path(__file__).resolve().parent / "packs" / "noop"


def bare_session(session_dir: Path) -> int:
    """The session without Prefect: the same functions the flows and their tasks call.

    Recovery checks first, then cycles of retrieve → decide → run → parse → record →
    remember, then the summaries and the runs table's tidy-up: the flow path does all of it, so
    the difference between the two paths is what orchestration adds, not product work.
    """
    from agentcycle.agent.program.record import finish_cycle, make_record, parse_run_log
    from agentcycle.agent.program.session import decide_next, execute, reap_orphans
    from agentcycle.agent.program.state import load_session, utc_now
    from agentcycle.flows.agent_session import write_summaries
    from agentcycle.knowledge import load_pack
    from agentcycle.storage.datasets import append_rows
    from agentcycle.tasks.experience import remember, retrieve_for_cycle, tidy_runs
    from agentcycle.tasks.reconcile import reconcile_session
    from agentcycle.tasks.rows import cycle_rows, event_rows, metric_rows

    reap_orphans(session_dir)
    reconcile_session(session_dir)
    cycles = 0
    while True:
        started = utc_now()
        # The same work the cycle flow does around the decision: recall, then remember.
        cycle = load_session(session_dir).next_cycle
        experience = retrieve_for_cycle(str(session_dir), cycle, use_task=False)
        state, decision = decide_next(session_dir, experience=experience)
        pack = load_pack(state.pack)
        result = parsed = None
        if not decision.stop:
            result = execute(session_dir, state.next_cycle, decision, 10)
            parsed = parse_run_log(result.log_path, decision.program, pack, result.exit_code)
        record = make_record(session_dir, state.next_cycle, decision, result, parsed, pack, started)
        finish_cycle(session_dir, state, record, pack, stop=decision.stop)
        append_rows("cycles", cycle_rows(state, record))
        append_rows("metrics", metric_rows(state, record))
        append_rows("events", event_rows(state.session_id, record.cycle, decision.events))
        remember(str(session_dir), decision)
        cycles += 1
        if decision.stop:
            break
    state = load_session(session_dir)
    write_summaries(session_dir, state)
    tidy_runs()
    return cycles


class RetryCounter(logging.Filter):
    """Counts Prefect's client retries (a debug record each) and keeps them off the console."""

    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    def filter(self, record: logging.LogRecord) -> bool:
        found = re.search(r"retryable .*?Another attempt will be made in ([0-9.]+)s", record.msg)
        if found:
            self.waits.append(float(found.group(1)))
        return record.levelno > logging.DEBUG


def server_collisions(server_log: Path, start: int) -> list[float]:
    """Milliseconds each request that met a locked database took in our server, from the
    lines it logged after byte `start` of its log."""
    if not server_log.exists():
        return []
    with server_log.open("rb") as log:
        log.seek(start)
        text = log.read().decode(errors="replace")
    pattern = r"database locked, answered on try \d+ after (\d+) ms"
    return [float(ms) for ms in re.findall(pattern, text)]


def first_cycle_seconds(inputs: Path, session: Path) -> float:
    """Seconds from starting `agentcycle run` (a new process, the server already warm) to
    its first cycle's flow run beginning, read live from the command's log."""
    argv = [sys.executable, "-m", "agentcycle.cli.main", "run", str(NOOP_PACK), str(inputs),
            "--max-cycles", "1", "--session", str(session), "--verbosity", "quiet"]  # fmt: skip
    started = time.perf_counter()
    with subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PREFECT_LOGGING_LEVEL": "INFO"},
    ) as command:
        seen = None
        for line in command.stdout or []:
            if seen is None and "Beginning subflow run" in line:
                seen = time.perf_counter() - started
        if command.wait(timeout=300) != 0 or seen is None:
            raise SystemExit(f"agentcycle run failed (exit {command.returncode})")
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=3, help="measured sessions per path")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="agentcycle-bench-"))
    os.environ.setdefault("AGENTCYCLE_HOME", str(work / "home"))
    from agentcycle.config import prefect_home
    from agentcycle.server import ensure_prefect_api

    api = ensure_prefect_api()
    from agentcycle.agent.program.session import create_session
    from agentcycle.flows.agent_session import run_session
    from agentcycle.knowledge import load_pack
    from agentcycle.storage.runs import compact_runs

    retries = RetryCounter()
    client_log = logging.getLogger("prefect.client")
    client_log.addFilter(retries)
    client_log.setLevel(logging.DEBUG)

    inputs = work / "inputs"
    inputs.mkdir()
    (inputs / "placeholder.txt").write_text("no inputs needed\n")
    pack = load_pack(NOOP_PACK)

    def new_session(name: str) -> Path:
        session = work / name
        create_session(pack, str(NOOP_PACK), inputs, session, max_cycles=50)
        return session

    # Warm up both paths once (imports, first API calls), then measure.
    bare_session(new_session("warm-bare"))
    run_session(new_session("warm-flow"))
    retries.waits.clear()
    server_log = prefect_home() / "server.log"
    log_start = server_log.stat().st_size if server_log.exists() else 0

    def per_cycle(run: Callable[[Path], int], name: str) -> float:
        # Each measured session starts from the same storage: the `runs` table in one
        # file (each remembered cycle adds one, and retrieval scans them all).
        compact_runs(min_fragments=2)
        started = time.perf_counter()
        cycles = run(new_session(name))
        return (time.perf_counter() - started) / cycles * 1000

    bare, flows = [], []
    for index in range(max(1, args.sessions)):
        bare.append(per_cycle(bare_session, f"bare-{index}"))
        flows.append(per_cycle(lambda path: run_session(path)["cycles"], f"flow-{index}"))

    first = statistics.median(
        first_cycle_seconds(inputs, work / f"cli-{index}") for index in range(3)
    )

    listed = lambda values: " ".join(f"{value:.0f}" for value in values)  # noqa: E731
    overhead = statistics.median(flows) - statistics.median(bare)
    mean = statistics.fmean(flows) - statistics.fmean(bare)
    print(f"Prefect API: {api}")
    print(f"sessions per path: {len(flows)}, 21 cycles each (20 no-op programs + STOP)")
    print(
        f"bare graph + subprocess : {statistics.median(bare):7.1f} ms per cycle, median "
        f"(sessions: {listed(bare)})"
    )
    print(
        f"Prefect flows           : {statistics.median(flows):7.1f} ms per cycle, median "
        f"(sessions: {listed(flows)})"
    )
    absorbed = server_collisions(server_log, log_start)
    print(
        f"database locked         : {len(absorbed)} requests run again by the server "
        f"({sum(absorbed) / 1000:.2f} s); Prefect's client retries: {len(retries.waits)} "
        f"({sum(retries.waits):.1f} s waited)"
    )
    met = "met" if overhead <= 250 else "NOT met"
    print(
        f"orchestration overhead  : {overhead:7.1f} ms per cycle, median "
        f"(target <= 250: {met}); mean {mean:.1f} ms"
    )
    met = "met" if first <= 5 else "NOT met"
    print(
        f"first cycle after `agentcycle run` starts: {first:.2f} s, median of 3 "
        f"(warm server; target <= 5 s: {met})"
    )
    # Nothing left in /tmp; a server of a home made here stops itself once it is gone.
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

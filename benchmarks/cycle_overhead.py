"""Orchestration overhead per cycle: Prefect flows vs. the bare graph + subprocess.

Runs 20 cycles of a no-op program twice, once through `agent_session`/`agent_cycle`
flows against the local Prefect server, once through the same plain functions with no
Prefect, and prints seconds per cycle for each and their difference.

    .venv/bin/python benchmarks/cycle_overhead.py
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

NOOP_PACK = Path(__file__).resolve().parent / "packs" / "noop"


def bare_session(session_dir: Path) -> int:
    """The cycle loop without Prefect: retrieve → decide → run → parse → record → remember,
    the same functions the flow's tasks call."""
    from agentcycle.agent.program.record import finish_cycle, make_record, parse_run_log
    from agentcycle.agent.program.session import decide_next, execute
    from agentcycle.agent.program.state import load_session, utc_now
    from agentcycle.knowledge import load_pack
    from agentcycle.storage.datasets import append_rows
    from agentcycle.tasks.experience import remember, retrieve_for_cycle
    from agentcycle.tasks.rows import cycle_rows, event_rows, metric_rows

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
            return cycles


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="agentcycle-bench-"))
    os.environ.setdefault("AGENTCYCLE_HOME", str(work / "home"))
    from agentcycle.server import ensure_prefect_api

    api = ensure_prefect_api()
    from agentcycle.agent.program.session import create_session
    from agentcycle.flows.agent_session import run_session
    from agentcycle.knowledge import load_pack

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

    # Each measured session starts from the same storage: the `runs` table in one file
    # (each remembered cycle adds one, and retrieval scans them all).
    from agentcycle.storage.runs import compact_runs

    compact_runs(min_fragments=2)
    started = time.perf_counter()
    bare_cycles = bare_session(new_session("bare"))
    bare = (time.perf_counter() - started) / bare_cycles

    compact_runs(min_fragments=2)
    started = time.perf_counter()
    flow_cycles = run_session(new_session("flow"))["cycles"]
    flows = (time.perf_counter() - started) / flow_cycles

    print(f"Prefect API: {api}")
    print(f"cycles per run: {flow_cycles} (20 no-op programs + STOP)")
    print(f"bare graph + subprocess : {bare * 1000:7.1f} ms per cycle")
    print(f"Prefect flows           : {flows * 1000:7.1f} ms per cycle")
    print(f"orchestration overhead  : {(flows - bare) * 1000:7.1f} ms per cycle (target <= 250)")
    # Nothing left in /tmp; a server of a home made here stops itself once it is gone.
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

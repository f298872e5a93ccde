"""LLM planning on the real `xtal` pack: who decided each cycle, and what it cost.

Runs real sessions of the `xtal` pack on the 5e5z demo data (real programs) through the
plain session functions, with the program agent planning through a real model server
(`agentcycle llm serve`'s, started here when none runs, or `--base-url`). Before each
cycle the same decision inputs are also decided by the rules alone, so the added
latency is measured on identical inputs. Prints, per cycle, who decided and the LLM's
time, then the share of cycles decided by the LLM vs fallback and the added latency.

    .venv/bin/python benchmarks/llm_plan.py [--sessions 2] [--base-url URL]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.llm_plan import session_llm, set_session_llm
from agentcycle.agent.program.record import finish_cycle, make_record, parse_run_log
from agentcycle.agent.program.session import create_session, decision_inputs, execute
from agentcycle.agent.program.state import load_session, utc_now
from agentcycle.demo_data import prepare_demo_data
from agentcycle.knowledge import load_pack
from agentcycle.llm_server import start_llm_server, stop_llm_server

GOALS = ["stop after refinement", "Refine the model against the data and validate it."]


def run_planned_session(input_dir: Path, session_dir: Path, llm: dict, goal: str) -> list[dict]:
    """One bare session (no Prefect); returns a row per cycle."""
    pack = load_pack("xtal")
    create_session(pack, "xtal", input_dir, session_dir, goal, max_cycles=12)
    set_session_llm(session_dir, llm)
    rows = []
    while True:
        started_at = utc_now()
        state = load_session(session_dir)
        inputs = decision_inputs(session_dir, state, pack)
        started = time.perf_counter()
        decide(**inputs)
        rules_s = time.perf_counter() - started
        started = time.perf_counter()
        decision = decide(**inputs, llm=state.llm)
        llm_s = time.perf_counter() - started
        result = parsed = None
        if not decision.stop:
            program = pack.programs[decision.program]
            result = execute(session_dir, state.next_cycle, decision, program.timeout)
            parsed = parse_run_log(result.log_path, decision.program, pack, result.exit_code)
        record = make_record(
            session_dir, state.next_cycle, decision, result, parsed, pack, started_at
        )
        finish_cycle(session_dir, state, record, pack, stop=decision.stop)
        planned = [e for e in decision.events if e["event"] in ("llm_plan", "llm_fallback")]
        rows.append(
            {
                "cycle": record.cycle,
                "program": record.program,
                "planned_by": record.planned_by,
                "event": planned[-1]["event"] if planned else "-",
                "why": planned[-1]["message"][:70] if planned else "",
                "calls": record.llm_calls,
                "tokens": record.llm_tokens,
                "added_s": llm_s - rules_s,
                "consulted": record.llm_calls > 0,
            }
        )
        if decision.stop:
            return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--base-url", help="An OpenAI-compatible server (default: our own).")
    parser.add_argument("--model", default="gemma-3-270m")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="agentcycle-llm-bench-"))
    os.environ.setdefault("AGENTCYCLE_HOME", str(work / "home"))
    os.environ.setdefault("AGENTCYCLE_REFINE_NCYCLE", "3")
    data = prepare_demo_data(Path(__file__).resolve().parent.parent / ".demo-data")
    server = None
    base_url = args.base_url
    if base_url is None:
        started = time.perf_counter()
        server = start_llm_server()
        base_url = server.base_url
        print(f"model server {base_url} ready in {time.perf_counter() - started:.1f} s")
    llm = session_llm("openai", args.model, base_url)
    rows: list[dict] = []
    try:
        for n in range(args.sessions):
            goal = GOALS[n % len(GOALS)]
            session = work / f"session-{n}"
            print(f"\nsession {n + 1}: xtal on 5e5z, goal {goal!r}")
            for row in run_planned_session(data.dir_5e5z, session, llm, goal):
                rows.append(row)
                print(
                    f"  cycle {row['cycle']:>2} {row['program']:<14} {row['event']:<13} "
                    f"calls {row['calls']} tokens {row['tokens']:>4} "
                    f"+{row['added_s']:.2f} s  {row['why']}"
                )
    finally:
        if server is not None:
            stop_llm_server()
    consulted = [r for r in rows if r["consulted"]]
    by_llm = sum(r["planned_by"] == "llm" for r in rows)
    fallback = len(rows) - by_llm
    added = [r["added_s"] for r in consulted]
    print(f"\ncycles: {len(rows)} ({len(consulted)} reached PLAN and asked the LLM)")
    print(f"decided by the LLM: {by_llm}/{len(rows)} = {by_llm / len(rows):.0%}")
    print(f"fallback to rules:  {fallback}/{len(rows)} = {fallback / len(rows):.0%}")
    if consulted:
        asked_llm = sum(r["planned_by"] == "llm" for r in consulted)
        print(f"of the cycles that asked: LLM {asked_llm}/{len(consulted)}")
        print(
            f"added latency per planned cycle: mean {statistics.mean(added):.2f} s, "
            f"median {statistics.median(added):.2f} s, max {max(added):.2f} s; "
            f"tokens per planned cycle {statistics.mean(r['tokens'] for r in consulted):.0f}"
        )


if __name__ == "__main__":
    main()

"""The per-cycle `retrieve` step against a `runs` table of 10,000 past cycles.

    .venv/bin/python benchmarks/memory_retrieval.py [--rows 10000] [--cycles 50] [--task]

Builds a temporary store whose `runs` table holds --rows past cycles (several packs,
programs, data sets, outcomes and errors; vectors are real embeddings of a few hundred
distinct case texts, so the nearest-neighbour search sees realistic clusters), creates
an xtal session on the 5e5z demo data, and times what every cycle pays before PLAN:
building the query (data features, phase, last error), embedding it, finding past cases
(filtered scan + cosine search) and the pack's documentation passages, and logging the
`retrievals` rows. The first call (model load, docs ingest) is reported apart.
`--task` also times the same step through the real Prefect task (ephemeral API).

Target: p50 <= 50 ms per cycle at 10,000 rows.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = {"xtal": ["xtriage", "model_vs_data", "refine", "rmsz", "ramalyze"],
            "phenix": ["phenix.xtriage", "phenix.refine", "phenix.phaser", "phenix.molprobity"],
            "bioimage": ["segment", "count", "measure"]}
OUTCOMES = ["ok"] * 6 + ["failed", "recovered", "diagnosed"]
ERRORS = ["", "missing_monomer_library", "no_symmetry", "ambiguous_data_labels"]


def case_text(case: dict) -> str:
    """What a row's vector embeds (resolution in 0.5 A bins keeps distinct texts few)."""
    return (f"{case['program']} on experiment xray; resolution "
            f"{round(case['resolution'] * 2) / 2:.1f} A: {case['outcome']} {case['error_kind']}")


def fill_runs(rows: int, cell: list[float], data_key: str, seed: int = 7) -> None:
    """--rows synthetic past cycles with real embeddings of their case texts; a third
    share the demo data's unit cell and 1 % its very files, so the step finds cases."""
    from agentcycle.storage.embedding import embed
    from agentcycle.storage.runs import append_runs

    rng = random.Random(seed)
    cases = []
    for _ in range(rows):
        pack = rng.choice(list(PROGRAMS))
        outcome = rng.choice(OUTCOMES)
        resolution = round(rng.uniform(1.0, 3.5), 2)
        cases.append({
            "pack": pack, "program": rng.choice(PROGRAMS[pack]), "outcome": outcome,
            "error_kind": rng.choice(ERRORS[1:]) if outcome != "ok" else "",
            "resolution": resolution, "data": rng.randrange(rows // 20 or 1)})
    texts = sorted({case_text(c) for c in cases})
    vectors = dict(zip(texts, embed(texts, batch_size=64), strict=True))
    batch = []
    for number, case in enumerate(cases):
        text = case_text(case)
        row_cell = cell if number % 3 == 0 else [rng.uniform(20, 120) for _ in range(3)] + [
            90.0, 90.0, 90.0]
        batch.append({
            "run_id": f"bench-{number // 10}/{number % 10 + 1}",
            "session_id": f"bench-{number // 10}",
            "cycle": number % 10 + 1, "pack": case["pack"], "program": case["program"],
            "argv": [case["program"], "data.mtz"], "settings": "{}",
            "input_categories": ["data_mtz", "model"], "experiment_type": "xray",
            "data_key": data_key if number % 100 == 0 else f"data-{case['data']}",
            "resolution": case["resolution"],
            "space_group": "P 21 21 21", "unit_cell": row_cell,
            "cell_a": row_cell[0], "cell_b": row_cell[1], "cell_c": row_cell[2],
            "metrics": "{}", "target_value": None, "outcome": case["outcome"],
            "error_kind": case["error_kind"], "error": "", "log_summary": "", "text": text,
            "vector": vectors[text]})
        if len(batch) == 2000:
            append_runs(batch)
            batch = []
    append_runs(batch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--task", action="store_true", help="also time the Prefect task")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="agentcycle-bench-memory-"))
    os.environ["AGENTCYCLE_HOME"] = str(home)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from agentcycle.agent.program.experience import data_key
        from agentcycle.agent.program.placement import read_cell
        from agentcycle.agent.program.session import create_session
        from agentcycle.knowledge import load_pack
        from agentcycle.storage.runs import runs_table
        from agentcycle.tasks.experience import retrieve_for_cycle

        data = ROOT / ".demo-data" / "5e5z"
        if not data.is_dir():
            print(f"{data}: demo data missing (make demo-data)")
            return 2
        started = time.perf_counter()
        cell = read_cell(data / "5e5z.mtz")
        fill_runs(args.rows, list(cell or (30.0, 40.0, 50.0, 90.0, 90.0, 90.0)),
                  data_key(sorted(data.iterdir())))
        table = runs_table()
        print(f"runs table: {table.count_rows()} rows "
              f"(filled in {time.perf_counter() - started:.1f} s)")
        session = home / "session"
        create_session(load_pack("xtal"), "xtal", data, session, "stop after refinement", 20)
        started = time.perf_counter()
        first = retrieve_for_cycle(str(session), 1, use_task=False)
        print(f"first call (model load, docs ingest): {time.perf_counter() - started:.2f} s; "
              f"{len(first.cases)} cases, {len(first.passages)} passages")
        print(f"load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
              f"on {os.cpu_count()} cores (wall times grow with it; CPU times less so)")
        wall, cpu = [], []
        for _ in range(args.cycles):
            started, begun = time.perf_counter(), time.process_time()
            retrieve_for_cycle(str(session), 1, use_task=False)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - begun) * 1000)
        p50 = statistics.median(wall)
        p95 = sorted(wall)[int(0.95 * (len(wall) - 1))]
        print(f"retrieve per cycle at {args.rows} rows: wall p50 {p50:.1f} ms, p95 {p95:.1f} ms;"
              f" CPU p50 {statistics.median(cpu):.1f} ms (target p50 <= 50 ms) "
              f"{'PASS' if p50 <= 50 else 'MISS'}")
        if args.task:
            from prefect import flow

            @flow
            def cycles(n: int) -> list[float]:
                out = []
                for _ in range(n):
                    begun = time.perf_counter()
                    retrieve_for_cycle(str(session), 1)
                    out.append((time.perf_counter() - begun) * 1000)
                return out

            through = cycles(args.cycles)[1:]  # the first run fills the cache
            print(f"through the Prefect task (cached on the query): p50 "
                  f"{statistics.median(through):.1f} ms")
        return 0 if p50 <= 50 else 1
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

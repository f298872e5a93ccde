"""The `xtal` demo pack on real programs and real data.

Parser expectations are the values listed by hand in tests/data/xtal_logs/README.md,
read off the real logs of cctbx, servalcat and gemmi.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, cli_command

from agentcycle.agent.program.logparse import parse_log
from agentcycle.agent.program.state import SessionState, load_session
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.probes import coot_monomer_library, mtz_amplitude_labels

LOGS = Path(__file__).resolve().parent / "data" / "xtal_logs"

EXPECTED = [
    (
        "xtriage_1l2h.log",
        "xtriage",
        {
            "resolution": 1.53878,
            "completeness": 97.0,
            "l_test_z": 10.124,
            "twin_law": "h,-k,-l",
            "twinning_suspected": True,
        },
    ),
    (
        "xtriage_5e5z.log",
        "xtriage",
        {"resolution": 1.66401, "completeness": 91.38, "l_test_z": 28.093},
    ),
    ("model_vs_data_1l2h.log", "model_vs_data", {"r_work": 0.3515, "r_free": 0.3627}),
    ("model_vs_data_5e5z.log", "model_vs_data", {"r_work": 0.1713, "r_free": 0.2018}),
    ("servalcat_1l2h.log", "refine", {"r_work": 0.2387, "r_free": 0.2742, "r_free_start": 0.3653}),
    (
        "servalcat_1l2h_twin.log",
        "refine",
        {"r_work": 0.1386, "r_free": 0.1614, "r_free_start": 0.3022},
    ),
    ("servalcat_5e5z.log", "refine", {"r_work": 0.1908, "r_free": 0.2181, "r_free_start": 0.2384}),
    ("gemmi_rmsz_1l2h_refined.log", "rmsz", {"bond_rmsz": 0.796, "angle_rmsz": 1.132}),
    ("gemmi_rmsz_5e5z.log", "rmsz", {"bond_rmsz": 0.772, "angle_rmsz": 1.082}),
    ("ramalyze_1l2h.log", "ramalyze", {"rama_outliers": 10.14, "rama_favored": 71.01}),
    ("ramalyze_5e5z.log", "ramalyze", {"rama_outliers": 0.0, "rama_favored": 100.0}),
]


@pytest.fixture(scope="module")
def xtal():
    return load_pack("xtal")


@pytest.mark.parametrize(("log", "program", "expected"), EXPECTED, ids=[e[0] for e in EXPECTED])
def test_real_logs_parse_exactly(xtal, log: str, program: str, expected: dict) -> None:
    parsed = parse_log((LOGS / log).read_text(), xtal.programs[program], xtal.failure_markers)
    assert not parsed.failed, parsed.failure_reason
    assert parsed.metrics == expected


def test_no_twinning_verdict_without_twin_laws(xtal) -> None:
    parsed = parse_log((LOGS / "xtriage_5e5z.log").read_text(), xtal.programs["xtriage"], [])
    assert "twinning_suspected" not in parsed.metrics and "twin_law" not in parsed.metrics


@pytest.fixture(scope="session")
def demo_data():
    from agentcycle.demo_data import prepare_demo_data

    return prepare_demo_data(PROJECT_ROOT / ".demo-data")


def test_probes_read_real_files(demo_data) -> None:
    assert mtz_amplitude_labels(demo_data.dir_5e5z / "5e5z.mtz") == "FP,SIGFP,FREE"
    assert mtz_amplitude_labels(demo_data.dir_1l2h / "1l2h.mtz") == "IMEAN,SIGIMEAN,FreeR_flag"
    assert mtz_amplitude_labels(demo_data.dir_5e5z / "5e5z.pdb") is None  # unreadable → None
    monlib = coot_monomer_library()
    assert monlib and (Path(monlib) / "list" / "mon_lib_list.cif").is_file()


def run_xtal(input_dir: Path, session: Path, env: dict[str, str]) -> SessionState:
    """A real `agentcycle run xtal` session through the CLI and the Prefect flows."""
    done = subprocess.run(
        cli_command("run", "xtal", str(input_dir), "--session", str(session)),
        capture_output=True,
        text=True,
        env=env,
        timeout=1500,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return load_session(session)


@pytest.mark.slow
def test_real_5e5z_session_through_prefect(prefect_api: str, demo_data, tmp_path: Path) -> None:
    session = tmp_path / "5e5z"
    env = {**os.environ, "PREFECT_API_URL": prefect_api, "AGENTCYCLE_REFINE_NCYCLE": "3"}
    state = run_xtal(demo_data.dir_5e5z, session, env)
    programs = [c.program for c in state.cycles]
    assert programs[:3] == ["xtriage", "model_vs_data", "refine"]
    assert programs[-3:] == ["rmsz", "ramalyze", "STOP"]
    refinements = [c for c in state.cycles if c.program == "refine"]
    assert 1 <= len(refinements) <= 3
    for cycle in refinements:
        assert "--twin" not in cycle.argv  # 5e5z has no twin laws
        assert cycle.argv[cycle.argv.index("--labin") + 1] == "FP,SIGFP,FREE"
        r_free = cycle.metrics["r_free"]
        assert 0.15 < r_free < 0.30
        # The parsed value is the last cycle of servalcat's own stats file.
        stats = json.loads(
            (session / cycle.run_dir / f"refine_{cycle.cycle:03d}_stats.json").read_text()
        )
        assert r_free == pytest.approx(stats[-1]["data"]["summary"]["Rfree"], abs=5e-5)
    assert state.best_files["model"].endswith(".mmcif")
    assert state.cycles[-1].reason.startswith("workflow complete (")  # says which stop rule

    query = subprocess.run(
        cli_command(
            "query",
            "--format",
            "json",
            "SELECT m.cycle, m.value FROM metrics m JOIN cycles c USING (session_id, cycle) "
            f"WHERE m.session_id = '{state.session_id}' AND m.metric = 'r_free' "
            "AND c.program = 'refine' ORDER BY m.cycle",
        ),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert query.returncode == 0, query.stderr
    rows = json.loads(query.stdout)
    assert [(r["cycle"], r["value"]) for r in rows] == [
        (c.cycle, c.metrics["r_free"]) for c in refinements
    ]


@pytest.mark.slow
def test_real_1l2h_session_refines_with_twinning(
    prefect_api: str, demo_data, tmp_path: Path
) -> None:
    """xtriage reports twinning; the agent refines with --twin and reaches R-free <= 0.20
    from the shaken model (the deposited structure has 0.193)."""
    session = tmp_path / "1l2h"
    # Four refinement cycles reach R-free ~0.17 in a minute; ten reach ~0.16 in two.
    env = {**os.environ, "PREFECT_API_URL": prefect_api, "AGENTCYCLE_REFINE_NCYCLE": "4"}
    state = run_xtal(demo_data.dir_1l2h, session, env)
    assert state.cycles[0].metrics["twinning_suspected"] is True
    start = state.cycles[1].metrics["r_free"]
    refinements = [c for c in state.cycles if c.program == "refine"]
    assert refinements and all("--twin" in c.argv for c in refinements)
    assert refinements[-1].metrics["r_free"] <= 0.20 < start
    assert [c.program for c in state.cycles][-3:] == ["rmsz", "ramalyze", "STOP"]
    assert "R-free | " in (session / "summary.md").read_text()

"""Recovery from known errors, its loop guard, and failure diagnosis, on real runs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import TOY_PACK, cli_command, render_in_chromium

from agentcycle.agent.program.recovery import Diagnosis, Recovery, examine_failure
from agentcycle.agent.program.state import CycleRecord, load_session
from agentcycle.knowledge import load_pack

AMBIGUOUS_LOG = (
    "Multiple equally suitable arrays of observed xray data found.\n\nPossible choices:\n"
    "  data.dat:I(+),SIGI(+),I(-),SIGI(-)\n  data.dat:IMEAN,SIGIMEAN\n\n"
    "Please use obs_labels to specify an unambiguous substring of the target label.\n"
)


def failed_inspect(cycle: int = 1) -> CycleRecord:
    return CycleRecord(
        cycle=cycle,
        program="inspect",
        argv=["x"],
        failed=True,
        failure_reason="exit code 1",
        input_files=["inputs/data.dat"],
    )


def test_ambiguous_labels_pick_the_array_the_program_needs() -> None:
    pack = load_pack(TOY_PACK)
    verdict = examine_failure(pack, failed_inspect(), AMBIGUOUS_LOG, {})
    assert verdict == Recovery(
        "ambiguous_data_labels", "inspect", "inputs/data.dat", {"obs_labels": "IMEAN,SIGIMEAN"}
    )
    anomalous = pack.recoverable_errors["ambiguous_data_labels"].model_copy(deep=True)
    object.__setattr__(anomalous.resolution, "prefer", {"inspect": "anomalous"})
    from agentcycle.agent.program.recovery import choose_array

    assert (
        choose_array(anomalous, "inspect", AMBIGUOUS_LOG.split("choices:\n")[1])
        == "I(+),SIGI(+),I(-),SIGI(-)"
    )


def test_same_fix_failing_again_becomes_a_diagnosis() -> None:
    pack = load_pack(TOY_PACK)
    stored = {"inputs/data.dat": {"obs_labels": "IMEAN,SIGIMEAN"}}
    verdict = examine_failure(pack, failed_inspect(2), AMBIGUOUS_LOG, stored)
    assert isinstance(verdict, Diagnosis) and verdict.name == "ambiguous_data_labels_not_recovered"


def run_toy(
    prefect_api: str, tmp_path: Path, data: str
) -> tuple[subprocess.CompletedProcess, Path]:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "data.dat").write_text(data)
    (inputs / "start.model").write_text("0.40\n")
    session = tmp_path / "session"
    env = {**os.environ, "PREFECT_API_URL": prefect_api}
    done = subprocess.run(
        cli_command("run", str(TOY_PACK), str(inputs), "--session", str(session)),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return done, session


def test_recovery_retries_with_the_fix_and_keeps_it(prefect_api: str, tmp_path: Path) -> None:
    done, session = run_toy(prefect_api, tmp_path, "1.8 AMBIGUOUS\n")
    assert done.returncode == 0, done.stderr
    state = load_session(session)
    programs = [c.program for c in state.cycles]
    assert programs[:3] == ["inspect", "inspect", "refine"]
    assert state.cycles[0].failed and not state.cycles[1].failed
    assert state.cycles[1].argv[-2:] == ["--labels", "IMEAN,SIGIMEAN"]
    assert state.recoveries == {"inputs/data.dat": {"obs_labels": "IMEAN,SIGIMEAN"}}
    assert state.status == "stopped"


def test_loop_guard_then_clean_diagnosed_stop(prefect_api: str, tmp_path: Path) -> None:
    done, session = run_toy(prefect_api, tmp_path, "1.8 AMBIGUOUS ALWAYS\n")
    assert done.returncode == 0, done.stderr
    state = load_session(session)
    assert [c.program for c in state.cycles] == ["inspect", "inspect", "STOP"]
    assert state.status == "diagnosed"
    assert state.stop_reason.startswith("diagnosed: ambiguous_data_labels_not_recovered")
    assert f"failure diagnosis: {session / 'failure_diagnosis.html'}" in done.stdout


def test_diagnosis_html_renders_with_the_error_excerpt(prefect_api: str, tmp_path: Path) -> None:
    done, session = run_toy(prefect_api, tmp_path, "NOSYMMETRY\n")
    assert done.returncode == 0, done.stderr
    state = load_session(session)
    assert state.status == "diagnosed" and [c.program for c in state.cycles] == ["inspect", "STOP"]
    page = session / "failure_diagnosis.html"
    text = page.read_text()
    assert "http" not in text and "<script" not in text
    shot, dom = render_in_chromium(page, tmp_path, size="900,700")
    assert shot.stat().st_size > 10_000
    assert "Sorry: Cell and/or symmetry not specified in reflection file" in dom
    assert "How to fix it" in dom and "Add the symmetry to the file" in dom

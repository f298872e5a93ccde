"""Every scenario in tests/scenarios/ through the real Prefect flows, rules only.

Each scenario replays recorded program runs (see tests/scenarios/README.md), so what
is tested is the agent's decisions: the program sequence, the stop reason, metric
bounds and the events that explain them (placement verdicts, zombies, tool chain).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, TESTS_DIR

from agentcycle.errors import UserError
from agentcycle.scenarios import DEMO_DATA_ENV, list_scenarios, load_scenario, run_scenario

SCENARIOS = TESTS_DIR / "scenarios"
DEMO = PROJECT_ROOT / ".demo-data"
REQUIRED = {
    "xray_mr",
    "xray_sad",
    "cryoem_half_maps",
    "cryoem_stop_on_map_cc",
    "xray_model_placed",
    "xray_model_not_placed",
    "xray_zombie",
    "xray_stop_after_refinement",
    "bioimage_counting",
}
FOLDERS = list_scenarios(SCENARIOS)


def test_the_issue_s_scenarios_exist() -> None:
    assert {folder.name for folder in FOLDERS} >= REQUIRED


@pytest.fixture(scope="module")
def suite_rows(prefect_api: str) -> dict[str, dict]:
    """`agentcycle eval tests/scenarios/suite.yaml`, once: every scenario replayed through
    the evaluate flow (each a session flow of its own); its rows by scenario name."""
    from typer.testing import CliRunner

    from agentcycle.cli.main import app
    from agentcycle.evaluation.runs import run_samples

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(DEMO_DATA_ENV, str(DEMO))
        out = CliRunner().invoke(
            app, ["eval", str(SCENARIOS / "suite.yaml"), "--concurrency", "1", "--no-progress"]
        )
    assert out.exit_code == 0, out.output
    run_id = out.output.split("run ", 1)[1].split()[0]
    assert f"scenario{len(FOLDERS):>10}/{len(FOLDERS)}" in out.output  # all passed, as printed
    return {row["sample_id"]: row for row in run_samples(run_id)}


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_scenario(suite_rows: dict[str, dict], folder: Path) -> None:
    row = suite_rows[folder.name]
    verdicts = {s["scorer"]: s for s in row["scores"]}
    assert row["error"] is None, row["error"]
    assert verdicts["scenario"]["score"] == 1.0, verdicts["scenario"]["explanation"]
    assert verdicts["sequence"]["score"] == 1.0, verdicts["sequence"]["explanation"]
    assert row["answer"] == " > ".join(load_scenario(folder).expected_programs)
    assert row["correct"]


def test_scenario_run_directly(prefect_api: str, tmp_path: Path) -> None:
    """`run_scenario` without the evaluation around it (what `agentcycle scenario run` does)."""
    folder = SCENARIOS / "bioimage_counting"
    result = run_scenario(folder, tmp_path / "session", demo_data=DEMO)
    assert result.passed, "\n".join(result.problems)
    assert result.programs == load_scenario(folder).expected_programs


def test_schema_errors_name_file_line_and_field(tmp_path: Path) -> None:
    folder = tmp_path / "bad"
    (folder / "inputs").mkdir(parents=True)
    (folder / "scenario.yaml").write_text("pack: phenix\nexpected_programs: [STOP]\nmax_cycle: 3\n")
    with pytest.raises(UserError) as caught:
        load_scenario(folder)
    message = str(caught.value)
    assert f"{folder / 'scenario.yaml'}:3: max_cycle: unknown field" in message


def test_missing_expectation_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    (folder / "inputs").mkdir(parents=True)
    (folder / "scenario.yaml").write_text("pack: phenix\n")
    with pytest.raises(UserError, match="expected_programs: required field is missing"):
        load_scenario(folder)


def test_cli_lists_and_runs_a_scenario(prefect_api: str, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agentcycle.cli.scenario import scenario_app

    runner = CliRunner()
    listed = runner.invoke(scenario_app, ["list", str(SCENARIOS)])
    assert listed.exit_code == 0, listed.output
    assert "bioimage_counting  [bioimage]  segment → count → STOP" in listed.output
    ran = runner.invoke(
        scenario_app,
        ["run", str(SCENARIOS / "bioimage_counting"), "--session", str(tmp_path / "s")],
    )
    assert ran.exit_code == 0, ran.output
    assert "bioimage_counting: passed" in ran.output


def _python3_has(*modules: str) -> bool:
    import subprocess

    probe = subprocess.run(
        ["python3", "-c", f"import {', '.join(modules)}"], capture_output=True, check=False
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _python3_has("numpy", "scipy"), reason="python3 lacks numpy/scipy")
def test_bioimage_pack_runs_for_real(prefect_api: str, tmp_path: Path) -> None:
    """Not a replay: the pack's own script segments and counts three synthetic nuclei."""
    import numpy as np

    from agentcycle.agent.program.session import create_session
    from agentcycle.agent.program.state import load_session
    from agentcycle.flows.agent_session import run_session
    from agentcycle.knowledge import load_pack

    inputs = tmp_path / "inputs"
    inputs.mkdir()
    image = np.zeros((64, 64))
    image[5:15, 5:15] = image[30:40, 30:45] = image[50:60, 10:20] = 1.0
    image += np.random.default_rng(0).normal(0, 0.05, image.shape)
    np.save(inputs / "nuclei.npy", image)
    session = tmp_path / "session"
    create_session(load_pack("bioimage"), "bioimage", inputs, session, goal="How many nuclei?")
    run_session(session, verbosity="quiet")
    state = load_session(session)
    assert [c.program for c in state.cycles] == ["segment", "count", "STOP"]
    assert state.cycles[1].metrics["object_count"] == 3

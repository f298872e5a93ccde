"""The phenix pack: its programs, categories, experiment-type detection and routing.

Routing tests walk the workflows with hand-made histories (no Prefect, milliseconds);
whole sessions are in tests/test_scenarios.py.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, SHARED

from agentcycle.agent.program.engine import valid_programs
from agentcycle.agent.program.files import categorise
from agentcycle.agent.program.logparse import detect_program, parse_log
from agentcycle.agent.program.placement import cell_mismatch
from agentcycle.agent.program.session import detect_workflow
from agentcycle.agent.program.state import CycleRecord
from agentcycle.agent.program.stop_rules import StopVerdict, evaluate
from agentcycle.agent.program.workflow import History, current_phase
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.loader import PACKS_DIR, PackError

LOGS = SHARED / "data" / "phenix-logs"
SCENARIOS = PROJECT_ROOT / "tests" / "scenarios"
NAMED_IN_ISSUE = [
    "xtriage",
    "phaser",
    "autosol",
    "autobuild",
    "predict_and_build",
    "process_predicted_model",
    "refine",
    "molprobity",
    "ligandfit",
    "pdbtools",
    "polder",
    "mtriage",
    "dock_in_map",
    "resolve_cryo_em",
    "map_sharpening",
    "real_space_refine",
    "map_correlations",
    "model_vs_data",
    # the rest of the 23 programs the PHENIX agent's knowledge base declares
    "map_symmetry",
    "autobuild_denmod",
    "map_to_model",
    "validation_cryoem",
    "holton_geometry_validation",
]


@pytest.fixture(scope="module")
def phenix():
    return load_pack("phenix")


def atoms_pdb(path: Path, record: str = "ATOM  ", n: int = 5, cryst1: str = "") -> Path:
    lines = [cryst1] if cryst1 else []
    lines += [
        f"{record}{i + 1:5d}  CA  ALA A{i + 1:4d}    {1.0 + 3.8 * i:8.3f}   2.000   3.000"
        "  1.00 20.00           C"
        for i in range(n)
    ]
    path.write_text("\n".join([*lines, "END"]) + "\n")
    return path


def test_every_program_the_issue_names_is_declared(phenix) -> None:
    assert {f"phenix.{name}" for name in NAMED_IN_ISSUE} == set(phenix.programs)
    for name, program in phenix.programs.items():
        # autobuild_denmod is phenix.autobuild run with maps_only=True
        assert program.tokens()[0] == name.removesuffix("_denmod"), "PHENIX command names"
        assert program.log_detection, f"{name}: detect_program needs log_detection"


def test_cross_references(phenix) -> None:
    categories = set(phenix.file_categories)
    for name, program in phenix.programs.items():
        for slot in program.inputs.values():
            assert set(slot.categories) | set(slot.exclude_categories) <= categories, name
        for output in program.outputs:
            assert output.category is None or output.category in categories, name
    for workflow in phenix.workflows.values():
        assert workflow.placement_probe is not None
        assert workflow.placement_probe.program in phenix.programs
        assert set(workflow.detect_categories) <= categories
    rules = phenix.metrics.stop_rules
    assert rules is not None and rules.refinement_programs == ["phenix.refine"]
    assert phenix.file_categories["data_mtz"].lock_when == "mtz_has_free_flags"
    assert phenix.file_categories["ligand"].content == "pdb_is_ligand"


def test_real_logs_are_recognised_and_read(phenix) -> None:
    xtriage = (LOGS / "xtriage_1_p9.log").read_text()
    molprobity = (LOGS / "molprobity_4_esterase.log").read_text()
    assert detect_program(xtriage, phenix.programs) == "phenix.xtriage"
    assert detect_program(molprobity, phenix.programs) == "phenix.molprobity"
    # A log with neither a header nor a signature phrase is nobody's.
    assert detect_program((LOGS / "fem_407.log").read_text(), phenix.programs) is None
    parsed = parse_log(xtriage, phenix.programs["phenix.xtriage"], phenix.failure_markers)
    assert parsed.metrics["anomalous_measurability"] == pytest.approx(0.198)
    assert parse_log(
        (LOGS / "xtriage_1_err.log").read_text(),
        phenix.programs["phenix.xtriage"],
        phenix.failure_markers,
    ).failed


def test_synthetic_recordings_are_recognised(phenix) -> None:
    """The scenario logs carry the lines the pack reads, for the program that made them."""
    logs = sorted(SCENARIOS.glob("*/runs/phenix.*/*/program.log"))
    assert len(logs) > 20
    for log in logs:
        program = log.parent.parent.name
        text = log.read_text()
        assert detect_program(text, phenix.programs) == program, log
        parsed = parse_log(text, phenix.programs[program], phenix.failure_markers)
        assert not parsed.failed and parsed.metrics, log


def test_refine_and_rsr_patterns(phenix) -> None:
    refine = phenix.programs["phenix.refine"]
    log = "Start R-work = 0.3500, R-free = 0.3800\nFinal R-work = 0.2101, R-free = 0.2487\n"
    metrics = parse_log(log, refine, phenix.failure_markers).metrics
    assert metrics == {"r_work": 0.2101, "r_free": 0.2487, "r_free_start": 0.38}
    rsr = phenix.programs["phenix.real_space_refine"]
    metrics = parse_log("  CC_mask  : 0.7100\n  CC_mask  : 0.8130\n", rsr, []).metrics
    assert metrics["map_cc"] == 0.813


def test_file_categories(phenix, tmp_path: Path) -> None:
    cats = phenix.file_categories

    def of(name: str, record: str = "ATOM  ") -> list[str]:
        path = tmp_path / name
        if path.suffix == ".pdb":
            atoms_pdb(path, record)
        else:
            path.write_text("x\n")
        return categorise(path, cats)

    assert of("model.pdb") == ["model"]
    assert of("atp_ligand.pdb", "HETATM") == ["ligand"]
    assert of("noligand.pdb") == ["model"]  # word-boundary: 'ligand' is not a word here
    assert of("af2_predicted.pdb") == ["predicted_model"]
    assert of("af2_predicted_processed.pdb") == ["processed_model"]
    assert of("data.mtz") == ["data_mtz"]
    assert of("refine_001_map_coeffs.mtz") == ["map_coeffs_mtz"]
    assert of("emd_1234_half_map_1.map") == ["half_map"]
    assert of("emd_1234.map") == ["full_map"]
    assert of("seq.fa") == ["sequence"]
    assert of("lig_restraints.cif") == ["ligand_restraints"]


def test_free_flags_lock_the_real_mtz(phenix) -> None:
    from agentcycle.demo_data import prepare_demo_data
    from agentcycle.knowledge.probes import CONTENT_PROBES

    mtz = prepare_demo_data(PROJECT_ROOT / ".demo-data").dir_5e5z / "5e5z.mtz"
    assert "data_mtz" in categorise(mtz, phenix.file_categories)
    assert CONTENT_PROBES[phenix.file_categories["data_mtz"].lock_when](mtz)


def test_experiment_type_is_detected(phenix, tmp_path: Path) -> None:
    def detect(*names: str) -> str:
        folder = tmp_path / "_".join(names)
        folder.mkdir()
        paths = []
        for name in names:
            path = folder / name
            atoms_pdb(path) if name.endswith(".pdb") else path.write_text("x\n")
            paths.append(path)
        return detect_workflow(phenix, paths)

    assert detect("data.mtz", "model.pdb") == "xray"
    assert detect("p9.sca", "seq.fa") == "xray"
    assert detect("half_map_1.mrc", "half_map_2.mrc", "model.pdb") == "cryoem"
    assert detect("emd_1234.map", "seq.fa") == "cryoem"
    assert detect("model.pdb") == "xray"  # nothing tells: the default


def test_tier1_reads_real_cells(tmp_path: Path) -> None:
    from agentcycle.demo_data import prepare_demo_data

    mtz = prepare_demo_data(PROJECT_ROOT / ".demo-data").dir_5e5z / "5e5z.mtz"
    same = atoms_pdb(
        tmp_path / "same.pdb",
        cryst1="CRYST1    9.643    9.609   19.029  90.00 101.22  90.00 P 1 21 1",
    )
    other = atoms_pdb(
        tmp_path / "other.pdb",
        cryst1="CRYST1   61.000   72.000   83.000  90.00  90.00  90.00 P 21 21 21",
    )
    assert not cell_mismatch(same, [mtz])
    assert cell_mismatch(other, [mtz])


# ---------------------------------------------------------------- routing by history


def ran(*programs: str, **metrics: float) -> tuple[CycleRecord, ...]:
    """Successful cycles of `programs`; `metrics` go to the last one."""
    cycles = [CycleRecord(cycle=i + 1, program=p) for i, p in enumerate(programs)]
    if cycles:
        cycles[-1].metrics.update(metrics)
    return tuple(cycles)


def phase_of(phenix, workflow: str, history: History) -> tuple[str, tuple[str, ...]]:
    view = valid_programs(phenix, phenix.workflow(workflow), history)
    return view.phase, view.valid_programs


def test_xray_routes(phenix) -> None:
    xtriage_weak = ran("phenix.xtriage", anomalous_measurability=0.02)
    xtriage_strong = ran("phenix.xtriage", anomalous_measurability=0.19)
    assert phase_of(phenix, "xray", History(()))[0] == "analyse"
    # A model whose placement nobody can tell: the probe.
    probe = History(xtriage_weak, placement_uncertain=True, file_categories=frozenset({"model"}))
    assert phase_of(phenix, "xray", probe) == ("probe_placement", ("phenix.model_vs_data",))
    # No model, weak anomalous signal: obtain one; MR preferred.
    assert phase_of(phenix, "xray", History(xtriage_weak)) == (
        "obtain_model",
        ("phenix.phaser", "phenix.predict_and_build"),
    )
    # No model, strong anomalous signal: SAD.
    assert phase_of(phenix, "xray", History(xtriage_strong)) == (
        "experimental_phasing",
        ("phenix.autosol",),
    )
    # MR-SAD: phaser placed a model and the data are anomalous.
    mr_sad = History(
        (*xtriage_strong, CycleRecord(cycle=2, program="phenix.phaser")), placement="placed"
    )
    assert phase_of(phenix, "xray", mr_sad) == ("mr_sad", ("phenix.autosol",))
    # A prediction must be processed, then placed by MR.
    predicted = History(
        ran("phenix.xtriage", "phenix.predict_and_build"),
        file_categories=frozenset({"predicted_model", "sequence"}),
    )
    assert phase_of(phenix, "xray", predicted)[0] == "process_prediction"


def test_xray_refinement_ligand_and_validation(phenix) -> None:
    refined = ran("phenix.xtriage", "phenix.phaser", "phenix.refine")
    placed = History(refined, placement="placed")
    assert phase_of(phenix, "xray", placed) == ("refine", ("phenix.refine",))
    with_ligand = History(refined, placement="placed", file_categories=frozenset({"ligand"}))
    assert phase_of(phenix, "xray", with_ligand) == ("ligand_fit", ("phenix.ligandfit",))
    fitted = History(
        (*refined, CycleRecord(cycle=4, program="phenix.ligandfit")),
        placement="placed",
        file_categories=frozenset({"ligand"}),
    )
    assert phase_of(phenix, "xray", fitted) == ("combine_ligand", ("phenix.pdbtools",))
    at_target = History(refined, placement="placed", at_target=True)
    verdict = StopVerdict(True, "success", validation_pending=("phenix.molprobity",))
    view = valid_programs(phenix, phenix.workflow("xray"), at_target, verdict=verdict)
    assert view.phase == "validate" and "phenix.refine" not in view.valid_programs
    assert view.valid_programs[0] == "phenix.molprobity" and "STOP" not in view.valid_programs


def test_cryoem_routes(phenix) -> None:
    mtriage = ran("phenix.mtriage", resolution=3.1)
    halves = frozenset({"half_map", "model"})
    assert phase_of(phenix, "cryoem", History(mtriage, file_categories=halves))[0] == (
        "optimize_map"
    )
    # Full map only: no density modification, straight to the placement question.
    full = History(mtriage, placement_uncertain=True, file_categories=frozenset({"full_map"}))
    assert phase_of(phenix, "cryoem", full) == ("probe_placement", ("phenix.map_correlations",))
    not_placed = History(mtriage, placement="not_placed", file_categories=frozenset({"full_map"}))
    assert phase_of(phenix, "cryoem", not_placed) == ("dock", ("phenix.dock_in_map",))
    refined = History(
        (
            *mtriage,
            CycleRecord(cycle=2, program="phenix.real_space_refine", metrics={"map_cc": 0.7}),
        ),
        placement="placed",
    )
    assert phase_of(phenix, "cryoem", refined)[0] == "refine"
    good = History(
        (
            *mtriage,
            CycleRecord(cycle=2, program="phenix.real_space_refine", metrics={"map_cc": 0.85}),
        ),
        placement="placed",
    )
    assert phase_of(phenix, "cryoem", good)[0] == "refine"  # the history alone: no verdict
    # The cryoem stop rules (workflow-scoped, on map CC) end the loop; the X-ray ones
    # (R-free) would not, since no R-free was ever measured.
    verdict = evaluate(phenix.metrics, good, "cryoem")
    assert verdict.at_target and verdict.reason.startswith("success: map_cc 0.85 > 0.8")
    assert verdict.refinement_programs == ("phenix.real_space_refine",)
    assert not evaluate(phenix.metrics, good, "xray").at_target
    assert not evaluate(phenix.metrics, refined, "cryoem").at_target
    assert phase_of(phenix, "cryoem", replace(good, at_target=True))[0] == "validate"
    flat = History(
        tuple(
            CycleRecord(cycle=i, program="phenix.real_space_refine", metrics={"map_cc": cc})
            for i, cc in enumerate((0.70, 0.701, 0.7015), start=1)
        )
    )
    assert evaluate(phenix.metrics, flat, "cryoem").reason.startswith("plateau: map_cc")
    poor = History(
        (CycleRecord(cycle=1, program="phenix.real_space_refine", metrics={"map_cc": 0.1}),)
    )
    assert evaluate(phenix.metrics, poor, "cryoem").hopeless


def test_phase_paths_name_only_declared_phases(phenix) -> None:
    for workflow in phenix.workflows.values():
        phase, path = current_phase(workflow, History(()))
        assert phase == workflow.start and path == (workflow.start,)


def test_pack_directory_is_the_shipped_one(phenix) -> None:
    assert Path(phenix.directory) == PACKS_DIR / "phenix"


def test_scoped_stop_rules_must_name_a_workflow(tmp_path: Path) -> None:
    pack = tmp_path / "phenix_copy"
    shutil.copytree(PACKS_DIR / "phenix", pack)
    metrics = pack / "metrics.yaml"
    metrics.write_text(metrics.read_text().replace("\n  cryoem:  ", "\n  cryo_em: ", 1))
    with pytest.raises(PackError) as caught:
        load_pack(str(pack))
    assert "metrics.yaml:" in str(caught.value)
    assert "workflow_stop_rules.cryo_em: no workflow or experiment type" in str(caught.value)

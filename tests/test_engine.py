"""The PHENIX-fidelity engine: stop rules, placement, best files, locks, zombies,
content categories, tool-chain rules, strategy flags and the rest of layer 1."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from conftest import PROJECT_ROOT, TOY_PACK

from agentcycle.agent.program.best_files import rebuild_best_files, update_locks
from agentcycle.agent.program.command import FilePool, select_file
from agentcycle.agent.program.files import categorise, matches_word
from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.logparse import detect_program, parse_log
from agentcycle.agent.program.placement import cell_mismatch, placement
from agentcycle.agent.program.postprocess import check_flag_value, strategy_tokens
from agentcycle.agent.program.session import create_session, detect_workflow
from agentcycle.agent.program.state import CycleRecord, SessionState
from agentcycle.agent.program.stop_rules import evaluate
from agentcycle.agent.program.workflow import History
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.schema import InputSlot, StrategyFlag

DEMO = PROJECT_ROOT / ".demo-data"
LOGS = Path(__file__).resolve().parent / "data" / "xtal_logs"


@pytest.fixture(scope="module")
def xtal():
    return load_pack("xtal")


@pytest.fixture(scope="module")
def demo():
    from agentcycle.demo_data import prepare_demo_data

    return prepare_demo_data(DEMO)


def rec(cycle: int, program: str, failed: bool = False, outputs=(), **metrics) -> CycleRecord:
    return CycleRecord(
        cycle=cycle,
        program=program,
        argv=[program, str(cycle)],
        failed=failed,
        metrics=metrics,
        outputs=list(outputs),
    )


def analysed(resolution: float = 1.5) -> list[CycleRecord]:
    return [rec(1, "xtriage", resolution=resolution), rec(2, "model_vs_data", r_free=0.36)]


# --- stop rules -----------------------------------------------------------------------


def test_success_depends_on_resolution(xtal) -> None:
    at_high = evaluate(
        xtal.metrics, History(tuple([*analysed(1.5), rec(3, "refine", r_free=0.23)]))
    )
    at_low = evaluate(xtal.metrics, History(tuple([*analysed(2.0), rec(3, "refine", r_free=0.23)])))
    assert not at_high.at_target  # 0.23 is not good at 1.5 Å (good < 0.22)
    assert at_low.at_target and at_low.reason.startswith("success")


def test_refinement_required_again_after_a_model_change(xtal) -> None:
    rules = xtal.metrics.stop_rules.model_copy(update={"refine_after": ["rmsz"]})
    metrics = xtal.metrics.model_copy(update={"stop_rules": rules})
    done = [*analysed(2.0), rec(3, "refine", r_free=0.21)]
    assert evaluate(metrics, History(tuple(done))).at_target
    assert not evaluate(metrics, History((*done, rec(4, "rmsz")))).at_target


def test_plateau_hopeless_and_hard_limit(xtal) -> None:
    flat = [
        *analysed(),
        rec(3, "refine", r_free=0.3),
        rec(4, "refine", r_free=0.299),
        rec(5, "refine", r_free=0.2985),
    ]
    assert evaluate(xtal.metrics, History(tuple(flat[:4]))).at_target is False
    verdict = evaluate(xtal.metrics, History(tuple(flat)))
    assert verdict.reason.startswith("plateau")
    hopeless = evaluate(xtal.metrics, History(tuple([*analysed(), rec(3, "refine", r_free=0.55)])))
    assert hopeless.hopeless and hopeless.reason.startswith("hopeless")
    steady = [
        *analysed(),
        rec(3, "refine", r_free=0.4),
        rec(4, "refine", r_free=0.35),
        rec(5, "refine", r_free=0.3),
    ]
    assert evaluate(xtal.metrics, History(tuple(steady))).reason == "hard limit: 3 refinements"


def files_for(tmp_path: Path) -> list[Path]:
    (tmp_path / "m.cif").write_text("data_m\n")
    (tmp_path / "d.mtz").write_text("")
    return [tmp_path / "m.cif", tmp_path / "d.mtz"]


def test_validation_gate_then_stop(xtal, tmp_path: Path) -> None:
    history = [*analysed(2.0), rec(3, "refine", r_free=0.21)]
    decision = decide(xtal, "xray", history, files_for(tmp_path), 4, 20)
    assert decision.program == "rmsz"  # at target: no more refinement, validation first
    assert "refine" not in decision.valid_programs and "STOP" not in decision.valid_programs
    history += [rec(4, "rmsz", bond_rmsz=0.8), rec(5, "ramalyze", rama_favored=99.0)]
    final = decide(xtal, "xray", history, files_for(tmp_path), 6, 20)
    assert final.stop and final.reason == "workflow complete (success: r_free 0.21 < 0.25 (good))"


def test_hopeless_stops_without_validation(xtal, tmp_path: Path) -> None:
    history = [*analysed(), rec(3, "refine", r_free=0.58)]
    decision = decide(xtal, "xray", history, files_for(tmp_path), 4, 20)
    assert decision.stop and decision.reason.startswith("hopeless")


# --- model placement ------------------------------------------------------------------


def test_tier1_unit_cells(demo) -> None:
    assert not cell_mismatch(demo.dir_1l2h / "1l2h_shaken.cif", [demo.dir_1l2h / "1l2h.mtz"])
    assert cell_mismatch(demo.dir_5e5z / "5e5z.pdb", [demo.dir_1l2h / "1l2h.mtz"])
    assert not cell_mismatch(demo.dir_5e5z / "5e5z.pdb", [demo.dir_5e5z / "missing.mtz"])


def test_placement_tiers_and_probe_never_repeats(xtal, demo) -> None:
    probe = xtal.workflow().placement_probe
    model, data = demo.dir_1l2h / "1l2h_shaken.cif", [demo.dir_1l2h / "1l2h.mtz"]
    assert placement(probe, [rec(1, "xtriage")], model, data) == (None, True)
    assert placement(probe, [rec(1, "model_vs_data", r_free=0.36)], model, data) == (
        "placed",
        False,
    )
    assert placement(probe, [rec(1, "model_vs_data", r_free=0.58)], model, data) == (
        "not_placed",
        False,
    )
    assert placement(probe, [rec(1, "model_vs_data")], model, data) == (None, False)  # no rerun
    assert placement(probe, [rec(1, "refine", r_free=0.3)], model, data) == ("placed", False)
    wrong = demo.dir_5e5z / "5e5z.pdb"
    assert placement(probe, [], wrong, data) == ("not_placed", False)


def test_not_placed_model_ends_in_not_placed_phase(xtal, tmp_path: Path) -> None:
    history = [rec(1, "xtriage", resolution=1.5), rec(2, "model_vs_data", r_free=0.58)]
    decision = decide(xtal, "xray", history, files_for(tmp_path), 3, 20)
    assert decision.stop and decision.phase == "not_placed"


# --- files: categories, best files, locks, zombies --------------------------------------


def test_content_categories(xtal, tmp_path: Path) -> None:
    ligand = tmp_path / "atp.pdb"
    ligand.write_text(
        "HETATM    1  PG  ATP A   1      1.0   1.0   1.0  1.00 20.00           P\n" * 5
    )
    model = tmp_path / "model.pdb"
    model.write_text(
        "ATOM      1  CA  ALA A   1      1.0   1.0   1.0  1.00 20.00           C\n" * 200
    )
    assert categorise(ligand, xtal.file_categories) == ["ligand"]
    assert categorise(model, xtal.file_categories) == ["model"]
    slot = xtal.programs["refine"].inputs["model"]
    pool = FilePool.build([ligand, model], xtal.file_categories, {})
    assert select_file(slot, pool) == model
    only_ligand = FilePool.build([ligand], xtal.file_categories, {})
    assert select_file(slot, only_ligand) is None  # never a ligand in a model slot


def test_word_boundary_patterns(tmp_path: Path) -> None:
    assert matches_word("atp_ligand.pdb", "ligand") and not matches_word("noligand.pdb", "ligand")
    slot = InputSlot(extensions=[".pdb"], exclude_patterns=["ligand"], prefer_patterns=["refined"])
    files = [tmp_path / n for n in ("atp_ligand.pdb", "noligand.pdb", "x_refined.pdb")]
    pool = FilePool.build(files, {}, {})
    assert select_file(slot, pool) == tmp_path / "x_refined.pdb"
    assert select_file(slot, FilePool.build(files[:2], {}, {})) == tmp_path / "noligand.pdb"


def test_best_files_by_score_and_rfree_lock(xtal, demo, tmp_path: Path) -> None:
    session = tmp_path / "s"
    state = create_session(xtal, "xtal", demo.dir_1l2h, session)
    assert state.locked_files == {"data_mtz": "inputs/1l2h.mtz"}
    assert state.best_files["model"] == "inputs/1l2h_shaken.cif"
    for cycle, r_free in ((1, 0.30), (2, 0.25), (3, 0.27)):
        out = session / f"sub_{cycle:02d}_refine" / f"refine_{cycle:03d}.mmcif"
        out.parent.mkdir()
        out.write_text("data_x\n")
        state.cycles.append(
            rec(cycle, "refine", outputs=[str(out.relative_to(session))], r_free=r_free)
        )
    best = rebuild_best_files(state, xtal, session)
    assert best["model"] == "sub_02_refine/refine_002.mmcif"  # lowest R-free, not newest
    (session / "extra.mtz").write_bytes((demo.dir_1l2h / "1l2h.mtz").read_bytes())
    state.inputs.append("extra.mtz")
    assert update_locks(state, xtal, session) == []  # the first lock stays
    assert state.locked_files["data_mtz"] == "inputs/1l2h.mtz"


def test_zombie_done_flag_cleared_and_program_reruns(tmp_path: Path) -> None:
    toy = load_pack(TOY_PACK)
    (tmp_path / "d.dat").write_text("1.8\n")
    (tmp_path / "m.model").write_text("0.4\n")
    run = tmp_path / "sub_02_refine"
    run.mkdir()
    (run / "refine_002.model").write_text("0.32\n")
    history = [
        rec(1, "inspect"),
        rec(2, "refine", outputs=["sub_02_refine/refine_002.model"], r_free=0.19),
    ]
    files = [tmp_path / "m.model", tmp_path / "d.dat"]
    ok = decide(toy, "main", history, files, 3, 20, session_dir=tmp_path)
    assert ok.program == "validate"
    (run / "refine_002.model").unlink()
    zombie = decide(toy, "main", history, files, 3, 20, session_dir=tmp_path)
    assert zombie.program == "refine"
    assert any(e["message"].startswith("ZOMBIE STATE") for e in zombie.events)


# --- logs, flags, detection -------------------------------------------------------------


@pytest.mark.parametrize(
    ("log", "program"),
    [
        ("xtriage_1l2h.log", "xtriage"),
        ("model_vs_data_5e5z.log", "model_vs_data"),
        ("servalcat_1l2h.log", "refine"),
        ("gemmi_rmsz_5e5z.log", "rmsz"),
        ("ramalyze_5e5z.log", "ramalyze"),
    ],
)
def test_detect_program_from_log(xtal, log: str, program: str) -> None:
    assert detect_program((LOGS / log).read_text(), xtal.programs) == program


def test_unknown_log_is_not_detected(xtal) -> None:
    assert detect_program("hello world\n", xtal.programs) is None


def variant(tmp_path: Path, edit) -> Path:
    """A copy of the toy pack with its YAML edited in Python."""
    pack = tmp_path / "variant"
    shutil.copytree(TOY_PACK, pack)
    docs = {
        n: yaml.safe_load((pack / n).read_text())
        for n in ("programs.yaml", "workflows.yaml", "file_categories.yaml")
    }
    edit(docs)
    for name, data in docs.items():
        (pack / name).write_text(yaml.safe_dump(data, sort_keys=False))
    return pack


def toy_files(tmp_path: Path) -> list[Path]:
    (tmp_path / "d.dat").write_text("1.8\n")
    (tmp_path / "m.model").write_text("0.4\n")
    return [tmp_path / "m.model", tmp_path / "d.dat"]


def test_set_flag_strategy_and_flag_condition(tmp_path: Path) -> None:
    def edit(docs):
        docs["programs.yaml"]["programs"]["inspect"]["done_tracking"] = {
            "strategy": "set_flag",
            "flag": "data_ok",
            "markers": ["resolution:"],
        }
        docs["workflows.yaml"]["workflows"]["main"]["phases"]["analyse"]["transitions"] = [
            {"to": "refine", "when": {"flag": "data_ok"}}
        ]

    pack = load_pack(variant(tmp_path, edit))
    parsed = parse_log("resolution: 1.8\n", pack.programs["inspect"], [])
    assert parsed.flags == ("data_ok",)
    assert parse_log("nothing\n", pack.programs["inspect"], []).flags == ()
    flagged = CycleRecord(cycle=1, program="inspect", argv=["i"], flags=["data_ok"])
    unflagged = CycleRecord(cycle=1, program="inspect", argv=["i"])
    assert decide(pack, "main", [flagged], toy_files(tmp_path), 2, 20).program == "refine"
    assert decide(pack, "main", [unflagged], toy_files(tmp_path), 2, 20).program == "inspect"


def test_strategy_flags_defaults_and_from_metric(tmp_path: Path) -> None:
    def edit(docs):
        refine = docs["programs.yaml"]["programs"]["refine"]
        refine["strategy_flags"] = {
            "cycles": {"type": "int", "minimum": 1, "maximum": 50, "args": ["--cycles", "{value}"]},
            "target": {"type": "choice", "choices": ["ml", "ls"]},
        }
        refine["defaults"] = {"cycles": 5, "target": "ml"}
        refine["parameters"]["d_min"] = {"from_metric": "resolution", "required": False}
        refine["command"].append(["--d-min", "{d_min}"])

    pack = load_pack(variant(tmp_path, edit))
    decision = decide(pack, "main", [rec(1, "inspect", resolution=1.8)], toy_files(tmp_path), 2, 20)
    assert decision.argv[-5:] == ["--d-min", "1.8", "--cycles", "5", "target=ml"]
    program = pack.programs["refine"]
    with pytest.raises(ValueError, match="not a strategy flag"):
        strategy_tokens(program, {"d_min": 2.5})
    with pytest.raises(ValueError, match="expected int"):
        check_flag_value("cycles", program.strategy_flags["cycles"], "five")
    with pytest.raises(ValueError, match="outside"):
        check_flag_value("cycles", program.strategy_flags["cycles"], 500)
    with pytest.raises(ValueError, match="not a plain value"):
        check_flag_value("s", StrategyFlag(type="string"), "x; rm -rf /")


def test_defaults_must_be_declared_flags(tmp_path: Path) -> None:
    from agentcycle.knowledge import PackError

    def edit(docs):
        docs["programs.yaml"]["programs"]["refine"]["defaults"] = {"d_min": 2.5}

    with pytest.raises(PackError, match=r"defaults\.d_min: not a declared strategy flag"):
        load_pack(variant(tmp_path, edit))


def test_tool_chain_dependencies_mandatory_next_and_goal_class(tmp_path: Path) -> None:
    def edit(docs):
        main = docs["workflows.yaml"]["workflows"]["main"]
        main["phases"]["analyse"]["programs"] = ["refine", "inspect", "validate"]
        main["tool_chain"] = {
            "dependencies": {"refine": ["inspect"]},
            "mandatory_next": {"inspect": "validate"},
            "goal_classes": [{"patterns": [r"\bhow many\b"], "chain": ["inspect"]}],
        }

    pack = load_pack(variant(tmp_path, edit))
    first = decide(pack, "main", [], toy_files(tmp_path), 1, 20)
    assert first.program == "inspect"  # refine needs inspect first
    assert any("needs inspect first" in e["message"] for e in first.events)
    after = decide(pack, "main", [rec(1, "inspect")], toy_files(tmp_path), 2, 20)
    assert after.program == "validate"  # mandatory successor overrides the phase order
    counted = decide(
        pack,
        "main",
        [rec(1, "inspect")],
        toy_files(tmp_path),
        2,
        20,
        goal="How many nuclei are there?",
    )
    assert counted.stop and counted.reason == "goal answered by the shortest chain"


def test_workflow_preferences_and_phase_stop_rules(tmp_path: Path) -> None:
    def edit(docs):
        main = docs["workflows.yaml"]["workflows"]["main"]
        main["phases"]["analyse"]["programs"] = ["inspect", "validate"]
        main["preferences"] = {"prefer": ["validate"], "skip": []}
        main["phases"]["refine"]["stop_rules"] = [
            {"when": {"runs_at_least": {"program": "refine", "n": 1}}, "reason": "one is enough"}
        ]

    pack = load_pack(variant(tmp_path, edit))
    assert decide(pack, "main", [], toy_files(tmp_path), 1, 20).program == "validate"
    history = [rec(1, "inspect"), rec(2, "refine", r_free=0.3)]
    decision = decide(pack, "main", history, toy_files(tmp_path), 3, 20)
    assert "STOP" in decision.valid_programs


def test_experiment_type_detection(tmp_path: Path) -> None:
    def edit(docs):
        main = docs["workflows.yaml"]["workflows"]["main"]
        other = dict(main, detect_categories=["model"])
        docs["workflows.yaml"]["workflows"] = {
            "first": dict(main, detect_categories=["nothing"]),
            "second": other,
        }
        docs["file_categories.yaml"]["categories"]["nothing"] = {"extensions": [".zzz"]}

    pack = load_pack(variant(tmp_path, edit))
    assert detect_workflow(pack, toy_files(tmp_path)) == "second"
    assert detect_workflow(pack, [tmp_path / "d.dat"]) == pack.default_workflow == "first"


def test_half_maps_dropped_with_full_map(tmp_path: Path) -> None:
    from agentcycle.agent.program.command import CommandContext, resolve_values
    from agentcycle.knowledge.schema import FileCategory, Program

    categories = {
        "full_map": FileCategory(extensions=[".ccp4"], exclude_patterns=["half"]),
        "half_map": FileCategory(extensions=[".ccp4"], name_patterns=["half"]),
    }
    files = [tmp_path / "map.ccp4", tmp_path / "map_half_1.ccp4"]
    pool = FilePool.build(files, categories, {})
    spec = {
        "description": "x",
        "command": ["prog", "{full}"],
        "inputs": {
            "full": {"extensions": [".ccp4"], "categories": ["full_map"]},
            "half": {"extensions": [".ccp4"], "categories": ["half_map"], "required": False},
        },
    }

    def chosen(program: Program) -> dict[str, str]:
        return resolve_values(CommandContext("p", program, pool, 1, ""))[1]

    dropped = chosen(Program.model_validate(spec))
    kept = chosen(Program.model_validate({**spec, "keep_half_maps_with_full_map": True}))
    assert "half" not in dropped and kept["half"] == str(files[1])


def test_session_state_defaults_are_backward_compatible() -> None:
    state = SessionState(
        session_id="x", pack="xtal", workflow="xray", input_dir="/", inputs=[], max_cycles=1
    )
    assert state.locked_files == {} and state.directives.empty


def test_llm_hinted_ligand_is_rejected_from_a_model_slot(xtal, tmp_path: Path) -> None:
    ligand = tmp_path / "atp_ligand.pdb"
    ligand.write_text(
        "HETATM    1  PG  ATP A   1      1.0   1.0   1.0  1.00 20.00           P\n" * 5
    )
    model = tmp_path / "model.pdb"
    model.write_text(
        "ATOM      1  CA  ALA A   1      1.0   1.0   1.0  1.00 20.00           C\n" * 200
    )
    slot = xtal.programs["refine"].inputs["model"]
    pool = FilePool.build([ligand, model], xtal.file_categories, {})
    assert select_file(slot, pool, hint="atp_ligand.pdb") == model  # hint refused
    other = tmp_path / "other.pdb"
    other.write_text(model.read_text())
    pool = FilePool.build([model, other], xtal.file_categories, {})
    assert select_file(slot, pool, hint="other.pdb") == other  # a valid hint wins


def test_one_file_fills_one_slot(tmp_path: Path) -> None:
    from agentcycle.agent.program.command import CommandContext, resolve_values
    from agentcycle.knowledge.schema import FileCategory, Program

    categories = {"half_map": FileCategory(extensions=[".mrc"], name_patterns=["half"])}
    files = [tmp_path / "map_half_1.mrc", tmp_path / "map_half_2.mrc"]
    pool = FilePool.build(files, categories, {"half_map": str(files[1])})
    slot = {"extensions": [".mrc"], "categories": ["half_map"]}
    program = Program.model_validate(
        {"description": "x", "command": ["p", "{h1}", "{h2}"], "inputs": {"h1": slot, "h2": slot}}
    )
    chosen = resolve_values(CommandContext("p", program, pool, 1, ""))[1]
    assert sorted(chosen.values()) == sorted(str(f) for f in files)

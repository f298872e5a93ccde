"""The decision graph and workflow engine, without Prefect: history in, decision out."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TOY_PACK

from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.state import CycleRecord
from agentcycle.agent.program.workflow import History, current_phase
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.schema import Condition


@pytest.fixture(scope="module")
def pack():
    return load_pack(TOY_PACK)


def record(cycle: int, program: str, failed: bool = False, argv=None, **metrics) -> CycleRecord:
    return CycleRecord(
        cycle=cycle, program=program, failed=failed, metrics=metrics, argv=argv or [program]
    )


def files(tmp_path: Path) -> list[Path]:
    (tmp_path / "data.dat").write_text("1.8\n")
    (tmp_path / "start.model").write_text("0.40\n")
    return [tmp_path / "start.model", tmp_path / "data.dat"]


def run(pack, tmp_path, cycles, max_cycles=20, best=None):
    return decide(
        pack,
        "main",
        cycles,
        files(tmp_path),
        cycle=len(cycles) + 1,
        max_cycles=max_cycles,
        best_files=best,
    )


def test_first_decision_is_inspect_with_the_data_file(pack, tmp_path: Path) -> None:
    decision = run(pack, tmp_path, [])
    assert decision.program == "inspect"
    assert decision.phase == "analyse"
    assert decision.argv[-1] == str(tmp_path / "data.dat")
    assert decision.argv[:2] == ["python3", f"{TOY_PACK}/fake_program.py"]


def test_failed_run_sets_no_done_flag(pack, tmp_path: Path) -> None:
    decision = run(pack, tmp_path, [record(1, "inspect", failed=True)])
    assert decision.program == "inspect"


def test_refine_until_target_then_validate_then_stop(pack, tmp_path: Path) -> None:
    history = [record(1, "inspect", resolution=1.8), record(2, "refine", r_free=0.3)]
    assert run(pack, tmp_path, history).program == "refine"
    history.append(record(3, "refine", r_free=0.19))  # below the 0.20 target
    assert run(pack, tmp_path, history).program == "validate"
    history.append(record(4, "validate", outliers=2))
    decision = run(pack, tmp_path, history)
    assert decision.stop and decision.reason == "workflow complete"


def test_refinement_count_limit_moves_on(pack, tmp_path: Path) -> None:
    history = [record(1, "inspect")] + [record(i, "refine", r_free=0.3) for i in (2, 3, 4)]
    assert run(pack, tmp_path, history).program == "validate"


def test_optional_group_dropped_and_env_value_used(pack, tmp_path: Path) -> None:
    history = [record(1, "inspect")]
    plain = decide(pack, "main", history, files(tmp_path), 2, 20, environ={})
    assert "--sleep" not in plain.argv
    slow = decide(pack, "main", history, files(tmp_path), 2, 20, environ={"TOY_REFINE_SLEEP": "3"})
    assert slow.argv[-2:] == ["--sleep", "3"]
    assert slow.argv[-3] == "refine_002.model"


def test_best_file_preferred_over_input(pack, tmp_path: Path) -> None:
    inputs = files(tmp_path)
    better = tmp_path / "refine_002.model"
    better.write_text("0.3\n")
    # Without best files the first listed model wins; the best file must beat it.
    plain = decide(pack, "main", [record(1, "inspect")], [*inputs, better], 3, 20)
    assert plain.argv[3] == str(inputs[0])
    decision = decide(
        pack,
        "main",
        [record(1, "inspect")],
        [*inputs, better],
        3,
        20,
        best_files={"model": str(better)},
    )
    assert decision.argv[3] == str(better)


def test_duplicate_command_is_rejected_then_fallback_explains(pack, tmp_path: Path) -> None:
    first = run(pack, tmp_path, [record(1, "inspect")])
    assert first.program == "refine"
    # The same refinement already ran with the same inputs and succeeded; only the
    # cycle-specific output prefix differs (refine_002 → refine_003), which is masked.
    history = [record(1, "inspect"), record(2, "refine", argv=first.argv, r_free=0.39)]
    decision = run(pack, tmp_path, history)
    assert decision.stop
    assert decision.reason == "all_commands_duplicate: refine: duplicate of cycle 2"


def test_missing_input_names_the_slot(pack, tmp_path: Path) -> None:
    (tmp_path / "start.model").write_text("0.4\n")
    decision = decide(pack, "main", [], [tmp_path / "start.model"], 1, 20)
    assert decision.stop
    assert decision.reason == "cannot_build_any_program: inspect: cannot fill input data (.dat)"


def test_max_cycles_stops(pack, tmp_path: Path) -> None:
    decision = run(pack, tmp_path, [record(1, "inspect")], max_cycles=1)
    assert decision.stop and decision.reason.startswith("max_cycles")


def test_plateau_condition(pack) -> None:
    condition = Condition.model_validate(
        {"plateau": {"metric": "r_free", "cycles": 2, "min_improvement": 0.005}}
    )
    wf = pack.workflow("main").model_copy(deep=True)
    phases = dict(wf.phases)
    refine = phases["refine"]
    phases["refine"] = refine.model_copy(
        update={"transitions": [refine.transitions[0].model_copy(update={"when": condition})]}
    )
    wf = wf.model_copy(update={"phases": phases})
    flat = [record(1, "inspect")] + [
        record(i, "refine", r_free=v) for i, v in ((2, 0.300), (3, 0.299), (4, 0.2985))
    ]
    improving = [record(1, "inspect")] + [
        record(i, "refine", r_free=v) for i, v in ((2, 0.30), (3, 0.28), (4, 0.26))
    ]
    assert current_phase(wf, History(tuple(flat)))[0] == "validate"
    assert current_phase(wf, History(tuple(improving)))[0] == "refine"


def test_condition_needs_exactly_one_key() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        Condition.model_validate({"done": "a", "not_done": "b"})


def test_a_failed_command_is_not_repeated(pack, tmp_path: Path) -> None:
    first = run(pack, tmp_path, [])
    failed = CycleRecord(
        cycle=1, program="inspect", argv=first.argv, failed=True, failure_reason="exit code 1"
    )
    decision = run(pack, tmp_path, [failed])
    assert decision.stop
    assert "the same command failed in cycle 1" in decision.reason


def test_not_condition() -> None:
    from agentcycle.agent.program.workflow import holds

    no_model = Condition.model_validate({"not": {"has_file": "model"}})
    assert holds(no_model, History(()))
    assert not holds(no_model, History((), file_categories=frozenset({"model"})))
    with pytest.raises(ValueError, match="not"):
        Condition.model_validate({"not": {"done": "a"}, "done": "b"})

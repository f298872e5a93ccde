"""Directives from the goal text shape the valid programs and stop the session."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TOY_PACK

from agentcycle.agent.program.directives import Directives, extract_directives, valid_space_group
from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.state import CycleRecord
from agentcycle.knowledge import load_pack

XTAL_ALIASES = {name: spec.aliases for name, spec in load_pack("xtal").programs.items()}


def extract(text: str) -> Directives:
    return extract_directives(text, XTAL_ALIASES)


def test_stop_after_program_and_metric_target() -> None:
    found = extract("Refine until R-free is below 0.25, then stop after refinement.")
    assert found.stop_after == ["refine"]
    assert [(t.metric, t.below) for t in found.metric_targets] == [("r_free", 0.25)]


def test_alias_naming_several_programs() -> None:
    assert extract("please skip validation").skip == ["rmsz", "ramalyze"]


def test_cycle_limit_start_and_prefer() -> None:
    found = extract("At most 4 cycles; start with refinement and prefer servalcat.")
    assert found.stop_after_cycle == 4
    assert found.start_with == ["refine"]
    assert found.prefer == ["refine"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("space group P 43", "P 43"),
        ("space group P21.", "P 1 21 1"),
        ("space group 78", "P 43"),
        ("space group determination first", None),
        ("space group 231", None),
    ],
)
def test_space_group_is_validated(text: str, expected: str | None) -> None:
    assert extract(text).space_group == expected


def test_english_words_are_not_space_groups() -> None:
    assert valid_space_group("determination") is None
    assert valid_space_group("P 43") == "P 43"


def test_unit_cell_needs_six_numbers() -> None:
    assert extract("cell 53.89 53.89 77.36 90 90 90").unit_cell == [53.89, 53.89, 77.36, 90, 90, 90]
    assert extract("cell 53.89 53.89 77.36").unit_cell is None


def test_unrecognised_text_gives_no_directive() -> None:
    assert extract("make it nice please").empty


@pytest.fixture(scope="module")
def toy():
    return load_pack(TOY_PACK)


def toy_files(tmp_path: Path) -> list[Path]:
    (tmp_path / "d.dat").write_text("1.8\n")
    (tmp_path / "m.model").write_text("0.4\n")
    return [tmp_path / "m.model", tmp_path / "d.dat"]


def toy_directives(text: str, toy) -> Directives:
    return extract_directives(text, {n: p.aliases for n, p in toy.programs.items()})


def test_skip_removes_a_program_from_the_valid_list(toy, tmp_path: Path) -> None:
    done = [CycleRecord(cycle=1, program="inspect", argv=["x"])]
    plain = decide(toy, "main", done, toy_files(tmp_path), 2, 20)
    assert plain.program == "refine"
    skipped = decide(
        toy, "main", done, toy_files(tmp_path), 2, 20, directives=toy_directives("skip refine", toy)
    )
    assert skipped.program == "STOP"
    assert any(e["event"] == "directive_applied" for e in skipped.events)


def test_start_with_overrides_the_first_phase(toy, tmp_path: Path) -> None:
    decision = decide(
        toy,
        "main",
        [],
        toy_files(tmp_path),
        1,
        20,
        directives=toy_directives("start with validate", toy),
    )
    assert decision.program == "validate"


def test_stop_after_program_and_targets_stop_the_session(toy, tmp_path: Path) -> None:
    history = [
        CycleRecord(cycle=1, program="inspect", argv=["x"]),
        CycleRecord(cycle=2, program="refine", argv=["y"], metrics={"r_free": 0.3}),
    ]
    after = decide(
        toy,
        "main",
        history,
        toy_files(tmp_path),
        3,
        20,
        directives=toy_directives("stop after refine", toy),
    )
    assert after.stop and after.reason == "directive: stop after refine"
    not_yet = decide(
        toy,
        "main",
        history,
        toy_files(tmp_path),
        3,
        20,
        directives=toy_directives("r-free below 0.25", toy),
    )
    assert not_yet.program == "refine"
    history.append(CycleRecord(cycle=3, program="refine", argv=["z"], metrics={"r_free": 0.24}))
    met = decide(
        toy,
        "main",
        history,
        toy_files(tmp_path),
        4,
        20,
        directives=toy_directives("r-free below 0.25", toy),
    )
    assert met.stop and met.reason == "directive: metric targets met (r_free=0.24)"

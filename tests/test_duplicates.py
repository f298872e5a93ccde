"""Duplicate command detection: exact, near (>= 80 % tokens), and different inputs."""

from __future__ import annotations

from agentcycle.agent.program.duplicates import duplicate_problem
from agentcycle.agent.program.state import CycleRecord

BASE = [
    "servalcat",
    "refine_xtal_norefmac",
    "--hklin",
    "/s/inputs/d.mtz",
    "--labin",
    "F,SIGF,FREE",
    "--model",
    "/s/inputs/m.cif",
    "--monlib",
    "/lib/mon",
    "-s",
    "xray",
    "--ncycle",
    "10",
    "-o",
    "refine_002",
]


def run(cycle: int, argv: list[str], failed: bool = False) -> CycleRecord:
    return CycleRecord(
        cycle=cycle,
        program="refine",
        argv=argv,
        failed=failed,
        failure_reason="exit code 1" if failed else None,
    )


def test_exact_repeat_with_masked_prefix() -> None:
    again = [t.replace("refine_002", "refine_003") for t in BASE]
    assert duplicate_problem(again, "refine", 3, [run(2, BASE)]) == "refine: duplicate of cycle 2"


def test_repeat_of_a_failure() -> None:
    again = [t.replace("refine_002", "refine_003") for t in BASE]
    problem = duplicate_problem(again, "refine", 3, [run(2, BASE, failed=True)])
    assert problem == "refine: the same command failed in cycle 2 (exit code 1)"


def test_near_duplicate_of_a_success_only() -> None:
    near = [t.replace("refine_002", "refine_003") for t in BASE]
    near[near.index("10")] = "12"
    problem = duplicate_problem(near, "refine", 3, [run(2, BASE)])
    assert problem is not None and problem.startswith("refine: duplicate of cycle 2 (")
    assert duplicate_problem(near, "refine", 3, [run(2, BASE, failed=True)]) is None


def test_different_input_files_are_not_duplicates() -> None:
    other_model = [
        t.replace("refine_002", "refine_003").replace("m.cif", "refine_002.mmcif") for t in BASE
    ]
    assert duplicate_problem(other_model, "refine", 3, [run(2, BASE)]) is None


def test_mostly_different_flags_are_not_duplicates() -> None:
    short = [
        "servalcat",
        "refine_xtal_norefmac",
        "--hklin",
        "/s/inputs/d.mtz",
        "--model",
        "/s/inputs/m.cif",
        "--twin",
        "--ncycle",
        "3",
        "--weight",
        "2",
        "-o",
        "refine_003",
    ]
    assert duplicate_problem(short, "refine", 3, [run(2, BASE)]) is None

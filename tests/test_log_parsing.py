"""Metrics come out of real PHENIX logs exactly as the corpus labels say."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED

from agentcycle.agent.logparse import extract_metric, normalise, parse_log
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.schema import MetricPattern

LOGS = SHARED / "data" / "phenix-logs"
LABELS = json.loads((LOGS / "labels.json").read_text())

# Label names in labels.json → metric names in the phenix pack.
LABEL_TO_METRIC = {
    "Anomalous Measurability": "anomalous_measurability",
    "Anomalous Resolution": "anomalous_resolution",
    "Completeness": "completeness",
    "Has Anomalous": "has_anomalous",
    "No Twinning Suspected": "no_twinning_suspected",
    "Resolution": "resolution",
    "Space Group": "space_group",
    "Twin Fraction": "twin_fraction",
    "Twin Law": "twin_law",
    "Twinning": "twinning",
    "Clashscore": "clashscore",
    "Molprobity Score": "molprobity_score",
    "Ramachandran Outliers": "ramachandran_outliers",
    "Rotamer Outliers": "rotamer_outliers",
}


def expected(label: str) -> float | bool | str:
    if label in ("True", "False"):
        return label == "True"
    try:
        return float(label)
    except ValueError:
        return label


@pytest.fixture(scope="module")
def phenix():
    return load_pack("phenix")


LABELLED = [(name, labels) for name, labels in LABELS.items() if "program" in labels]


@pytest.mark.parametrize(("log_name", "labels"), LABELLED, ids=[n for n, _ in LABELLED])
def test_every_label_is_extracted_exactly(phenix, log_name: str, labels: dict) -> None:
    program = phenix.programs[labels["program"]]
    parsed = parse_log((LOGS / log_name).read_text(), program, phenix.failure_markers)
    if labels.get("failed") == "True":
        assert parsed.failed
        assert parsed.metrics == {}
        return
    assert not parsed.failed
    for label, value in labels.items():
        if label in ("program", "note"):
            continue
        assert parsed.metrics[LABEL_TO_METRIC[label]] == expected(value), label


def test_resolution_is_the_smallest_of_several_lines(phenix) -> None:
    text = (LOGS / "xtriage_1_p9.log").read_text()
    spec = phenix.programs["phenix.xtriage"].log_parsing["resolution"]
    # The log reports 1.74434 and 1.74 among others; "Completeness in resolution
    # range: 0.99" must not be read as a resolution.
    assert extract_metric(spec, text) == 1.74
    last_only = spec.model_copy(update={"pick_min": False, "extract": "first"})
    assert extract_metric(last_only, text) == pytest.approx(1.74434)


def test_bare_carriage_returns_are_line_breaks() -> None:
    raw = (LOGS / "fem_407.log").read_bytes().decode()
    assert "\r" in raw.replace("\r\n", "")  # progress lines joined by bare CRs
    assert "\r" not in normalise(raw)
    spec = MetricPattern(pattern=r"^FEM loop: done so far: (\d+)%", type="int", extract="last")
    # Without normalisation '^' never sees the progress lines; parse_log normalises first.
    assert extract_metric(spec, raw) is None
    program = (
        load_pack("phenix")
        .programs["phenix.refine"]
        .model_copy(update={"log_parsing": {"progress": spec}})
    )
    assert parse_log(raw, program, []).metrics == {"progress": 100}


def test_error_word_alone_is_not_failure(phenix) -> None:
    program = phenix.programs["phenix.molprobity"]
    log = "Error model parameter: 0.5\nExpected errors: 0\nClashscore: 1.0\n"
    assert not parse_log(log, program, phenix.failure_markers).failed
    assert parse_log("Sorry\nSORRY: bad input\n", program, phenix.failure_markers).failed


def test_exit_code_fails_even_with_metrics(phenix) -> None:
    program = phenix.programs["phenix.molprobity"]
    parsed = parse_log("Clashscore: 1.0\n", program, phenix.failure_markers, exit_code=3)
    assert parsed.failed and parsed.failure_reason == "exit code 3"
    assert parsed.metrics == {"clashscore": 1.0}


def test_fallback_pattern_used_when_primary_absent(phenix) -> None:
    program = phenix.programs["phenix.molprobity"]
    parsed = parse_log("  MolProbity score      =   1.23\n", program, phenix.failure_markers)
    assert parsed.metrics["molprobity_score"] == 1.23

"""Metrics come out of real PHENIX logs exactly as the corpus labels say."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED

from agentcycle.agent.program.logparse import (
    extract_metric,
    normalise,
    parse_log,
    read_log,
    snake_case,
)
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.schema import MetricPattern

LOGS = SHARED / "data" / "phenix-logs"
LABELS = json.loads((LOGS / "labels.json").read_text())


def expected(label: str) -> float | bool | str:
    if label in ("True", "False"):
        return label == "True"
    try:
        return float(label)
    except ValueError:
        return label


def without_summary_block(text: str) -> str:
    """The log with its trailing FINAL QUALITY METRICS REPORT block (and its rule) cut off."""
    lines = text.replace("\r\n", "\n").split("\n")
    heads = [i for i, line in enumerate(lines) if line.startswith("FINAL QUALITY METRICS REPORT")]
    if not heads:
        return text
    closing = [i for i in range(heads[-1] + 1, len(lines)) if lines[i].startswith("*****")]
    if not closing or any(line.strip() for line in lines[closing[0] + 1 :]):
        return text  # a block in mid-file is a quote (the PHENIX agent's own log)
    start = heads[-1] - 1 if heads[-1] and lines[heads[-1] - 1].startswith("*****") else heads[-1]
    return "\n".join(lines[:start]) + "\n"


@pytest.fixture(scope="module")
def phenix():
    return load_pack("phenix")


LABELLED = [(name, labels) for name, labels in LABELS.items() if "program" in labels]


def check_labels(reading, labels: dict) -> None:
    assert reading.program == labels["program"], reading.evidence
    if labels.get("failed") == "True":
        assert reading.parsed.failed
        assert reading.parsed.metrics == {}
        return
    assert not reading.parsed.failed, reading.parsed.failure_reason
    values = {k: v for k, v in labels.items() if k not in ("program", "note")}
    got = {snake_case(k): reading.parsed.metrics.get(snake_case(k)) for k in values}
    assert got == {snake_case(k): expected(v) for k, v in values.items()}


@pytest.mark.parametrize(("log_name", "labels"), LABELLED, ids=[n for n, _ in LABELLED])
def test_every_label_is_extracted_exactly(phenix, log_name: str, labels: dict) -> None:
    """Program and values as labelled, with the program identified from the log itself."""
    check_labels(read_log((LOGS / log_name).read_text(), phenix), labels)


@pytest.mark.parametrize(("log_name", "labels"), LABELLED, ids=[n for n, _ in LABELLED])
def test_same_values_without_the_summary_block(phenix, log_name: str, labels: dict) -> None:
    """The program's own output gives every value the agent's trailing report gives."""
    text = without_summary_block((LOGS / log_name).read_text())
    assert "FINAL QUALITY METRICS REPORT" not in text[-2000:]
    check_labels(read_log(text, phenix), labels)


def test_resolution_is_the_smallest_of_several_lines(phenix) -> None:
    text = (LOGS / "xtriage_1_p9.log").read_text()
    spec = phenix.programs["phenix.xtriage"].log_parsing["resolution"]
    # The log reports 1.74434 and 1.74 among others; "Completeness in resolution
    # range: 0.99" must not be read as a resolution.
    assert extract_metric(spec, text) == 1.74
    last_only = spec.model_copy(update={"pick_min": False, "extract": "first", "round": None})
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


# ---------------------------------------------------------------- typed excerpts
# The excerpts below are short stand-ins typed for these tests in the formats of real
# PHENIX logs (not copies of anyone's files).


def test_final_values_not_start_values(phenix) -> None:
    log = (  # typed excerpt, phenix.refine format
        "Starting phenix.refine\n"
        " stage       r-work r-free bonds angles b_min b_max b_ave n_water shift\n"
        "    0    :  0.3187 0.3278 0.012  1.510   8.6  80.5  26.3      0  0.000\n"
        "  end    :  0.1862 0.2137 0.007  0.930   9.1  78.2  25.9     41  0.210\n"
        "Start R-work = 0.3187, R-free = 0.3278\n"
        "Final R-work = 0.1862, R-free = 0.2137\n"
    )
    reading = read_log(log, phenix)
    assert reading.program == "phenix.refine"
    metrics = reading.parsed.metrics
    assert (metrics["r_work"], metrics["r_free"]) == (0.1862, 0.2137)
    assert (metrics["bonds_rmsd"], metrics["angles_rmsd"]) == (0.007, 0.93)


def test_wizard_log_is_not_the_program_it_runs(phenix) -> None:
    log = (  # typed excerpt: a predict_and_build log without its banner
        "PredictAndBuild: cycle 1\n"
        "Running phenix.refine on the docked model\n"
        "Start R-work = 0.4100, R-free = 0.4300\n"
        "Final R-work = 0.2900, R-free = 0.3200\n"
        "Mean pLDDT: 86.4\n"
    )
    reading = read_log(log, phenix)
    assert reading.program == "phenix.predict_and_build"
    assert reading.parsed.metrics["plddt"] == 86.4
    assert reading.parsed.metrics["r_free"] == 0.32


def test_quoted_banners_do_not_decide(phenix) -> None:
    quote = "Starting phenix.refine\nFinal R-work = 0.2000, R-free = 0.2400\n"
    log = "Starting phenix.ai_agent\n" + "cycle output\n" * 80 + quote  # typed excerpt
    reading = read_log(log, phenix)
    assert reading.program == "phenix.ai_agent"
    assert not reading.declared and reading.parsed.metrics == {}


def test_weak_evidence_is_null_never_a_guess(phenix) -> None:
    assert read_log("Starting job\nsome numbers 0.25\n", phenix).program is None
    # Two unrelated signatures, neither embedding the other: ambiguous.
    both = "Twinning and symmetry analyses\nMolprobity Statistics\nClashscore = 1.0\n"
    assert read_log(both, phenix).program is None


def test_gui_shape_and_bare_name(phenix) -> None:
    log = "LOG TEXT: Starting xtriage\nResolution range: 40.0 2.0512\n"  # typed excerpt
    reading = read_log(log, phenix)
    assert reading.program == "phenix.xtriage"
    assert reading.parsed.metrics["resolution"] == 2.05


def test_section_scoping_reads_the_right_table() -> None:
    spec = MetricPattern(
        pattern=r"^\|\s*[\d.]+\s*\|\s*([\d.]+)\s*\|", after=r"Measurability \|", until=r"^\s*$"
    )
    text = "| a | Completeness |\n| 2.0 | 0.99 |\n\n| a | Measurability |\n| 3.0 | 0.15 |\n\n"
    assert extract_metric(spec, text) == 0.15

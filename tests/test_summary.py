"""Session summaries (Markdown, self-contained HTML with a plot) and the event formatter."""

from __future__ import annotations

from pathlib import Path

from conftest import render_in_chromium

from agentcycle.agent.program.events import format_events
from agentcycle.agent.program.state import CycleRecord, SessionState
from agentcycle.knowledge import load_pack
from agentcycle.reports.summary import key_metric_plot, session_html, session_markdown


def xtal_state() -> SessionState:
    cycles = [
        CycleRecord(cycle=1, program="xtriage", metrics={"resolution": 1.54, "completeness": 97.0}),
        CycleRecord(cycle=2, program="model_vs_data", metrics={"r_free": 0.3627}),
        CycleRecord(cycle=3, program="refine", metrics={"r_free": 0.2742, "r_work": 0.2387}),
        CycleRecord(cycle=4, program="refine", metrics={"r_free": 0.2601, "r_work": 0.2290}),
        CycleRecord(cycle=5, program="ramalyze", metrics={"rama_favored": 93.0}),
        CycleRecord(cycle=6, program="STOP", reason="workflow complete"),
    ]
    return SessionState(
        session_id="demo-1",
        pack="xtal",
        workflow="xray",
        input_dir="/in",
        inputs=["inputs/1l2h.mtz"],
        max_cycles=10,
        cycles=cycles,
        status="stopped",
        stop_reason="workflow complete",
        best_files={"model": "sub_04_refine/refine_004.mmcif"},
    )


def test_markdown_has_quality_assessments() -> None:
    text = session_markdown(xtal_state(), load_pack("xtal"))
    assert "| R-free | 0.2601 | needs improvement |" in text  # > 0.26 acceptable at 1.54 Å
    assert "| Completeness (%) | 97 | good |" in text
    assert "| Ramachandran favored (%) | 93 | needs improvement |" in text
    assert "workflow path: xtriage → model_vs_data → refine → refine → ramalyze → STOP" in text


def test_html_is_self_contained_with_plot() -> None:
    page = session_html(xtal_state(), load_pack("xtal"))
    assert "src='data:image/png;base64," in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    assert "<td class='needs'>needs improvement</td>" in page


def test_plot_needs_two_points() -> None:
    state = xtal_state()
    assert key_metric_plot(state, "r_free")[:8] == b"\x89PNG\r\n\x1a\n"
    assert key_metric_plot(state, "completeness") is None


def test_event_levels() -> None:
    events = [
        {"event": "decision", "level": "normal", "message": "refine"},
        {"event": "files_selected", "level": "normal", "message": "model=m.cif"},
        {"event": "command_built", "level": "verbose", "message": "servalcat ..."},
    ]
    assert format_events(events, "quiet") == ["[decision] refine"]
    assert len(format_events(events, "normal")) == 2
    assert len(format_events(events, "verbose")) == 3


def test_html_summary_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = tmp_path / "summary.html"
    page.write_text(session_html(xtal_state(), load_pack("xtal")))
    shot, dom = render_in_chromium(page, tmp_path)
    assert shot.stat().st_size > 20_000  # a rendered page with a plot, not a blank image
    assert "needs improvement" in dom and "Session demo-1" in dom

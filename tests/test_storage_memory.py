"""Run artifacts and QA memory with the real embedding model on a temporary LanceDB."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcycle.errors import UserError
from agentcycle.storage import memory

LOGS = Path(__file__).resolve().parents[2] / "shared" / "data" / "phenix-logs"
QUESTION = (
    "In the PHENIX AI Agent GUI setup panel, what is the default value of the 'Max cycles' setting?"
)


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_qa_memory_returns_answers_to_near_identical_questions_only() -> None:
    assert memory.lookup_answer(QUESTION) is None  # nothing stored yet
    memory.remember_answer(
        QUESTION,
        "20",
        citations=["phenix-agent-docs/USER_GUIDE.md#12"],
        confidence=0.83,
        session_id="s1",
    )
    memory.remember_answer("How long should free-text advice to the agent be?", "3-4 sentences")
    rephrased = "What is the default 'Max cycles' setting in the PHENIX AI Agent GUI setup panel?"
    hit = memory.lookup_answer(rephrased)
    assert hit is not None and hit.answer == "20"
    assert hit.citations == ["phenix-agent-docs/USER_GUIDE.md#12"]
    assert hit.confidence == pytest.approx(0.83) and hit.similarity >= 0.92
    assert memory.lookup_answer("Which space group did xtriage report?") is None
    looser = memory.lookup_answer(
        "What's the default for Max cycles in the PHENIX GUI?", threshold=0.8
    )
    assert looser is not None and looser.answer == "20"
    with pytest.raises(UserError, match="threshold"):
        memory.lookup_answer(QUESTION, threshold=1.5)


def test_run_logs_are_found_again_by_meaning_and_by_program() -> None:
    xtriage = (LOGS / "xtriage_1_p9.log").read_text(encoding="utf-8", errors="replace")
    molprobity = (LOGS / "molprobity_4_esterase.log").read_text(encoding="utf-8", errors="replace")
    stored = memory.record_run_artifact(
        xtriage, session_id="s1", program="xtriage", cycle=1, file=str(LOGS / "xtriage_1_p9.log")
    )
    stored += memory.record_run_artifact(molprobity, session_id="s1", program="molprobity", cycle=2)
    stored += memory.record_run_artifact(
        "# Session s1\n\nxtriage found no twinning; molprobity clashscore 0.36.",
        session_id="s1",
        program="session",
        kind="summary",
        markdown=True,
    )
    assert stored == memory.run_logs_table().count_rows() > 20
    twin = memory.similar_runs("twin law and twin fraction estimate", k=3)
    assert twin and all(row["program"] == "xtriage" for row in twin)
    rama = memory.similar_runs("Ramachandran favored outliers rotamer", k=3, mode="text")
    assert rama[0]["program"] == "molprobity"
    only = memory.similar_runs("twinning", k=5, program="molprobity")
    assert only and {row["program"] for row in only} == {"molprobity"}
    summaries = memory.similar_runs(
        "what happened in session s1", k=1, session_id="s1", mode="vector"
    )
    assert summaries[0]["session_id"] == "s1"


def test_qa_memory_answers_only_for_the_same_corpus() -> None:
    memory.remember_answer(QUESTION, "20", corpus="docs")
    assert memory.lookup_answer(QUESTION, corpus="docs").answer == "20"
    assert memory.lookup_answer(QUESTION, corpus="other-docs") is None


def test_the_runs_table_is_compacted_once_it_has_many_files() -> None:
    from agentcycle.storage import runs

    def cycle(n: int) -> dict:
        return {"run_id": f"s1/{n}", "session_id": "s1", "cycle": n, "pack": "toy",
                "program": "refine", "data_key": "d1", "outcome": "success"}  # fmt: skip

    for n in range(1, 6):  # one append per remembered cycle, as a session does
        runs.append_runs([cycle(n)])
    assert not runs.compact_runs(min_fragments=10)  # few files: left alone
    for n in range(6, 13):
        runs.append_runs([cycle(n)])
    fragments = len(runs.runs_table(create=False).to_lance().get_fragments())
    assert fragments == 12
    assert runs.compact_runs(min_fragments=10)
    table = runs.runs_table(create=False)
    table.checkout_latest()
    assert len(table.to_lance().get_fragments()) == 1
    assert [r["cycle"] for r in runs.session_runs("s1")] == list(range(1, 13))


def test_runs_are_embedded_by_the_first_search_and_only_once() -> None:
    from agentcycle.storage import runs

    def cycle(session: str, n: int, text: str) -> dict:
        return {"run_id": f"{session}/{n}", "session_id": session, "cycle": n, "pack": "toy",
                "program": "refine", "outcome": "failed", "text": text}  # fmt: skip

    runs.append_runs([cycle("e1", 1, "refine failed: twinned data, R-free stuck at 0.40")])
    runs.append_runs([cycle("e1", 2, "inspect ok: resolution 1.8 A, labels IMEAN")])
    # A session's end embeds nothing: the first search does, then finds by meaning.
    assert runs.runs_table(create=False).count_rows("vector IS NULL") >= 2
    found = runs.search_runs("twinning made refinement fail", k=1)
    assert [(r["session_id"], r["cycle"]) for r in found] == [("e1", 1)]
    assert runs.embed_missing() == 0  # stored: the next search embeds nothing again
    runs.append_runs([cycle("e2", 1, "validate ok")])
    assert runs.embed_missing() == 1
    rows = runs.session_runs("e1") + runs.session_runs("e2")
    assert sorted(r["run_id"] for r in rows) == ["e1/1", "e1/2", "e2/1"]  # none doubled


def test_searching_a_damaged_runs_table_is_one_error(home: Path) -> None:
    from agentcycle.cli.memory import echo_run_hits
    from agentcycle.storage import runs

    runs.append_runs([{"run_id": "d1/1", "session_id": "d1", "cycle": 1, "pack": "toy",
                       "program": "refine", "outcome": "ok", "text": "refine ok"}])  # fmt: skip
    for path in (home / "lancedb" / "runs.lance" / "data").glob("*"):
        path.write_bytes(b"not a lance file")
    with pytest.raises(UserError, match=r"^search runs: runs table cannot be"):
        echo_run_hits("refine failed", k=3, as_json=False)

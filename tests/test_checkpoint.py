"""Checkpoints through the real parts: `agentcycle run --checkpoint` against the test's
Prefect server, answers with `agentcycle approve` (the API the UI's Resume form uses),
the UI's form rendered in headless chromium, a kill while waiting and a resume."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from uuid import UUID

import pytest
from chromium_cdp import chromium_page
from conftest import TOY_PACK, cli_command

from agentcycle.agent.program.checkpoint import (
    CHECKPOINT_FILE,
    CheckpointAnswer,
    Proposal,
    answer_problem,
    doubts,
    load_proposal,
)
from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.recovery import Recovery
from agentcycle.agent.program.state import CycleRecord, load_session
from agentcycle.knowledge import load_pack


def _cli(prefect_api: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    out = subprocess.run(
        cli_command(*args),
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PREFECT_API_URL": prefect_api},
    )
    if check:
        assert out.returncode == 0, out.stderr
    return out


def _start_run(prefect_api: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        cli_command(*args),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PREFECT_API_URL": prefect_api},
        start_new_session=True,
    )


def _waiting(
    session: Path, cycle: int, process: subprocess.Popen[str] | None, may_finish: bool = False
) -> Proposal | None:
    """The proposal of `cycle` once its flow run is paused and registered; None when
    `may_finish` and the session ended first (STOP asks no one)."""
    deadline = time.monotonic() + 180
    while True:
        if (session / CHECKPOINT_FILE).is_file():
            proposal = load_proposal(session)
            if proposal.cycle == cycle and proposal.flow_run_id:
                return proposal
        if may_finish and load_session(session).finished:
            return None
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the session ended instead: {process.communicate()}")
        assert time.monotonic() < deadline, f"cycle {cycle} never reached its checkpoint"
        time.sleep(0.5)


def _paused_state(flow_run_id: str):  # -> a Prefect State
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_flow_run(UUID(flow_run_id)).state


# -- the rules, without Prefect -------------------------------------------------------


def _decision(**changes: object) -> Decision:
    base = {"program": "refine", "reason": "phase refine", "valid_programs": ["refine"]}
    return Decision(**{**base, **changes})  # type: ignore[arg-type]


def test_when_each_mode_asks() -> None:
    ok = [CycleRecord(cycle=1, program="inspect")]
    failed = [CycleRecord(cycle=1, program="inspect", failed=True, failure_reason="exit 1")]
    assert doubts("never", _decision(), failed) == []
    assert doubts("before-each", _decision(), ok) == ["before each program (refine)"]
    assert doubts("before-each", _decision(program="STOP"), ok) == []  # nothing would run
    assert doubts("after-failure", _decision(), ok) == []
    assert "failed: exit 1" in doubts("after-failure", _decision(), failed)[0]
    assert doubts("on-doubt", _decision(), ok) == []
    several = doubts("on-doubt", _decision(valid_programs=["refine", "validate", "STOP"]), ok)
    assert several == ["the rules found several valid programs: refine, validate"]
    fix = Recovery("twinning", "refine", "inputs/d.mtz", {"twin": "true"})
    assert "recovery twinning about to be applied (twin=true)" in doubts(
        "on-doubt", _decision(recovery=fix), ok
    )
    hopeless = _decision(program="STOP", reason="hopeless: r_free 0.52 > 0.5 after refinement")
    assert doubts("on-doubt", hopeless, ok)[0].startswith("stop near: hopeless")


def test_answers_are_checked_by_the_post_processor() -> None:
    pack = load_pack(TOY_PACK)
    proposal = Proposal(
        session_id="s", cycle=1, mode="before-each", why=["x"], program="inspect",
        valid_programs=["inspect"],
    )  # fmt: skip
    assert answer_problem(CheckpointAnswer(), proposal, pack) is None
    assert answer_problem(CheckpointAnswer(stop=True), proposal, pack) is None
    assert "not valid now" in answer_problem(CheckpointAnswer(program="refine"), proposal, pack)
    assert answer_problem(CheckpointAnswer(settings=["obs_labels=F,SIGF"]), proposal, pack) is None
    refused = answer_problem(CheckpointAnswer(settings=["cycles=3"]), proposal, pack)
    assert refused and "not a strategy flag" in refused
    quoted = answer_problem(CheckpointAnswer(settings=["obs_labels=$(rm)"]), proposal, pack)
    assert quoted and "not a plain value" in quoted
    assert "expected key=value" in answer_problem(
        CheckpointAnswer(settings=["labels"]), proposal, pack
    )


# -- through Prefect ------------------------------------------------------------------


@pytest.mark.slow
def test_before_each_pauses_shows_the_form_and_approve_goes_on(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    from prefect.input.run_input import read_flow_run_input

    session = tmp_path / "session"
    process = _start_run(
        prefect_api, "run", str(TOY_PACK), str(toy_inputs), "--session", str(session),
        "--checkpoint", "before-each",
    )  # fmt: skip
    try:
        first = _waiting(session, 1, process)
        assert first.program == "inspect" and first.argv[-1].endswith("data.dat")
        state = _paused_state(first.flow_run_id)
        assert state.is_paused()
        keyset = state.state_details.run_input_keyset
        schema = read_flow_run_input(keyset["schema"], flow_run_id=UUID(first.flow_run_id))
        assert {"program", "settings", "stop"} <= set(schema["properties"])
        description = read_flow_run_input(
            keyset["description"], flow_run_id=UUID(first.flow_run_id)
        )
        assert "Proposed program:** `inspect`" in description

        ui = prefect_api.removesuffix("/api")
        with chromium_page(f"{ui}/runs/flow-run/{first.flow_run_id}", tmp_path) as page:
            page.wait_for_text("Paused", timeout_s=90)
            page.wait_for_text("Resume")
            assert page.click_button("Resume")
            page.wait_for_text("Proposed program")
            shown = page.wait_for_text("Stop the session here.")  # the last field drawn
            shot = page.screenshot(tmp_path / "checkpoint-form.png")
        assert "Resume Flow Run" in shown and "Why it waits (before-each)" in shown
        assert "Program (Optional)" in shown and "Settings (Optional)" in shown
        assert shot.stat().st_size > 20_000
        print(f"\nscreenshot of the Prefect UI's checkpoint form: {shot}")

        bad = _cli(prefect_api, "approve", str(session), "--set", "cycles=3", check=False)
        assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
        assert "not a strategy flag" in bad.stderr
        assert _paused_state(first.flow_run_id).is_paused()  # a refused answer resumes nothing

        said = _cli(prefect_api, "approve", str(session), "--set", "obs_labels=F,SIGF")
        assert "set obs_labels=F,SIGF" in said.stdout
        cycle = 2
        while _waiting(session, cycle, process, may_finish=True) is not None:
            _cli(prefect_api, "approve", str(session))
            cycle += 1
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""
    done = load_session(session)
    assert done.status == "stopped" and done.cycles[-1].program == "STOP"
    first_cycle = done.cycles[0]
    assert first_cycle.argv[-2:] == ["--labels", "F,SIGF"]  # the setting reached argv
    assert "checkpoint (before-each): set obs_labels=F,SIGF (by a person)" in first_cycle.reason
    ran = [c for c in done.cycles if c.program != "STOP"]
    assert all(any(e["event"] == "checkpoint" for e in c.events) for c in ran)
    rows = _cli(
        prefect_api, "query", "--format", "csv",
        f"SELECT reason FROM cycles WHERE session_id = '{done.session_id}' ORDER BY cycle",
    ).stdout  # fmt: skip
    assert rows.count("checkpoint (before-each)") == len(ran)
    assert not (session / CHECKPOINT_FILE).exists()


@pytest.mark.slow
def test_stop_answer_a_kill_while_waiting_and_a_timeout(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    session = tmp_path / "session"
    args = ("run", str(TOY_PACK), str(toy_inputs), "--session", str(session))
    process = _start_run(prefect_api, *args, "--checkpoint", "before-each")
    first = _waiting(session, 1, process)
    os.killpg(process.pid, signal.SIGKILL)  # the process dies while the run is paused
    process.wait(timeout=30)
    assert _paused_state(first.flow_run_id).is_paused()  # the server keeps it waiting

    _cli(prefect_api, "approve", str(session), "--stop")  # answered with no one waiting
    resumed = _cli(prefect_api, "resume", str(session))
    state = load_session(session)
    assert state.status == "stopped" and [c.program for c in state.cycles] == ["STOP"]
    assert "stopped at checkpoint (cycle 1)" in state.stop_reason
    assert "applied on resume" in state.stop_reason, resumed.stdout
    assert _paused_state(first.flow_run_id).is_final()  # the orphaned run is closed

    timed = tmp_path / "timed"
    _cli(
        prefect_api, "run", str(TOY_PACK), str(toy_inputs), "--session", str(timed),
        "--checkpoint", "before-each", "--checkpoint-timeout", "2", "--max-cycles", "2",
    )  # fmt: skip
    state = load_session(timed)
    assert [c.program for c in state.cycles] == ["inspect", "refine", "STOP"]
    assert all("(no answer in 2 s)" in c.reason for c in state.cycles[:2])

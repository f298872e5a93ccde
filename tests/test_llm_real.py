"""LLM mode for real: llama-cpp-python's server with Gemma 3 270M weights, offline.

One server for the module, started and stopped through `agentcycle llm serve|stop`
(no server is left behind). A 270M base model plans poorly; what these tests hold is
the path: every decision cycle is an LLM choice among the valid programs or a logged
fallback, answers go through the real server, and a killed server costs nothing but
the fallback. Needs the `llm-local` extra, which `make test` installs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, SHARED, TOY_PACK, cli_command

from agentcycle.agent.program.state import SessionState, load_session
from agentcycle.knowledge import load_pack
from agentcycle.knowledge.schema import STOP
from agentcycle.llm_server import MODEL_ALIAS, default_model_path, models_answer

pytestmark = pytest.mark.real_llm


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 900):
    return subprocess.run(
        cli_command(*args), capture_output=True, text=True, env=env, timeout=timeout
    )


@pytest.fixture(scope="module")
def llm_base_url() -> Iterator[str]:
    """The real model server, through the CLI; stopped at the end of the module."""
    served = _cli("llm", "serve", timeout=300)
    assert served.returncode == 0, served.stderr[-3000:]
    lines = served.stdout.splitlines()
    assert lines[0].startswith("LLM server: http://127.0.0.1:") and lines[-2].startswith("ready:")
    base_url = lines[0].split()[2]
    try:
        assert models_answer(base_url)
        yield base_url
    finally:
        stopped = _cli("llm", "stop", timeout=60)
        assert stopped.stdout.strip() == "stopped"
        assert not models_answer(base_url)  # nothing left behind


def planning_record(state: SessionState) -> list[tuple[int, str, str]]:
    """(cycle, event kind, message) of the one planning event of each cycle."""
    found = []
    for cycle in state.cycles:
        planning = [e for e in cycle.events if e["event"] in ("llm_plan", "llm_fallback")]
        assert len(planning) >= 1, f"cycle {cycle.cycle} has no llm_plan/llm_fallback"
        found.append((cycle.cycle, planning[-1]["event"], planning[-1]["message"]))
    return found


@pytest.mark.slow
def test_xtal_session_planned_by_the_real_model(
    prefect_api: str, llm_base_url: str, tmp_path: Path
) -> None:
    from agentcycle.demo_data import prepare_demo_data

    data = prepare_demo_data(PROJECT_ROOT / ".demo-data")
    env = {**os.environ, "PREFECT_API_URL": prefect_api, "AGENTCYCLE_REFINE_NCYCLE": "3"}
    # This base model writes its reasons to the plan's 200-token cap (~35 s a plan, idle):
    # 64 tokens still hold the program, the strategy and the start of the reasons.
    env["AGENTCYCLE_LLM_MAX_TOKENS"] = "64"
    session = tmp_path / "planned"
    done = _cli(
        "run", "xtal", str(data.dir_5e5z), "--session", str(session),
        "--goal", "stop after refinement",
        "--provider", "openai", "--base-url", llm_base_url, "--model", MODEL_ALIAS,
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    state = load_session(session)
    assert state.finished and state.cycles[-1].program == STOP
    assert state.llm["base_url"] == llm_base_url
    pack = load_pack("xtal")
    for cycle, kind, text in planning_record(state):
        record = state.cycles[cycle - 1]
        if kind == "llm_plan":  # the model's choice ran, and it is a program of the pack
            assert text.split(":", 1)[0] == record.program
            assert record.program in pack.programs or record.program == STOP
            assert record.planned_by == "llm" and record.llm_calls >= 1
            assert record.llm_tokens > 0 and record.llm_latency_ms > 0
        else:
            assert record.planned_by == "rules"
            assert text.startswith(("unusable", "server unavailable", "not consulted"))
    assert any(c.llm_calls for c in state.cycles)  # the server was asked
    assert "refine" in [c.program for c in state.cycles]  # the guard rails held the goal

    query = _cli(
        "query", "--format", "json",
        "SELECT cycle, count(*) FILTER (WHERE event IN ('llm_plan', 'llm_fallback')) AS n "
        f"FROM events WHERE session_id = '{state.session_id}' GROUP BY 1 ORDER BY 1",
        env=env, timeout=120,
    )  # fmt: skip
    assert query.returncode == 0, query.stderr
    per_cycle = {r["cycle"]: r["n"] for r in json.loads(query.stdout)}
    assert sorted(per_cycle) == [c.cycle for c in state.cycles]
    assert all(n >= 1 for n in per_cycle.values())


def test_ask_answers_with_citations_through_the_real_server(
    prefect_api: str, llm_base_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcycle.flows.ask import run_ask
    from agentcycle.storage.corpus import ingest

    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    # ~25 s a call on an idle machine; make test runs another test file beside this one
    # on the same two cores, which can stretch one call past the 60 s default.
    monkeypatch.setenv("AGENTCYCLE_LLM_TIMEOUT", "240")
    # This base model rambles to the reply cap (~55 s a call at 512 tokens, idle): a
    # smaller cap keeps the test's several calls to a minute or two on a loaded machine.
    monkeypatch.setenv("AGENTCYCLE_LLM_MAX_TOKENS", "64")
    ingest("seeds-llm", [SHARED / "seeds" / "docuchat-agent-mode.md"])
    result = run_ask(
        "seeds-llm",
        "In DocuChat Agent Mode's hard limits, what is MAX_CITATION_TEXT_FOR_LLM?",
        provider="openai",
        model=MODEL_ALIAS,
        base_url=llm_base_url,
        use_memory=False,
    )
    counters = result.counters
    # A 270M model's judgement may end in an honest INSUFFICIENT; what must hold is the
    # protocol: an answer is cited, a refusal is said, and the real server was used.
    assert result.insufficient or result.citations, result.trace
    assert result.answer.strip()
    # the model answered
    assert counters.llm_calls >= 1 and counters.chars_out > 0, counters.llm_warning
    assert counters.llm_failed_calls == 0  # every call reached the server and came back
    # A reply the agent could not use fell back to the rules: said, never silent.
    assert (counters.llm_fallbacks > 0) == bool(counters.llm_warning)


@pytest.mark.slow
def test_killed_server_mid_session_falls_back_and_the_session_ends(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    """A second real server, killed after the first cycle: the rest fall back to the rules."""
    port = 18000 + os.getpid() % 1000
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(default_model_path()),
         "--port", str(port), "--n_ctx", "4096", "--model_alias", MODEL_ALIAS],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while not models_answer(base_url) and time.monotonic() < deadline:
            assert server.poll() is None, "the model server exited at start"
            time.sleep(0.5)
        session = tmp_path / "killed"
        env = {**os.environ, "PREFECT_API_URL": prefect_api, "TOY_REFINE_SLEEP": "3",
               "AGENTCYCLE_LLM_MAX_TOKENS": "64"}  # the first plan: ~16 s, not ~35 s
        run = subprocess.Popen(
            cli_command("run", str(TOY_PACK), str(toy_inputs), "--session", str(session),
                        "--provider", "openai", "--base-url", base_url, "--model", MODEL_ALIAS),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and run.poll() is None:
            if (session / "session.json").is_file() and len(load_session(session).cycles) >= 1:
                break
            time.sleep(0.2)
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)
        _, stderr = run.communicate(timeout=300)
        assert run.returncode == 0, stderr[-3000:]
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)
    state = load_session(session)
    assert state.status == "stopped" and state.cycles[-1].program == STOP
    planning = planning_record(state)
    after = [(kind, text) for cycle, kind, text in planning if cycle > 1]
    assert after and all(kind == "llm_fallback" for kind, _ in after)
    assert any("server unavailable" in text for _, text in after)
    assert [c.program for c in state.cycles][:1] == ["inspect"]

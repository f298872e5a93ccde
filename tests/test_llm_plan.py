"""LLM planning's guard rails, by fault injection against a stand-in server.

`StandInPlanServer` is a stand-in for an OpenAI-compatible server (not a model): it
plays back scripted replies, so malformed JSON, choices outside the valid programs,
unsafe strategy values, refused response formats and timeouts can be produced on
demand. The real model is exercised in test_llm_real.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from conftest import TOY_PACK
from loopback import reply_json, serving

from agentcycle.agent.llm import LLMSettings, make_provider
from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.llm_plan import session_llm
from agentcycle.agent.program.state import CycleRecord
from agentcycle.errors import UserError
from agentcycle.knowledge import load_pack

Reply = str | float | int  # text to send, a delay in seconds (float), or an HTTP status


class StandInPlanServer(ThreadingHTTPServer):
    """Stand-in OpenAI-protocol server: each request gets the next scripted reply."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script: list[Reply] = []
        self.requests: list[dict[str, Any]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def llm(self, timeout_s: float = 10.0) -> dict[str, Any]:
        """Session planner settings pointing at this stand-in."""
        settings = LLMSettings.resolve("openai", "stand-in", self.base_url, timeout_s)
        return settings.describe()


class _Handler(BaseHTTPRequestHandler):
    server: StandInPlanServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(body)
        reply: Reply = self.server.script.pop(0) if self.server.script else "{}"
        if isinstance(reply, float):
            time.sleep(reply)
            reply = "{}"
        if isinstance(reply, int):
            self.send_response(reply)
            self.end_headers()
            return
        reply_json(self, {
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        })  # fmt: skip

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def stand_in() -> Iterator[StandInPlanServer]:
    with serving(StandInPlanServer()) as server:
        yield server


@pytest.fixture(scope="module")
def pack():
    return load_pack(TOY_PACK)


def toy_files(tmp_path: Path) -> list[Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "data.dat").write_text("1.8\n")
    (tmp_path / "start.model").write_text("0.40\n")
    return [tmp_path / "start.model", tmp_path / "data.dat"]


def first_decision(pack, tmp_path: Path, llm: dict[str, Any], cycles=None, max_cycles=20):
    cycles = cycles or []
    return decide(pack, "main", cycles, toy_files(tmp_path), len(cycles) + 1, max_cycles, llm=llm)


def kinds(decision) -> list[str]:
    return [e["event"] for e in decision.events]


def message(decision, kind: str) -> str:
    return next(e["message"] for e in decision.events if e["event"] == kind)


def plan_reply(program: str, reasons: str = "look at the data first", **strategy: str) -> str:
    return json.dumps({"program": program, "reasons": reasons, "strategy": strategy})


def test_valid_answer_is_the_choice_and_the_schema_lists_the_valid_programs(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = [plan_reply("inspect", "the data must be inspected first")]
    decision = first_decision(pack, tmp_path, stand_in.llm())
    assert decision.program == "inspect"
    assert "llm_plan" in kinds(decision) and "llm_fallback" not in kinds(decision)
    assert "the data must be inspected first" in message(decision, "llm_plan")
    assert decision.llm["planned_by"] == "llm" and decision.llm["llm_calls"] == 1
    assert decision.llm["llm_tokens"] == 120  # the usage the server reported
    sent = stand_in.requests[0]
    schema = sent["response_format"]["schema"]
    assert sent["response_format"]["type"] == "json_object"
    assert schema["properties"]["program"]["enum"] == list(decision.valid_programs)
    assert "obs_labels" in schema["properties"]["strategy"]["properties"]
    prompt = sent["messages"][-1]["content"]
    assert "Phase: analyse" in prompt and "- inspect:" in prompt


def test_malformed_json_is_asked_again_once_with_the_problem(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = ['{"program": "inspect", "strategy": {', plan_reply("inspect")]
    decision = first_decision(pack, tmp_path, stand_in.llm())
    assert decision.program == "inspect" and decision.llm["planned_by"] == "llm"
    assert decision.llm["llm_calls"] == 2
    assert "not JSON" in stand_in.requests[1]["messages"][-1]["content"]


def test_a_reply_cut_inside_its_reasons_is_closed_not_rejected(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = ['{"program": "inspect", "strategy": {}, "reasons": "the data\nfirst, then']
    decision = first_decision(pack, tmp_path, stand_in.llm())
    assert decision.llm["planned_by"] == "llm" and decision.llm["llm_calls"] == 1
    assert message(decision, "llm_plan") == "inspect: the data first, then"


def test_a_program_outside_the_valid_list_twice_falls_back_to_rules(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = [plan_reply("refine"), plan_reply("rm -rf /")]
    decision = first_decision(pack, tmp_path, stand_in.llm())
    assert decision.program == "inspect"  # the rules' choice, never the model's
    assert "llm_plan" not in kinds(decision)
    why = message(decision, "llm_fallback")
    assert "'rm -rf /' is not one of inspect" in why and "rules chose inspect" in why
    assert decision.llm == {**decision.llm, "planned_by": "rules", "llm_calls": 2}


def test_strategy_passes_the_same_post_processor_as_every_setting(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = [plan_reply("inspect", obs_labels="FP,SIGFP", evil="1")]
    decision = first_decision(pack, tmp_path, stand_in.llm())
    assert decision.argv[decision.argv.index("--labels") + 1] == "FP,SIGFP"
    assert "evil" not in " ".join(decision.argv)
    notes = " ".join(e["message"] for e in decision.events if e["event"] == "program_modified")
    assert "stripped evil=1" in notes
    stand_in.script = [plan_reply("inspect", obs_labels="x; rm -rf ~")]
    unsafe = first_decision(pack, tmp_path / "again", stand_in.llm())
    assert "--labels" not in unsafe.argv  # a value that is not a plain value never runs
    assert "is not a plain value" in " ".join(e["message"] for e in unsafe.events)


def test_a_server_refusing_the_llama_schema_style_gets_the_openai_style(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = [400, plan_reply("inspect")]
    decision = first_decision(pack, tmp_path, stand_in.llm())
    assert decision.llm["planned_by"] == "llm"
    styles = [r["response_format"]["type"] for r in stand_in.requests]
    assert styles == ["json_object", "json_schema"]
    assert stand_in.requests[1]["response_format"]["json_schema"]["schema"]["properties"]


def test_a_hung_server_costs_one_timeout_then_rules_decide(
    pack, tmp_path: Path, stand_in: StandInPlanServer
) -> None:
    stand_in.script = [3.0, 3.0]
    started = time.perf_counter()
    decision = first_decision(pack, tmp_path, stand_in.llm(timeout_s=1.0))
    took = time.perf_counter() - started
    assert decision.program == "inspect" and decision.llm["planned_by"] == "rules"
    assert "server unavailable" in message(decision, "llm_fallback")
    assert len(stand_in.requests) == 1 and took < 2.9  # not asked again after a timeout


def test_dead_server_falls_back_and_a_rules_decision_says_it_was_not_consulted(
    pack, tmp_path: Path
) -> None:
    dead = LLMSettings.resolve("openai", "x", "http://127.0.0.1:9/v1", 5).describe()
    decision = first_decision(pack, tmp_path, dead)
    assert decision.program == "inspect"
    assert "Connection refused" in message(decision, "llm_fallback")
    history = [CycleRecord(cycle=1, program="inspect", argv=["inspect"])]
    stopped = first_decision(pack, tmp_path, dead, history, max_cycles=1)
    assert stopped.stop
    assert message(stopped, "llm_fallback").startswith("not consulted: the rules decided")
    assert stopped.llm["llm_calls"] == 0


def test_session_settings_are_checked_and_hold_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "secret-key")
    stored = session_llm("openai", "m", "http://127.0.0.1:1/v1")
    assert stored["provider"] == "openai" and "secret-key" not in json.dumps(stored)
    assert session_llm("rules") == {}
    with pytest.raises(UserError, match="--provider"):
        session_llm("gpt")


def test_research_provider_counts_failed_calls_and_warns() -> None:
    """A dead server is never a silent success: failed calls and fallbacks are counted,
    a warning is made, and the server is not asked again after it failed."""
    llm = make_provider("openai", "x", "http://127.0.0.1:9/v1", timeout_s=2)
    from pydantic import BaseModel

    class Reply(BaseModel):
        text: str

    assert llm.structured("system", "user", Reply) is None
    assert llm.structured("system", "again", Reply) is None
    assert llm.errors == llm.calls == 2  # one try plus one transport retry, then down
    assert llm.fallbacks == 2 and llm.down
    assert llm.warning and "2 of 2 calls failed, 2 steps fell back" in llm.warning


def test_a_lower_reply_cap_of_the_session_bounds_the_plan_too(
    pack, tmp_path: Path, stand_in: StandInPlanServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in.script = [plan_reply("inspect"), plan_reply("inspect")]
    first_decision(pack, tmp_path / "default", stand_in.llm())
    monkeypatch.setenv("AGENTCYCLE_LLM_MAX_TOKENS", "64")  # a slow CPU's setting
    first_decision(pack, tmp_path / "capped", stand_in.llm())
    assert [r["max_tokens"] for r in stand_in.requests] == [200, 64]

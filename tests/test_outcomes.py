"""Stop kinds, session status and cycle outcomes are set where they are decided.

The graph names why it stops (an enum on the decision); the session's status follows
from that kind, never from the text of the reason. Real graph and session records on
the toy pack, no Prefect.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TOY_PACK

from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.outcomes import (
    CycleOutcome,
    SessionStatus,
    StopKind,
    cycle_outcome,
    status_after_stop,
)
from agentcycle.agent.program.record import finish_cycle
from agentcycle.agent.program.session import create_session
from agentcycle.agent.program.state import CycleRecord, load_session
from agentcycle.knowledge import load_pack


@pytest.fixture(scope="module")
def pack():
    return load_pack(TOY_PACK)


def test_each_stop_carries_its_kind(pack, toy_inputs: Path) -> None:
    files = [toy_inputs / "start.model", toy_inputs / "data.dat"]
    inspected = [CycleRecord(cycle=1, program="inspect", argv=["inspect"])]
    limit = decide(pack, "main", inspected, files, 2, max_cycles=1)
    assert limit.stop and limit.stop_kind is StopKind.MAX_CYCLES
    nothing = decide(pack, "main", [], files[:1], 1, 20)
    assert nothing.stop and nothing.stop_kind is StopKind.NO_PROGRAM
    going = decide(pack, "main", [], files, 1, 20)
    assert not going.stop and going.stop_kind is None


def test_status_follows_the_kind_not_the_reason_text(
    pack, tmp_path: Path, toy_inputs: Path
) -> None:
    session = tmp_path / "session"
    state = create_session(pack, str(TOY_PACK), toy_inputs, session, max_cycles=5)
    # A reason that reads like another kind must not decide the status.
    stop = CycleRecord(
        cycle=1, program="STOP", reason="max_cycles? no: diagnosed", stop_kind=StopKind.DIRECTIVE
    )
    finish_cycle(session, state, stop, pack, stop=True)
    reloaded = load_session(session)
    assert reloaded.status is SessionStatus.STOPPED and reloaded.finished
    assert reloaded.cycles[-1].stop_kind is StopKind.DIRECTIVE
    assert '"status": "stopped"' in (session / "session.json").read_text()


@pytest.mark.parametrize(
    ("kind", "status"),
    [
        (StopKind.MAX_CYCLES, SessionStatus.MAX_CYCLES),
        (StopKind.DIAGNOSED, SessionStatus.DIAGNOSED),
        (StopKind.COMPLETE, SessionStatus.STOPPED),
        (StopKind.NO_PROGRAM, SessionStatus.STOPPED),
        (None, SessionStatus.STOPPED),
    ],
)
def test_status_after_stop(kind: StopKind | None, status: SessionStatus) -> None:
    assert status_after_stop(kind) is status


def test_cycle_outcome() -> None:
    assert cycle_outcome(StopKind.DIAGNOSED, failed=False, recovery=False) is CycleOutcome.DIAGNOSED
    assert cycle_outcome(None, failed=True, recovery=True) is CycleOutcome.FAILED
    assert cycle_outcome(None, failed=False, recovery=True) is CycleOutcome.RECOVERED
    assert cycle_outcome(StopKind.COMPLETE, failed=False, recovery=False) is CycleOutcome.OK

"""Our in-process flows send Prefect heartbeats only when the environment asks for them."""

from __future__ import annotations

import pytest
from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY

from agentcycle.flows.heartbeat import HEARTBEAT_ENV, heartbeats_if_asked


def test_no_heartbeats_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(HEARTBEAT_ENV, raising=False)
    assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() is not None  # Prefect's default is on
    with heartbeats_if_asked():
        assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() is None
    assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() is not None  # restored after


def test_heartbeats_kept_when_the_environment_sets_them(monkeypatch: pytest.MonkeyPatch) -> None:
    from prefect.settings import temporary_settings

    monkeypatch.setenv(HEARTBEAT_ENV, "60")
    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: 60}), heartbeats_if_asked():
        assert PREFECT_FLOWS_HEARTBEAT_FREQUENCY.value() == 60

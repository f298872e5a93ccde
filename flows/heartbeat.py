"""Prefect's flow-run heartbeats for our in-process runs: sent only when a user asks.

A heartbeat event has one consumer: an automation that marks a run Crashed when its
heartbeats stop (Prefect's "detect zombie flows" recipe), which a self-hosted server has
only if someone creates it. Sending them is not free for a sync flow: at its end Prefect
joins the heartbeat thread, which sleeps in one-second steps, so every session, answer
and evaluation would wait up to a second for nothing (a 21-cycle no-op session: ~25 ms
per cycle). Set PREFECT_FLOWS_HEARTBEAT_FREQUENCY in the environment (and create that
automation) to have them; deployment runs follow Prefect's own setting.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

HEARTBEAT_ENV = "PREFECT_FLOWS_HEARTBEAT_FREQUENCY"


@contextmanager
def heartbeats_if_asked() -> Iterator[None]:
    """Run the flows called inside without heartbeats unless the environment asks."""
    if os.environ.get(HEARTBEAT_ENV):
        yield
        return
    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield

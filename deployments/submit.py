"""Run a session on a work pool's workers instead of in this process, and follow it.

The CLI creates and validates the session as usual (inputs copied, directives read),
then submits `agent_session/agent-session` with the session's folder; a process worker
of the pool runs it. The folder must be reachable from the worker (the same machine or
a shared file system), which is what a lab's compute nodes have. The flow run's logs
are printed as they arrive, so `agentcycle run --via-pool` reads like a local run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import LogFilter, LogFilterFlowRunId
from prefect.client.schemas.sorting import LogSort
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound

from agentcycle.errors import UserError

SESSION_FLOW = "agent_session"
SESSION_DEPLOYMENT = "agent-session"
POLL_SECONDS = 1.0


def check_pool_deployment(pool: str) -> None:
    """The session deployment must be registered with `pool` before anything is sent."""
    name = f"{SESSION_FLOW}/{SESSION_DEPLOYMENT}"
    with get_client(sync_client=True) as client:
        try:
            deployment = client.read_deployment_by_name(name)
        except ObjectNotFound:
            deployment = None
    if deployment is None or deployment.work_pool_name != pool:
        raise UserError(
            f"--via-pool {pool}: {name} is not deployed to that pool; "
            f"run: agentcycle deploy --pool {pool}"
        )


def submit_session(session_dir: Path, label: str, verbosity: str) -> Any:
    """Schedule the session's flow run on the pool; returns it at once (not waited for)."""
    return run_deployment(
        f"{SESSION_FLOW}/{SESSION_DEPLOYMENT}",
        parameters={"session_dir": str(session_dir), "label": label, "verbosity": verbosity},
        timeout=0,
        as_subflow=False,
        tags=["agentcycle", "via-pool"],
    )


def follow(flow_run_id: UUID, echo: Callable[[str], None], timeout_s: float | None = None) -> Any:
    """Print the run's log lines as they arrive until it ends; returns its final state."""
    seen = 0
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    with get_client(sync_client=True) as client:
        while True:
            run = client.read_flow_run(flow_run_id)
            logs = client.read_logs(
                log_filter=LogFilter(flow_run_id=LogFilterFlowRunId(any_=[flow_run_id])),
                sort=LogSort.TIMESTAMP_ASC,
                offset=seen,
            )
            for log in logs:
                echo(f"{log.timestamp:%H:%M:%S} | {log.message}")
            seen += len(logs)
            if run.state is not None and run.state.is_final():
                return run.state
            if deadline is not None and time.monotonic() > deadline:
                raise UserError(f"flow run {flow_run_id}: still {run.state_name} at the timeout")
            time.sleep(POLL_SECONDS)

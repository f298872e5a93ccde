"""A process work pool with two real `prefect worker` processes: `agentcycle deploy`
registers the deployments, `agentcycle run --via-pool` submits sessions and follows
their logs, and the two workers run four sessions between them."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import TOY_PACK, cli_command

from agentcycle.agent.program.state import load_session

SESSIONS = 4


def _env(prefect_api: str, home: Path) -> dict[str, str]:
    return {**os.environ, "PREFECT_API_URL": prefect_api, "AGENTCYCLE_HOME": str(home),
            "PREFECT_WORKER_QUERY_SECONDS": "1"}  # fmt: skip


def _inputs(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "data.dat").write_text("1.8\n")
    (folder / "start.model").write_text("0.40\n")
    return folder


@pytest.fixture
def pool(prefect_api: str, tmp_path: Path) -> Iterator[tuple[str, list[Path]]]:
    """A pool with agentcycle's deployments and two process workers polling it."""
    name = f"test-pool-{uuid.uuid4().hex[:8]}"
    env = _env(prefect_api, tmp_path / "home")
    deployed = subprocess.run(cli_command("deploy", "--pool", name), env=env, text=True,
                              capture_output=True, timeout=300)  # fmt: skip
    assert deployed.returncode == 0, deployed.stderr
    assert "agent_session/agent-session" in deployed.stdout
    assert "ask/ask" in deployed.stdout
    logs = [tmp_path / f"worker{i}.log" for i in range(2)]
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "prefect", "worker", "start", "--pool", name,
             "--type", "process", "--name", f"worker-{i}", "--limit", "1"],
            env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True,
        )
        for i, log in enumerate(logs)
    ]
    try:
        yield name, logs
    finally:
        # An idle Prefect 3.9 worker answers SIGINT ("Sending SIGINT to the process
        # worker") but was seen to linger past 45 s; its runs are over by now, so after a
        # short grace for all of them together the rest are killed, never waited for.
        for worker in workers:
            os.killpg(worker.pid, signal.SIGINT)
        deadline = time.monotonic() + 5
        for worker in workers:
            try:
                worker.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait()


@pytest.mark.slow
def test_four_sessions_through_two_workers(
    pool: tuple[str, list[Path]], prefect_api: str, tmp_path: Path
) -> None:
    name, logs = pool
    env = _env(prefect_api, tmp_path / "home")
    sessions = [tmp_path / f"session{i}" for i in range(SESSIONS)]
    runs = [
        subprocess.Popen(
            cli_command("run", str(TOY_PACK), str(_inputs(tmp_path / f"in{i}")),
                        "--session", str(session), "--via-pool", name),
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i, session in enumerate(sessions)
    ]
    outputs = [(run.wait(timeout=900), *run.communicate()) for run in runs]
    for code, out, err in outputs:
        assert code == 0, err[-2000:]
        assert "submitted" in err and "to pool" in err  # it was sent, not run here
        assert "Beginning flow run" in err  # the run's own log lines, followed
        assert "stop reason" in out
    for session in sessions:
        state = load_session(session)
        assert state.finished and state.cycles[-1].program == "STOP"
    ran = [_flow_runs_taken(log.read_text()) for log in logs]
    assert not ran[0] & ran[1], ran  # no flow run ran twice
    assert len(ran[0] | ran[1]) == SESSIONS and all(ran), ran  # both workers took work


def _flow_runs_taken(worker_log: str) -> set[str]:
    """Flow runs a worker submitted and kept: when two workers both pick up a run, the
    second one's claim is refused ("Aborted submission") and it moves on."""
    submitted = set(re.findall(r"submitting flow run '([0-9a-f-]+)'", worker_log))
    aborted = set(re.findall(r"Aborted submission of flow run '([0-9a-f-]+)'", worker_log))
    return submitted - aborted


def test_via_pool_without_deployment_is_one_line(prefect_api: str, tmp_path: Path) -> None:
    session = tmp_path / "session"
    done = subprocess.run(
        cli_command("run", str(TOY_PACK), str(_inputs(tmp_path / "in")), "--session",
                    str(session), "--via-pool", "no-such-pool"),
        env=_env(prefect_api, tmp_path / "home"), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "agentcycle deploy --pool no-such-pool" in done.stderr
    assert "Traceback" not in done.stderr and not session.exists()

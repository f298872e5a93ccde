"""A served deployment is triggered through the Prefect API and runs a real session."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import yaml
from conftest import PROJECT_ROOT, TOY_PACK, cli_command

from agentcycle.agent.state import load_session


def test_prefect_yaml_points_at_a_real_flow() -> None:
    spec = yaml.safe_load((PROJECT_ROOT / "deployments" / "prefect.yaml").read_text())
    entry = spec["deployments"][0]["entrypoint"]
    path, name = entry.split(":")
    assert (PROJECT_ROOT / path).is_file()
    assert f"def {name}(" in (PROJECT_ROOT / path).read_text()


def test_served_deployment_runs_a_session(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    server = subprocess.Popen(
        cli_command("serve"),
        env={**os.environ, "PREFECT_API_URL": prefect_api},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        with get_client(sync_client=True) as client:
            while True:
                try:
                    client.read_deployment_by_name("agent_run/agent-run")
                    break
                except Exception:
                    assert time.monotonic() < deadline, "deployment never appeared"
                    assert server.poll() is None, "agentcycle serve exited"
                    time.sleep(1)
        session = tmp_path / "triggered"
        run = run_deployment(
            "agent_run/agent-run",
            parameters={
                "pack": str(TOY_PACK),
                "input_dir": str(toy_inputs),
                "session_dir": str(session),
                "goal": "stop after refine",
            },
            timeout=300,
        )
        assert run.state is not None and run.state.is_completed(), run.state
        state = load_session(session)
        assert [c.program for c in state.cycles] == ["inspect", "refine", "STOP"]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)

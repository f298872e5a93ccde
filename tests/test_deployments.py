"""A served deployment is triggered through the Prefect API and runs a real session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT_ROOT, SHARED, TOY_PACK, cli_command, served

from agentcycle.agent.program.state import load_session


def test_prefect_yaml_deploys_with_its_schedule(prefect_api: str) -> None:
    """`prefect deploy --all` on deployments/prefect.yaml, for real: both deployments are
    registered from their entrypoints, the evaluation on its nightly schedule."""
    from prefect.client.orchestration import get_client

    env = {
        **os.environ,
        "PREFECT_API_URL": prefect_api,
        "AGENTCYCLE_PROJECT_DIR": str(PROJECT_ROOT),
        "SHARED_DIR": str(SHARED),
    }
    prefect = [sys.executable, "-m", "prefect", "--no-prompt"]
    for argv in (
        [*prefect, "work-pool", "create", "agentcycle", "--type", "process", "--overwrite"],
        [*prefect, "deploy", "--all", "--prefect-file", "deployments/prefect.yaml"],
    ):
        done = subprocess.run(
            argv, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    with get_client(sync_client=True) as client:
        evaluation = client.read_deployment_by_name("evaluate/eval-dev")
        agent = client.read_deployment_by_name("agent_run/agent-run")
    assert evaluation.schedules[0].schedule.cron == "0 2 * * *"
    assert evaluation.parameters["suite_path"] == f"{SHARED}/data/qa/dev.yaml"
    assert (SHARED / "data" / "qa" / "dev.yaml").is_file()
    assert evaluation.work_pool_name == agent.work_pool_name == "agentcycle"
    assert agent.entrypoint == "flows/agent_session.py:agent_run"


def test_served_deployment_runs_a_session(
    prefect_api: str, toy_inputs: Path, tmp_path: Path
) -> None:
    from prefect.deployments import run_deployment

    from agentcycle.deployments.agent_run import deploy_to_pool

    # A work-pool deployment of the same name first (a user who ran `agentcycle deploy`):
    # serving must take the name over, or its runs go to the pool's settings and crash.
    deploy_to_pool("stale-pool")
    with served(cli_command("serve"), prefect_api, "agent_run/agent-run"):
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

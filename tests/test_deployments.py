"""A served deployment is triggered through the Prefect API and runs a real session."""

from __future__ import annotations

from pathlib import Path

import yaml
from conftest import PROJECT_ROOT, TOY_PACK, cli_command, served

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
    from prefect.deployments import run_deployment

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

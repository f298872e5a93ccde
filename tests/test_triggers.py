"""Event-triggered runs on the real Prefect server: a re-ingested corpus starts the
evaluation deployed over it; a regression is POSTed to a webhook by an automation."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import ClassVar

import pytest
import yaml
from conftest import SHARED, cli_command, served
from loopback import serving

DEV = SHARED / "data" / "qa" / "dev.yaml"


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    data = yaml.safe_load(DEV.read_text())
    suite = {
        "name": "trigger-seeds",
        "kind": "qa",
        "corpus_root": str((DEV.parent / data["corpus_root"]).resolve()),
        "corpus": ["seeds/*.md"],
        "questions": [q for q in data["questions"] if q["id"] == "d012"],
    }
    path = tmp_path / "trigger-seeds.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def _runs_of(deployment_name: str, corpus: str) -> list:
    """Runs of the deployment started for `corpus`: the trigger's, not the nightly
    schedule's (the scheduler service adds those whenever its loop comes round)."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import DeploymentFilter, DeploymentFilterName

    with get_client(sync_client=True) as client:
        runs = client.read_flow_runs(
            deployment_filter=DeploymentFilter(name=DeploymentFilterName(any_=[deployment_name]))
        )
    return [run for run in runs if run.parameters.get("corpus") == corpus]


@pytest.mark.slow
def test_reingesting_a_corpus_runs_the_suite_deployed_over_it(
    suite_file: Path, prefect_api: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "note.md").write_text("# Note\n\nThe default number of cycles is 20.\n")
    argv = cli_command("serve", "--suite", str(suite_file), "--on-corpus", "trigger-docs")
    with served(argv, prefect_api, "evaluate/eval-trigger-seeds"):
        assert _runs_of("eval-trigger-seeds", "trigger-docs") == []
        env = {**__import__("os").environ, "PREFECT_API_URL": prefect_api}
        ingest = cli_command("ingest", "trigger-docs", str(docs))
        done = subprocess.run(ingest, capture_output=True, text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
        deadline = time.monotonic() + 90
        while not (runs := _runs_of("eval-trigger-seeds", "trigger-docs")):
            assert time.monotonic() < deadline, "no evaluation run followed the re-ingest"
            time.sleep(2)
        assert len(runs) == 1 and runs[0].parameters["suite_path"] == str(suite_file.resolve())
        # An unchanged corpus emits no event: a second ingest starts nothing new.
        subprocess.run(ingest, capture_output=True, text=True, env=env, timeout=300, check=True)
        time.sleep(10)
        assert len(_runs_of("eval-trigger-seeds", "trigger-docs")) == 1


class _Recorder(BaseHTTPRequestHandler):
    bodies: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        self.bodies.append(json.loads(self.rfile.read(length) or b"{}"))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def webhook() -> Iterator[tuple[str, list[dict]]]:
    """A loopback HTTP server that records what is POSTed to it (the webhook's receiver)."""
    _Recorder.bodies = []
    with serving(HTTPServer(("127.0.0.1", 0), _Recorder)) as server:
        yield f"http://127.0.0.1:{server.server_port}/hook", _Recorder.bodies


@pytest.mark.slow
def test_a_regression_is_posted_to_the_webhook(
    prefect_api: str, webhook: tuple[str, list[dict]]
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.events import emit_event
    from prefect.events.worker import EventsWorker

    from agentcycle.deployments.triggers import REGRESSION_AUTOMATION, regression_webhook
    from agentcycle.prefect_events import EVALUATION_REGRESSED, evaluation_resource

    url, bodies = webhook
    regression_webhook(url)
    regression_webhook(url)  # idempotent: replaced, not doubled
    with get_client(sync_client=True) as client:
        assert len(client.read_automations_by_name(name=REGRESSION_AUTOMATION)) == 1
    # The server's triggers service picks a new automation up on its own schedule, and
    # an event that lands before then is (rightly) not acted on. So emit one regression
    # per attempt, each for its own run, until the webhook hears of one.
    deadline = time.monotonic() + 120
    attempt = 0
    while not bodies:
        assert time.monotonic() < deadline, "the automation never called the webhook"
        attempt += 1
        emit_event(
            EVALUATION_REGRESSED,
            resource=evaluation_resource(f"run-b{attempt}", "nightly"),
            payload={"run_a": "run-a", "delta": -0.25, "p_value": 0.0156, "broken": ["q1"]},
        )
        EventsWorker.drain_all()
        for _ in range(10):
            if bodies:
                break
            time.sleep(1)
    time.sleep(3)
    runs = [body["run"] for body in bodies]
    assert len(runs) == len(set(runs)), f"one regression was posted twice: {runs}"
    assert bodies[0]["suite"] == "nightly" and bodies[0]["event"] == EVALUATION_REGRESSED
    assert bodies[0]["p_value"] == "0.0156" and bodies[0]["run"].startswith(
        "agentcycle.evaluation.run-b"
    )


def test_bad_trigger_options_fail_before_any_work(tmp_path: Path) -> None:
    import os
    import subprocess

    for extra, word in (
        (["--regression-webhook", "ftp://x"], "--regression-webhook"),
        (["--on-corpus", "../x"], "corpus"),
    ):
        done = subprocess.run(
            cli_command("deploy", *extra), capture_output=True, text=True, timeout=60,
            env={**os.environ, "AGENTCYCLE_HOME": str(tmp_path / "h")},
        )  # fmt: skip
        assert done.returncode == 2 and word in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "h").exists()

"""Evaluation suites for real: five dev.yaml questions over the seeds corpus (the real
embedding model, LanceDB, Parquet) through the `evaluate` flow on the session's Prefect
server; the report rendered in headless Chromium; interrupt/resume; comparison."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from conftest import SHARED, render_in_chromium, served
from typer.testing import CliRunner

DEV = SHARED / "data" / "qa" / "dev.yaml"
SEED_IDS = ("d012", "d013", "d020", "d021", "d024")  # simple ×2, mc ×2, unanswerable


@pytest.fixture(scope="module")
def suite_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small suite: the dev.yaml questions answerable from the seeds corpus alone."""
    data = yaml.safe_load(DEV.read_text())
    folder = tmp_path_factory.mktemp("suite")
    small = {
        "name": "dev-seeds",
        "kind": "qa",
        "corpus_root": str((DEV.parent / data["corpus_root"]).resolve()),
        "corpus": ["seeds/*.md"],
        "questions": [q for q in data["questions"] if q["id"] in SEED_IDS],
    }
    path = folder / "dev-seeds.yaml"
    path.write_text(yaml.safe_dump(small, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def eval_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("eval-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTCYCLE_HOME", str(home))
        yield home


@pytest.fixture
def home(eval_home: Path, prefect_api: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(eval_home))
    return eval_home


# ---------------------------------------------------------------- pure parts


def test_scorers_record_value_expected_score_and_why() -> None:
    from agentcycle.evaluation.scorers import (
        Chunk,
        contains,
        exact,
        grounding,
        insufficient,
        mc_letter,
        numeric,
        sequence_match,
    )

    assert contains("The default is **20** cycles.", ["20"]).score == 1.0
    assert contains("Keep it to 3  to 4 Sentences", ["3-4", "3 to 4 sentences"]).score == 1.0
    assert exact(" Top 8 ", ["top 8"]).score == 1.0 and exact("8 docs", ["8"]).score == 0.0
    assert numeric("R-free was 0.2449", "0.245", 0.001).score == 1.0
    assert numeric("none", "0.245", 0.001).explanation == "no number in the answer"
    assert mc_letter("b", "B").score == 1.0 and mc_letter(None, "B").explanation
    assert insufficient(False, "INSUFFICIENT: insufficient evidence in the corpus").score == 1.0
    chunks = {"c1": Chunk("unrelated"), "c2": Chunk("see the   Quote here", "f.md", 0, 50)}
    hit = grounding(["c1", "c2"], chunks, [("f.md", "the quote", None)])
    assert hit.score == 1.0 and "c2" in hit.explanation
    assert grounding(["c1"], chunks, [("f.md", "the quote", (10, 20))]).score == 0.0
    overlap = grounding(["c2"], chunks, [("f.md", "not in text", (40, 60))])
    assert overlap.score == 1.0 and "overlaps" in overlap.explanation
    miss = sequence_match(["a", "b", "STOP"], ["a", "c", "STOP"])
    assert miss.score == 0.0 and "step 2" in miss.explanation
    assert set(miss.as_dict()) == {"scorer", "value", "expected", "score", "explanation"}


def test_schema_errors_name_file_sample_and_field(tmp_path: Path) -> None:
    from agentcycle.evaluation.suites import SuiteError, load_suite

    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "name: x\nquestions:\n- {id: q1, type: simple, question: 'Q?', answer: '1'}\n"
        "- {id: q2, type: essay, question: 'Q?', answer: '2'}\n"
    )
    with pytest.raises(SuiteError) as error:
        load_suite(bad)
    assert str(bad) in str(error.value) and "sample q2" in str(error.value)
    assert "field type" in str(error.value)
    jsonl = tmp_path / "s.jsonl"
    jsonl.write_text(
        '{"suite": {"name": "j", "kind": "qa"}}\n'
        '{"id": "a", "type": "mc", "question": "Q?", "answer": "B",'
        ' "choices": {"A": "x", "B": "y"}}\n'
        '{"id": "b", "type": "simple", "answer": "2"}\n'
    )
    with pytest.raises(SuiteError, match=r"sample b: field question"):
        load_suite(jsonl)


# ---------------------------------------------------------------- real runs


def raw_rows(run_id: str) -> list[dict]:
    from agentcycle.storage.query import run_query

    return run_query(
        "SELECT * FROM eval_samples WHERE run_id = $r", parameters={"r": run_id}
    ).to_pylist()


@pytest.fixture(scope="module")
def first_run(eval_home: Path, prefect_api: str, suite_file: Path) -> dict:
    """One full run of the small suite (module-scoped: later tests compare against it)."""
    from agentcycle.flows.evaluate import run_evaluate

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTCYCLE_HOME", str(eval_home))
        return run_evaluate(suite_file, concurrency=2)


def test_suite_run_writes_rows_and_a_report(first_run: dict, home: Path, tmp_path: Path) -> None:
    from prefect.client.orchestration import get_client

    from agentcycle.storage.query import run_query, run_report

    run_id = first_run["run_id"]
    rows = raw_rows(run_id)
    assert sorted(r["sample_id"] for r in rows) == sorted(SEED_IDS)
    assert all(r["error"] is None for r in rows), [r["error"] for r in rows]
    assert first_run["samples"] == 5 and first_run["accuracy"] >= 0.6, first_run
    assert set(first_run["by_type"]) == {"simple", "mc", "unanswerable"}
    by_id = {r["sample_id"]: r for r in rows}
    assert by_id["d020"]["scores"][0]["scorer"] == "mc_letter"
    answers = {q["id"]: str(q["answer"]) for q in yaml.safe_load(DEV.read_text())["questions"]}
    assert all(by_id[s]["expected"] == answers[s] for s in SEED_IDS)
    assert by_id["d020"]["answer"] == answers["d020"]  # an MC answer is its letter
    assert by_id["d024"]["scores"][0]["scorer"] == "insufficient"
    assert all(r["retrieval_calls"] > 0 and r["epoch"] == 0 for r in rows)
    assert by_id["d012"]["grounded"] is True and by_id["d024"]["grounded"] is None
    assert first_run["calls_per_question"] > 0
    runs = run_query("SELECT * FROM eval_runs WHERE run_id = $r", parameters={"r": run_id})
    (run,) = runs.to_pylist()
    assert run["suite_hash"] and run["code_version"] and run["provider"] == "rules"
    assert run["concurrency"] == 2 and run["epochs"] == 1 and run["corpus"] == "dev-seeds"
    assert run["latency_p95"] >= run["latency_p50"] > 0 and run["grounding_rate"] == 1.0
    assert {t["type"]: t["n"] for t in run["by_type"]} == {"simple": 2, "mc": 2, "unanswerable": 1}
    # The columns are real: DuckDB groups on a scorer's verdicts without parsing JSON.
    scorers = run_query(
        "SELECT s.scorer, count(*) AS n FROM (SELECT unnest(scores) AS s FROM eval_samples "
        "WHERE run_id = $r) GROUP BY ALL ORDER BY 1",
        parameters={"r": run_id},
    ).to_pylist()
    assert {"mc_letter", "insufficient", "grounding"} <= {s["scorer"] for s in scorers}
    trend = run_report("eval-trend", suite="dev-seeds").to_pylist()
    assert [t["run_id"] for t in trend] == [run_id]
    with get_client(sync_client=True) as client:
        artifact = client.read_latest_artifacts()
        assert any(a.key == "eval-dev-seeds" for a in artifact)

    shot, dom = render_in_chromium(Path(first_run["report"]), tmp_path)
    assert shot.stat().st_size > 10_000
    assert f"accuracy {first_run['accuracy']:.1%}" in dom
    assert 'alt="accuracy by type"' in dom and "data:image/png;base64," in dom


@pytest.mark.slow
def test_killed_cli_run_resumes_without_loss_or_repeat(
    home: Path, suite_file: Path, prefect_api: str, tmp_path: Path
) -> None:
    """`agentcycle eval` SIGKILLed part-way (a crash, an OOM kill), then resumed by the run
    id it announced: every sample recorded exactly once, nothing half-written."""
    import os
    import signal
    import subprocess
    import time

    from conftest import cli_command

    data = yaml.safe_load(suite_file.read_text())
    data["questions"] = [  # 20 questions: long enough to be caught part-way
        {**q, "id": f"{q['id']}-{n}"} for n in range(4) for q in data["questions"]
    ]
    data["name"] = "dev-seeds-20"
    suite = tmp_path / "twenty.yaml"
    suite.write_text(yaml.safe_dump(data, sort_keys=False))
    env = {**os.environ, "AGENTCYCLE_HOME": str(home), "PREFECT_API_URL": prefect_api}
    argv = cli_command("eval", str(suite), "--concurrency", "1", "--corpus", "dev-seeds")
    log = tmp_path / "stderr.txt"  # a file, not a pipe: a chatty child never blocks on it
    with log.open("w") as stderr:
        agent = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=stderr, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 240
        announced: list[str] = []
        while not announced:
            assert agent.poll() is None and time.monotonic() < deadline, log.read_text()
            announced = [ln for ln in log.read_text().splitlines() if ln.startswith("run ")]
            time.sleep(0.05)
        assert "--resume" in announced[0], announced
        run_id = announced[0].split()[1]
        while len(raw_rows(run_id)) < 3:
            assert agent.poll() is None, "the run ended before it could be interrupted"
            assert time.monotonic() < deadline, "no samples recorded in time"
            time.sleep(0.05)
    finally:
        os.killpg(agent.pid, signal.SIGKILL)
        agent.wait(timeout=30)
    shown = log.read_text()  # the progress bar, not a "Finished in state" line per task
    assert "/20 [" in shown and "Task run 'eval-" not in shown, shown[-2000:]
    before = Counter(r["sample_id"] for r in raw_rows(run_id))
    assert 3 <= len(before) < 20 and set(before.values()) == {1}, before
    folder = home / "datasets" / "eval_samples"
    assert not list(folder.glob("*/*.parquet")) or all(  # no torn file is ever visible
        p.stat().st_size > 0 for p in folder.glob("*/*.parquet")
    )

    resumed = subprocess.run(
        [*argv, "--resume", run_id, "--no-progress"], env=env, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "Task run 'eval-" in resumed.stderr  # --no-progress: Prefect's own lines
    assert "/20 " in resumed.stdout and run_id in resumed.stdout
    after = Counter(r["sample_id"] for r in raw_rows(run_id))
    assert len(after) == 20 and set(after.values()) == {1}  # nothing lost, nothing twice
    assert all(after[s] == 1 for s in before)

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterName

    with get_client(sync_client=True) as client:  # the UI shows both under the announced id
        runs = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=[f"eval-{run_id}"]))
        )
    assert len(runs) == 2 and any(r.state and r.state.is_completed() for r in runs)


def test_interrupted_run_resumes_without_loss_or_repeat(
    home: Path, suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcycle.evaluation import samples
    from agentcycle.flows import evaluate as evaluation

    part = evaluation.run_evaluate(suite_file, concurrency=2, limit=2, report=False)
    run_id = part["run_id"]
    assert len(raw_rows(run_id)) == 2  # "interrupted" after two samples

    real = samples.answer_sample

    def flaky(suite, sample, tools):
        if sample.id == "d021":
            raise RuntimeError("provider went away")
        return real(suite, sample, tools)

    monkeypatch.setattr(samples, "answer_sample", flaky)
    resumed = evaluation.run_evaluate(suite_file, run_id=run_id, resume=True, report=False)
    assert resumed["samples"] == 5 and resumed["errors"] == 1
    counts = Counter(r["sample_id"] for r in raw_rows(run_id))
    assert counts == Counter(dict.fromkeys(SEED_IDS, 1))  # nothing lost, nothing twice
    failed = [r for r in raw_rows(run_id) if r["error"]]
    assert [r["sample_id"] for r in failed] == ["d021"] and "went away" in failed[0]["error"]

    monkeypatch.setattr(samples, "answer_sample", real)
    retried = evaluation.run_evaluate(suite_file, run_id=run_id, retry_failed=True)
    assert retried["errors"] == 0 and retried["samples"] == 5
    counts = Counter(r["sample_id"] for r in raw_rows(run_id))
    assert counts["d021"] == 2 and all(counts[s] == 1 for s in SEED_IDS if s != "d021")
    again = evaluation.run_evaluate(suite_file, run_id=run_id, resume=True, report=False)
    assert len(raw_rows(run_id)) == 6 and again["samples"] == 5  # nothing left to run
    from agentcycle.storage.query import run_query

    runs = run_query("SELECT samples FROM eval_runs WHERE run_id = $r",
                     parameters={"r": run_id}, lancedb=False)
    assert runs.column("samples").to_pylist() == [5]  # one row per run, over all samples


def test_a_run_searches_one_corpus_version_read_once(
    home: Path, suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The flow reads the corpus version once and every sample searches it: no store
    round trip per question, and a re-ingest mid-run cannot mix two versions."""
    from agentcycle.flows import evaluate as evaluation
    from agentcycle.tasks import research

    reads: list[str] = []
    real = research.version_key

    def counted(corpus: str) -> str:
        reads.append(corpus)
        return real(corpus)

    monkeypatch.setattr(research, "version_key", counted)
    monkeypatch.setattr(evaluation, "version_key", counted)
    seen: list[str] = []
    real_init = research.PrefectTools.__init__

    def recording_init(self, *args, **kwargs) -> None:
        real_init(self, *args, **kwargs)
        seen.append(self.corpus_version)

    monkeypatch.setattr(research.PrefectTools, "__init__", recording_init)
    summary = evaluation.run_evaluate(suite_file, concurrency=2, report=False)
    assert summary["samples"] == len(SEED_IDS) and summary["errors"] == 0
    assert len(reads) == 1, reads  # the flow's; the warm-up and every sample reuse it
    assert len(seen) == len(SEED_IDS) and len(set(seen)) == 1 and "@" in seen[0]


def test_compare_two_runs(first_run: dict, home: Path) -> None:
    from typer.testing import CliRunner

    from agentcycle.evaluation.runs import compare_runs
    from agentcycle.storage.datasets import append_rows

    # Run B: the first run with two answers made wrong (a regression, on purpose).
    rows = raw_rows(first_run["run_id"])
    worse = []
    for row in rows:
        row = {k: v for k, v in row.items() if k not in ("recorded_at", "schema_version", "date")}
        row["run_id"] = "worse"
        if row["sample_id"] in ("d012", "d020"):
            row["correct"] = False
        worse.append(row)
    append_rows("eval_samples", worse)
    result = compare_runs(first_run["run_id"], "worse")
    assert result["shared"] == 5
    assert set(result["broken"]) <= {"d012", "d020"} and not result["fixed"]
    assert result["by_type"]["unanswerable"]["delta"] == 0
    assert 0 < result["p_value"] <= 1 and not result["regressed"]  # 2 flips: not significant

    import typer

    from agentcycle.cli.evaluation import eval_command

    app = typer.Typer()
    app.command()(eval_command)
    out = CliRunner().invoke(app, ["compare", first_run["run_id"], "worse"])
    assert out.exit_code == 0, out.output
    assert "McNemar exact p" in out.output and "broken:" in out.output


def test_scenario_suite_runs_replays(home: Path, tmp_path: Path) -> None:
    """Kind `scenario`: each sample replays a scenario folder through the session flow."""
    from conftest import TESTS_DIR

    from agentcycle.flows.evaluate import run_evaluate

    folder = TESTS_DIR / "scenarios" / "xray_stop_after_refinement"
    (tmp_path / "stop-after-refine").symlink_to(folder, target_is_directory=True)
    suite = tmp_path / "scenarios.yaml"
    suite.write_text(  # samples found by glob: every folder with a scenario.yaml
        yaml.safe_dump({"name": "scenarios-smoke", "kind": "scenario", "scenario_glob": "*"})
    )
    summary = run_evaluate(suite, concurrency=1, report=False)
    (row,) = raw_rows(summary["run_id"])
    assert row["error"] is None and row["correct"], row
    assert [s["scorer"] for s in row["scores"]] == ["scenario", "sequence"]
    assert row["answer"].endswith("phenix.refine > STOP")


def test_cli_eval_prints_accuracy_by_type(
    home: Path, suite_file: Path, prefect_api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import typer
    from typer.testing import CliRunner

    from agentcycle.cli.evaluation import eval_command

    monkeypatch.setenv("PREFECT_API_URL", prefect_api)  # never start a second server
    app = typer.Typer()
    app.command()(eval_command)
    out = CliRunner().invoke(app, [str(suite_file), "--limit", "2", "--concurrency", "1"])
    assert out.exit_code == 0, out.output
    assert "simple" in out.output and "±" in out.output and "report: " in out.output


def test_served_evaluation_deployment_runs_and_leaves_artifacts(
    home: Path, suite_file: Path, prefect_api: str, first_run: dict
) -> None:
    import sys

    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterFlowRunId
    from prefect.deployments import run_deployment

    from agentcycle.deployments.evaluation import NIGHTLY, deployment_name, evaluate_deployments

    (deployment,) = evaluate_deployments([suite_file])
    assert deployment.name == deployment_name("dev-seeds") == "eval-dev-seeds"
    assert deployment.schedules[0].schedule.cron == NIGHTLY
    code = (
        "from agentcycle.deployments.evaluation import serve_evaluations; "
        f"serve_evaluations([{str(suite_file)!r}])"
    )
    with (
        served([sys.executable, "-c", code], prefect_api, "evaluate/eval-dev-seeds"),
        get_client(sync_client=True) as client,
    ):
        run = run_deployment(
            "evaluate/eval-dev-seeds", parameters={"limit": 1, "report": False}, timeout=300
        )
        assert run.state is not None and run.state.is_completed(), run.state
        artifacts = client.read_artifacts(
            artifact_filter=ArtifactFilter(flow_run_id=ArtifactFilterFlowRunId(any_=[run.id]))
        )
        assert any(a.key == "eval-dev-seeds" and a.type == "table" for a in artifacts)


def test_epochs_repeat_every_sample_under_its_own_key(suite_file: Path) -> None:
    from agentcycle.evaluation.runs import plan
    from agentcycle.evaluation.suites import load_suite

    todo = plan(load_suite(suite_file), "r", limit=2, epochs=3, resume=False, retry_failed=False)
    keys = [key for _, key, _ in todo]
    assert keys == ["d012", "d012@1", "d012@2", "d013", "d013@1", "d013@2"]


def test_fail_on_regression_exits_non_zero_on_a_significant_drop(home: Path) -> None:
    """Two recorded runs of eight samples: B breaks seven that A got right (McNemar p ≈ 0.016)."""
    import typer
    from typer.testing import CliRunner

    from agentcycle.cli import evaluation as cli_eval
    from agentcycle.storage.datasets import append_rows

    def run(run_id: str, wrong: set[str]) -> list[dict]:
        return [
            {"run_id": run_id, "suite": "drop", "sample_id": f"q{i}", "sample_type": "simple",
             "correct": f"q{i}" not in wrong, "latency_s": 0.1}
            for i in range(8)
        ]  # fmt: skip

    append_rows("eval_samples", run("drop-a", set()) + run("drop-b", {f"q{i}" for i in range(7)}))
    app = typer.Typer()
    app.command()(cli_eval.eval_command)
    out = CliRunner().invoke(app, ["compare", "drop-a", "drop-b", "--fail-on-regression"])
    assert out.exit_code == 1 and "REGRESSION" in out.output, out.output
    assert "McNemar exact p = 0.0156" in out.output
    assert CliRunner().invoke(app, ["compare", "drop-a", "drop-b"]).exit_code == 0
    backwards = CliRunner().invoke(app, ["compare", "drop-b", "drop-a", "--fail-on-regression"])
    assert backwards.exit_code == 0 and "REGRESSION" not in backwards.output  # an improvement


def test_deploy_registers_a_scheduled_suite_that_a_process_worker_runs(
    home: Path, suite_file: Path, prefect_api: str, tmp_path: Path
) -> None:
    """`agentcycle deploy` registers with a process work pool; a real `prefect worker`
    picks up a triggered run, loads the flow from source and finishes it."""
    import os
    import subprocess

    from prefect.client.orchestration import get_client
    from prefect.deployments import run_deployment

    from agentcycle.cli.main import app

    data = yaml.safe_load(suite_file.read_text())
    suite = tmp_path / "pooled.yaml"
    suite.write_text(yaml.safe_dump({**data, "name": "pooled"}, sort_keys=False))
    runner = CliRunner()
    bad = runner.invoke(app, ["deploy", "--suite", str(suite), "--cron", "61 2 * * *"])
    assert bad.exit_code != 0 and "--cron '61 2 * * *'" in str(bad.exception)
    out = runner.invoke(app, ["deploy", "--suite", str(suite), "--pool", "test-pool"])
    assert out.exit_code == 0, out.output
    assert "deployed evaluate/eval-pooled to pool test-pool" in out.output
    with get_client(sync_client=True) as client:
        deployment = client.read_deployment_by_name("evaluate/eval-pooled")
        assert deployment.work_pool_name == "test-pool"
        assert deployment.schedules[0].schedule.cron == "0 2 * * *"
        assert deployment.parameters["suite_path"] == str(suite.resolve())
        assert client.read_deployment_by_name("agent_run/agent-run").work_pool_name == "test-pool"

    run = run_deployment(
        "evaluate/eval-pooled",
        parameters={"limit": 1, "report": False, "corpus": "dev-seeds"},
        timeout=0,
    )
    env = {**os.environ, "AGENTCYCLE_HOME": str(home), "PREFECT_API_URL": prefect_api}
    worker = subprocess.run(
        [sys.executable, "-m", "prefect", "worker", "start", "--pool", "test-pool", "--run-once"],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert worker.returncode == 0, worker.stderr[-3000:]
    with get_client(sync_client=True) as client:
        finished = client.read_flow_run(run.id)
    assert finished.state is not None and finished.state.is_completed(), finished.state

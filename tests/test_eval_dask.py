"""Evaluation on a real Dask cluster (prefect-dask's DaskTaskRunner, a LocalCluster of
worker processes): the same rows as a run on threads, and every sample a task run."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from conftest import SHARED

DEV = SHARED / "data" / "qa" / "dev.yaml"
SEED_IDS = ("d012", "d013", "d020", "d021", "d024")  # simple ×2, mc ×2, unanswerable


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    data = yaml.safe_load(DEV.read_text())
    suite = {
        "name": "dask-seeds",
        "kind": "qa",
        "corpus_root": str((DEV.parent / data["corpus_root"]).resolve()),
        "corpus": ["seeds/*.md"],
        "questions": [q for q in data["questions"] if q["id"] in SEED_IDS],
    }
    path = tmp_path / "dask-seeds.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def _verdicts(run_id: str) -> dict[str, tuple]:
    from agentcycle.evaluation.runs import run_samples

    return {r["sample_id"]: (r["correct"], r["answer"], r["error"]) for r in run_samples(run_id)}


@pytest.mark.slow
def test_dask_workers_give_the_same_rows_as_threads(
    suite_file: Path,
    prefect_api: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        FlowRunFilter,
        FlowRunFilterId,
        FlowRunFilterName,
        LogFilter,
        LogFilterTaskRunId,
    )

    from agentcycle.flows.evaluate import run_evaluate

    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    threads = run_evaluate(suite_file, concurrency=1, report=False, run_id="dask-threads")
    capfd.readouterr()
    dask = run_evaluate(suite_file, workers=2, report=False, run_id="dask-workers")
    # The workers' consoles print no line per task run (it would tear the progress bar)
    assert "Task run 'eval-" not in capfd.readouterr().err

    assert dask["samples"] == threads["samples"] == len(SEED_IDS)
    assert dask["errors"] == 0
    assert _verdicts("dask-workers") == _verdicts("dask-threads")
    with get_client(sync_client=True) as client:
        run = client.read_flow_runs(
            flow_run_filter=FlowRunFilter(name=FlowRunFilterName(any_=["eval-dask-workers"]))
        )[0]
        # The server records task runs from events, in batches: wait for the last batch.
        deadline = time.monotonic() + 60
        while True:
            tasks = client.read_task_runs(
                flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[run.id]))
            )
            done = [t for t in tasks if t.state.is_completed()]
            workers = [t for t in done if t.name.startswith("eval-worker-")]
            sample_runs = [t for t in done if t.name.startswith("eval-") and t not in workers]
            if len(sample_runs) >= len(SEED_IDS) and len(workers) >= 2:
                break
            if time.monotonic() > deadline:
                break
            time.sleep(1)
    assert sorted(t.name for t in sample_runs) == sorted(f"eval-{s}" for s in SEED_IDS)
    # One long task per worker thread drew the samples from the run's queue.
    assert sorted(t.name for t in workers) == ["eval-worker-0", "eval-worker-1"]
    # A sample's searches ran inside its own task run, not as task runs of their own.
    assert not [t for t in tasks if t.name.startswith("retrieve")]
    # … while the Prefect UI still gets every task run's log lines.
    wanted, logged = {t.id for t in sample_runs}, set()
    deadline = time.monotonic() + 30  # workers send their log lines in batches
    with get_client(sync_client=True) as client:
        while logged != wanted and time.monotonic() < deadline:
            logs = client.read_logs(LogFilter(task_run_id=LogFilterTaskRunId(any_=list(wanted))))
            logged = {log.task_run_id for log in logs}
            time.sleep(0.5)
    assert logged == wanted

    from agentcycle.storage.query import run_query

    settings = run_query(
        "SELECT workers, concurrency FROM eval_runs WHERE run_id = 'dask-workers'"
    ).to_pylist()
    assert settings == [{"workers": 2, "concurrency": 2}]


def test_bad_dask_options_are_one_line_errors(suite_file: Path, tmp_path: Path) -> None:
    import subprocess

    from conftest import cli_command

    for extra, message in (
        (["--workers", "2", "--dask-address", "tcp://127.0.0.1:8786"], "choose one"),
        (["--dask-address", "http://x y"], "--dask-address"),
        (["--workers", "0"], "--workers"),
    ):
        done = subprocess.run(
            cli_command("eval", str(suite_file), *extra),
            capture_output=True, text=True, timeout=120,
            env={**__import__("os").environ, "AGENTCYCLE_HOME": str(tmp_path / "h")},
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "h" / "datasets").exists()


def _slow_then_two_verdicts(queue_name: str) -> None:
    """A worker whose first sample takes longer than a second (fresh imports), then two."""
    from distributed import Queue

    done = Queue(queue_name)
    time.sleep(1.5)
    done.put(True)
    done.put(False)


def test_following_a_slow_worker_logs_no_scheduler_error() -> None:
    """The flow follows finished samples without a read that times out on the scheduler
    (logged there as an ERROR traceback), and stops when the workers end one short."""
    import logging

    from distributed import Client, LocalCluster, Queue
    from tqdm import tqdm

    from agentcycle.flows.evaluate import follow_verdicts

    errors: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = errors.append  # type: ignore[method-assign]
    scheduler_log = logging.getLogger("distributed.core")
    scheduler_log.addHandler(handler)
    try:
        with (
            LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                         dashboard_address=None) as cluster,  # fmt: skip
            Client(cluster) as client,
            tqdm(total=3, disable=True) as bar,
        ):
            done = Queue("follow-test", client=client)
            worker = client.submit(_slow_then_two_verdicts, "follow-test")
            came = follow_verdicts(done, 3, worker.done, bar)
    finally:
        scheduler_log.removeHandler(handler)
    assert came == 2  # the third never comes: following ends with the worker, not hangs
    assert [r.getMessage() for r in errors] == []


def test_two_local_clusters_at_once_share_no_port() -> None:
    """Two evaluations on local clusters at once (two terminals, a nightly run beside a
    person's): each scheduler's HTTP server takes a free loopback port, so neither warns
    that Dask's fixed port 8787 is taken."""
    import warnings

    import psutil

    from agentcycle.flows.evaluate import sample_runner

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with (
            sample_runner(concurrency=1, workers=1, dask_address=None) as first,
            sample_runner(concurrency=1, workers=1, dask_address=None) as second,
        ):
            assert first.client.nthreads() and second.client.nthreads()  # both are up
            processes = [psutil.Process(), *psutil.Process().children(recursive=True)]
            listening = [
                c.laddr
                for p in processes
                for c in p.net_connections("tcp")
                if c.status == "LISTEN"
            ]
    assert not [str(w.message) for w in caught if "already in use" in str(w.message)]
    assert listening and all(address.ip == "127.0.0.1" for address in listening), listening


def test_local_cluster_housekeeping_is_slowed_in_its_processes_only() -> None:
    """An evaluation cluster's workers run with Dask's profiler off and its watchdog
    slowed (they would take ~5 % of the cores the samples need); the config is handed to
    them at start, and the calling process's own Dask config is left as it was."""
    import dask
    from distributed import Client

    from agentcycle.flows.evaluate import CLUSTER_CONFIG, local_cluster

    before = {key: dask.config.get(key) for key in CLUSTER_CONFIG}
    with local_cluster(1) as cluster, Client(cluster, set_as_default=False) as client:
        seen = client.run(lambda: {key: dask.config.get(key) for key in CLUSTER_CONFIG})
        tick = cluster.scheduler._tick_interval
    assert list(seen.values()) == [CLUSTER_CONFIG]
    assert tick == 0.5  # the scheduler, in this process, read it as it started
    assert {key: dask.config.get(key) for key in CLUSTER_CONFIG} == before
    assert before["distributed.worker.profile.enabled"] is True  # Dask's default here


def test_a_default_client_of_another_cluster_is_an_error_not_a_detour() -> None:
    """prefect-dask sends a flow's tasks to the process's default client's cluster
    whatever address it is given: with such a client open on another scheduler (a
    notebook), `--dask-address` stops with one line naming both, instead of running the
    samples elsewhere; a default client of the very scheduler asked for is fine."""
    from distributed import Client, LocalCluster

    from agentcycle.errors import UserError
    from agentcycle.flows.evaluate import LOOPBACK_ANY_PORT, sample_runner

    def cluster() -> LocalCluster:
        return LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                            dashboard_address=LOOPBACK_ANY_PORT)  # fmt: skip

    with cluster() as asked, cluster() as other:
        with Client(other):
            with pytest.raises(UserError) as raised:
                sample_runner(concurrency=1, workers=None, dask_address=asked.scheduler_address)
            assert asked.scheduler_address in str(raised.value)
            assert other.scheduler_address in str(raised.value)
        with Client(asked):
            sample_runner(concurrency=1, workers=None, dask_address=asked.scheduler_address)
        sample_runner(concurrency=1, workers=None, dask_address=asked.scheduler_address)

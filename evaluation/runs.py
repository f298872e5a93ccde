"""Evaluation runs in the store: their ids, what is left to run, and reading them back.

Each finished sample is one `eval_samples` row, appended at once; a retried sample adds
a row, so readers take the newest row per (run, sample) and a retried sample counts
once. `plan` uses that to resume a run (skip what is recorded) or retry its failures.
"""

from __future__ import annotations

import re
import subprocess
import uuid
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from agentcycle.errors import UserError
from agentcycle.evaluation.statistics import compare, summarise
from agentcycle.evaluation.suites import QaSample, ScenarioSample, Suite
from agentcycle.storage.corpus import ingest
from agentcycle.storage.datasets import replace_rows
from agentcycle.storage.maintenance import merge_datasets
from agentcycle.storage.query import run_query

Todo = list[tuple[QaSample | ScenarioSample, str, int]]


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "suite"


def code_version() -> str:
    """`git describe` of the checkout, else the installed package version."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--tags"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    try:
        return version("agentcycle")
    except PackageNotFoundError:
        return "unknown"


def sample_key(sample_id: str, epoch: int, epochs: int) -> str:
    """Epoch 0 keeps the plain id, so single-epoch runs compare by question id."""
    return sample_id if epochs == 1 or epoch == 0 else f"{sample_id}@{epoch}"


def new_run_id(suite_name: str) -> str:
    """A sortable, unique run id: suite slug, UTC start time, random suffix."""
    return f"{slug(suite_name)[:24]}-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


def ensure_corpus(suite: Suite, corpus: str) -> None:
    """Bring the suite's corpus up to date (unchanged files cost a hash)."""
    files = suite.corpus_files()
    if files:
        ingest(corpus, files)


def newest_rows(
    dataset: str, key: str, where: str, value: str, order_by: str, columns: str = "* EXCLUDE (rn)"
) -> list[dict[str, Any]]:
    """The newest row per `key` of the rows where `where` equals `value`: appends never
    overwrite, so a retried sample or a resumed run is a newer row. Only `value` comes
    from the caller's data (a bound parameter); the other arguments are our constants."""
    rows = run_query(
        f"SELECT {columns} FROM (SELECT *, row_number() OVER "
        f"(PARTITION BY {key} ORDER BY recorded_at DESC) AS rn "
        f"FROM {dataset} WHERE {where} = ?) WHERE rn = 1 ORDER BY {order_by}",
        parameters=[value],
        lancedb=False,
    )
    return rows.to_pylist()


def run_samples(run_id: str) -> list[dict[str, Any]]:
    """The newest row of each sample of a run (a retried sample counts once)."""
    return newest_rows("eval_samples", "sample_id", "run_id", run_id, "sample_id")


def suite_history(suite: str) -> list[dict[str, Any]]:
    """The newest `eval_runs` row of each run of the suite, oldest first."""
    columns = "run_id, accuracy, samples, finished_at"
    return newest_rows("eval_runs", "run_id", "suite", suite, "finished_at", columns)


def recorded_samples(run_id: str) -> list[dict[str, Any]]:
    """`run_samples`, failing with one clear line when the run recorded nothing."""
    rows = run_samples(run_id)
    if not rows:
        raise UserError(f"run {run_id!r}: no samples recorded")
    return rows


def plan(
    suite: Suite,
    run_id: str,
    limit: int | None,
    epochs: int,
    resume: bool,
    retry_failed: bool,
) -> Todo:
    """(sample, key, epoch) still to run: all, the unrecorded, or the failed ones."""
    samples = suite.samples[:limit] if limit else suite.samples
    wanted = [(s, sample_key(s.id, e, epochs), e) for s in samples for e in range(max(1, epochs))]
    if not (resume or retry_failed):
        return wanted
    recorded = {r["sample_id"]: r for r in run_samples(run_id)}
    if retry_failed:
        return [w for w in wanted if w[1] in recorded and recorded[w[1]]["error"] is not None]
    return [w for w in wanted if w[1] not in recorded]


def run_row(
    suite: Suite, run_id: str, summary: dict[str, Any], settings: dict[str, Any]
) -> dict[str, Any]:
    """The `eval_runs` row: what was run, with what, and how well."""
    return {
        "run_id": run_id,
        "suite": suite.name,
        "suite_path": str(suite.path),
        "suite_hash": suite.digest,
        "code_version": code_version(),
        "kind": suite.kind,
        **settings,
        **{k: v for k, v in summary.items() if k != "by_type"},
        "by_type": [{"type": k, **v} for k, v in summary["by_type"].items()],
    }


def record_run(
    suite: Suite, run_id: str, settings: dict[str, Any], started_at: datetime
) -> dict[str, Any]:
    """Finish a run's records and return its summary: fold the one-file-per-row appends,
    summarise its samples and write its `eval_runs` row (exactly one per run, however
    often it was resumed).

    Plain storage work: the `evaluate` flow calls it, and so does the throughput
    benchmark's Prefect-free baseline, so their difference is orchestration only.
    """
    merge_datasets(("eval_samples", "eval_runs", "retrievals"))
    summary = summarise(run_samples(run_id))
    row = {**run_row(suite, run_id, summary, settings), "started_at": started_at,
           "finished_at": datetime.now(UTC)}  # fmt: skip
    replace_rows("eval_runs", "run_id", run_id, [row])
    return summary


def compare_runs(run_a: str, run_b: str) -> dict[str, Any]:
    """Two recorded runs compared sample by sample (see `statistics.compare`)."""
    return compare(run_a, recorded_samples(run_a), run_b, recorded_samples(run_b))

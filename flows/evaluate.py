"""The `evaluate` flow: run a suite's samples as Prefect task runs and record them.

Why it is shaped like this:
- Each sample is one task run, `concurrency` at a time on a thread pool (a flow
  parameter, so a run triggered from the Prefect UI can set it), so the UI shows every
  question; a progress bar on stderr counts finished samples and right answers.
- A sample that raises becomes a row with `error` set: one bad question must not throw
  away an hour of answered ones.
- Each finished sample is appended to `eval_samples` at once (one small Parquet file),
  so an interrupted run loses at most the samples in flight; `resume` skips samples
  already recorded for the run id and `retry_failed` reruns only those with an error.
  Readers take the newest row per (run, sample), so a retried sample counts once.
- Every scorer's verdict, the calls and the grounding of a sample, and the run's
  per-type accuracy, standard errors, latency percentiles, suite hash, code version
  and settings are real columns (lists of structs where there are several), so DuckDB
  can filter and group on them without parsing JSON.
- Retrievals and LLM calls go through `PrefectTools`, whose tasks are cached on inputs.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner
from prefect.utilities.annotations import quote

from agentcycle.agent.eval_suites import QaSample, ScenarioSample, Suite, load_suite
from agentcycle.agent.scorers import Chunk, Score, grounding, score_qa, sequence_match
from agentcycle.config import home_dir
from agentcycle.errors import UserError
from agentcycle.storage.datasets import append_rows
from agentcycle.storage.maintenance import merge_datasets

if TYPE_CHECKING:
    from agentcycle.tasks.research import LocalTools

TYPES = ("simple", "multi_hop", "mc", "unanswerable", "scenario")


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
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentcycle")
    except PackageNotFoundError:
        return "unknown"


def sample_key(sample_id: str, epoch: int, epochs: int) -> str:
    """Epoch 0 keeps the plain id, so single-epoch runs compare by question id."""
    return sample_id if epochs == 1 or epoch == 0 else f"{sample_id}@{epoch}"


def ensure_corpus(suite: Suite, corpus: str) -> None:
    """Bring the suite's corpus up to date (unchanged files cost a hash)."""
    from agentcycle.storage.corpus import ingest

    files = suite.corpus_files()
    if files:
        ingest(corpus, files)


# ---------------------------------------------------------------------- one sample


def chunk_rows(corpus: str, chunk_ids: list[str]) -> dict[str, Chunk]:
    """The cited chunks as the scorer needs them, read back from the corpus table."""
    if not chunk_ids:
        return {}
    from agentcycle.storage.corpus import open_corpus
    from agentcycle.storage.tables import sql_quote

    where = "chunk_id IN (" + ", ".join(sql_quote(c) for c in chunk_ids) + ")"
    rows = (
        open_corpus(corpus)
        .search()
        .where(where)
        .select(["chunk_id", "text", "file", "start_char", "end_char"])
        .limit(len(chunk_ids) * 2)
        .to_arrow()
        .to_pylist()
    )
    return {
        r["chunk_id"]: Chunk(r["text"], r["file"], r["start_char"], r["end_char"]) for r in rows
    }


def source_spans(suite: Suite, sample: QaSample) -> list[tuple[str, str, tuple[int, int] | None]]:
    spans = []
    for source in sample.sources:
        path = suite.root / source.file
        text = path.read_text(errors="replace") if path.is_file() else ""
        at = text.find(source.quote) if source.quote else -1
        spans.append((source.file, source.quote, (at, at + len(source.quote)) if at >= 0 else None))
    return spans


def answer_sample(suite: Suite, sample: QaSample, tools: LocalTools) -> dict[str, Any]:
    """Answer one QA sample and score it (module-level so tests can make it fail)."""
    from agentcycle.agent.research import ResearchConfig, research

    config = ResearchConfig(use_memory=False, write_memory=False)
    result = research(sample.question, tools, sample.choices, config)
    scores = score_qa(sample, result.answer, result.insufficient, result.mc_letter)
    cited = [c.chunk_id for c in result.citations]
    grounded = None
    if sample.sources and not result.insufficient and sample.type != "unanswerable":
        chunks = chunk_rows(tools.corpus, cited)
        scores.append(grounding(cited, chunks, source_spans(suite, sample)))
        grounded = scores[-1].score == 1.0
    return {
        "answer": result.mc_letter or result.answer,
        "citations": cited,
        "scores": scores,
        "grounded": grounded,
        "llm_calls": result.counters.llm_calls,
        "retrieval_calls": result.counters.retrieval_calls,
    }


def run_scenario_sample(suite: Suite, sample: ScenarioSample, run_id: str) -> dict[str, Any]:
    """Replay one scenario through the session flow; its own checks decide `correct`."""
    from agentcycle.scenarios import load_scenario, run_scenario

    folder = (suite.path.parent / sample.scenario).resolve()
    expected = load_scenario(folder).expected_programs
    session = home_dir() / "eval" / run_id / slug(sample.id)
    result = run_scenario(folder, session)
    checks = Score(
        "scenario",
        result.status,
        "no problems",
        float(result.passed),
        "; ".join(result.problems) or "every expectation met",
    )
    return {
        "answer": " > ".join(result.programs),
        "citations": [],
        "scores": [checks, sequence_match(result.programs, expected)],
        "grounded": None,
        "llm_calls": 0,
        "retrieval_calls": 0,
    }


def evaluate_sample(
    suite: Suite,
    sample: QaSample | ScenarioSample,
    key: str,
    epoch: int,
    run_id: str,
    tools: Callable[[], LocalTools],
) -> dict[str, Any]:
    """Run, score and record one sample; an exception becomes the row's `error`.

    `tools` is called only for a QA sample, inside the guard, so a provider that cannot
    be set up is that sample's error, not the run's crash.
    """
    started = time.perf_counter()
    error = None
    try:
        if isinstance(sample, ScenarioSample):
            outcome = run_scenario_sample(suite, sample, run_id)
        else:
            outcome = answer_sample(suite, sample, tools())
    except Exception as exc:  # an error is a result, not a crash
        error = f"{type(exc).__name__}: {exc}"[:2000]
        outcome = {"answer": "", "citations": [], "scores": [], "grounded": None}
    scores: list[Score] = outcome["scores"]
    row = {
        "run_id": run_id,
        "suite": suite.name,
        "sample_id": key,
        "sample_type": sample.type,
        "epoch": epoch,
        "question": getattr(sample, "question", "") or getattr(sample, "scenario", ""),
        "expected": getattr(sample, "answer", "") or "",
        "accept": getattr(sample, "accept", []),
        "answer": outcome["answer"],
        "correct": bool(scores) and scores[0].score == 1.0 and error is None,
        "score": scores[0].score if scores else 0.0,
        "scores": [s.as_dict() for s in scores],
        "grounded": outcome["grounded"],
        "citations": outcome["citations"],
        "llm_calls": outcome.get("llm_calls", 0),
        "retrieval_calls": outcome.get("retrieval_calls", 0),
        "latency_s": time.perf_counter() - started,
        "error": error,
    }
    append_rows("eval_samples", [row])
    return row


@task(name="eval-sample", task_run_name="eval-{key}", cache_policy=NO_CACHE)
def eval_sample(
    suite: Suite,
    sample: QaSample | ScenarioSample,
    key: str,
    epoch: int,
    run_id: str,
    corpus: str,
    settings: dict[str, Any],
) -> dict[str, Any]:
    """One sample as a task run; its retrievals and LLM calls are cached task runs."""
    from agentcycle.tasks.research import PrefectTools

    def tools() -> LocalTools:
        return PrefectTools(
            corpus,
            settings["provider"],
            settings["model"],
            settings["base_url"],
            session_id=f"{run_id}/{key}",  # its `retrievals` rows name the run and sample
        )

    return evaluate_sample(suite, sample, key, epoch, run_id, tools)


# ---------------------------------------------------------------------- reading back


def run_samples(run_id: str) -> list[dict[str, Any]]:
    """The newest row of each sample of a run (a retried sample counts once)."""
    from agentcycle.storage.query import run_query

    rows = run_query(
        "SELECT * EXCLUDE (rn) FROM (SELECT *, row_number() OVER "
        "(PARTITION BY sample_id ORDER BY recorded_at DESC) AS rn "
        "FROM eval_samples WHERE run_id = ?) WHERE rn = 1 ORDER BY sample_id",
        parameters=[run_id],
        lancedb=False,
    )
    return rows.to_pylist()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy per type with its binomial standard error, grounding, latency, calls."""
    by_type: dict[str, dict[str, Any]] = {}
    for kind in sorted(
        {r["sample_type"] for r in rows},
        key=lambda k: (TYPES.index(k) if k in TYPES else len(TYPES), k),
    ):
        marks = [bool(r["correct"]) for r in rows if r["sample_type"] == kind]
        p = sum(marks) / len(marks)
        by_type[kind] = {
            "n": len(marks),
            "correct": sum(marks),
            "accuracy": p,
            "se": math.sqrt(p * (1 - p) / len(marks)),
        }
    n = len(rows)
    correct = sum(bool(r["correct"]) for r in rows)
    accuracy = correct / n if n else 0.0
    grounded = [r["grounded"] for r in rows if r.get("grounded") is not None]
    latencies = [r["latency_s"] for r in rows if r["error"] is None]
    llm_calls = [r.get("llm_calls") or 0 for r in rows]
    calls = [llm + (r.get("retrieval_calls") or 0) for llm, r in zip(llm_calls, rows, strict=True)]
    return {
        "samples": n,
        "correct": correct,
        "accuracy": accuracy,
        "se": math.sqrt(accuracy * (1 - accuracy) / n) if n else 0.0,
        "by_type": by_type,
        "errors": sum(r["error"] is not None for r in rows),
        "grounding_rate": sum(grounded) / len(grounded) if grounded else None,
        "latency_p50": percentile(latencies, 0.5),
        "latency_p95": percentile(latencies, 0.95),
        "mean_latency_s": sum(latencies) / len(latencies) if latencies else 0.0,
        "calls_per_question": sum(calls) / n if n else 0.0,
        "llm_calls_per_question": sum(llm_calls) / n if n else 0.0,
    }


def summary_text(suite: str, run_id: str, summary: dict[str, Any]) -> str:
    """Accuracy by type with standard errors, as the CLI prints it."""
    lines = [f"suite {suite}  run {run_id}", f"{'type':<14}{'correct':>10}{'accuracy':>16}"]
    for kind, s in summary["by_type"].items():
        lines.append(
            f"{kind:<14}{s['correct']:>4}/{s['n']:<5}{s['accuracy']:>9.1%} ± {s['se']:.1%}"
        )
    lines.append(
        f"{'all':<14}{summary['correct']:>4}/{summary['samples']:<5}"
        f"{summary['accuracy']:>9.1%} ± {summary['se']:.1%}"
    )
    rate = summary["grounding_rate"]
    lines.append(
        f"grounded {'-' if rate is None else f'{rate:.0%}'} · errors {summary['errors']} · "
        f"latency p50 {summary['latency_p50']:.2f} s p95 {summary['latency_p95']:.2f} s · "
        f"calls/question {summary['calls_per_question']:.1f}"
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the flow


def announce(suite: str, run_id: str, summary: dict[str, Any]) -> dict[str, Any] | None:
    """Emit Prefect events an automation can act on: `agentcycle.evaluation.failed` when
    samples errored, `agentcycle.evaluation.regressed` when accuracy dropped
    significantly against the suite's previous run. Returns that comparison, if any."""
    from prefect.events import emit_event

    from agentcycle.flows.cli_eval import compare_runs
    from agentcycle.flows.eval_report import suite_history

    earlier = [h for h in suite_history(suite) if h["run_id"] != run_id]
    comparison = compare_runs(earlier[-1]["run_id"], run_id) if earlier else None
    resource = {
        "prefect.resource.id": f"agentcycle.evaluation.{run_id}",
        "agentcycle.suite": suite,
    }
    if summary["errors"]:
        emit_event(
            "agentcycle.evaluation.failed",
            resource=resource,
            payload={"errors": summary["errors"], "samples": summary["samples"]},
        )
    if comparison and comparison["regressed"]:
        emit_event(
            "agentcycle.evaluation.regressed",
            resource=resource,
            payload={k: comparison[k] for k in ("run_a", "delta", "p_value", "broken")},
        )
    return comparison


def plan(
    suite: Suite,
    run_id: str,
    limit: int | None,
    epochs: int,
    resume: bool,
    retry_failed: bool,
) -> list[tuple[QaSample | ScenarioSample, str, int]]:
    """(sample, key, epoch) still to run: all, the unrecorded, or the failed ones."""
    samples = suite.samples[:limit] if limit else suite.samples
    wanted = [(s, sample_key(s.id, e, epochs), e) for s in samples for e in range(max(1, epochs))]
    if not (resume or retry_failed):
        return wanted
    recorded = {r["sample_id"]: r for r in run_samples(run_id)}
    if retry_failed:
        return [w for w in wanted if w[1] in recorded and recorded[w[1]]["error"] is not None]
    return [w for w in wanted if w[1] not in recorded]


def new_run_id(suite_name: str) -> str:
    """A sortable, unique run id: suite slug, UTC start time, random suffix."""
    return f"{slug(suite_name)[:24]}-{datetime.now(UTC):%Y%m%d-%H%M%S}-{uuid.uuid4().hex[:6]}"


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


def run_todo(
    todo: list[tuple[QaSample | ScenarioSample, str, int]],
    common: dict[str, Any],
    concurrency: int,
    progress: bool,
) -> None:
    """Run the samples as task runs, `concurrency` at a time, counting them on stderr."""
    from tqdm import tqdm

    with (
        ThreadPoolTaskRunner(max_workers=concurrency) as runner,
        tqdm(total=len(todo), unit="sample", disable=not progress, file=sys.stderr) as bar,
    ):
        futures = [
            runner.submit(eval_sample, {"sample": s, "key": k, "epoch": e, **common})
            for s, k, e in todo
        ]
        right = 0
        for future in as_completed(futures):
            right += bool(future.result()["correct"])
            bar.update(1)
            bar.set_postfix_str(f"{right}/{bar.n} correct", refresh=False)


def flow_run_name() -> str:
    """`eval-<run id>` when the caller chose the id (the CLI always does, so the run it
    announced is the one to look for in the UI), else `eval-<suite file>`."""
    from prefect.runtime import flow_run

    parameters = flow_run.parameters
    return f"eval-{parameters.get('run_id') or Path(parameters['suite_path']).stem}"


@flow(name="evaluate", flow_run_name=flow_run_name, log_prints=False)
def evaluate(
    suite_path: str,
    provider: str = "rules",
    model: str | None = None,
    base_url: str | None = None,
    limit: int | None = None,
    epochs: int = 1,
    concurrency: int = 2,
    corpus: str | None = None,
    run_id: str | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    report: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    """Run a suite (or what is left of a run) and record samples, run row and report.

    `concurrency` samples run at once (threads: LLM-bound samples overlap their waits);
    `resume`/`retry_failed` need the `run_id` of the earlier run.
    """
    logger = get_run_logger()
    started = datetime.now(UTC)
    suite = load_suite(Path(suite_path))
    if concurrency < 1 or epochs < 1 or (limit is not None and limit < 1):
        raise UserError("concurrency, epochs and limit must be at least 1")
    corpus = corpus or slug(suite.name)
    run_id = run_id or new_run_id(suite.name)
    if suite.kind == "qa":
        ensure_corpus(suite, corpus)
    todo = plan(suite, run_id, limit, epochs, resume, retry_failed)
    logger.info("run %s: %d sample(s) to run", run_id, len(todo))
    llm = {"provider": provider, "model": model, "base_url": base_url}
    # quote: Prefect would otherwise walk the whole suite (every sample) looking for
    # futures, once per task run, which made a run quadratic in the suite's size.
    common = {"suite": quote(suite), "run_id": run_id, "corpus": corpus, "settings": llm}
    if todo:
        run_todo(todo, common, concurrency, progress)
    merge_datasets(("eval_samples", "eval_runs", "retrievals"))  # one file per row so far
    summary = summarise(run_samples(run_id))
    settings = {
        "provider": provider,
        "model": model,
        "corpus": corpus if suite.kind == "qa" else None,
        "sample_limit": limit,
        "epochs": epochs,
        "concurrency": concurrency,
    }
    append_rows(
        "eval_runs",
        [{**run_row(suite, run_id, summary, settings), "started_at": started,
          "finished_at": datetime.now(UTC)}],
    )  # fmt: skip
    create_table_artifact(
        key=f"eval-{slug(suite.name)}"[:60],
        table=[
            {"type": k, "n": s["n"], "accuracy": round(s["accuracy"], 4), "se": round(s["se"], 4)}
            for k, s in summary["by_type"].items()
        ]
        + [
            {
                "type": "all",
                "n": summary["samples"],
                "accuracy": round(summary["accuracy"], 4),
                "se": round(summary["se"], 4),
            }
        ],
        description=f"evaluate {suite.name} run {run_id}",
    )
    regression = announce(suite.name, run_id, summary)
    report_path = None
    if report:
        from agentcycle.flows.eval_report import write_report

        report_path = str(write_report(run_id))
    logger.info(  # the full table is the run's artifact and the CLI's output
        "run %s: accuracy %.1f%% ± %.1f%% over %d samples, %d errors",
        run_id, 100 * summary["accuracy"], 100 * summary["se"], summary["samples"],
        summary["errors"],
    )  # fmt: skip
    return {
        "run_id": run_id,
        "suite": suite.name,
        "report": report_path,
        "regression": regression,
        **summary,
    }


def run_evaluate(suite_path: str | Path, **options: Any) -> dict[str, Any]:
    """Run the flow without a heartbeat thread (it would cost every run a second)."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, temporary_settings

    with temporary_settings({PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        return evaluate(str(suite_path), **options)

"""`agentcycle eval SUITE ...` and `agentcycle eval compare RUN_A RUN_B`.

One command with an action-or-suite first argument rather than a typer group: a group
with a positional SUITE would swallow the word `compare`. The comparison itself is
`evaluation.runs.compare_runs` (McNemar's exact test).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.errors import UserError

DASK_ADDRESS = re.compile(r"(tcp|tls)://[A-Za-z0-9_.\-\[\]:]+:\d{1,5}")


class _HideTaskRunInfo(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or not record.name.startswith("prefect.task_runs")


@contextlib.contextmanager
def terminal_for_progress(enabled: bool) -> Iterator[None]:
    """While the progress bar runs, the terminal gets no per-task "Finished in state"
    lines (one per sample and per search would tear the bar; the Prefect UI still has
    every task run) and other log lines print above the bar instead of through it."""
    if not enabled:
        yield
        return
    from tqdm.contrib.logging import logging_redirect_tqdm

    quiet = _HideTaskRunInfo()
    with logging_redirect_tqdm():
        handlers = list(logging.getLogger().handlers)  # the console, now through tqdm
        for handler in handlers:
            handler.addFilter(quiet)
        try:
            yield
        finally:
            for handler in handlers:
                handler.removeFilter(quiet)


def _check_request(suite: str, limit: int | None, corpus: str | None,
                   resume: str | None, retry_failed: str | None) -> None:
    """Numbers, names and run ids, checked before a server starts or a row is written."""
    from agentcycle.evaluation.suites import SAFE_ID as SAFE_RUN_ID
    from agentcycle.storage.corpus import validate_corpus_name
    from agentcycle.storage.query import run_query

    if limit is not None and limit < 1:
        raise UserError(f"--limit: must be at least 1 (got {limit})")
    if corpus is not None:
        validate_corpus_name(corpus)
    for option, run_id in (("--resume", resume), ("--retry-failed", retry_failed)):
        if run_id is None:
            continue
        if not SAFE_RUN_ID.fullmatch(run_id):
            raise UserError(f"{option}: {run_id[:60]!r} is not a run id")
        found = run_query(
            "SELECT DISTINCT suite FROM eval_samples WHERE run_id = $r "
            "UNION SELECT DISTINCT suite FROM eval_runs WHERE run_id = $r",
            parameters={"r": run_id}, lancedb=False,
        ).column("suite").to_pylist()
        if not found:
            raise UserError(f"{option}: no evaluation run {run_id!r} (see `agentcycle query "
                            "\"SELECT run_id, suite FROM eval_runs\"`)")
        if suite not in found:
            raise UserError(f"{option}: run {run_id!r} evaluated suite {found[0]!r}, "
                            f"not {suite!r}")


def eval_command(
    suite: Annotated[str, typer.Argument(help="Suite file (YAML/JSONL), or 'compare'.")],
    runs: Annotated[
        list[str] | None, typer.Argument(help="With 'compare': RUN_A RUN_B.", show_default=False)
    ] = None,
    provider: Annotated[str, typer.Option(help="rules, ollama or openai.")] = "rules",
    model: Annotated[str | None, typer.Option(help="LLM model name.")] = None,
    base_url: Annotated[str | None, typer.Option(help="LLM server URL.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N samples.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Samples run at once.")] = 2,
    workers: Annotated[
        int | None,
        typer.Option(min=1, help="Run samples on a local Dask cluster of N processes."),
    ] = None,
    dask_address: Annotated[
        str | None,
        typer.Option(metavar="tcp://HOST:PORT", help="Run samples on this Dask scheduler."),
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, help="Run every sample K times.")] = 1,
    corpus: Annotated[str | None, typer.Option(help="Corpus name (default: suite).")] = None,
    resume: Annotated[
        str | None, typer.Option(metavar="RUN_ID", help="Run what RUN_ID has not recorded.")
    ] = None,
    retry_failed: Annotated[
        str | None, typer.Option(metavar="RUN_ID", help="Rerun RUN_ID's failed samples.")
    ] = None,
    fail_on_regression: Annotated[
        bool, typer.Option(help="compare: exit 1 when B is significantly worse.")
    ] = False,
    progress: Annotated[bool, typer.Option(help="Show a progress bar on stderr.")] = True,
) -> None:
    """Evaluate the agent on a suite, or compare two evaluation runs."""
    # Imported where needed, not at the top: `agentcycle eval --help` and a bad option
    # answer without loading Prefect, Dask, LanceDB and torch (~5 s).
    if suite == "compare":
        if not runs or len(runs) != 2:
            raise UserError("usage: agentcycle eval compare RUN_A RUN_B [--fail-on-regression]")
        from agentcycle.evaluation.report import comparison_text
        from agentcycle.evaluation.runs import compare_runs

        result = compare_runs(*runs)
        typer.echo(comparison_text(result))
        if fail_on_regression and result["regressed"]:
            raise typer.Exit(1)
        return
    if runs:
        raise UserError(f"unexpected arguments: {' '.join(runs)}")
    if resume and retry_failed:
        raise UserError("--resume and --retry-failed: choose one")
    if workers and dask_address:
        raise UserError("--workers and --dask-address: choose one")
    if dask_address and not DASK_ADDRESS.fullmatch(dask_address):
        raise UserError(f"--dask-address: {dask_address!r} is not tcp://HOST:PORT")
    from agentcycle.evaluation.report import summary_text
    from agentcycle.evaluation.runs import new_run_id
    from agentcycle.evaluation.suites import load_suite
    from agentcycle.flows.evaluate import run_evaluate
    from agentcycle.server import ensure_prefect_api

    named = load_suite(Path(suite)).name  # a bad suite fails here, before any server starts
    _check_request(named, limit, corpus, resume, retry_failed)
    ensure_prefect_api()
    run_id = resume or retry_failed or new_run_id(named)
    typer.echo(
        f"run {run_id} (if interrupted: agentcycle eval {suite} --resume {run_id})", err=True
    )
    with terminal_for_progress(progress):
        summary = run_evaluate(
            suite,
            concurrency=concurrency,
            workers=workers,
            dask_address=dask_address,
            provider=provider,
            model=model,
            base_url=base_url,
            limit=limit,
            epochs=epochs,
            corpus=corpus,
            run_id=run_id,
            resume=bool(resume),
            retry_failed=bool(retry_failed),
            progress=progress,
        )
    typer.echo(summary_text(summary["suite"], summary["run_id"], summary))
    if summary.get("llm_failed_calls") or summary.get("llm_fallbacks"):  # never silent
        typer.echo(
            f"warning: LLM {summary['llm_failed_calls']} failed calls, "
            f"{summary['llm_fallbacks']} steps fell back to rules (see eval_samples)",
            err=True,
        )
    typer.echo(f"report: {summary['report']}")

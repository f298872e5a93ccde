"""`agentcycle eval SUITE ...` and `agentcycle eval compare RUN_A RUN_B`.

One command with an action-or-suite first argument rather than a typer group: a group
with a positional SUITE would swallow the word `compare`. Register on the main app with
`app.command(name="eval")(cli_eval.eval_command)`. Prefect, torch and LanceDB load only
when a run starts.

Comparison pairs the two runs' samples by id and applies McNemar's exact test to the
discordant pairs (right in one run, wrong in the other): with tens of questions a
difference in accuracy alone is mostly noise, the paired test says whether it is not.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from agentcycle.errors import UserError

REGRESSION_ALPHA = 0.05


def compare_runs(run_a: str, run_b: str) -> dict[str, Any]:
    """Per-type deltas, McNemar's exact p over shared samples, and the flipped samples."""
    from scipy.stats import binomtest

    from agentcycle.flows.evaluate import run_samples, summarise

    rows_a, rows_b = run_samples(run_a), run_samples(run_b)
    for run, rows in ((run_a, rows_a), (run_b, rows_b)):
        if not rows:
            raise UserError(f"run {run!r}: no samples recorded")
    a = {r["sample_id"]: r for r in rows_a}
    b = {r["sample_id"]: r for r in rows_b}
    shared = sorted(set(a) & set(b))
    fixed = [s for s in shared if not a[s]["correct"] and b[s]["correct"]]
    broken = [s for s in shared if a[s]["correct"] and not b[s]["correct"]]
    discordant = len(fixed) + len(broken)
    p_value = binomtest(len(fixed), discordant, 0.5).pvalue if discordant else 1.0
    sum_a = summarise([a[s] for s in shared]) if shared else None
    sum_b = summarise([b[s] for s in shared]) if shared else None
    deltas = {}
    if sum_a and sum_b:
        for kind in sorted(set(sum_a["by_type"]) | set(sum_b["by_type"])):
            acc_a = sum_a["by_type"].get(kind, {}).get("accuracy")
            acc_b = sum_b["by_type"].get(kind, {}).get("accuracy")
            deltas[kind] = {
                "a": acc_a,
                "b": acc_b,
                "delta": None if acc_a is None or acc_b is None else acc_b - acc_a,
            }
    acc_a = sum_a["accuracy"] if sum_a else 0.0
    acc_b = sum_b["accuracy"] if sum_b else 0.0
    return {
        "run_a": run_a,
        "run_b": run_b,
        "shared": len(shared),
        "accuracy_a": acc_a,
        "accuracy_b": acc_b,
        "delta": acc_b - acc_a,
        "by_type": deltas,
        "fixed": fixed,
        "broken": broken,
        "p_value": p_value,
        "regressed": acc_b < acc_a and p_value < REGRESSION_ALPHA,
    }


def comparison_text(result: dict[str, Any]) -> str:
    lines = [
        f"{result['run_a']} -> {result['run_b']}: {result['shared']} shared samples",
        f"{'type':<14}{'A':>8}{'B':>8}{'delta':>9}",
    ]
    for kind, d in result["by_type"].items():
        fmt = lambda v: "-" if v is None else f"{v:.1%}"  # noqa: E731
        delta = "-" if d["delta"] is None else f"{d['delta']:+.1%}"
        lines.append(f"{kind:<14}{fmt(d['a']):>8}{fmt(d['b']):>8}{delta:>9}")
    lines.append(
        f"{'all':<14}{result['accuracy_a']:>8.1%}{result['accuracy_b']:>8.1%}"
        f"{result['delta']:>+9.1%}"
    )
    lines.append(
        f"McNemar exact p = {result['p_value']:.3g} "
        f"({len(result['fixed'])} fixed, {len(result['broken'])} broken)"
    )
    if result["fixed"]:
        lines.append("fixed:  " + " ".join(result["fixed"]))
    if result["broken"]:
        lines.append("broken: " + " ".join(result["broken"]))
    if result["regressed"]:
        lines.append(f"REGRESSION: accuracy dropped significantly (p < {REGRESSION_ALPHA})")
    return "\n".join(lines)


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
    if suite == "compare":
        if not runs or len(runs) != 2:
            raise UserError("usage: agentcycle eval compare RUN_A RUN_B [--fail-on-regression]")
        result = compare_runs(*runs)
        typer.echo(comparison_text(result))
        if fail_on_regression and result["regressed"]:
            raise typer.Exit(1)
        return
    if runs:
        raise UserError(f"unexpected arguments: {' '.join(runs)}")
    if resume and retry_failed:
        raise UserError("--resume and --retry-failed: choose one")
    from agentcycle.agent.eval_suites import load_suite

    named = load_suite(Path(suite)).name  # a bad suite fails here, before any server starts
    from agentcycle.flows.server import ensure_prefect_api

    ensure_prefect_api()  # before Prefect is imported
    from agentcycle.flows.evaluate import new_run_id, run_evaluate, summary_text

    run_id = resume or retry_failed or new_run_id(named)
    typer.echo(
        f"run {run_id} (if interrupted: agentcycle eval {suite} --resume {run_id})", err=True
    )
    with terminal_for_progress(progress):
        summary = run_evaluate(
            suite,
            concurrency=concurrency,
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
    typer.echo(f"report: {summary['report']}")

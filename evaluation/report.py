"""A self-contained HTML report of one evaluation run (plots embedded as PNG).

Three plots answer the three questions asked of a run: how good is it per question
type (with binomial standard errors, so a 1-question difference on 4 questions is not
read as progress), how slow, and is it better or worse than before (the trend across
the suite's past runs from `eval_runs`). Self-contained like the session summary, so it
opens offline and can be attached anywhere.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

from agentcycle.config import home_dir
from agentcycle.evaluation.runs import recorded_samples, suite_history
from agentcycle.evaluation.statistics import REGRESSION_ALPHA, summarise

STYLE = """
body{font-family:system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}
td{overflow-wrap:anywhere;vertical-align:top}.ok{color:#16702e}.miss{color:#b00020}img{max-width:100%}
"""


def _png(figure: Any) -> str:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def accuracy_plot(by_type: dict[str, dict[str, Any]]) -> str:
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6, 3.2), dpi=100)
    kinds = list(by_type)
    values = [by_type[k]["accuracy"] for k in kinds]
    axis.bar(kinds, values, yerr=[by_type[k]["se"] for k in kinds], capsize=6, color="#4c78a8")
    for index, value in enumerate(values):
        axis.annotate(f"{value:.0%}", (index, value), xytext=(12, 4), textcoords="offset points")
    axis.set_ylim(0, 1.1)
    axis.set_ylabel("accuracy (± s.e.)")
    axis.set_title("Accuracy by question type")
    return _png(figure)


def latency_plot(latencies: list[float]) -> str:
    plt = _pyplot()
    figure, axis = plt.subplots(figsize=(6, 3.0), dpi=100)
    axis.hist(latencies or [0.0], bins=min(20, max(5, len(latencies))), color="#f58518")
    axis.set_xlabel("seconds per sample")
    axis.set_ylabel("samples")
    axis.set_title("Latency")
    return _png(figure)


def trend_plot(history: list[dict[str, Any]]) -> str | None:
    if len(history) < 2:
        return None
    plt = _pyplot()
    from matplotlib.ticker import MaxNLocator

    figure, axis = plt.subplots(figsize=(6, 3.0), dpi=100)
    axis.plot(range(1, len(history) + 1), [h["accuracy"] for h in history], marker="o")
    axis.set_ylim(0, 1.05)
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_xlabel("run (oldest first)")
    axis.set_ylabel("accuracy")
    axis.set_title("Accuracy across runs of the suite")
    axis.grid(alpha=0.3)
    return _png(figure)


def report_html(
    suite: str,
    run_id: str,
    rows: list[dict[str, Any]],
    summary: dict[str, Any],
    history: list[dict[str, Any]],
) -> str:
    esc = html.escape
    type_rows = "".join(
        f"<tr><td>{esc(k)}</td><td>{s['correct']}/{s['n']}</td>"
        f"<td>{s['accuracy']:.1%} ± {s['se']:.1%}</td></tr>"
        for k, s in summary["by_type"].items()
    )
    sample_rows = []
    for row in rows:
        scores = row.get("scores") or []
        why = "; ".join(f"{s['scorer']}: {s['explanation']}" for s in scores)
        mark = "ok" if row["correct"] else "miss"
        sample_rows.append(
            f"<tr><td>{esc(row['sample_id'])}</td><td>{esc(row['sample_type'])}</td>"
            f"<td class='{mark}'>{'✓' if row['correct'] else '✗'}</td>"
            f"<td>{esc((row['answer'] or '')[:160])}</td>"
            f"<td>{esc(row['error'] or why)}</td><td>{row['latency_s']:.2f}</td></tr>"
        )
    trend = trend_plot(history)
    trend_html = (
        f"<img alt='accuracy trend' src='data:image/png;base64,{trend}'>"
        if trend
        else "<p>First run of this suite: no trend yet.</p>"
    )
    rate = summary["grounding_rate"]
    latencies = [r["latency_s"] for r in rows if r["error"] is None]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Evaluation {esc(run_id)}</title>
<style>{STYLE}</style></head><body>
<h1>Evaluation of {esc(suite)}</h1>
<p>Run <code>{esc(run_id)}</code>: {summary["samples"]} samples,
<b id="accuracy">accuracy {summary["accuracy"]:.1%} ± {summary["se"]:.1%}</b>;
gold source cited {"-" if rate is None else f"{rate:.0%}"}; errors {summary["errors"]};
latency p50 {summary["latency_p50"]:.2f} s, p95 {summary["latency_p95"]:.2f} s;
{summary["calls_per_question"]:.1f} calls per question.</p>
<h2>Accuracy by type</h2>
<table><thead><tr><th>type</th><th>correct</th><th>accuracy</th></tr></thead>
<tbody>{type_rows}</tbody></table>
<img alt='accuracy by type' src='data:image/png;base64,{accuracy_plot(summary["by_type"])}'>
<h2>Latency</h2>
<img alt='latency histogram' src='data:image/png;base64,{latency_plot(latencies)}'>
<h2>Trend</h2>
{trend_html}
<h2>Samples</h2>
<table><thead><tr><th>sample</th><th>type</th><th></th><th>answer</th><th>why</th>
<th>s</th></tr></thead><tbody>{"".join(sample_rows)}</tbody></table>
</body></html>
"""


def write_report(run_id: str, path: Path | None = None) -> Path:
    """Write the run's report (default `<home>/reports/eval-<run_id>.html`)."""
    rows = recorded_samples(run_id)
    suite = rows[0]["suite"]
    summary = summarise(rows)
    path = path or home_dir() / "reports" / f"eval-{run_id}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report_html(suite, run_id, rows, summary, suite_history(suite)))
    return path


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
        f"gold source cited {'-' if rate is None else f'{rate:.0%}'} · "
        f"errors {summary['errors']} · "
        f"latency p50 {summary['latency_p50']:.2f} s p95 {summary['latency_p95']:.2f} s · "
        f"calls/question {summary['calls_per_question']:.1f}"
    )
    return "\n".join(lines)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def comparison_text(result: dict[str, Any]) -> str:
    """Two runs side by side per type, McNemar's p and the flipped samples."""
    lines = [
        f"{result['run_a']} -> {result['run_b']}: {result['shared']} shared samples",
        f"{'type':<14}{'A':>8}{'B':>8}{'delta':>9}",
    ]
    for kind, d in result["by_type"].items():
        delta = "-" if d["delta"] is None else f"{d['delta']:+.1%}"
        lines.append(f"{kind:<14}{_percent(d['a']):>8}{_percent(d['b']):>8}{delta:>9}")
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

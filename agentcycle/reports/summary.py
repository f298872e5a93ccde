"""Human-readable views of a session: the cycle table, the Markdown and HTML summaries.

The summary follows the seed: header, inputs, input data quality, workflow path, the
steps with each step's key metric, final quality with good / acceptable / needs
improvement from `metrics.yaml`, key output files, and a plot of the key metric.
The HTML is self-contained (the plot is an embedded PNG): it opens anywhere, offline.
"""

from __future__ import annotations

import base64
import html
import io
from dataclasses import dataclass

from agentcycle.agent.program.state import CycleRecord, MetricValue, SessionState
from agentcycle.knowledge.pack import Pack
from agentcycle.reports.evidence import Memory, memory_html, memory_markdown

TABLE_COLUMNS = ("cycle", "program", "status", "time_s", "metrics")
ASSESSMENT_WORDS = {"good": "good", "acceptable": "acceptable", "poor": "needs improvement"}


def format_value(value: MetricValue) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def format_metrics(metrics: dict[str, MetricValue], limit: int = 6) -> str:
    items = [f"{k}={format_value(v)}" for k, v in list(metrics.items())[:limit]]
    return " ".join(items)


def status_of(record: CycleRecord) -> str:
    if record.program == "STOP":
        return "stop"
    return f"FAILED ({record.failure_reason})" if record.failed else "ok"


def cycle_table(state: SessionState) -> list[dict[str, str]]:
    """One row per cycle, as strings, for the terminal, Markdown and artifacts alike."""
    rows = []
    for r in state.cycles:
        detail = format_metrics(r.metrics) if r.metrics else r.reason if r.program == "STOP" else ""
        rows.append(
            {
                "cycle": str(r.cycle),
                "program": r.program,
                "status": status_of(r),
                "time_s": f"{r.duration_s:.1f}" if r.program != "STOP" else "",
                "metrics": detail,
            }
        )
    return rows


@dataclass(frozen=True)
class QualityRow:
    label: str
    value: str
    assessment: str  # good / acceptable / needs improvement / ""


def latest_metrics(state: SessionState) -> dict[str, MetricValue]:
    found: dict[str, MetricValue] = {}
    for record in state.cycles:
        if record.succeeded:
            found.update(record.metrics)
    return found


def quality_rows(state: SessionState, pack: Pack) -> list[QualityRow]:
    """The summary table of metrics.yaml, each latest value judged against its threshold."""
    values = latest_metrics(state)
    rules = pack.metrics.stop_rules
    resolution = values.get(rules.resolution_metric) if rules and rules.resolution_metric else None
    resolution = float(resolution) if isinstance(resolution, int | float) else None
    rows = []
    for item in pack.metrics.summary:
        value = values.get(item.metric)
        if value is None:
            continue
        threshold = pack.metrics.thresholds.get(item.metric)
        verdict = ""
        if threshold and isinstance(value, int | float) and not isinstance(value, bool):
            verdict = ASSESSMENT_WORDS[threshold.assess(float(value), resolution)]
        rows.append(QualityRow(item.label, format_value(value), verdict))
    return rows


def key_metric(pack: Pack) -> str | None:
    return pack.metrics.stop_rules.target if pack.metrics.stop_rules else None


def key_metric_plot(state: SessionState, metric: str) -> bytes | None:
    """PNG of the key metric per cycle, or None when fewer than two points exist."""
    points = [
        (r.cycle, float(r.metrics[metric]))
        for r in state.cycles
        if r.succeeded and isinstance(r.metrics.get(metric), int | float)
    ]
    if len(points) < 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    figure, axis = plt.subplots(figsize=(6, 3.2), dpi=100)
    axis.plot([c for c, _ in points], [v for _, v in points], marker="o")
    for cycle, value in points:
        axis.annotate(
            f"{value:.3f}",
            (cycle, value),
            textcoords="offset points",
            xytext=(0, 6),
            ha="center",
            fontsize=8,
        )
    axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_xlabel("cycle")
    axis.set_ylabel(metric)
    axis.set_title(f"{metric} across the session")
    axis.grid(alpha=0.3)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    return buffer.getvalue()


def step_rows(state: SessionState, pack: Pack) -> list[tuple[str, str, str, str]]:
    """(cycle, program, status, key metric) for each step."""
    target = key_metric(pack)
    rows = []
    for record in state.cycles:
        if target and target in record.metrics:
            key = f"{target}={format_value(record.metrics[target])}"
        else:
            key = next((f"{k}={format_value(v)}" for k, v in record.metrics.items()), "")
        rows.append((str(record.cycle), record.program, status_of(record), key or record.reason))
    return rows


def session_markdown(
    state: SessionState, pack: Pack | None = None, memory: Memory | None = None
) -> str:
    """A Markdown summary: inputs, outcome, steps, final quality, key output files and
    what memory contributed (`memory`: what the retrieve task found per cycle)."""
    lines = [
        f"# Session {state.session_id}",
        "",
        f"- pack: `{state.pack}`, workflow: `{state.workflow}`",
        f"- goal: {state.goal or '(none)'}",
        f"- directives: {'; '.join(state.directives.recognised) or '(none)'}",
        f"- inputs: {', '.join(f'`{p}`' for p in state.inputs)}",
        *[f"  - `{copy}` was `{original!r}`" for copy, original in state.input_names.items()],
        f"- status: **{state.status}** — {state.stop_reason or ''}",
        f"- workflow path: {' → '.join(r.program for r in state.cycles) or '(no cycle yet)'}",
        "",
        "| " + " | ".join(TABLE_COLUMNS) + " |",
        "|" + "---|" * len(TABLE_COLUMNS),
    ]
    for row in cycle_table(state):
        lines.append("| " + " | ".join(row[c].replace("|", "\\|") for c in TABLE_COLUMNS) + " |")
    if pack is not None:
        quality = quality_rows(state, pack)
        if quality:
            lines += [
                "",
                "## Final quality",
                "",
                "| metric | value | assessment |",
                "|---|---|---|",
            ]
            lines += [f"| {q.label} | {q.value} | {q.assessment} |" for q in quality]
    if state.best_files:
        lines += ["", "## Best files", ""]
        lines += [f"- {category}: `{path}`" for category, path in sorted(state.best_files.items())]
    lines += memory_markdown(state, memory or {})
    return "\n".join(lines) + "\n"


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}
.good{color:#16702e}.acceptable{color:#8a6100}
.needs{color:#b00020}code{background:#f5f5f5;padding:0 .2rem}
"""


def _renamed(state: SessionState) -> str:
    """Inputs whose copies got safe names, with the names the user gave them."""
    pairs = [f"{copy} was {original!r}" for copy, original in state.input_names.items()]
    return f" (renamed: {'; '.join(pairs)})" if pairs else ""


def session_html(state: SessionState, pack: Pack, memory: Memory | None = None) -> str:
    """The same summary as a self-contained HTML page with the key-metric plot."""
    esc = html.escape
    quality = quality_rows(state, pack)
    quality_html = "".join(
        f"<tr><td>{esc(q.label)}</td><td>{esc(q.value)}</td>"
        f"<td class='{esc(q.assessment.split()[0] if q.assessment else '')}'>"
        f"{esc(q.assessment)}</td></tr>"
        for q in quality
    )
    target = key_metric(pack)
    png = key_metric_plot(state, target) if target else None
    plot = (
        f"<h2>{esc(target or '')} across cycles</h2>"
        f"<img alt='{esc(target or '')} per cycle' src='data:image/png;base64,"
        f"{base64.b64encode(png).decode()}'>"
        if png
        else ""
    )
    files = "".join(
        f"<li>{esc(category)}: <code>{esc(path)}</code></li>"
        for category, path in sorted(state.best_files.items())
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Session {esc(state.session_id)}</title>
<style>{STYLE}</style></head><body>
<h1>Session {esc(state.session_id)}</h1>
<p>Pack <code>{esc(state.pack)}</code>, workflow <code>{esc(state.workflow)}</code>.
Status <b>{esc(state.status)}</b>: {esc(state.stop_reason or "")}</p>
<p>Goal: {esc(state.goal or "(none)")}<br>
Directives: {esc("; ".join(state.directives.recognised) or "(none)")}<br>
Inputs: {esc(", ".join(state.inputs))}{esc(_renamed(state))}</p>
<h2>Steps</h2>
{_table(("cycle", "program", "status", "key metric"), step_rows(state, pack))}
<h2>Final quality</h2>
<table><thead><tr><th>metric</th><th>value</th><th>assessment</th></tr></thead>
<tbody>{quality_html or "<tr><td colspan=3>no metrics</td></tr>"}</tbody></table>
{plot}
<h2>Key output files</h2><ul>{files or "<li>none</li>"}</ul>
{memory_html(state, memory or {})}
</body></html>
"""

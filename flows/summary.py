"""Human-readable views of a session: the cycle table and the Markdown summary."""

from __future__ import annotations

from agentcycle.agent.state import CycleRecord, MetricValue, SessionState

TABLE_COLUMNS = ("cycle", "program", "status", "time_s", "metrics")


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
    return [
        {
            "cycle": str(r.cycle),
            "program": r.program,
            "status": status_of(r),
            "time_s": f"{r.duration_s:.1f}" if r.program != "STOP" else "",
            "metrics": format_metrics(r.metrics)
            if r.metrics
            else r.reason
            if r.program == "STOP"
            else "",
        }
        for r in state.cycles
    ]


def session_markdown(state: SessionState) -> str:
    """A Markdown summary: inputs, outcome, the cycle table and the best files."""
    lines = [
        f"# Session {state.session_id}",
        "",
        f"- pack: `{state.pack}`, workflow: `{state.workflow}`",
        f"- goal: {state.goal or '(none)'}",
        f"- directives: {'; '.join(state.directives.recognised) or '(none)'}",
        f"- inputs: {', '.join(f'`{p}`' for p in state.inputs)}",
        f"- status: **{state.status}** — {state.stop_reason or ''}",
        "",
        "| " + " | ".join(TABLE_COLUMNS) + " |",
        "|" + "---|" * len(TABLE_COLUMNS),
    ]
    for row in cycle_table(state):
        lines.append("| " + " | ".join(row[c].replace("|", "\\|") for c in TABLE_COLUMNS) + " |")
    if state.best_files:
        lines += ["", "## Best files", ""]
        lines += [f"- {category}: `{path}`" for category, path in sorted(state.best_files.items())]
    return "\n".join(lines) + "\n"

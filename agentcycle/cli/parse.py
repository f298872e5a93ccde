"""`agentcycle parse LOG...`: which program wrote each log, its metrics, failed or not.

The same reading the cycle flow's parse_log task does (`logparse.read_log`), for logs
the user brings. A log that cannot be read (missing, empty, binary, not UTF-8) gets one
line on stderr naming it; the others still print, and the exit code is then 2.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from agentcycle.agent.program.logparse import read_log
from agentcycle.knowledge import load_pack


class Format(StrEnum):
    table = "table"
    json = "json"


def load_text(path: Path) -> str:
    """The log's text, or ValueError with the reason it cannot be a log."""
    if not path.is_file():
        raise ValueError("no such file")
    data = path.read_bytes()
    if not data.strip():
        raise ValueError("empty file")
    if b"\0" in data[:65536]:
        raise ValueError("binary file (NUL bytes), not a log")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (byte {exc.start})") from exc


def parse_logs(paths: list[Path], pack_ref: str) -> tuple[list[dict[str, Any]], list[str]]:
    """One result object per readable log, one problem line per unreadable one."""
    pack = load_pack(pack_ref)
    results, problems = [], []
    for path in paths:
        try:
            text = load_text(path)
        except (OSError, ValueError) as exc:
            problems.append(f"{path}: {exc}")
            continue
        reading = read_log(text, pack)
        results.append(
            {
                "log": str(path),
                "program": reading.program,
                "metrics": reading.parsed.metrics,
                "failed": reading.parsed.failed,
                "failure_reason": reading.parsed.failure_reason,
            }
        )
    return results, problems


def _table(results: list[dict[str, Any]]) -> None:
    from rich.console import Console  # rich is only needed for the table view
    from rich.table import Table

    table = Table("log", "program", "metrics", "status")
    for item in results:
        metrics = "\n".join(f"{k} = {v}" for k, v in item["metrics"].items()) or "-"
        status = f"failed: {item['failure_reason']}" if item["failed"] else "ok"
        table.add_row(item["log"], item["program"] or "(unknown)", metrics, status)
    Console().print(table)


def parse(
    logs: Annotated[list[Path], typer.Argument(help="Program logs to read.")],
    pack: Annotated[str, typer.Option(help="Knowledge pack name or directory.")] = "phenix",
    output: Annotated[Format, typer.Option("--format", help="table or json.")] = Format.table,
) -> None:
    """Identify each log's program and print its metrics and failure state."""
    results, problems = parse_logs(logs, pack)
    if output is Format.json:
        typer.echo(json.dumps(results, indent=1))
    elif results:
        _table(results)
    for line in problems:
        typer.echo(line, err=True)
    if problems:
        raise typer.Exit(2)

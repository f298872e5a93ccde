"""CLI commands for corpora and the store: ingest, search, report, store compact|info.

`app` is merged into the main CLI (`app.add_typer(cli_store.app)` without a name adds
these commands at the top level). Heavy libraries load inside the commands, so `--help`
never pays for torch, LanceDB or Prefect. Bad input raises `UserError`.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.errors import UserError

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
store_app = typer.Typer(help="Store maintenance: compaction and sizes.", no_args_is_help=True)
app.add_typer(store_app, name="store")


class SearchMode(StrEnum):
    hybrid = "hybrid"
    vector = "vector"
    text = "text"


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


@app.command()
def ingest(
    corpus: Annotated[str, typer.Argument(help="Corpus name (letters, digits, '-', '_').")],
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (md, txt, html, pdf).")],
    progress: Annotated[bool, typer.Option(help="Show a progress bar.")] = True,
) -> None:
    """Ingest files into a corpus (a Prefect flow); unchanged files are skipped by hash."""
    from agentcycle.storage.corpus import validate_corpus_name

    validate_corpus_name(corpus)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UserError(f"{missing[0]}: no such file or folder")
    from agentcycle.flows.server import ensure_prefect_api

    api = ensure_prefect_api()
    typer.echo(f"Prefect API: {api}  (watch: {api.removesuffix('/api')}/runs)", err=True)
    from agentcycle.flows.ingest import ingest_flow

    report = ingest_flow(corpus, [str(p) for p in paths], progress=progress)
    for skipped in report.skipped:
        typer.echo(str(skipped), err=True)
    typer.echo(report.summary())


@app.command()
def search(
    corpus: Annotated[str, typer.Argument(help="Corpus name.")],
    query: Annotated[str, typer.Argument(help="What to look for, in words.")],
    k: Annotated[int, typer.Option("--k", "-k", help="Results to show.")] = 10,
    mode: Annotated[
        SearchMode, typer.Option(help="vector, text (BM25) or both fused.")
    ] = SearchMode.hybrid,
    file: Annotated[str | None, typer.Option(help="Only files whose path contains this.")] = None,
    heading: Annotated[
        str | None, typer.Option(help="Only sections whose heading path contains this.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Search a corpus: hybrid (vector + full text, RRF) by default."""
    from agentcycle.storage.search import search as run_search

    hits = run_search(corpus, query, k=k, mode=mode.value, file=file, heading=heading)
    if as_json:
        typer.echo(json.dumps([h.to_dict() for h in hits], indent=1))
        return
    if not hits:
        typer.echo("no results")
    for rank, hit in enumerate(hits, start=1):
        typer.echo(
            f"{rank:2d}. {hit.file} [{hit.start_char}-{hit.end_char}]  score {hit.score:.4f}"
        )
        if hit.heading:
            typer.echo(f"    § {hit.heading}")
        typer.echo(f"    {hit.snippet}")


@app.command()
def report(
    name: Annotated[str, typer.Argument(help="sessions, metric-trend, corpus or eval-trend.")],
    target: Annotated[
        str | None,
        typer.Argument(help="The program (metric-trend), corpus (corpus) or suite (eval-trend)."),
    ] = None,
    program: Annotated[str | None, typer.Option(help="Only this program.")] = None,
    corpus: Annotated[str | None, typer.Option(help="Only this corpus.")] = None,
    suite: Annotated[str | None, typer.Option(help="Only this evaluation suite.")] = None,
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.table,
) -> None:
    """Run a named report (a SQL file in storage/reports/) with DuckDB."""
    from agentcycle.storage.query import format_table, report_parameters, report_sql, run_report

    values = {"program": program, "corpus": corpus, "suite": suite}
    if target is not None:
        wanted = report_parameters(report_sql(name))
        if not wanted:
            raise UserError(f"report {name!r} takes no argument (got {target!r})")
        if values.get(wanted[0]) not in (None, target):
            raise UserError(f"report {name!r}: {target!r} and --{wanted[0]} disagree")
        values[wanted[0]] = target
    typer.echo(format_table(run_report(name, **values), format.value))


@store_app.command("compact")
def store_compact() -> None:
    """Merge small Parquet files and optimize LanceDB tables (one at a time, never twice)."""
    from agentcycle.storage.maintenance import compact

    for line in compact().lines():
        typer.echo(line)


@store_app.command("info")
def store_info(format: Annotated[Format, typer.Option("--format", "-f")] = Format.table) -> None:
    """Rows, files and bytes of every dataset and LanceDB table."""
    import pyarrow as pa

    from agentcycle.storage.maintenance import info
    from agentcycle.storage.query import format_table

    typer.echo(format_table(pa.Table.from_pylist(info()), format.value))

"""CLI commands for corpora and the store: ingest, search, query, report, store ...

`agentcycle.cli.main` registers each as a top-level command; `app` groups them for
tests that invoke them directly. Bad input raises `UserError`. Each command imports the
store, flows and models it uses when it runs, so `--help` answers at once.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from agentcycle.errors import UserError

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
store_app = typer.Typer(help="Store maintenance: compaction, sizes, checks and repair.",
                        no_args_is_help=True)
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
    embedding_model: Annotated[Path | None, typer.Option(
        help="A sentence-transformers model folder for this corpus (default: the packaged "
             "all-MiniLM-L6-v2); recorded with the corpus.")] = None,
    rebuild_embeddings: Annotated[bool, typer.Option(
        help="Drop the corpus and re-embed it all (to change its embedding model).")] = False,
) -> None:
    """Ingest files into a corpus (a Prefect flow); unchanged files are skipped by hash."""
    from agentcycle.flows.ingest import ingest_flow
    from agentcycle.server import ensure_prefect_api
    from agentcycle.storage.corpus import check_something_to_ingest, validate_corpus_name

    validate_corpus_name(corpus)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise UserError(f"{missing[0]}: no such file or folder")
    if embedding_model is not None and not embedding_model.is_dir():
        raise UserError(f"{embedding_model}: --embedding-model: no such model folder")
    check_something_to_ingest(corpus, paths)

    api = ensure_prefect_api()
    typer.echo(f"Prefect API: {api}  (watch: {api.removesuffix('/api')}/runs)", err=True)

    report = ingest_flow(corpus, [str(p) for p in paths], progress=progress,
                         embedding_model=str(embedding_model) if embedding_model else None,
                         rebuild_embeddings=rebuild_embeddings)
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
    """Search a corpus: hybrid (vector + full text, RRF) by default; `runs` searches the
    program agent's past cycles (session, cycle, outcome, error) by meaning."""
    from agentcycle.cli.memory import RUNS_CORPUS, echo_run_hits
    from agentcycle.storage.search import search as run_search

    if corpus == RUNS_CORPUS:
        echo_run_hits(query, k, as_json)
        return
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
def query(
    sql: Annotated[str, typer.Argument(help="DuckDB SQL over the datasets and LanceDB tables.")],
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.table,
) -> None:
    """Query every dataset (cycles, metrics, events, ...) and LanceDB table with DuckDB."""
    from agentcycle.storage.query import format_table, run_query

    typer.echo(format_table(run_query(sql), format.value).rstrip("\n"))


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


@store_app.command("check")
def store_check(
    repair: Annotated[
        bool, typer.Option(help="Quarantine broken files and tables, rebuild what can be.")
    ] = False,
    sessions: Annotated[
        list[Path] | None,
        typer.Option("--session", help="Also reconcile this session folder (repeat)."),
    ] = None,
) -> None:
    """Find broken Parquet files, dataset folders and LanceDB tables; make every session's
    cycles, metrics and events agree with its session file (idempotent)."""
    from agentcycle.config import sessions_dir
    from agentcycle.storage.health import all_dataset_problems, lancedb_problems, quarantine
    from agentcycle.tasks.reconcile import reconcile_all, session_dirs

    for path in sessions or []:
        if not (path / "session.json").is_file():
            raise UserError(f"{path}: --session: no session.json here")
    problems = all_dataset_problems(deep=True) + lancedb_problems(deep=True)
    for problem in problems:
        if not repair:
            typer.echo(f"broken: {problem.line()}")
            continue
        target = quarantine(problem)  # a broken file, table, or a file where a folder was
        typer.echo(f"quarantined {problem.path} -> {target}")
        if problem.kind == "lancedb" and problem.name.startswith("corpus_"):
            typer.echo(f"  rebuild it: agentcycle ingest {problem.name.removeprefix('corpus_')}"
                       " PATH...")
    dirs = [*session_dirs(sessions_dir()), *(p.resolve() for p in sessions or [])]
    for result in reconcile_all(dict.fromkeys(dirs)):
        typer.echo(result if isinstance(result, str) else result.line())
    typer.echo(f"{len(problems)} broken item(s)" + (", quarantined" if repair and problems
                                                   else "") + f"; {len(dirs)} session(s) checked")
    if problems and not repair:
        raise typer.Exit(1)


@store_app.command("info")
def store_info(format: Annotated[Format, typer.Option("--format", "-f")] = Format.table) -> None:
    """Rows, files and bytes of every dataset and LanceDB table."""
    import pyarrow as pa

    from agentcycle.storage.maintenance import info
    from agentcycle.storage.query import format_table

    typer.echo(format_table(pa.Table.from_pylist(info()), format.value))

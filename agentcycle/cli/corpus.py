"""`agentcycle corpus list|delete`: the corpora in this home's store."""

from __future__ import annotations

from typing import Annotated

import typer

from agentcycle.storage.corpora import delete_corpus, list_corpora

corpus_app = typer.Typer(help="Corpora in the store: list, delete.", no_args_is_help=True)


@corpus_app.command("list")
def list_command() -> None:
    """Every corpus: name, files, chunks and the folders it was ingested from."""
    corpora = list_corpora()
    if not corpora:
        typer.echo("no corpus yet: agentcycle ingest NAME PATH")
        return
    for info in corpora:
        sources = ", ".join(info.sources)
        typer.echo(f"{info.name}\t{info.files} files\t{info.chunks} chunks\t{sources}")


@corpus_app.command("delete")
def delete_command(
    name: Annotated[str, typer.Argument(help="Corpus name (see `agentcycle corpus list`).")],
) -> None:
    """Delete a corpus's chunks and vectors (the ingested files themselves stay)."""
    delete_corpus(name)
    typer.echo(f"deleted corpus {name}")

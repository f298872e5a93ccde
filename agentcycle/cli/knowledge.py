"""`agentcycle knowledge validate|schema`: check a pack, write the pack files' JSON Schemas.

`knowledge_app` is registered as `agentcycle knowledge` in `agentcycle.cli.main`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from agentcycle.knowledge import load_pack
from agentcycle.knowledge.json_schema import write_schemas

knowledge_app = typer.Typer(help="Knowledge packs.", no_args_is_help=True)


@knowledge_app.command("validate")
def knowledge_validate(
    pack: Annotated[str, typer.Argument(help="Pack name or directory.")],
) -> None:
    """Check a pack; every problem is printed as `file:line: field: what is wrong`."""
    loaded = load_pack(pack)
    typer.echo(
        f"{loaded.name}: ok ({len(loaded.programs)} programs, "
        f"{len(loaded.workflows)} workflows, {len(loaded.file_categories)} file categories)"
    )


@knowledge_app.command("schema")
def knowledge_schema(
    out: Annotated[Path, typer.Option("--out", help="Folder to write the schemas into.")],
) -> None:
    """Write JSON Schemas of every pack file (programs, workflows, file_categories, metrics,
    recoverable_errors, diagnosable_errors) for editors to complete and check them."""
    for path in write_schemas(out):
        typer.echo(str(path))

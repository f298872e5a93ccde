"""The corpora in the store as a whole: list them, delete one, find one by its content.

`eval` reuses a corpus already ingested from the same files (the same content hashes)
whatever it was called, so a suite never embeds again what `ingest` embedded before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentcycle.errors import UserError
from agentcycle.storage.corpus import TABLE_PREFIX, table_name
from agentcycle.storage.corpus_files import discover, file_hash
from agentcycle.storage.tables import connect, file_lock, forget_handles, open_table, table_names


@dataclass(frozen=True)
class CorpusInfo:
    name: str
    files: int
    chunks: int
    sources: tuple[str, ...]


def _file_hashes(name: str) -> tuple[set[str], int, tuple[str, ...]]:
    """A corpus's file hashes, chunk count and source folders (from the table's columns)."""
    table = open_table(table_name(name))
    if table is None:
        return set(), 0, ()
    columns = table.to_lance().to_table(columns=["source", "file_hash"])
    hashes = set(columns.column("file_hash").to_pylist())
    sources = tuple(sorted(set(columns.column("source").to_pylist())))
    return hashes, columns.num_rows, sources


def corpus_names() -> list[str]:
    return [n.removeprefix(TABLE_PREFIX) for n in table_names() if n.startswith(TABLE_PREFIX)]


def list_corpora() -> list[CorpusInfo]:
    """Every corpus with its file and chunk counts."""
    infos = []
    for name in corpus_names():
        hashes, chunks, sources = _file_hashes(name)
        infos.append(CorpusInfo(name, len(hashes), chunks, sources))
    return infos


def delete_corpus(name: str) -> None:
    """Drop a corpus's table; its files on disk are untouched."""
    if name not in corpus_names():
        raise UserError(f"corpus {name!r} does not exist (see `agentcycle corpus list`)")
    with file_lock(f"create-{table_name(name)}"):
        connect().drop_table(table_name(name))
    forget_handles()


def corpus_with_files(paths: Sequence[Path]) -> str | None:
    """The name of a corpus holding exactly these files' current contents, if any."""
    files, _skipped, _folders = discover(paths)
    if not files:
        return None
    wanted = {file_hash(f.path.read_bytes()) for f in files}
    for name in corpus_names():
        if _file_hashes(name)[0] == wanted:
            return name
    return None

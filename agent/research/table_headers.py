"""The header of a table that a chunk continues: a row means what its columns say.

A long table is cut across chunks (each chunk is a verbatim slice of the document, the
embedding model sees about 1,000 characters), so only the first chunk holds the header
and |---| lines; a row of a later chunk read alone is "`map_cc_drop` | 425 |", with
nothing to say that 425 is a line number. Read once per corpus version, in document
order: a chunk that opens with header-less rows gets the header of the table its
predecessor in the same section ends inside of (or continues in turn).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agentcycle.agent.research.clean import open_table_header, starts_headless_table


@dataclass(frozen=True)
class Placed:
    """What the lookup needs of a chunk: where it sits in its document, and its text."""

    chunk_id: str
    file: str
    heading: str
    start: int
    text: str


def continued_table_headers(chunks: Iterable[Placed]) -> dict[str, str]:
    """chunk id → the header lines of the table it continues, for chunks that do."""
    headers: dict[str, str] = {}
    previous: Placed | None = None
    for chunk in sorted(chunks, key=lambda c: (c.file, c.start)):
        if (
            previous is not None
            and (previous.file, previous.heading) == (chunk.file, chunk.heading)
            and starts_headless_table(chunk.text)
        ):
            header = open_table_header(previous.text)
            if not header and starts_headless_table(previous.text):
                header = headers.get(previous.chunk_id, "")  # a table over three chunks
            if header:
                headers[chunk.chunk_id] = header
        previous = chunk
    return headers

"""Which embedding model a corpus uses: chosen at its first ingest, then kept.

A corpus table records its model in the schema metadata (`storage.embedding`), so a
search embeds the query with the corpus's own model and one table never holds vectors of
two models. Asking a corpus to change model is refused in one line unless the caller
asks for a rebuild, which drops the table so the ingest re-embeds everything.
"""

from __future__ import annotations

from pathlib import Path

from agentcycle.errors import UserError
from agentcycle.storage.corpus import broken_table, open_corpus, table_name
from agentcycle.storage.embedding import EmbeddingModel, model_from_folder, model_of_schema
from agentcycle.storage.tables import connect, forget_handles, open_table


def corpus_model(corpus: str) -> EmbeddingModel:
    """The model whose vectors a corpus holds (queries must be embedded by it too)."""
    return model_of_schema(open_corpus(corpus).schema)


def prepare_corpus_model(corpus: str, folder: str | Path | None = None,
                         rebuild: bool = False) -> EmbeddingModel:
    """The model an ingest embeds with; creates the table for it when new.

    No folder keeps an existing corpus's own model (the packaged one for a new corpus).
    A different model (id or dimension) than the corpus was embedded with is refused;
    `rebuild` drops the corpus instead so this ingest re-embeds it whole.
    """
    name = table_name(corpus)
    try:
        existing = open_table(name)
    except (OSError, RuntimeError, ValueError) as exc:
        raise broken_table(name, exc) from None
    if existing is not None:
        current = model_of_schema(existing.schema)
        if folder is None and not rebuild:
            return current
        wanted = model_from_folder(folder)
        if (wanted.id, wanted.dim) == (current.id, current.dim) and not rebuild:
            return current
        if not rebuild:
            raise UserError(
                f"corpus {corpus!r} was embedded with {current.id} ({current.dim} dims), not "
                f"{wanted.id} ({wanted.dim} dims); add --rebuild-embeddings to re-embed it "
                "all with the new model, or drop --embedding-model")
        connect().drop_table(name)
        forget_handles()
    model = model_from_folder(folder)
    open_corpus(corpus, create=True, model=model)
    return model

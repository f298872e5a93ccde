"""Prefect tasks for retrieval: embed a batch of chunks, search a corpus.

Embedding is the expensive step of ingest, so its task is cached on the batch's chunk
hashes (plus the model id), not on the text arguments: a rerun after a crash, or a
second corpus holding the same files, takes the vectors from the result store. Batches
are formed deterministically (chunks sorted by length, then cut), which keeps padding
small inside a batch and makes the same pending chunks form the same batches again.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Sequence
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from prefect import task
from prefect.context import TaskRunContext

from agentcycle.storage.datasets import append_rows
from agentcycle.storage.embedding import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_MODEL,
    EmbeddingModel,
    embed,
    model_id,
)
from agentcycle.storage.search import Hit, search

if TYPE_CHECKING:
    import numpy as np

    from agentcycle.agent.research.state import Evidence

EMBED_BATCH = 64  # chunks per task: big enough that task overhead is ~2 % of the work


def _chunk_hash_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    digest = hashlib.sha256(model_id(parameters.get("model") or DEFAULT_MODEL).encode())
    for chunk_hash in parameters["hashes"]:
        digest.update(chunk_hash.encode())
    return f"embed-{digest.hexdigest()}"


@task(
    name="embed_chunks",
    task_run_name="embed-chunks",
    cache_key_fn=_chunk_hash_key,
    persist_result=True,
    cache_expiration=timedelta(days=30),
    retries=1,
)
def embed_chunks_task(texts: list[str], hashes: list[str],
                      model: EmbeddingModel = DEFAULT_MODEL) -> np.ndarray:
    """Vectors for one batch of chunks (model and hashes key the cache; texts are embedded)."""
    return embed(texts, batch_size=DEFAULT_BATCH_SIZE, model=model)


def embed_in_batches(
    texts: list[str], hashes: list[str], batch_size: int = EMBED_BATCH, progress: Any = None,
    model: EmbeddingModel = DEFAULT_MODEL,
) -> np.ndarray:
    """Embed many chunks through cached tasks, in length order; rows match the inputs."""
    import numpy as np

    order = sorted(range(len(texts)), key=lambda i: (len(texts[i]), hashes[i]))
    vectors = np.zeros((len(texts), model.dim), dtype=np.float32)
    for start in range(0, len(order), batch_size):
        picked = order[start : start + batch_size]
        batch = embed_chunks_task.with_options(
            task_run_name=f"embed-{start // batch_size + 1:04d}"
        )([texts[i] for i in picked], [hashes[i] for i in picked], model)
        vectors[picked] = batch
        if progress is not None:
            progress.update(len(picked))
    return vectors


def record_retrievals(
    session_id: str,
    corpus: str,
    mode: str,
    k: int,
    queries: Sequence[str],
    rankings: Sequence[Sequence[Hit | Evidence]],
    latency_ms: float,
) -> None:
    """One `retrievals` row per hit of each query (one file for them all), so every
    answer can be traced to what was seen."""
    rows = []
    for query, hits in zip(queries, rankings, strict=True):
        query_id = uuid.uuid4().hex
        rows += [
            {
                "session_id": session_id,
                "query_id": query_id,
                "query": query,
                "corpus": corpus,
                "mode": mode,
                "k": k,
                "rank": rank,
                "chunk_id": hit.chunk_id,
                "file": hit.file,
                "heading": hit.heading,
                "score": hit.score,
                "latency_ms": latency_ms,
            }
            for rank, hit in enumerate(hits, start=1)
        ]
    append_rows("retrievals", rows)


@task(name="search", task_run_name="search-{mode}")
def search_task(
    corpus: str,
    query: str,
    k: int = 10,
    mode: str = "hybrid",
    file: str | None = None,
    heading: str | None = None,
    session_id: str = "",
    record: bool = True,
) -> list[Hit]:
    """Search a corpus and log what was retrieved to the `retrievals` dataset."""
    started = time.perf_counter()
    hits = search(corpus, query, k=k, mode=mode, file=file, heading=heading)  # type: ignore[arg-type]
    latency_ms = (time.perf_counter() - started) * 1000
    if record:
        record_retrievals(session_id, corpus, mode, k, [query], [hits], latency_ms)
    return hits

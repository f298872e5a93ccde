"""What the agents remember: run logs (`run_logs`) and answered questions (`qa_memory`).

One row per finished cycle lives in `runs` (storage/runs.py). `run_logs` holds program
logs and session summaries, chunked and embedded like a corpus, so
a later decision can ask "what happened last time this program ran on data like this"
and get the passages back by meaning or by exact words. `qa_memory` caches answers:
a new question whose embedding is within the cosine threshold of a stored one (0.92 by
default, as in the legal-RAG seed) gets the stored answer, citations and confidence
without running the research agent again.

Both tables are append-only, which LanceDB commits safely from concurrent processes.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from agentcycle.errors import UserError
from agentcycle.storage.chunking import chunk_ids, chunk_text
from agentcycle.storage.corpus import ensure_indexes, rows_to_table
from agentcycle.storage.embedding import DIM, embed, embed_one
from agentcycle.storage.search import ranked_rows, search_filter
from agentcycle.storage.tables import file_lock, open_table, sql_quote

if TYPE_CHECKING:
    import lancedb
    import numpy as np

RUN_LOGS_TABLE = "run_logs"
QA_TABLE = "qa_memory"
DEFAULT_QA_THRESHOLD = 0.92

RUN_LOGS_SCHEMA = pa.schema(
    [
        ("chunk_id", pa.string()),
        ("session_id", pa.string()),
        ("program", pa.string()),
        ("kind", pa.string()),  # "log" or "summary" (or any label the caller uses)
        ("cycle", pa.int32()),
        ("file", pa.string()),  # the log's path, when it came from a file
        ("heading", pa.string()),
        ("start_char", pa.int64()),
        ("end_char", pa.int64()),
        ("text", pa.string()),
        ("chunk_hash", pa.string()),
        ("vector", pa.list_(pa.float32(), DIM)),
        ("recorded_at", pa.timestamp("us", tz="UTC")),
    ]
)
RUN_COLUMNS = ["chunk_id", "session_id", "program", "kind", "cycle", "file", "heading",
               "start_char", "end_char", "text", "chunk_hash"]

QA_SCHEMA = pa.schema(
    [
        ("qa_id", pa.string()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("citations", pa.string()),  # JSON list, so any citation shape survives
        ("confidence", pa.float64()),
        ("session_id", pa.string()),
        ("corpus", pa.string()),  # an answer holds for the corpus it was found in
        ("vector", pa.list_(pa.float32(), DIM)),
        ("created_at", pa.timestamp("us", tz="UTC")),
    ]
)


def run_logs_table(create: bool = True) -> lancedb.table.Table | None:
    return open_table(RUN_LOGS_TABLE, RUN_LOGS_SCHEMA if create else None)


def qa_table(create: bool = True) -> lancedb.table.Table | None:
    return open_table(QA_TABLE, QA_SCHEMA if create else None)


# --------------------------------------------------------------------------- run logs

def record_run_artifact(text: str, *, session_id: str, program: str, kind: str = "log",
                        cycle: int | None = None, file: str = "",
                        markdown: bool = False) -> int:
    """Chunk, embed and append one log or summary; returns the number of chunks stored."""
    chunks = chunk_text(text, "markdown" if markdown else "text")
    if not chunks:
        return 0
    vectors = embed([c.embed_text for c in chunks])
    now = datetime.now(UTC)
    ids = chunk_ids(f"{session_id}/{cycle}/{kind}/{file}/{uuid.uuid4().hex}", chunks)
    rows = [
        {"chunk_id": chunk_id, "session_id": session_id, "program": program, "kind": kind,
         "cycle": cycle, "file": file, "heading": chunk.heading, "start_char": chunk.start,
         "end_char": chunk.end, "text": chunk.text, "chunk_hash": chunk.hash,
         "vector": vector, "recorded_at": now}
        for chunk, chunk_id, vector in zip(chunks, ids, vectors, strict=True)
    ]
    append_rows(run_logs_table(), rows, RUN_LOGS_SCHEMA, full_text=True)
    return len(rows)


def append_rows(table: lancedb.table.Table, rows: list[dict[str, Any]], schema: pa.Schema,
                full_text: bool = False) -> None:
    """Append rows; with `full_text`, the first append also builds the text index."""
    table.add(rows_to_table(rows, schema))
    if full_text and "text" not in {c.columns[0] for c in table.list_indices()}:
        with file_lock(f"index-{table.name}"):
            table.checkout_latest()
            ensure_indexes(table)


def similar_runs(query: str, k: int = 5, program: str | None = None, mode: str = "hybrid",
                 session_id: str | None = None) -> list[dict[str, Any]]:
    """Passages of earlier logs and summaries most like the query (optionally one program)."""
    table = run_logs_table(create=False)
    if table is None or table.count_rows() == 0:
        return []
    extra = " AND ".join(
        f"{column} = {sql_quote(value)}"
        for column, value in (("program", program), ("session_id", session_id)) if value
    )
    rows = ranked_rows(table, query, mode, max(4 * k, 20), search_filter(extra=extra or None),
                       columns=RUN_COLUMNS)
    return rows[:k]


# --------------------------------------------------------------------------- QA memory

@dataclass
class CachedAnswer:
    question: str
    answer: str
    citations: list[Any] = field(default_factory=list)
    confidence: float = 0.0
    similarity: float = 0.0
    qa_id: str = ""


def remember_answer(question: str, answer: str, citations: list[Any] | None = None,
                    confidence: float = 0.0, session_id: str = "",
                    vector: np.ndarray | None = None, corpus: str = "") -> str:
    """Store an answered question; returns its id."""
    if not question.strip():
        raise UserError("remember_answer: the question is empty")
    qa_id = uuid.uuid4().hex
    row = {"qa_id": qa_id, "question": question, "answer": answer,
           "citations": json.dumps(citations or [], default=str), "confidence": confidence,
           "session_id": session_id, "corpus": corpus,
           "vector": embed_one(question) if vector is None else vector,
           "created_at": datetime.now(UTC)}
    append_rows(qa_table(), [row], QA_SCHEMA)
    return qa_id


def lookup_answer(question: str, threshold: float = DEFAULT_QA_THRESHOLD,
                  vector: np.ndarray | None = None, corpus: str = "") -> CachedAnswer | None:
    """The stored answer to the most similar question, if its cosine ≥ threshold."""
    if not 0.0 < threshold <= 1.0:
        raise UserError(f"QA threshold must be in (0, 1] (got {threshold})")
    table = qa_table(create=False)
    if table is None or table.count_rows() == 0:
        return None
    vector = embed_one(question) if vector is None else vector
    escaped = corpus.replace("'", "''")
    rows = table.search(vector, vector_column_name="vector").distance_type("cosine") \
        .where(f"corpus = '{escaped}'", prefilter=True) \
        .select(["qa_id", "question", "answer", "citations", "confidence", "_distance"]) \
        .limit(1).to_arrow().to_pylist()
    if not rows:
        return None
    best = rows[0]
    similarity = 1.0 - float(best["_distance"])
    if similarity < threshold:
        return None
    return CachedAnswer(best["question"], best["answer"], json.loads(best["citations"]),
                        best["confidence"], similarity, best["qa_id"])

"""Searching chunk tables: vector, full text, or both fused with reciprocal rank fusion.

Vector search uses cosine distance (IVF_PQ with refinement once the table has an index,
exact otherwise); full-text search uses LanceDB's native BM25 index. Hybrid runs both
at once (two threads; LanceDB releases the GIL) with the same filter, fuses the two
rankings by RRF and hands the candidates to a second-stage reranker: by default the
fused order itself, or a cross-encoder when one is available locally. The same
`ranked_rows` serves corpora and the `runs` table.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentcycle.errors import UserError
from agentcycle.storage.corpus import open_corpus, reading_table
from agentcycle.storage.embedding import DEFAULT_MODEL, embed_one, model_of_schema
from agentcycle.storage.tables import sql_quote

if TYPE_CHECKING:
    import lancedb

Mode = Literal["vector", "text", "hybrid"]
MODES: tuple[str, ...] = ("vector", "text", "hybrid")
RRF_K = 60
HYBRID_CANDIDATES_PER_RESULT = 3  # each side's depth before fusion, per result wanted
MIN_HYBRID_CANDIDATES = 30
NPROBES = 20
REFINE_FACTOR = 10
SEARCH_COLUMNS = ["chunk_id", "source", "file", "heading", "start_char", "end_char", "text",
                  "chunk_hash"]

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


@dataclass
class Hit:
    chunk_id: str
    file: str
    heading: str
    start_char: int
    end_char: int
    text: str
    score: float
    snippet: str = ""
    source: str = ""
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Reranker(Protocol):
    """Second stage: reorder fused candidates; may rescore them."""

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]: ...


class FusedScoreReranker:
    """The default: keep the fusion order (no model needed)."""

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        return hits


class CrossEncoderReranker:
    """Rescore with a local cross-encoder model folder (none ships here; bring your own)."""

    def __init__(self, model_path: str | Path):
        path = Path(model_path)
        if not path.is_dir():
            raise UserError(f"reranker model {model_path}: no such folder")
        self.model_path = path
        self._model: Any = None

    def rerank(self, query: str, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return hits
        if self._model is None:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(str(self.model_path), device="cpu")
        scores = self._model.predict([(query, hit.text) for hit in hits])
        for hit, score in zip(hits, scores, strict=True):
            hit.scores["cross_encoder"] = float(score)
            hit.score = float(score)
        return sorted(hits, key=lambda h: h.score, reverse=True)


def default_reranker() -> Reranker:
    """A cross-encoder when AGENTCYCLE_RERANKER_MODEL names a local model, else fused order."""
    model = os.environ.get("AGENTCYCLE_RERANKER_MODEL")
    return CrossEncoderReranker(model) if model else FusedScoreReranker()


def rrf_fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: score(d) = sum over lists of 1 / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def search_filter(file: str | None = None, heading: str | None = None,
                  extra: str | None = None) -> str | None:
    """SQL filter: case-insensitive substring match on file and heading path."""
    clauses = [extra] if extra else []
    for column, value in (("file", file), ("heading", heading)):
        if value:
            pattern = value.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            clauses.append(f"lower({column}) LIKE {sql_quote('%' + pattern + '%')} ESCAPE '\\'")
    return " AND ".join(f"({c})" for c in clauses) or None


def _vector_rows(table: lancedb.table.Table, vector: Any, limit: int, where: str | None,
                 columns: Sequence[str]) -> list[dict[str, Any]]:
    builder = table.search(vector, vector_column_name="vector").distance_type("cosine") \
        .nprobes(NPROBES).refine_factor(REFINE_FACTOR) \
        .select([*columns, "_distance"]).limit(limit)
    if where:
        builder = builder.where(where, prefilter=True)
    rows = builder.to_arrow().to_pylist()
    for row in rows:
        row["_scores"] = {"vector": 1.0 - float(row.pop("_distance"))}
    return rows


def _text_rows(table: lancedb.table.Table, query: str, limit: int, where: str | None,
               columns: Sequence[str]) -> list[dict[str, Any]]:
    from lancedb.query import MatchQuery

    builder = table.search(MatchQuery(query, "text"), query_type="fts") \
        .select([*columns, "_score"]).limit(limit)
    if where:
        builder = builder.where(where, prefilter=True)
    rows = builder.to_arrow().to_pylist()
    for row in rows:
        row["_scores"] = {"text": float(row.pop("_score"))}
    return rows


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="search")
        return _pool


def _fuse(rankings: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    by_id: dict[str, dict[str, Any]] = {}
    for ranked in rankings:
        for row in ranked:
            by_id.setdefault(row["chunk_id"], {**row, "_scores": {}})["_scores"].update(
                row["_scores"])
    result = []
    for chunk_id, score in rrf_fuse([[r["chunk_id"] for r in ranked] for ranked in rankings]):
        row = by_id[chunk_id]
        row["_score"] = row["_scores"]["rrf"] = score
        result.append(row)
    return result


def ranked_rows(table: lancedb.table.Table, query: str, mode: str, limit: int,
                where: str | None = None, query_vector: Any = None,
                columns: Sequence[str] = SEARCH_COLUMNS) -> list[dict[str, Any]]:
    """Candidate rows, best first, each with `_score` and per-mode `_scores`."""
    if mode not in MODES:
        raise UserError(f"--mode: {mode!r} is not one of {', '.join(MODES)}")
    if mode != "text" and query_vector is None:  # the table's own model embeds the query
        query_vector = embed_one(query, model_of_schema(table.schema))
    has_text = bool(query.strip())
    if mode == "vector" or (mode == "hybrid" and not has_text):
        rows = _vector_rows(table, query_vector, limit, where, columns)
        key = "vector"
    elif mode == "text":
        rows = _text_rows(table, query, limit, where, columns) if has_text else []
        key = "text"
    else:
        text_job = _executor().submit(_text_rows, table, query, limit, where, columns)
        vector = _vector_rows(table, query_vector, limit, where, columns)
        return _fuse([vector, text_job.result()])
    for row in rows:
        row["_score"] = row["_scores"][key]
    return rows


_WORD = re.compile(r"[A-Za-z0-9_.]{3,}")


def make_snippet(text: str, query: str, width: int = 240) -> str:
    """A one-line window of the text around the first query word it contains."""
    flat = " ".join(text.split())
    lower = flat.lower()
    positions = [lower.find(w.lower()) for w in _WORD.findall(query)]
    positions = [p for p in positions if p >= 0]
    start = max(0, min(positions) - width // 3) if positions else 0
    snippet = flat[start:start + width]
    return ("…" if start else "") + snippet + ("…" if start + width < len(flat) else "")


def candidate_depth(k: int, mode: str, reranker: Reranker) -> int:
    """How deep each side searches: deeper for fusion or a reranker, else k plus a margin."""
    if mode == "hybrid" or not isinstance(reranker, FusedScoreReranker):
        return max(k * HYBRID_CANDIDATES_PER_RESULT, MIN_HYBRID_CANDIDATES)
    return 2 * k  # the margin covers identical chunks reported once


def search(corpus: str, query: str, k: int = 10, mode: Mode = "hybrid",
           file: str | None = None, heading: str | None = None,
           reranker: Reranker | None = None, query_vector: Any = None) -> list[Hit]:
    """Top-k chunks of a corpus for a query; identical chunks (same hash) reported once."""
    if k < 1:
        raise UserError(f"--k: must be at least 1 (got {k})")
    if not query.strip():
        raise UserError("search: the query is empty")
    table = open_corpus(corpus)
    with reading_table(table.name):
        empty = table.count_rows() == 0
    if empty:  # every file deleted: no index to search, nothing to find
        return []
    reranker = reranker or default_reranker()
    if model_of_schema(table.schema) != DEFAULT_MODEL:
        query_vector = None  # a caller's vector is the default model's: never mix models
    with reading_table(table.name):
        rows = ranked_rows(table, query, mode, candidate_depth(k, mode, reranker),
                           search_filter(file, heading), query_vector=query_vector)
    hits: list[Hit] = []
    seen: set[str] = set()
    for row in rows:
        if row["chunk_hash"] in seen:
            continue
        seen.add(row["chunk_hash"])
        hits.append(Hit(row["chunk_id"], row["file"], row["heading"], row["start_char"],
                        row["end_char"], row["text"], row["_score"],
                        make_snippet(row["text"], query), row["source"], row["_scores"]))
    return reranker.rerank(query, hits)[:k]

"""The research agent's tools: plain storage calls (`LocalTools`) or Prefect tasks.

`LocalTools` is what tests and benchmarks hand the graph when no flow runs;
`PrefectTools` routes each retrieval and each LLM call through a task cached on its
inputs (the corpus's table version, read once when the tools are made, is part of the
retrieval key, so re-ingesting a corpus never serves stale chunks). Similarities,
vocabulary and memory stay plain calls: they take milliseconds, and a task costs more.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from functools import cache, lru_cache
from typing import Any

from prefect import Task, task
from prefect.context import TaskRunContext

from agentcycle.agent.llm import LLMProvider, LLMSettings, chat_transport, make_provider
from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.stated_default import DefaultStatement, default_statements
from agentcycle.agent.research.table_headers import Placed, continued_table_headers
from agentcycle.agent.research.text import Vocabulary
from agentcycle.agent.research.unit_index import UnitIndex
from agentcycle.storage.corpus import open_corpus, reading_table, table_name
from agentcycle.storage.embedding import (
    DEFAULT_MODEL,
    embed,
    embed_one,
    model_id,
    model_of_schema,
)
from agentcycle.storage.memory import lookup_answer, remember_answer
from agentcycle.storage.search import search
from agentcycle.storage.tables import lancedb_dir, sql_quote
from agentcycle.storage.vector_cache import load_vectors, save_vectors
from agentcycle.tasks.retrieval import record_retrievals

_texts: dict[str, tuple[str, CorpusText]] = {}  # corpus -> (version key, its text)
_text_lock = threading.Lock()


def version_key(corpus: str) -> str:
    """`<table path>@<version>`: changes whenever the corpus's chunks change. Reading the
    version asks the store for newer commits, so callers read it once per question."""
    version = open_corpus(corpus).version
    return f"{lancedb_dir() / table_name(corpus)}@{version}"


@dataclass(frozen=True)
class CorpusText:
    """What the agent knows of a corpus's text without searching it: term frequencies
    (query expansion, coverage) and the unit index (row- and sentence-level search)."""

    vocabulary: Vocabulary
    units: UnitIndex
    defaults: list[DefaultStatement]  # every "<Name> is the default" the corpus says
    table_headers: dict[str, str]  # chunk id → header of the table it continues


def corpus_text(corpus: str, version: str | None = None) -> CorpusText:
    """Built once per table version (`version` as `version_key` gives it, read now when
    not given) from one read of the chunks; the newest version is kept."""
    version = version or version_key(corpus)
    with _text_lock:
        cached = _texts.get(corpus)
        if cached is None or cached[0] != version:
            with reading_table(table_name(corpus)):
                table = open_corpus(corpus).to_lance().to_table(
                    columns=["chunk_id", "file", "heading", "start_char", "text"]
                )
            placed = [
                Placed(
                    r["chunk_id"], r["file"] or "", r["heading"] or "", r["start_char"] or 0,
                    r["text"] or "",
                )
                for r in table.to_pylist()
            ]  # fmt: skip
            headers = continued_table_headers(placed)
            rows = [
                Evidence(
                    chunk_id=c.chunk_id,
                    file=c.file,
                    heading=c.heading,
                    text=c.text,
                    table_header=headers.get(c.chunk_id, ""),
                )
                for c in placed
            ]
            vocabulary = Vocabulary.from_texts(f"{r.heading}\n{r.text}" for r in rows)
            by_file: dict[str, list[str]] = {}
            for r in rows:
                by_file.setdefault(r.file, []).append(f"{r.heading}\n{r.text}")
            vocabulary.with_files(by_file)
            text = CorpusText(
                vocabulary, UnitIndex.from_rows(rows), default_statements(rows), headers
            )
            cached = _texts[corpus] = (version, text)
        return cached[1]


def corpus_vocabulary(corpus: str, version: str | None = None) -> Vocabulary:
    return corpus_text(corpus, version).vocabulary


# Texts met while answering are embedded in float32. In bfloat16 a sentence's vector moves
# by up to 2e-3 with the batch it is embedded in (its padding), enough to swap two
# near-tied sentences: an answer would hang on which questions came before it or on what
# the vector store held. float32 moves by 2e-7, and similarities are rounded below that.
# (Ingest keeps `embed_dtype()`: there the batches are fixed by the corpus itself.)
QUERY_DTYPE = "float32"
SIMILARITY_DECIMALS = 5
_vectors: dict[str, Any] = {}
_VECTOR_CACHE_SIZE = 2048
# Texts this process embedded, and loaded from the home's store, since `forget_vectors`:
# `benchmarks/eval_scaling.py` reads them to see whether two workers embed more than one.
_vector_counts = {"embedded": 0, "loaded": 0}


def vector_counts() -> dict[str, int]:
    return dict(_vector_counts)


def forget_vectors() -> None:
    """Drop this process's vectors (a benchmark timing a cold run starts from here)."""
    _vectors.clear()
    _vector_counts.update(embedded=0, loaded=0)


def prepare_vectors(texts: list[str]) -> dict[str, Any]:
    """Embed the texts not seen yet in one batch: one forward pass costs about as much
    as a single text, so a step's queries and its question share it. Vectors another
    process of this home made already come from the shared store (`vector_cache`).
    Returns the vectors of `texts`: a full cache is emptied before it grows, and the
    texts it held are then embedded (or loaded) again with the rest."""
    wanted = list(dict.fromkeys(texts))
    missing = [t for t in wanted if t not in _vectors]
    if missing and len(_vectors) + len(missing) > _VECTOR_CACHE_SIZE:
        _vectors.clear()
        missing = wanted
    if missing:
        _load_or_embed(missing)
    return {t: _vectors[t] for t in wanted}


def _load_or_embed(missing: list[str]) -> None:
    """Into the process cache: the home's stored vectors, then the model for the rest."""
    model = model_id(dtype=QUERY_DTYPE)
    stored = load_vectors(model, missing)
    _vector_counts["loaded"] += len(stored)
    _vectors.update(stored)
    missing = [t for t in missing if t not in stored]
    if missing:
        made = dict(zip(missing, embed(missing, dtype=QUERY_DTYPE), strict=True))
        _vector_counts["embedded"] += len(made)
        save_vectors(model, made)
        _vectors.update(made)


def text_similarities(query: str, texts: list[str]) -> list[float]:
    """Cosine of the query to each text (the model's vectors are normalised)."""
    if not texts:
        return []
    vectors = prepare_vectors([query, *texts])
    return [round(float(vectors[t] @ vectors[query]), SIMILARITY_DECIMALS) for t in texts]


def _query_vector(text: str) -> Any:
    return prepare_vectors([text])[text]


def search_corpus(
    corpus: str,
    query: str,
    k: int,
    file: str | None = None,
    heading: str | None = None,
    version: str | None = None,
) -> list[Evidence]:
    """Hybrid search of a corpus as Evidence; `version` (as `version_key` gives it, read
    now when not given) is the one whose table headers the hits carry."""
    hits = search(corpus, query, k=k, file=file, heading=heading, query_vector=_query_vector(query))
    headers = corpus_text(corpus, version).table_headers
    return [
        Evidence(
            chunk_id=h.chunk_id, file=h.file, heading=h.heading, text=h.text, score=h.score,
            table_header=headers.get(h.chunk_id, ""),
        )
        for h in hits
    ]  # fmt: skip


def search_corpus_many(
    corpus: str, queries: list[str], k: int, version: str | None = None
) -> list[list[Evidence]]:
    """`search_corpus` for each query, in order (a step's pooled retrieval), against one
    version read once."""
    version = version or version_key(corpus)
    return [search_corpus(corpus, query, k, version=version) for query in queries]


class LocalTools:
    """ResearchTools over the storage layer, without Prefect.

    Every search the agent makes is logged to the `retrievals` dataset under
    `session_id`, cached or not, so an answer can always be traced to what was seen.
    """

    def __init__(
        self, corpus: str, llm: LLMProvider | None = None, session_id: str = "", record: bool = True
    ):
        open_corpus(corpus)  # a missing corpus is a UserError now, not mid-graph
        self.corpus = corpus
        self.llm = llm or make_provider("rules")
        self.session_id = session_id
        self.record = record

    def search(
        self, query: str, k: int, file: str | None = None, heading: str | None = None
    ) -> list[Evidence]:
        started = time.perf_counter()
        evidence = self._search(query, k, file, heading)
        self._record([query], k, [evidence], started)
        return evidence

    def search_many(self, queries: list[str], k: int) -> list[list[Evidence]]:
        started = time.perf_counter()
        rankings = self._search_many(queries, k)
        self._record(queries, k, rankings, started)
        return rankings

    def search_units(self, query: str, k: int) -> list[Evidence]:
        started = time.perf_counter()
        evidence = corpus_text(self.corpus, self._version()).units.search(query, k)
        self._record([query], k, [evidence], started, mode="units")
        return evidence

    def _version(self) -> str | None:
        """The corpus version the tools read: none pinned, so plain tools follow the
        newest; `PrefectTools` pin the version their cached searches are keyed on."""
        return None

    def _search(self, query: str, k: int, file: str | None, heading: str | None) -> list[Evidence]:
        return search_corpus(self.corpus, query, k, file, heading)

    def _search_many(self, queries: list[str], k: int) -> list[list[Evidence]]:
        return search_corpus_many(self.corpus, queries, k)

    def _record(
        self,
        queries: list[str],
        k: int,
        rankings: list[list[Evidence]],
        started: float,
        mode: str = "hybrid",
    ) -> None:
        """One `retrievals` append for the searches of one call (latency split evenly)."""
        if self.record:
            ms = (time.perf_counter() - started) * 1000 / max(1, len(queries))
            record_retrievals(self.session_id, self.corpus, mode, k, queries, rankings, ms)

    def similarities(self, query: str, chunk_ids: list[str]) -> list[float]:
        if not chunk_ids:
            return []
        import numpy as np

        where = "chunk_id IN (" + ", ".join(sql_quote(c) for c in chunk_ids) + ")"
        table = open_corpus(self.corpus)
        with reading_table(table.name):
            rows = (
                table
                .search()
                .where(where)
                .select(["chunk_id", "vector"])
                .limit(len(chunk_ids) * 2)
                .to_arrow()
                .to_pylist()
            )
        vectors = {r["chunk_id"]: np.asarray(r["vector"], dtype=np.float32) for r in rows}
        model = model_of_schema(table.schema)  # the corpus's own model, never another's
        query_vector = _query_vector(query) if model == DEFAULT_MODEL else embed_one(query, model)
        return [float(vectors[c] @ query_vector) if c in vectors else 0.0 for c in chunk_ids]

    def prepare(self, texts: list[str]) -> None:
        prepare_vectors(texts)

    def text_similarities(self, query: str, texts: list[str]) -> list[float]:
        return text_similarities(query, texts)

    def vocabulary(self) -> Vocabulary:
        return corpus_vocabulary(self.corpus, self._version())

    def default_statements(self) -> list[DefaultStatement]:
        return corpus_text(self.corpus, self._version()).defaults

    def recall(self, question: str, threshold: float) -> dict[str, Any] | None:
        hit = lookup_answer(
            question, threshold=threshold, vector=_query_vector(question), corpus=self.corpus
        )
        if hit is None:
            return None
        return {
            "question": hit.question,
            "answer": hit.answer,
            "citations": hit.citations,
            "confidence": hit.confidence,
            "similarity": hit.similarity,
        }

    def remember(
        self, question: str, answer: str, citations: list[dict[str, Any]], confidence: float
    ) -> None:
        remember_answer(
            question,
            answer,
            citations,
            confidence,
            self.session_id,
            vector=_query_vector(question),
            corpus=self.corpus,
        )


# --------------------------------------------------------------------------- Prefect


def cache_key_on(prefix: str, *names: str) -> Callable[[TaskRunContext, dict[str, Any]], str]:
    """A cache key hashing exactly the named parameters: each cached task says in one
    line what its result depends on (and nothing else, such as a session id, splits it)."""

    def key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
        payload = json.dumps([parameters.get(name) for name in names])
        return f"{prefix}-{hashlib.sha256(payload.encode()).hexdigest()}"

    return key


KEEP_CACHED = timedelta(days=7)


@task(
    name="retrieve",
    task_run_name="retrieve",
    cache_key_fn=cache_key_on("retrieve", "corpus_version", "query", "k", "file", "heading"),
    cache_expiration=KEEP_CACHED,
    persist_result=True,
    retries=1,
)
def retrieve_task(
    corpus: str,
    corpus_version: str,
    query: str,
    k: int,
    file: str | None = None,
    heading: str | None = None,
) -> list[Evidence]:
    """One hybrid search of a corpus, cached on `corpus_version` (see `version_key`) and
    the query: re-ingesting a corpus changes its version, so no stale chunk is served."""
    return search_corpus(corpus, query, k, file, heading, corpus_version)


@task(
    name="retrieve_many",
    task_run_name="retrieve-many",
    cache_key_fn=cache_key_on("retrieve-many", "corpus_version", "queries", "k"),
    cache_expiration=KEEP_CACHED,
    persist_result=True,
    retries=1,
)
def retrieve_many_task(
    corpus: str, corpus_version: str, queries: list[str], k: int
) -> list[list[Evidence]]:
    """A step's pooled retrieval: one hybrid search per query, cached like `retrieve`."""
    return search_corpus_many(corpus, queries, k, corpus_version)


@task(
    name="llm_call",
    task_run_name="llm-call",
    cache_key_fn=cache_key_on("llm", "settings", "system", "user"),
    cache_expiration=KEEP_CACHED,
    persist_result=True,
)
def llm_call_task(settings: dict[str, Any], system: str, user: str) -> str:
    """One chat completion (cached on model, prompt and question; temperature 0)."""
    return _transport_for(json.dumps(settings, sort_keys=True))(system, user)


@lru_cache(maxsize=8)
def _transport_for(settings_json: str) -> Any:
    settings = json.loads(settings_json)
    return chat_transport(
        LLMSettings.resolve(
            settings["provider"],
            settings["model"],
            settings["base_url"],
            settings["timeout_s"],
            retries=0,
            max_tokens=settings.get("max_tokens"),
        )
    )


@cache
def _retrieval_tasks(refresh_cache: bool) -> tuple[Task, Task]:
    """`retrieve` and `retrieve_many`, refreshing their cache or not. Made once: each
    `with_options` copy reads the function's source again (~2 ms), once per question."""
    if not refresh_cache:
        return retrieve_task, retrieve_many_task
    return (
        retrieve_task.with_options(refresh_cache=True),
        retrieve_many_task.with_options(refresh_cache=True),
    )


class PrefectTools(LocalTools):
    """ResearchTools whose retrievals and LLM calls are Prefect tasks."""

    def __init__(
        self,
        corpus: str,
        provider: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        timeout_s: float | None = None,
        session_id: str = "",
        refresh_cache: bool = False,
        corpus_version: str | None = None,
        retrieval_tasks: bool = True,
    ):
        """`corpus_version` pins the version searched (an evaluation run reads it once for
        all its samples); by default it is read now, so a missing corpus fails at once.

        `retrieval_tasks=False` runs the searches as plain calls inside the caller's own
        task run. An evaluation sample is one: as a task run of its own, each of its 3-4
        searches cost ~60 ms of the worker's CPU (hashing inputs, pickling and writing the
        result) and the server's for its events, more than the ~25 ms search it caches
        (a rules-only suite of 100 questions: 41 s → 35 s of worker CPU)."""
        llm = make_provider(provider, model, base_url, timeout_s)
        self.retrieve, self.retrieve_many = (
            _retrieval_tasks(refresh_cache)
            if retrieval_tasks
            else (retrieve_task.fn, retrieve_many_task.fn)
        )
        self.corpus_version = corpus_version or version_key(corpus)
        if llm.enabled:
            described = llm.settings.describe()
            llm.transport = lambda system, user: llm_call_task(described, system, user)
        super().__init__(corpus, llm, session_id)

    def _search(self, query: str, k: int, file: str | None, heading: str | None) -> list[Evidence]:
        return self.retrieve(self.corpus, self.corpus_version, query, k, file, heading)

    def _search_many(self, queries: list[str], k: int) -> list[list[Evidence]]:
        return self.retrieve_many(self.corpus, self.corpus_version, queries, k)

    def _version(self) -> str | None:
        return self.corpus_version  # the version searched

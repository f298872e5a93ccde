"""Retrieval and storage figures: ingest vs bare embedding, ANN latency/recall, DuckDB.

    .venv/bin/python benchmarks/retrieval.py [--rows 100000] [--queries 200]
        [--corpus PATH ...] [--skip-ingest] [--skip-search] [--skip-duckdb]

1. Ingest throughput: the real `ingest` Prefect flow (fresh store, cold caches, model
   already loaded) in chunks/s, beside bare sentence-transformers `encode` on the same
   distinct chunk texts at the same precision (target: ingest >= 90 % of bare).
2. Query latency p50/p95 and recall@10 against exact search, vector and hybrid modes,
   on a synthetic corpus table of --rows chunks (clustered 384-d unit vectors, words
   drawn per cluster) with the IVF_PQ and full-text indexes (targets: p50 <= 30 ms,
   recall@10 >= 0.95). Exact vector search is numpy brute force; exact hybrid is RRF of
   the exact vector candidates and the same full-text candidates.
3. DuckDB group-by over 1M rows of the `metrics` dataset (target <= 100 ms).

Everything runs in a temporary agentcycle home that is removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_CORPUS = [SHARED / "data" / "corpus"]
VOCABULARY = 5000
CLUSTERS = 1000
QUERY_NOISE = 0.5  # norm of the noise added to a stored unit vector to make a query


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def line(name: str, value: str, target: str = "", ok: bool | None = None) -> None:
    verdict = "" if ok is None else ("  PASS" if ok else "  MISS")
    print(f"  {name:<44} {value:>18}   {target}{verdict}", flush=True)


# --------------------------------------------------------------------------- 1. ingest

def distinct_chunk_texts(paths: list[Path]) -> list[str]:
    from agentcycle.storage.chunking import chunk_document, file_kind, parse_file

    texts: dict[str, str] = {}
    for root in paths:
        files = sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else [root]
        for path in files:
            if file_kind(path):
                for chunk in chunk_document(parse_file(path)):
                    texts.setdefault(chunk.hash, chunk.embed_text)
    return list(texts.values())


def bench_ingest(paths: list[Path]) -> None:
    from agentcycle.server import ensure_prefect_api
    from agentcycle.storage.embedding import DEFAULT_BATCH_SIZE, embed_dtype, get_model

    texts = distinct_chunk_texts(paths)
    dtype = embed_dtype()
    print(f"\n1. ingest of {', '.join(map(str, paths))}: {len(texts)} distinct chunks, "
          f"model precision {dtype}", flush=True)
    model = get_model()
    model.encode(texts[:8], batch_size=DEFAULT_BATCH_SIZE)  # warm up

    def bare_rate() -> float:
        started = time.perf_counter()
        model.encode(texts, batch_size=DEFAULT_BATCH_SIZE, normalize_embeddings=True)
        return len(texts) / (time.perf_counter() - started)

    ensure_prefect_api()
    from agentcycle.flows.ingest import ingest_flow

    before = bare_rate()
    started = time.perf_counter()
    report = ingest_flow("bench-ingest", [str(p) for p in paths], progress=False)
    elapsed = time.perf_counter() - started
    bare = max(before, bare_rate())  # bare runs before and after; the faster one counts
    ingest_rate = report.chunks_embedded / elapsed
    line(f"bare sentence-transformers ({dtype})", f"{bare:.1f} chunks/s")
    line("ingest flow (parse, embed tasks, write, index)", f"{ingest_rate:.1f} chunks/s",
         f"target >= 90 % of bare: {100 * ingest_rate / bare:.0f} %", ingest_rate >= 0.9 * bare)
    line("  flow wall time / chunks embedded", f"{elapsed:.1f} s / {report.chunks_embedded}")


# --------------------------------------------------------------------------- 2. search

def synthetic_rows(rows: int, seed: int = 0) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Clustered unit vectors and texts whose words depend on the cluster."""
    from agentcycle.storage.embedding import DIM

    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(CLUSTERS, DIM)).astype(np.float32)
    cluster = rng.integers(0, CLUSTERS, size=rows)
    vectors = centers[cluster] + 0.6 * rng.normal(size=(rows, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    topic_words = rng.integers(0, VOCABULARY, size=(CLUSTERS, 8))
    common = rng.zipf(1.3, size=(rows, 30)) % VOCABULARY
    texts = [
        " ".join(f"w{w}" for w in np.concatenate([topic_words[c][rng.integers(0, 8, 6)], noise]))
        for c, noise in zip(cluster, common, strict=True)
    ]
    return vectors, texts, topic_words


def build_table(rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic corpus `bench` with both indexes; returns its vectors and topics."""
    from agentcycle.storage.corpus import CHUNK_SCHEMA, open_corpus, rows_to_table

    vectors, texts, topics = synthetic_rows(rows)
    table = open_corpus("bench", create=True)
    started = time.perf_counter()
    for start in range(0, rows, 20_000):
        batch = [
            {"chunk_id": f"c{i}", "source": "/bench", "file": f"f{i // 100}.md",
             "file_hash": "x", "heading": f"h{i % 7}", "ordinal": i, "start_char": 0,
             "end_char": len(texts[i]), "text": texts[i], "chunk_hash": f"h{i}",
             "vector": vectors[i]}
            for i in range(start, min(rows, start + 20_000))
        ]
        table.add(rows_to_table(batch, CHUNK_SCHEMA))
    line("write rows", f"{time.perf_counter() - started:.1f} s")
    from lancedb.index import FTS, IvfPq

    started = time.perf_counter()
    table.create_index("text", config=FTS(with_position=False))
    line("full-text index build", f"{time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    table.create_index("vector", config=IvfPq(distance_type="cosine"))
    line("IVF_PQ index build", f"{time.perf_counter() - started:.1f} s")
    return vectors, topics


def bench_search(rows: int, queries: int, k: int = 10) -> None:
    from agentcycle.storage.corpus import open_corpus
    from agentcycle.storage.search import (
        candidate_depth,
        default_reranker,
        ranked_rows,
        rrf_fuse,
        search,
    )

    print(f"\n2. search on a synthetic corpus of {rows:,} chunks ({queries} queries, k={k})",
          flush=True)
    vectors, topics = build_table(rows)
    rng = np.random.default_rng(1)
    picks = rng.integers(0, rows, size=queries)
    table = open_corpus("bench")
    for mode in ("vector", "hybrid"):
        limit = candidate_depth(k, mode, default_reranker())
        latencies, recalls = [], []
        for n, pick in enumerate(picks):
            noise = rng.normal(size=vectors.shape[1]) * (QUERY_NOISE / np.sqrt(vectors.shape[1]))
            query_vector = vectors[pick] + noise
            query_vector = (query_vector / np.linalg.norm(query_vector)).astype(np.float32)
            words = " ".join(f"w{w}" for w in rng.choice(topics[rng.integers(0, CLUSTERS)], 2))
            started = time.perf_counter()
            hits = search("bench", words, k=k, mode=mode, query_vector=query_vector)
            latencies.append((time.perf_counter() - started) * 1000)
            similarities = vectors @ query_vector
            exact_vector = [f"c{i}" for i in np.argsort(-similarities)[:limit]]
            if mode == "vector":
                exact = exact_vector[:k]
            else:
                text = [r["chunk_id"] for r in ranked_rows(table, words, "text", limit)]
                exact = [key for key, _ in rrf_fuse([exact_vector, text])][:k]
            recalls.append(len({h.chunk_id for h in hits} & set(exact)) / k)
            if n == 0:
                latencies.clear()  # the first query loads the index
        p50, p95 = percentile(latencies, 50), percentile(latencies, 95)
        line(f"{mode}: latency p50 / p95", f"{p50:.1f} / {p95:.1f} ms", "target p50 <= 30 ms",
             p50 <= 30)
        recall = statistics.fmean(recalls)
        line(f"{mode}: recall@{k} vs exact", f"{recall:.3f}", "target >= 0.95", recall >= 0.95)


# --------------------------------------------------------------------------- 3. duckdb

def bench_duckdb(rows: int = 1_000_000) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from agentcycle.storage.datasets import SCHEMAS, dataset_dir
    from agentcycle.storage.query import connect, run_query

    print(f"\n3. DuckDB over {rows:,} rows of the metrics dataset", flush=True)
    rng = np.random.default_rng(2)
    programs = np.array(["xtriage", "refine", "molprobity", "phaser", "autobuild"])
    metrics = np.array(["r_work", "r_free", "clashscore", "resolution", "rmsd_bonds",
                        "completeness"])
    schema = SCHEMAS["metrics"]
    per_file = rows // 10
    for part in range(10):  # ten appends' worth of files, as the writers would leave them
        n = per_file
        table = pa.table({
            "session_id": pa.array([f"s{i % 2000}" for i in range(n)]),
            "pack": pa.array(["xtal"] * n),
            "cycle": pa.array(rng.integers(1, 30, n), pa.int32()),
            "program": pa.array(programs[rng.integers(0, len(programs), n)]),
            "metric": pa.array(metrics[rng.integers(0, len(metrics), n)]),
            "value": pa.array(rng.random(n)),
            "text_value": pa.array([None] * n, pa.string()),
            "recorded_at": pa.array(np.full(n, np.datetime64("2026-01-01T00:00:00", "us")),
                                    pa.timestamp("us", tz="UTC")),
            "schema_version": pa.array(np.ones(n), pa.int16()),
        }, schema=schema)
        partition = dataset_dir("metrics") / f"date=2026-01-{part + 1:02d}"
        partition.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, partition / f"part-{part}.parquet")
    sql = ("SELECT program, metric, count(*) AS n, avg(value) AS mean, min(value) AS lo, "
           "max(value) AS hi FROM metrics GROUP BY program, metric")
    con = connect(lancedb=False)
    con.sql(sql).fetchall()  # warm the file cache
    timings = []
    for _ in range(7):
        started = time.perf_counter()
        con.sql(sql).fetchall()
        timings.append((time.perf_counter() - started) * 1000)
    median = statistics.median(timings)
    line("group-by program, metric (query only)", f"{median:.1f} ms", "target <= 100 ms",
         median <= 100)
    started = time.perf_counter()
    result = run_query(sql)
    line("same via run_query (connect + views + query)",
         f"{(time.perf_counter() - started) * 1000:.1f} ms")
    assert sum(result.column("n").to_pylist()) == per_file * 10


def stop_prefect() -> None:
    """Send the flow's last log lines, then stop the server the ingest benchmark started."""
    from prefect.logging.handlers import APILogHandler

    from agentcycle.server import stop_server

    APILogHandler().flush()
    stop_server()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000, help="synthetic chunks (2.)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--corpus", type=Path, nargs="+", default=DEFAULT_CORPUS,
                        help="files or folders to ingest (1.)")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-search", action="store_true")
    parser.add_argument("--skip-duckdb", action="store_true")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="agentcycle-bench-"))
    os.environ["AGENTCYCLE_HOME"] = str(home)
    os.environ.pop("PREFECT_API_URL", None)
    print(f"agentcycle retrieval benchmark ({os.cpu_count()} CPUs, home {home})", flush=True)
    try:
        if not args.skip_ingest:
            bench_ingest(args.corpus)
        if not args.skip_search:
            bench_search(args.rows, args.queries)
        if not args.skip_duckdb:
            bench_duckdb()
    finally:
        if not args.skip_ingest:
            stop_prefect()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

"""Corpora: one LanceDB table of chunks per corpus, kept up to date by incremental ingest.

Ingest is incremental by content hash: a file whose bytes (and chunker version) are
unchanged is not even parsed; a changed file has its chunks replaced in one atomic
merge; files gone from a folder lose their chunks; a chunk whose text was already
embedded anywhere in the table reuses that vector. The embedder is a parameter so the
Prefect flow can route embedding through cached tasks while tests and benchmarks can
call the same code directly.

Searching a corpus lives in `storage.search`.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from agentcycle.errors import UserError
from agentcycle.storage.chunking import SkipFile, chunk_document, chunk_ids, parse_file
from agentcycle.storage.corpus_files import (
    Skipped,
    SourceFile,
    discover,
    file_hash,
)
from agentcycle.storage.embedding import (
    DEFAULT_MODEL,
    EmbeddingModel,
    embed,
    model_of_schema,
)
from agentcycle.storage.tables import lancedb_dir, open_table, sql_quote

if TYPE_CHECKING:
    import lancedb
    import numpy as np

Embedder = Callable[[list[str], list[str]], "np.ndarray"]  # (texts, chunk hashes) -> vectors

TABLE_PREFIX = "corpus_"
VECTOR_INDEX_MIN_ROWS = 10_000  # below this, exact search is faster than IVF_PQ is worth
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")

CHUNK_SCHEMA = pa.schema(
    [
        ("chunk_id", pa.string()),
        ("source", pa.string()),  # the folder given to ingest (absolute)
        ("file", pa.string()),  # path relative to source, with forward slashes
        ("file_hash", pa.string()),
        ("heading", pa.string()),
        ("ordinal", pa.int32()),
        ("start_char", pa.int64()),
        ("end_char", pa.int64()),
        ("text", pa.string()),
        ("chunk_hash", pa.string()),
        ("vector", pa.list_(pa.float32(), DEFAULT_MODEL.dim)),
        ("ingested_at", pa.timestamp("us", tz="UTC")),
    ]
)


def chunk_schema(model: EmbeddingModel = DEFAULT_MODEL) -> pa.Schema:
    """A corpus table's schema: vectors of the model's size, the model named in metadata."""
    vector = CHUNK_SCHEMA.get_field_index("vector")
    return CHUNK_SCHEMA.set(vector, pa.field("vector", pa.list_(pa.float32(), model.dim))) \
        .with_metadata(model.metadata())


# --------------------------------------------------------------------------- names

def validate_corpus_name(name: str) -> str:
    """Corpus names become table names: letters, digits, '-' and '_' only (no paths)."""
    if not _NAME.match(name):
        raise UserError(
            f"corpus name {name!r}: use 1-64 letters, digits, '-' or '_' "
            "(starting with a letter or digit)"
        )
    return name


def broken_table(name: str, exc: BaseException) -> UserError:
    """A LanceDB table that cannot be read, as one line with its path and the repair."""
    detail = " ".join(str(exc).split())[:160] or type(exc).__name__
    return UserError(f"{lancedb_dir() / (name + '.lance')}: LanceDB table {name} is unreadable "
                     f"({detail}); run `agentcycle store check --repair`")


# What Lance raises reading a damaged table: a truncated or garbage data file surfaces
# as an Arrow error from the reader, a missing version or manifest as OSError/RuntimeError.
LANCE_READ_ERRORS = (OSError, RuntimeError, pa.ArrowException)


@contextmanager
def reading_table(name: str) -> Iterator[None]:
    """Reads of LanceDB table `name`: a damaged table becomes one line with its path and
    the repair, wherever the read happens (a search, a vocabulary, a similarity)."""
    try:
        yield
    except LANCE_READ_ERRORS as exc:
        raise broken_table(name, exc) from None


def table_name(corpus: str) -> str:
    return TABLE_PREFIX + validate_corpus_name(corpus)


def open_corpus(corpus: str, create: bool = False,
                model: EmbeddingModel = DEFAULT_MODEL) -> lancedb.table.Table:
    try:
        table = open_table(table_name(corpus), chunk_schema(model) if create else None)
    except (OSError, RuntimeError, ValueError) as exc:  # a broken table: one line, a hint
        raise broken_table(table_name(corpus), exc) from None
    if table is None:
        raise UserError(f"corpus {corpus!r} does not exist; run `agentcycle ingest {corpus} PATH`")
    return table


# --------------------------------------------------------------------------- planning

@dataclass
class IngestPlan:
    corpus: str
    new: list[SourceFile] = field(default_factory=list)
    changed: list[SourceFile] = field(default_factory=list)
    unchanged: list[SourceFile] = field(default_factory=list)
    deleted: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    file_hashes: dict[tuple[str, str], str] = field(default_factory=dict)


def existing_files(table: lancedb.table.Table) -> dict[tuple[str, str], str]:
    """(source, file) -> file hash for everything already in the table."""
    if table.count_rows() == 0:
        return {}
    columns = table.to_lance().to_table(columns=["source", "file", "file_hash"])
    grouped = columns.group_by(["source", "file", "file_hash"]).aggregate([])
    return {(r["source"], r["file"]): r["file_hash"] for r in grouped.to_pylist()}


def check_something_to_ingest(corpus: str, paths: Sequence[Path]) -> None:
    """A new corpus from paths that hold no ingestible file is a mistake (a wrong folder,
    a FIFO): one line before anything is written. An existing corpus may be emptied."""
    if open_table(table_name(corpus)) is not None:
        return
    files, skipped, _ = discover(paths)
    if not files:
        why = "; ".join(f"{s.path}: {s.reason}" for s in skipped[:3])
        raise UserError(f"{', '.join(str(p) for p in paths)}: nothing to ingest into new corpus "
                        f"{corpus!r} ({why or 'no md, txt, html or pdf files found'})")


def plan_ingest(corpus: str, paths: Sequence[Path]) -> IngestPlan:
    """Compare the files on disk with the table: what is new, changed, unchanged, gone."""
    plan = IngestPlan(validate_corpus_name(corpus))
    files, plan.skipped, folders = discover(paths)
    known = existing_files(open_corpus(corpus, create=True))
    seen: set[tuple[str, str]] = set()
    for source_file in files:
        if source_file.key in seen:
            continue
        seen.add(source_file.key)
        try:
            digest = file_hash(source_file.path.read_bytes())
        except OSError as exc:
            plan.skipped.append(Skipped(str(source_file.path), f"unreadable ({exc.strerror})"))
            continue
        plan.file_hashes[source_file.key] = digest
        previous = known.get(source_file.key)
        if previous is None:
            plan.new.append(source_file)
        elif previous == digest:
            plan.unchanged.append(source_file)
        else:
            plan.changed.append(source_file)
    plan.deleted = sorted(
        key for key in known
        if key not in plan.file_hashes and (key[0] in folders or key in seen)
    )
    return plan


# --------------------------------------------------------------------------- preparing

@dataclass
class PreparedFiles:
    rows: list[dict[str, Any]]
    replaced: list[tuple[str, str]]  # files whose old chunks go (changed, deleted, now invalid)
    skipped: list[Skipped]


def prepare_files(plan: IngestPlan) -> PreparedFiles:
    """Parse and chunk new and changed files; rows still lack their vectors."""
    rows: list[dict[str, Any]] = []
    replaced = [f.key for f in plan.changed] + list(plan.deleted)
    skipped: list[Skipped] = []
    now = datetime.now(UTC)
    for source_file in plan.new + plan.changed:
        try:
            chunks = chunk_document(parse_file(source_file.path))
        except SkipFile as exc:
            skipped.append(Skipped(str(source_file.path), str(exc)))
            continue  # a changed file that no longer parses still loses its old chunks
        ids = chunk_ids(f"{source_file.source}/{source_file.file}", chunks)
        for chunk, chunk_id in zip(chunks, ids, strict=True):
            rows.append({
                "chunk_id": chunk_id,
                "source": source_file.source,
                "file": source_file.file,
                "file_hash": plan.file_hashes[source_file.key],
                "heading": chunk.heading,
                "ordinal": chunk.ordinal,
                "start_char": chunk.start,
                "end_char": chunk.end,
                "text": chunk.text,
                "chunk_hash": chunk.hash,
                "embed_text": chunk.embed_text,
                "ingested_at": now,
            })
    return PreparedFiles(rows, replaced, skipped)


def known_vectors(table: lancedb.table.Table, hashes: Iterable[str]) -> dict[str, np.ndarray]:
    """Vectors already stored for these chunk hashes (re-embedding them would cost time)."""
    wanted = sorted(set(hashes))
    if not wanted or table.count_rows() == 0:
        return {}
    present = set(table.to_lance().to_table(columns=["chunk_hash"]).column(0).to_pylist())
    wanted = [h for h in wanted if h in present]
    found: dict[str, np.ndarray] = {}
    for i in range(0, len(wanted), 500):
        batch = wanted[i:i + 500]
        where = "chunk_hash IN (" + ", ".join(sql_quote(h) for h in batch) + ")"
        result = table.search().where(where).select(["chunk_hash", "vector"]) \
            .limit(None).to_arrow()
        vectors = result.column("vector").combine_chunks().flatten().to_numpy()
        vectors = vectors.reshape(-1, table.schema.field("vector").type.list_size)
        for digest, vector in zip(result.column("chunk_hash").to_pylist(), vectors, strict=True):
            found[digest] = vector
    return found


def attach_vectors(table: lancedb.table.Table, rows: list[dict[str, Any]],
                   embedder: Embedder) -> tuple[int, int]:
    """Give every row its vector: reuse stored ones, embed each new text once.

    Returns (embedded, reused) counts.
    """
    reuse = known_vectors(table, (r["chunk_hash"] for r in rows))
    pending: dict[str, str] = {}
    for row in rows:
        if row["chunk_hash"] not in reuse:
            pending.setdefault(row["chunk_hash"], row["embed_text"])
    if pending:
        hashes = list(pending)
        vectors = embedder([pending[h] for h in hashes], hashes)
        reuse.update(zip(hashes, vectors, strict=True))
    for row in rows:
        row["vector"] = reuse[row["chunk_hash"]]
    return len(pending), len(rows) - len(pending)


# --------------------------------------------------------------------------- writing

def rows_to_table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    """Rows (vectors as numpy arrays) as an Arrow table of `schema`; extra keys dropped."""
    import numpy as np

    columns = {}
    for name in schema.names:
        if name == "vector" and any(r.get("vector") is None for r in rows):
            columns[name] = pa.array(  # some rows not embedded yet (runs: embedded later)
                [None if r.get("vector") is None else np.asarray(r["vector"], np.float32)
                 for r in rows],
                type=schema.field(name).type,
            )
        elif name == "vector":
            flat = np.asarray([r["vector"] for r in rows], dtype=np.float32).reshape(-1)
            size = schema.field("vector").type.list_size
            columns[name] = pa.FixedSizeListArray.from_arrays(pa.array(flat), size)
        else:
            columns[name] = pa.array([r.get(name) for r in rows], type=schema.field(name).type)
    return pa.table(columns, schema=schema)


def _files_filter(keys: Sequence[tuple[str, str]]) -> str:
    by_source: dict[str, list[str]] = {}
    for source, file in keys:
        by_source.setdefault(source, []).append(file)
    return " OR ".join(
        f"(source = {sql_quote(source)} AND file IN ({', '.join(sql_quote(f) for f in files)}))"
        for source, files in sorted(by_source.items())
    )


def write_chunks(table: lancedb.table.Table, rows: list[dict[str, Any]],
                 replaced: Sequence[tuple[str, str]]) -> None:
    """One atomic commit: insert new chunks, update kept ones, drop the replaced files' rest."""
    if rows:
        merge = table.merge_insert("chunk_id").when_matched_update_all() \
            .when_not_matched_insert_all()
        if replaced:
            merge = merge.when_not_matched_by_source_delete(_files_filter(replaced))
        merge.execute(rows_to_table(rows, chunk_schema(model_of_schema(table.schema))))
    elif replaced:
        table.delete(_files_filter(replaced))


def _index_columns(table: lancedb.table.Table) -> dict[str, Any]:
    return {config.columns[0]: config for config in table.list_indices()}


def ensure_indexes(table: lancedb.table.Table, text_column: str = "text",
                   min_vector_rows: int = VECTOR_INDEX_MIN_ROWS) -> list[str]:
    """Create the full-text index, and the IVF_PQ vector index once the table is large.

    Returns what was created; `refresh_indexes` keeps existing ones up to date.
    """
    from lancedb.index import FTS, IvfPq

    created = []
    indexes = _index_columns(table)
    rows = table.count_rows()
    if rows and text_column not in indexes:
        table.create_index(text_column, config=FTS(with_position=False))
        created.append(f"full-text index on {text_column}")
    if rows >= min_vector_rows and "vector" not in indexes:
        table.create_index("vector", config=IvfPq(distance_type="cosine"))
        created.append("IVF_PQ vector index")
    return created


def refresh_indexes(table: lancedb.table.Table) -> bool:
    """Fold rows written since the indexes were built into them; True when it did.

    LanceDB searches rows an index does not cover exhaustively: after a re-ingest that
    rewrote most chunks, every full-text query scanned the whole corpus (58 ms instead
    of 5 ms on 1,652 chunks, several queries per question). `optimize` adds the new rows
    to the existing indexes (and merges small files) in a fraction of a second.
    """
    stale = any(table.index_stats(index.name).num_unindexed_rows for index in table.list_indices())
    if stale:
        table.optimize()
    return stale


# --------------------------------------------------------------------------- ingest

@dataclass
class IngestReport:
    corpus: str
    files_new: int = 0
    files_changed: int = 0
    files_unchanged: int = 0
    files_deleted: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    chunks_written: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    indexes_created: list[str] = field(default_factory=list)
    indexes_refreshed: bool = False  # rows written since they were built were folded in
    seconds: float = 0.0

    @property
    def noop(self) -> bool:
        return not (self.files_new or self.files_changed or self.files_deleted)

    def summary(self) -> str:
        return (
            f"{self.corpus}: {self.files_new} new, {self.files_changed} changed, "
            f"{self.files_unchanged} unchanged, {self.files_deleted} deleted, "
            f"{len(self.skipped)} skipped files; {self.chunks_written} chunks written "
            f"({self.chunks_embedded} embedded, {self.chunks_reused} reused) "
            f"in {self.seconds:.1f} s"
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["skipped"] = [str(s) for s in self.skipped]
        return data


def default_embedder(texts: list[str], hashes: list[str]) -> np.ndarray:
    return embed(texts)


def ingest(corpus: str, paths: Sequence[Path], embedder: Embedder | None = None,
           min_vector_rows: int = VECTOR_INDEX_MIN_ROWS,
           model: EmbeddingModel | None = None) -> IngestReport:
    """Bring a corpus up to date with the given files and folders (see module docstring).

    `model` comes from `corpus_models.prepare_corpus_model` (None: the corpus's own model,
    the packaged one for a new corpus); `embedder`
    must embed with that model (None: embed in process with it).
    """
    started = time.perf_counter()
    model = model or model_of_schema(open_corpus(corpus, create=True).schema)
    if embedder is None:
        def embedder(texts: list[str], hashes: list[str]) -> np.ndarray:
            return embed(texts, model=model)
    check_something_to_ingest(corpus, paths)
    plan = plan_ingest(corpus, paths)
    report = IngestReport(plan.corpus, len(plan.new), len(plan.changed), len(plan.unchanged),
                          len(plan.deleted), list(plan.skipped))
    table = open_corpus(corpus, create=True)
    prepared = prepare_files(plan)
    report.skipped.extend(prepared.skipped)
    report.chunks_embedded, report.chunks_reused = attach_vectors(table, prepared.rows, embedder)
    write_chunks(table, prepared.rows, prepared.replaced)
    report.chunks_written = len(prepared.rows)
    report.indexes_created = ensure_indexes(table, min_vector_rows=min_vector_rows)
    report.indexes_refreshed = refresh_indexes(table)  # also heals an older, stale corpus
    report.seconds = time.perf_counter() - started
    return report

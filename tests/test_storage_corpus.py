"""The real thing: the `ingest` Prefect flow over the shared corpus, then search and CLI.

One session fixture starts a Prefect server on a temporary agentcycle home and ingests
shared/data/corpus plus a copy of shared/seeds (the copy can be edited) once; every test
here reuses that store. The seeds copy is byte-identical to corpus/seeds, so its chunks
reuse vectors and cost no embedding. Environment changes are undone after each test so
other test modules keep their own home and server.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from test_storage_chunking import make_pdf
from typer.testing import CliRunner

from agentcycle.errors import UserError
from agentcycle.storage import corpus as corpus_store
from agentcycle.storage import query
from agentcycle.storage.corpus import IngestReport, open_corpus
from agentcycle.storage.search import search

pytestmark = pytest.mark.slow  # one corpus ingest with the real model: ~1.5-3 min

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "data" / "corpus"
SEEDS = SHARED / "seeds"
QA = yaml.safe_load((SHARED / "data" / "qa" / "dev.yaml").read_text())["questions"]
# One question per document kind: user guide, overview, developer guide, architecture, seeds.
KNOWN = ["d002", "d004", "d006", "d010", "d012", "d016", "d020"]
ENV_KEYS = (
    "AGENTCYCLE_HOME",
    "PREFECT_API_URL",
    "PREFECT_HOME",
    "PREFECT_LOCAL_STORAGE_PATH",
    "PREFECT_SERVER_ANALYTICS_ENABLED",
    "PREFECT_SERVER_LOGGING_LEVEL",
    "PREFECT_LOGGING_TO_API_BATCH_INTERVAL",
)


@dataclass
class Store:
    home: Path
    api: str
    seeds: Path
    first: IngestReport


@contextlib.contextmanager
def store_environment(home: Path, api: str | None = None) -> Iterator[None]:
    """AGENTCYCLE_HOME and Prefect settings for our store; everything restored on exit."""
    saved = {key: os.environ.get(key) for key in ENV_KEYS}
    os.environ["AGENTCYCLE_HOME"] = str(home)
    for key in ENV_KEYS[1:]:
        os.environ.pop(key, None)
    try:
        from agentcycle.server import ensure_prefect_api

        api = api or ensure_prefect_api()
        from prefect.settings import (
            PREFECT_API_URL,
            PREFECT_HOME,
            PREFECT_LOCAL_STORAGE_PATH,
            temporary_settings,
        )

        os.environ["PREFECT_API_URL"] = api
        with temporary_settings(
            {
                PREFECT_API_URL: api,
                PREFECT_HOME: home / "prefect",
                PREFECT_LOCAL_STORAGE_PATH: home / "prefect" / "storage",
            }
        ):
            yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@pytest.fixture(scope="session")
def store_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    home = tmp_path_factory.mktemp("storage-home")
    seeds = tmp_path_factory.mktemp("seeds-copy") / "seeds"
    shutil.copytree(SEEDS, seeds)
    with store_environment(home):
        from agentcycle.flows.ingest import ingest_flow

        first = ingest_flow("docs", [str(CORPUS), str(seeds)], progress=False)
        api = os.environ["PREFECT_API_URL"]
    yield Store(home, api, seeds, first)
    with store_environment(home, api):
        from agentcycle.server import stop_server

        stop_server()


@pytest.fixture
def store(store_session: Store) -> Iterator[Store]:
    with store_environment(store_session.home, store_session.api):
        yield store_session


def ingest(paths: list[Path], corpus: str = "docs") -> IngestReport:
    from agentcycle.flows.ingest import ingest_flow

    return ingest_flow(corpus, [str(p) for p in paths], progress=False)


def _normal(text: str) -> str:
    return " ".join(text.split())


def found_at(question: dict, hits: list) -> int | None:
    """Rank (from 1) of the first hit holding one of the question's source quotes."""
    for rank, hit in enumerate(hits, start=1):
        for source in question["sources"]:
            same_file = Path(source["file"]).name == Path(hit.file).name
            if same_file and _normal(source["quote"])[:60] in _normal(hit.text):
                return rank
    return None


def test_first_ingest_embedded_each_distinct_chunk_once(store: Store) -> None:
    report = store.first
    assert report.files_new == 15 and not report.skipped
    assert "full-text index on text" in report.indexes_created
    assert report.chunks_written == open_corpus("docs").count_rows() > 1500
    seed_chunks = sum(
        1
        for p in SEEDS.glob("*.md")
        for _ in corpus_store.chunk_document(corpus_store.parse_file(p))
    )
    assert report.chunks_reused >= seed_chunks  # the seeds copy costs no embedding


@pytest.mark.parametrize("mode", ["vector", "text", "hybrid"])
def test_known_passages_found_in_each_mode(store: Store, mode: str) -> None:
    questions = [q for q in QA if q["id"] in KNOWN]
    ranks = {q["id"]: found_at(q, search("docs", q["question"], k=5, mode=mode)) for q in questions}
    assert all(ranks.values()), ranks


def test_hybrid_recall_at_10_on_the_dev_questions(store: Store) -> None:
    answerable = [q for q in QA if q.get("sources")]
    found = [found_at(q, search("docs", q["question"], k=10)) for q in answerable]
    assert sum(r is not None for r in found) / len(found) >= 0.9


def test_reingest_is_a_noop(store: Store) -> None:
    table = open_corpus("docs")
    version = table.version
    report = ingest([CORPUS, store.seeds])
    assert report.noop and report.files_unchanged == 15
    assert (report.chunks_written, report.chunks_embedded) == (0, 0)
    assert open_corpus("docs").version == version


def _snapshot() -> dict[str, tuple[str, str, str]]:
    rows = (
        open_corpus("docs")
        .to_lance()
        .to_table(columns=["chunk_id", "source", "file", "text"])
        .to_pylist()
    )
    return {r["chunk_id"]: (r["source"], r["file"], r["text"]) for r in rows}


def test_editing_one_file_changes_only_its_chunks(store: Store) -> None:
    path = store.seeds / "bioimage-planner-logic.md"
    original = path.read_text(encoding="utf-8")
    before = _snapshot()
    target = "orchestrating the tool execution chain"
    assert target in original
    edited_text = original.replace(target, "orchestrating (edited) the tool execution chain", 1)
    path.write_text(edited_text, encoding="utf-8")
    try:
        report = ingest([CORPUS, store.seeds])
        after = _snapshot()
    finally:
        path.write_text(original, encoding="utf-8")
    assert (report.files_changed, report.files_unchanged) == (1, 14)
    assert 1 <= report.chunks_embedded <= 2
    edited = (str(store.seeds), "bioimage-planner-logic.md")
    others_before = {k: v for k, v in before.items() if v[:2] != edited}
    others_after = {k: v for k, v in after.items() if v[:2] != edited}
    assert others_before == others_after
    changed = {k for k, v in after.items() if v[:2] == edited} - set(before)
    assert 1 <= len(changed) <= 2
    assert any("orchestrating (edited)" in after[k][2] for k in changed)
    # The rewritten chunks are in the indexes, not left to exhaustive scans.
    unindexed = _unindexed_rows()
    assert report.indexes_refreshed and "text_idx" in unindexed, unindexed
    assert not any(unindexed.values()), unindexed
    restored = ingest([CORPUS, store.seeds])  # the old chunks still live in corpus/seeds
    assert restored.files_changed == 1 and restored.chunks_embedded == 0
    assert _snapshot() == before


def _unindexed_rows(corpus: str = "docs") -> dict[str, int]:
    table = open_corpus(corpus)
    return {i.name: table.index_stats(i.name).num_unindexed_rows for i in table.list_indices()}


def test_malformed_files_are_skipped_and_deleted_files_removed(
    store: Store, tmp_path: Path
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "good.md").write_text("# Notes\n\nThe phasing step needs anomalous signal.\n")
    (folder / "paper.pdf").write_bytes(make_pdf(["Molecular replacement needs a model."]))
    (folder / "empty.md").write_bytes(b"")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog")
    (folder / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (folder / "blob.bin").write_bytes(b"\x00\x01")
    report = ingest([folder], corpus="mixed")
    skipped = {Path(s.path).name: str(s) for s in report.skipped}
    assert set(skipped) == {"empty.md", "broken.pdf", "binary.txt", "blob.bin"}
    for name, line in skipped.items():
        assert line.startswith(f"skipped {folder / name}: ") and "\n" not in line
    assert report.files_new == 5 and report.chunks_written == 2
    files = {h.file for h in search("mixed", "phasing model", mode="text")}
    assert files == {"good.md", "paper.pdf"}
    (folder / "good.md").unlink()
    report = ingest([folder], corpus="mixed")
    assert report.files_deleted == 1 and report.chunks_written == 0
    assert open_corpus("mixed").count_rows() == 1


def test_search_task_records_retrievals(store: Store) -> None:
    from prefect import flow

    from agentcycle.tasks.retrieval import search_task

    @flow(name="ask-test")
    def ask() -> list:
        return search_task("docs", "FlashRank reranks the candidates", k=3, session_id="t1")

    hits = ask()
    assert len(hits) == 3
    rows = query.run_query(
        "SELECT rank, file FROM retrievals WHERE session_id = 't1' ORDER BY rank"
    ).to_pylist()
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert rows[0]["file"] == hits[0].file


def test_cli_search_report_store_and_refusals(store: Store, tmp_path: Path) -> None:
    from agentcycle.cli.store import app

    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "search",
            "docs",
            "FlashRank reranks the 20 candidates",
            "--k",
            "2",
            "--mode",
            "text",
            "--file",
            "overview",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "phenix-agent-docs/OVERVIEW.md" in result.output and " 2. " in result.output
    result = runner.invoke(
        app, ["search", "docs", "reranker", "--heading", "RAG Pipeline", "--json"]
    )
    assert result.exit_code == 0 and '"heading"' in result.output
    result = runner.invoke(app, ["report", "corpus", "docs", "--format", "csv"])
    assert result.exit_code == 0 and "docs,phenix-agent-docs/OVERVIEW.md," in result.output
    result = runner.invoke(app, ["store", "info"])
    assert "corpus_docs" in result.output
    for argv, message in [
        (["ingest", "../evil", str(tmp_path)], "corpus name '../evil'"),
        (["ingest", "docs", str(tmp_path / "missing")], "no such file or folder"),
        (["search", "nope", "query"], "corpus 'nope' does not exist"),
        (["search", "docs", "query", "--k", "0"], "--k"),
        (["report", "sessions", "extra"], "takes no argument"),
    ]:
        result = runner.invoke(app, argv)
        assert isinstance(result.exception, UserError), (argv, result.output)
        assert message in str(result.exception)
    small = tmp_path / "small"
    small.mkdir()
    (small / "a.txt").write_text("Twinning was detected by xtriage.\n")
    (small / "empty.html").write_text("")
    result = runner.invoke(app, ["ingest", "cli-small", str(small), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"skipped {small / 'empty.html'}: empty file" in result.stderr
    assert "cli-small: 2 new" in result.stdout

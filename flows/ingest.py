"""The `ingest` flow: bring a corpus up to date with files and folders on disk.

Planning, parsing and writing are plain functions in `storage.corpus`; only embedding
goes through Prefect tasks (cached on chunk hashes), since it is the one step worth
caching and watching. A progress bar counts embedded chunks on stderr; the Prefect UI
gets a markdown artifact with the outcome and every skipped file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.events import emit_event

from agentcycle.prefect_events import CORPUS_UPDATED, corpus_resource
from agentcycle.storage.corpus import IngestReport, ingest
from agentcycle.storage.corpus_models import prepare_corpus_model
from agentcycle.tasks.retrieval import EMBED_BATCH, embed_in_batches


def _report_markdown(report: IngestReport) -> str:
    parts = [f"**{report.summary()}**"]
    if report.indexes_created:
        parts.append("Indexes created: " + ", ".join(report.indexes_created))
    if report.skipped:
        parts.append("\n".join(f"- {skipped}" for skipped in report.skipped))
    return "\n\n".join(parts)


@flow(name="ingest", flow_run_name="ingest-{corpus}", log_prints=False)
def ingest_flow(
    corpus: str, paths: list[str], batch_size: int = EMBED_BATCH, progress: bool = True,
    embedding_model: str | None = None, rebuild_embeddings: bool = False,
) -> IngestReport:
    """Ingest files into a corpus; unchanged files cost a hash, nothing more.

    `embedding_model` (a sentence-transformers folder) is recorded with a new corpus; an
    existing corpus keeps its own unless `rebuild_embeddings` re-embeds it all.
    """
    from tqdm import tqdm

    logger = get_run_logger()
    model = prepare_corpus_model(corpus, embedding_model, rebuild_embeddings)

    def embedder(texts: list[str], hashes: list[str]):
        with tqdm(
            total=len(texts),
            unit="chunk",
            desc=f"embedding {corpus}",
            disable=not progress,
            file=sys.stderr,
            dynamic_ncols=True,
        ) as bar:
            return embed_in_batches(texts, hashes, batch_size, progress=bar, model=model)

    report = ingest(corpus, [Path(p) for p in paths], embedder=embedder, model=model)
    if not report.noop:  # deployments triggered by this event re-run their suites
        emit_event(
            CORPUS_UPDATED,
            resource=corpus_resource(corpus),
            payload={k: getattr(report, k) for k in
                     ("files_new", "files_changed", "files_deleted", "chunks_written")},
        )  # fmt: skip
    for skipped in report.skipped:
        logger.warning("%s", skipped)
    logger.info("%s", report.summary())
    key = "ingest-" + corpus.lower().replace("_", "-")
    create_markdown_artifact(
        markdown=_report_markdown(report), key=key, description=f"ingest {corpus}"
    )
    return report

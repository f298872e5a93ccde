"""One evaluation sample: answer (or replay) it, score it, record its row.

Plain functions, so the Prefect task around them (`tasks/evaluation.py`) stays a few
lines and a benchmark can call them without Prefect. A sample that raises becomes a
row with `error` set: one bad question must not throw away an hour of answered ones.
Replaying a scenario drives the session flow, which evaluation must not import, so the
caller passes the replay function in (`replay`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcycle.agent.research import ResearchConfig, research
from agentcycle.config import home_dir
from agentcycle.evaluation.runs import slug
from agentcycle.evaluation.scorers import Chunk, Score, grounding, score_qa, sequence_match
from agentcycle.evaluation.suites import QaSample, ScenarioSample, Suite
from agentcycle.storage.corpus import open_corpus
from agentcycle.storage.datasets import append_rows
from agentcycle.storage.schemas import EvalSampleRow, ScoreStruct
from agentcycle.storage.tables import sql_quote

if TYPE_CHECKING:
    from agentcycle.scenarios import ScenarioResult
    from agentcycle.tasks.research import LocalTools

Replay = Callable[[Path, Path], "ScenarioResult"]


def chunk_rows(corpus: str, chunk_ids: list[str]) -> dict[str, Chunk]:
    """The cited chunks as the scorer needs them, read back from the corpus table."""
    if not chunk_ids:
        return {}
    where = "chunk_id IN (" + ", ".join(sql_quote(c) for c in chunk_ids) + ")"
    rows = (
        open_corpus(corpus)
        .search()
        .where(where)
        .select(["chunk_id", "text", "file", "start_char", "end_char"])
        .limit(len(chunk_ids) * 2)
        .to_arrow()
        .to_pylist()
    )
    return {
        r["chunk_id"]: Chunk(r["text"], r["file"], r["start_char"], r["end_char"]) for r in rows
    }


def source_spans(suite: Suite, sample: QaSample) -> list[tuple[str, str, tuple[int, int] | None]]:
    spans = []
    for source in sample.sources:
        path = suite.root / source.file
        text = path.read_text(errors="replace") if path.is_file() else ""
        at = text.find(source.quote) if source.quote else -1
        spans.append((source.file, source.quote, (at, at + len(source.quote)) if at >= 0 else None))
    return spans


def answer_sample(suite: Suite, sample: QaSample, tools: LocalTools) -> dict[str, Any]:
    """Answer one QA sample and score it (module-level so tests can make it fail)."""
    config = ResearchConfig(use_memory=False, write_memory=False)
    result = research(sample.question, tools, sample.choices, config)
    scores = score_qa(sample, result.answer, result.insufficient, result.mc_letter)
    cited = [c.chunk_id for c in result.citations]
    grounded = None
    if sample.sources and not result.insufficient and sample.type != "unanswerable":
        chunks = chunk_rows(tools.corpus, cited)
        scores.append(grounding(cited, chunks, source_spans(suite, sample)))
        grounded = scores[-1].score == 1.0
    return {
        "answer": result.mc_letter or result.answer,
        "citations": cited,
        "scores": scores,
        "grounded": grounded,
        "llm_calls": result.counters.llm_calls,
        "retrieval_calls": result.counters.retrieval_calls,
        "llm_failed_calls": result.counters.llm_failed_calls,
        "llm_fallbacks": result.counters.llm_fallbacks,
        "parse_failures": result.counters.parse_failures,
    }


def run_scenario_sample(
    suite: Suite, sample: ScenarioSample, run_id: str, replay: Replay
) -> dict[str, Any]:
    """Replay one scenario through the session flow; its own checks decide `correct`."""
    folder = (suite.path.parent / sample.scenario).resolve()
    session = home_dir() / "eval" / run_id / slug(sample.id)
    result = replay(folder, session)
    checks = Score(
        "scenario",
        result.status,
        "no problems",
        float(result.passed),
        "; ".join(result.problems) or "every expectation met",
    )
    return {
        "answer": " > ".join(result.programs),
        "citations": [],
        "scores": [checks, sequence_match(result.programs, result.expected_programs)],
        "grounded": None,
        "llm_calls": 0,
        "retrieval_calls": 0,
    }


def evaluate_sample(
    suite: Suite,
    sample: QaSample | ScenarioSample,
    key: str,
    epoch: int,
    run_id: str,
    tools: Callable[[], LocalTools],
    replay: Replay | None = None,
) -> dict[str, Any]:
    """Run, score and record one sample; an exception becomes the row's `error`.

    `tools` is called only for a QA sample, inside the guard, so a provider that cannot
    be set up is that sample's error, not the run's crash.
    """
    started = time.perf_counter()
    error = None
    try:
        if isinstance(sample, ScenarioSample):
            if replay is None:
                raise ValueError("a scenario sample needs a replay function")
            outcome = run_scenario_sample(suite, sample, run_id, replay)
        else:
            outcome = answer_sample(suite, sample, tools())
    except Exception as exc:  # an error is a result, not a crash
        error = f"{type(exc).__name__}: {exc}"[:2000]
        outcome = {"answer": "", "citations": [], "scores": [], "grounded": None}
    scores: list[Score] = outcome["scores"]
    row = EvalSampleRow(
        run_id=run_id,
        suite=suite.name,
        sample_id=key,
        sample_type=sample.type,
        epoch=epoch,
        question=getattr(sample, "question", "") or getattr(sample, "scenario", ""),
        expected=getattr(sample, "answer", "") or "",
        accept=getattr(sample, "accept", []),
        answer=outcome["answer"],
        correct=bool(scores) and scores[0].score == 1.0 and error is None,
        score=scores[0].score if scores else 0.0,
        scores=[ScoreStruct(**s.as_dict()) for s in scores],
        grounded=outcome["grounded"],
        citations=outcome["citations"],
        llm_calls=outcome.get("llm_calls", 0),
        retrieval_calls=outcome.get("retrieval_calls", 0),
        llm_failed_calls=outcome.get("llm_failed_calls", 0),
        llm_fallbacks=outcome.get("llm_fallbacks", 0),
        parse_failures=outcome.get("parse_failures", 0),
        latency_s=time.perf_counter() - started,
        error=error,
    )
    append_rows("eval_samples", [row])
    return dataclasses.asdict(row)

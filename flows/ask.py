"""The `ask` flow: the research graph answers one question over a corpus.

Retrievals and LLM calls are Prefect tasks cached on their inputs (`tasks.research`);
the graph itself runs in the flow. Every answer — refusals, cached and insufficient
ones included — becomes a row in the `answers` dataset and a markdown artifact with
the citations, the steps and the counters, so the Prefect UI shows why it answered.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from agentcycle.agent.research import ResearchConfig, ResearchResult, research
from agentcycle.flows.heartbeat import heartbeats_if_asked
from agentcycle.storage.datasets import append_rows
from agentcycle.tasks.research import PrefectTools


def answer_markdown(result: ResearchResult, corpus: str, latency_s: float) -> str:
    """The artifact: answer, citations, steps, counters and the trace."""
    c = result.counters
    status = (
        "refused"
        if result.refused
        else "from memory"
        if result.from_cache
        else "insufficient evidence"
        if result.insufficient
        else "answered"
    )
    parts = [
        f"### {result.question}",
        f"**{status}** · corpus `{corpus}` · "
        f"{result.question_type} · confidence {result.confidence:.3f} · {latency_s:.2f} s",
        "",
        result.answer,
        "",
    ]
    if result.citations:
        parts += ["| n | file | heading | cited sentence |", "|---|---|---|---|"]
        for cite in result.citations:
            sentence = cite.sentence.replace("|", "\\|").replace("\n", " ")[:200]
            heading = cite.heading.replace("|", "\\|")
            parts.append(f"| {cite.n} | `{cite.file}` | {heading} | {sentence} |")
        parts.append("")
    if result.steps:
        parts += ["| step | question | status | confidence | support |", "|---|---|---|---|---|"]
        parts += [
            f"| {s.step_id} | {s.question[:120]} | {s.status} | {s.confidence:.3f} | "
            f"{s.support:.3f} |"
            for s in result.steps
        ]
        parts.append("")
    parts.append(
        f"LLM calls {c.llm_calls} ({c.llm_failed_calls} failed, {c.llm_fallbacks} fallbacks)"
        f" · retrieval calls {c.retrieval_calls} · chars in "
        f"{c.chars_in} / out {c.chars_out} · parse failures {c.parse_failures} · "
        f"citations stripped {c.citations_stripped} · re-prompts {c.reprompts}"
    )
    parts += [
        "",
        "<details><summary>trace</summary>",
        "",
        *[f"- {t}" for t in result.trace],
        "",
        "</details>",
    ]
    return "\n".join(parts)


@flow(name="ask", flow_run_name="ask-{corpus}", log_prints=False)
def ask_flow(
    corpus: str,
    question: str,
    choices: dict[str, str] | None = None,
    provider: str = "rules",
    model: str | None = None,
    base_url: str | None = None,
    use_memory: bool = True,
    follow_references: bool = False,
    question_id: str = "",
    session_id: str = "",
    refresh_cache: bool = False,
) -> ResearchResult:
    """Answer `question` from `corpus` with citations; record the answer."""
    logger = get_run_logger()
    session_id = session_id or uuid.uuid4().hex
    started = time.perf_counter()
    tools = PrefectTools(
        corpus, provider, model, base_url, session_id=session_id, refresh_cache=refresh_cache
    )
    config = ResearchConfig(
        use_memory=use_memory, write_memory=use_memory, follow_references=follow_references
    )
    result = research(question, tools, choices, config)
    latency_s = time.perf_counter() - started
    append_rows(
        "answers",
        [
            {
                "session_id": session_id,
                "question_id": question_id or uuid.uuid4().hex[:12],
                "question": question,
                "answer": result.answer,
                "citations": [f"{c.n}|{c.chunk_id}|{c.file}" for c in result.citations],
                "confidence": result.confidence,
                "insufficient": result.insufficient,
                "from_cache": result.from_cache,
                "latency_s": latency_s,
                "corpus": corpus,
                "question_type": result.question_type,
                "refused": result.refused,
                "mc_letter": result.mc_letter,
                "steps_completed": len(result.steps),
                "llm_calls": result.counters.llm_calls,
                "retrieval_calls": result.counters.retrieval_calls,
                "chars_in": result.counters.chars_in,
                "chars_out": result.counters.chars_out,
                "parse_failures": result.counters.parse_failures,
            }
        ],
    )
    create_markdown_artifact(
        markdown=answer_markdown(result, corpus, latency_s),
        key="answer-" + corpus.lower().replace("_", "-"),
        description=f"ask {corpus}: {question[:80]}",
    )
    logger.info(
        "%s in %.2f s: %d citations, %d retrieval calls, %d LLM calls",
        "refused" if result.refused else "insufficient" if result.insufficient else "answered",
        latency_s,
        len(result.citations),
        result.counters.retrieval_calls,
        result.counters.llm_calls,
    )
    if result.counters.llm_warning:  # never a silent success on a dead or failing LLM
        logger.warning("%s", result.counters.llm_warning)
    return result


def run_ask(corpus: str, question: str, **options: Any) -> ResearchResult:
    """Run the flow in this process (heartbeats only if asked: `flows.heartbeat`)."""
    with heartbeats_if_asked():
        return ask_flow(corpus, question, **options)

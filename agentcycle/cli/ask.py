"""`agentcycle ask CORPUS "question" [--choices ...] [--provider rules|ollama|openai]`.

`ask` is registered as a top-level command in `agentcycle.cli.main`.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Annotated

import typer

from agentcycle.errors import UserError

_LETTERED = re.compile(r"^\s*\(?([A-Ha-h])\s*[)=:.]\s*(.+)$")


class OutputFormat(StrEnum):
    text = "text"
    json = "json"


class Provider(StrEnum):
    rules = "rules"
    ollama = "ollama"
    openai = "openai"


def parse_choice_options(values: list[str] | None) -> dict[str, str]:
    """'A=text', 'A) text' or bare 'text' (lettered A, B, ... in order)."""
    choices: dict[str, str] = {}
    for index, value in enumerate(values or []):
        match = _LETTERED.match(value)
        letter, text = (
            (match.group(1).upper(), match.group(2).strip())
            if match
            else (chr(ord("A") + index), value.strip())
        )
        if not text:
            raise UserError(f"--choices: option {letter} is empty")
        if letter in choices:
            raise UserError(f"--choices: option {letter} given twice")
        choices[letter] = text
    if len(choices) == 1:
        raise UserError("--choices: give at least two options")
    return choices


def ask(
    corpus: Annotated[str, typer.Argument(help="Corpus name (see `agentcycle ingest`).")],
    question: Annotated[str, typer.Argument(help="The question, in words.")],
    choices: Annotated[
        list[str] | None,
        typer.Option(
            "--choices", "-c", help="A multiple-choice option, repeatable: 'A=text' or 'text'."
        ),
    ] = None,
    provider: Annotated[
        Provider,
        typer.Option(help="rules (no LLM), ollama or openai (any OpenAI-compatible server)."),
    ] = Provider.rules,
    model: Annotated[
        str | None, typer.Option(help="LLM model (else AGENTCYCLE_LLM_MODEL).")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="LLM server URL (else AGENTCYCLE_LLM_BASE_URL).")
    ] = None,
    memory: Annotated[bool, typer.Option(help="Serve and store answers in QA memory.")] = True,
    follow_references: Annotated[
        bool, typer.Option(help="Follow 'see Section X' references (depth 2).")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    output_format: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            help="text: the answer, its evidence and sources; json: answer, evidence, "
            "citations, confidence, insufficient.",
        ),
    ] = OutputFormat.text,
) -> None:
    """Answer a question from a corpus with [n] citations (a Prefect flow)."""
    # Imported here, not at the top: `agentcycle ask --help` answers without loading
    # Prefect, LangGraph, LanceDB and torch.
    from agentcycle.agent.research.compose import to_json
    from agentcycle.flows.ask import run_ask
    from agentcycle.server import ensure_prefect_api
    from agentcycle.storage.corpus import validate_corpus_name
    from agentcycle.tasks.research import corpus_vocabulary

    validate_corpus_name(corpus)
    if not question.strip():
        raise UserError("ask: the question is empty")
    options = parse_choice_options(choices)

    api = ensure_prefect_api()
    typer.echo(f"Prefect API: {api}  (watch: {api.removesuffix('/api')}/runs)", err=True)

    # Reads every chunk's text once (the answer needs it anyway; it stays cached), so a
    # missing or damaged corpus is a one-line error before the flow starts.
    corpus_vocabulary(corpus)
    result = run_ask(
        corpus,
        question,
        choices=options or None,
        provider=provider.value,
        model=model,
        base_url=base_url,
        use_memory=memory,
        follow_references=follow_references,
    )
    if as_json or output_format is OutputFormat.json:
        typer.echo(json.dumps(to_json(result), indent=1, ensure_ascii=False))
        return
    typer.echo(result.answer)
    if "\nSources:\n" not in result.answer:  # e.g. an answer remembered before #15
        for cite in result.citations:
            where = f"{cite.file} § {cite.heading}" if cite.heading else cite.file
            typer.echo(f"[{cite.n}] {where}")
    c = result.counters
    source = "memory" if result.from_cache else f"{len(result.steps)} step(s)"
    typer.echo(
        f"({result.question_type}, {source}, confidence {result.confidence:.2f}, "
        f"{c.retrieval_calls} retrievals, {c.llm_calls} LLM calls)",
        err=True,
    )
    if c.llm_warning:  # a dead or failing LLM: the answer above came from the rules
        typer.echo(f"warning: {c.llm_warning}", err=True)

"""Multiple-choice selection, answers from memory and the final shape of the result.

`finalize_node` renders what a person reads: the direct answer on the first line (for
multiple choice, the letter and the option's text), then the cited evidence cleaned of
Markdown, then the sources; it also writes good answers back to QA memory.
"""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig

from agentcycle.agent.research import skills
from agentcycle.agent.research.classify import is_negated
from agentcycle.agent.research.compose import render
from agentcycle.agent.research.mc import (
    complement_option,
    negatively_stated_option,
    option_named,
    score_options,
    select,
    words_option,
)
from agentcycle.agent.research.node_answer import pooled_evidence
from agentcycle.agent.research.runtime import Update, config_of, tools_of
from agentcycle.agent.research.state import (
    Citation,
    Evidence,
    ResearchResult,
    ResearchState,
)
from agentcycle.agent.research.synthesize import Scored, score_units
from agentcycle.agent.research.text import normalise
from agentcycle.agent.research.tools import ResearchTools

_tools, _config = tools_of, config_of


MC_UNITS = 12  # the best units for the question; each option adds its own best two


def _mc_units(
    state: ResearchState, tools: ResearchTools, evidence: list[Evidence], choices: dict[str, str]
) -> list[Scored]:
    """The question's best units, and each option's best units that name the option or
    word it, so an option stated far down the ranking is still read where it is stated
    ("Action: Return None (signal completion)" shares no word with the question)."""
    ranked = score_units(state["objective"], evidence, tools.vocabulary())
    units = ranked[:MC_UNITS]
    rest = [(u, normalise(u.text)) for u in ranked[MC_UNITS:]]
    for option in choices.values():
        naming = [
            u for u, text in rest if option_named(option, text) or words_option(option, u.text)
        ][:2]
        units += [u for u in naming if u not in units]
    return units


OPTION_PASSAGES = 2  # chunks looked up per option, by its words with the question's
GUESS_CONFIDENCE = 0.2  # an option chosen with none stated in the evidence: a guess
GUESS_NOTE = " (a guess: no option is stated in the evidence)"


def _with_option_passages(
    state: ResearchState, tools: ResearchTools, evidence: list[Evidence], choices: dict[str, str]
) -> list[Evidence]:
    """The pooled evidence plus, for each option, the chunks whose sentences best match
    the question with that option (BM25 per sentence). The research saw the question
    only ("MC isolation"); whether an option is stated may sit in a list the question's
    words alone did not reach ("- 'count', 'quantity', 'total cells'")."""
    seen = {e.chunk_id for e in evidence}
    found = list(evidence)
    for option in choices.values():
        for hit in tools.search_units(f"{state['objective']} {option}", OPTION_PASSAGES):
            if hit.chunk_id not in seen:
                seen.add(hit.chunk_id)
                found.append(hit)
    return found


def mc_select_node(state: ResearchState, config: RunnableConfig) -> Update:
    choices = state.get("choices") or {}
    draft = state["draft"]
    update: Update = {"route": ""}
    if not choices:
        return update
    tools = _tools(config)
    if state.get("memory_hit"):
        evidence = [
            Evidence(chunk_id=c.chunk_id, file=c.file, heading=c.heading, text=c.sentence)
            for c in draft.citations
        ]
    else:
        evidence = _with_option_passages(state, tools, pooled_evidence(state), choices)
        counters = state["counters"].model_copy()
        counters.retrieval_calls += len(choices)  # one sentence search per option
        update["counters"] = counters
    units = _mc_units(state, tools, evidence, choices)
    tools.prepare(
        [f"{state['objective']} {option}" for option in choices.values()]
        + [u.text for u in units[:3]]
    )
    open_answer = "" if draft.insufficient else draft.direct
    scores, reasons = score_options(
        state["objective"], choices, units, tools.vocabulary(), tools.text_similarities,
        open_answer, [hit.text for hit in evidence],
    )  # fmt: skip
    negated = is_negated(state["objective"])
    said_not = negatively_stated_option(state["objective"], choices, units) if negated else None
    left_out = complement_option(state["objective"], choices, units) if negated else None
    letter = said_not or left_out or select(scores, negated)
    if said_not is not None:
        reasons[said_not] = f"stated negated, as asked: {reasons[said_not]}"
    elif left_out is not None:
        why = "the one option a list with the property leaves out"
        reasons[left_out] = f"{why}: {reasons[left_out]}"
    llm = tools.llm
    if llm is not None and llm.enabled:
        prompt = (
            f"Question: {state['objective']}\nOptions:\n"
            + "\n".join(f"{k}) {v}" for k, v in choices.items())
            + f"\n\nEvidence:\n{skills.evidence_block([u.text for u in units[:5]])}"
        )
        reply = llm.structured(skills.MC_SELECT, prompt, skills.OptionChoice)
        if reply is not None and reply.letter.upper() in choices:
            letter, reasons = reply.letter.upper(), reply.reasoning or reasons
    stated = any(r.startswith("stated") for r in reasons.values())
    guessed = not stated and draft.insufficient
    reasoning = "\n".join(
        f"- ({k}) {choices[k]}: {reasons.get(k, '')} [score {scores.get(k, 0):.2f}]"
        for k in choices
    )
    answer = f"Answer: ({letter}) {choices[letter]}"
    if guessed:  # one of the options is right by the question's own terms: the closest
        answer += GUESS_NOTE  # is a better answer than none, said to be a guess
    answer += f"\n{reasoning}"
    if not draft.insufficient:
        answer += f"\nEvidence:\n{draft.answer}"
    new = draft.model_copy(
        update={
            "answer": answer,
            "mc_letter": letter,
            "mc_reasoning": reasons,
            "insufficient": False,
            "confidence": min(draft.confidence, GUESS_CONFIDENCE) if guessed else draft.confidence,
        }
    )
    return {
        **update,
        "draft": new,
        "trace": [f"mc: ({letter}) scores { {k: round(v, 3) for k, v in scores.items()} }"],
    }


def recall_node(state: ResearchState, config: RunnableConfig) -> Update:
    """A remembered answer becomes the draft; no retrieval happens."""
    hit = state["memory_hit"]
    citations = [Citation(**c) for c in hit.get("citations", []) if isinstance(c, dict)]
    draft = ResearchResult(
        question=state["question"],
        answer=hit["answer"],
        citations=citations,
        confidence=float(hit.get("confidence", 0.0)),
        from_cache=True,
        question_type=state["question_type"],
    )
    return {"draft": draft, "gate_errors": [], "trace": ["answer served from memory"]}


def _shaped(draft: ResearchResult, evidence: dict[str, Evidence]) -> ResearchResult:
    """The draft as the reader sees it: direct answer, evidence, sources."""
    if draft.from_cache or draft.refused:
        first = draft.answer.splitlines()[0] if draft.answer else ""
        return draft.model_copy(update={"direct": draft.direct or first})
    if draft.insufficient and not draft.mc_letter:
        return draft.model_copy(update={"direct": draft.answer.splitlines()[0]})
    direct = draft.direct
    if draft.mc_letter:
        direct = draft.answer.splitlines()[0]
    elif not direct:
        direct = draft.citations[0].sentence if draft.citations else draft.answer
    return draft.model_copy(
        update={"direct": direct, "answer": render(direct, draft.citations, evidence)}
    )


def finalize_node(state: ResearchState, config: RunnableConfig) -> Update:
    """The result's final shape, memory write-back of good answers, counters."""
    tools, cfg = _tools(config), _config(state)
    draft = _shaped(state["draft"], state.get("evidence", {}))
    counters = state["counters"].model_copy()
    llm = tools.llm
    if llm is not None:
        counters.llm_calls, counters.chars_in = llm.calls, llm.chars_in
        counters.chars_out, counters.parse_failures = llm.chars_out, llm.parse_failures
        counters.llm_failed_calls, counters.llm_fallbacks = llm.errors, llm.fallbacks
        counters.llm_warning = getattr(llm, "warning", None) or ""
    trace = []
    # The MC letter is not stored: the same question may come with other options.
    good = (
        not draft.insufficient
        and not draft.from_cache
        and not draft.mc_letter
        and draft.confidence >= cfg.memory_min_confidence
    )
    if cfg.write_memory and good and draft.answer:
        tools.remember(
            state["objective"],
            draft.answer,
            [c.model_dump() for c in draft.citations],
            draft.confidence,
        )
        trace.append("memory: answer stored")
    result = draft.model_copy(
        update={
            "steps": state.get("steps", []),
            "counters": counters,
            "evidence": [
                state["evidence"][c.chunk_id]
                for c in draft.citations
                if c.chunk_id in state.get("evidence", {})
            ],
        }
    )
    return {"result": result, "trace": trace}

"""The research graph's nodes: plain functions of (state, config) returning updates.

The outside world (search, embeddings, memory, the LLM) arrives as `ResearchTools` in
`config["configurable"]["tools"]`, so the compiled graph is shared by every run and the
nodes never import Prefect or storage. Each node appends one line to the trace.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.runnables import RunnableConfig

from agentcycle.agent.research import skills
from agentcycle.agent.research.classify import classify, is_negated, parse_choices
from agentcycle.agent.research.evaluate import next_step_question, route, step_status
from agentcycle.agent.research.injection import check_injection
from agentcycle.agent.research.mc import score_options, select
from agentcycle.agent.research.references import follow
from agentcycle.agent.research.retrieve import coverage, pool, rerank
from agentcycle.agent.research.rewrite import rewrite_queries
from agentcycle.agent.research.state import (
    INSUFFICIENT,
    Citation,
    Counters,
    Evidence,
    ResearchConfig,
    ResearchResult,
    ResearchState,
    Step,
)
from agentcycle.agent.research.synthesize import Scored, cite, pick, score_units
from agentcycle.agent.research.text import content_terms, normalise
from agentcycle.agent.research.tools import ResearchTools
from agentcycle.agent.research.validate import Constraints, check, parse_constraints

Update = dict[str, Any]


def _tools(config: Any) -> ResearchTools:
    return config["configurable"]["tools"]


def _config(state: ResearchState) -> ResearchConfig:
    return state.get("config") or ResearchConfig()


# --------------------------------------------------------------------------- 1-3


def injection_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Screen the question; rules first, then the LLM skill when one is configured."""
    objective, choices = parse_choices(state["question"], state.get("choices"))
    verdict = check_injection(state["question"]).to_dict()
    llm = _tools(config).llm
    if verdict["is_safe"] and llm is not None and llm.enabled:
        reply = llm.structured(skills.INJECTION, state["question"], skills.InjectionCheck)
        if reply is not None:  # None: parser error or timeout, fail open
            verdict = {"is_safe": reply.is_safe, "reasoning": reply.reasoning, "source": "llm"}
    return {
        "objective": objective,
        "choices": choices,
        "injection": verdict,
        "counters": Counters(),
        "steps": [],
        "evidence": {},
        "iteration": 0,
        "gate_errors": [],
        "trace": [
            f"injection check ({verdict['source']}): "
            f"{'safe' if verdict['is_safe'] else 'UNSAFE'} — {verdict['reasoning']}"
        ],
    }


def refuse_node(state: ResearchState, config: RunnableConfig) -> Update:
    reason = state["injection"]["reasoning"]
    result = ResearchResult(
        question=state["question"],
        refused=True,
        insufficient=True,
        answer=f"Refused: the question contains an injected instruction ({reason}).",
        counters=state["counters"],
    )
    return {"result": result, "trace": ["refused: no retrieval"]}


def classify_node(state: ResearchState, config: RunnableConfig) -> Update:
    question_type, why = classify(state["objective"])
    constraints = parse_constraints(state["question"])
    return {
        "question_type": question_type,
        "constraints": constraints.to_dict(),
        "trace": [
            f"classified {question_type} ({why}); "
            f"{'MC with ' + str(len(state['choices'])) + ' options; ' if state['choices'] else ''}"
            f"constraints {constraints.to_dict()}"
        ],
    }


def plan_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Memory first; otherwise one step (multi-hop questions grow more by replanning)."""
    cfg = _config(state)
    if cfg.use_memory:
        hit = _tools(config).recall(state["objective"], cfg.memory_threshold)
        if hit is not None:
            return {
                "memory_hit": hit,
                "trace": [f"memory hit (similarity {hit.get('similarity', 0):.3f}): no retrieval"],
            }
    step = Step(step_id=1, question=state["objective"])
    return {"memory_hit": None, "steps": [step], "trace": ["plan: step 1 = the question"]}


# --------------------------------------------------------------------------- 4 execute


def _queries(question: str, tools: ResearchTools, counters: Counters) -> list[str]:
    queries = rewrite_queries(question, tools.vocabulary())
    llm = tools.llm
    if llm is not None and llm.enabled:
        reply = llm.structured(skills.REWRITE, question, skills.QueryRewrite)
        if reply is not None:
            queries = list(dict.fromkeys([reply.primary, *reply.alternatives[:2]]))
    return queries


def resolve_reference(ref: str, question: str, tools: ResearchTools) -> list[Evidence]:
    """Search where the reference points: inside the named file, or the numbered section."""
    document = re.search(r"([\w./-]+\.md)\b", ref)
    section = re.search(r"(?:[Ss]ection|§)\s*([\w.]+)", ref)
    if document:
        return tools.search(question, 3, file=document.group(1))
    if section:
        return tools.search(f"{question} {section.group(1)}", 3, heading=section.group(1))
    return tools.search(ref, 3)


def execute_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Run the first pending step: rewrite, pooled retrieval, rerank, cite, confidence."""
    tools, cfg = _tools(config), _config(state)
    steps = [s.model_copy() for s in state["steps"]]
    index = next(i for i, s in enumerate(steps) if s.status == "pending")
    step = steps[index]
    counters = state["counters"].model_copy()
    evidence = dict(state["evidence"])
    queries = _queries(step.question, tools, counters)
    tools.prepare([step.question, *queries])
    rankings = tools.search_many(queries, cfg.per_query_k)
    counters.retrieval_calls += len(queries)
    used = {c for s in steps if s.status != "pending" for c in s.evidence_ids}
    vocabulary = tools.vocabulary()
    top = rerank(step.question, pool(rankings, used), vocabulary, cfg.top_k)
    sims = tools.similarities(step.question, [h.chunk_id for h in top]) if top else []
    top = [
        h.model_copy(update={"similarity": s, "step": step.step_id})
        for h, s in zip(top, sims, strict=True)
    ]
    trace = [f"step {step.step_id}: queries {queries}; {len(top)} chunks"]
    if cfg.follow_references and top:
        extra, ref_trace = follow(
            state["objective"],
            top,
            lambda ref: resolve_reference(ref, step.question, tools),
            tools.text_similarities,
            cfg,
        )
        followed = {line.split("'")[1] for line in ref_trace if line.startswith("reference '")}
        counters.retrieval_calls += len(followed)
        counters.references_followed += len(extra)
        top += [e.model_copy(update={"step": step.step_id}) for e in extra]
        trace += ref_trace
    for hit in top:
        evidence.setdefault(hit.chunk_id, hit)
    units = pick(score_units(step.question, top, vocabulary), cfg.answer_sentences)
    terms = content_terms(step.question)
    step.queries = queries
    step.evidence_ids = [h.chunk_id for h in top]
    step.answer = " ".join(u.text for u in units)
    step.confidence = sum(sims) / len(sims) if sims else 0.0
    step.support = max(
        (coverage(terms, f"{h.context}\n{h.text}", vocabulary) for h in top), default=0.0
    )
    return {
        "steps": steps,
        "evidence": evidence,
        "counters": counters,
        "iteration": state["iteration"] + 1,
        "trace": trace,
    }


def evaluate_node(state: ResearchState, config: RunnableConfig) -> Update:
    cfg = _config(state)
    steps = [s.model_copy() for s in state["steps"]]
    step = next(s for s in reversed(steps) if s.status == "pending")
    step.status = step_status(step.confidence, step.support, cfg)  # type: ignore[assignment]
    return {
        "steps": steps,
        "trace": [
            f"step {step.step_id} {step.status}: confidence {step.confidence:.3f}, "
            f"support {step.support:.3f}"
        ],
    }


def after_evaluate(state: ResearchState) -> str:
    return route(state["question_type"], state["steps"], state["iteration"], _config(state))


def replan_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Add the next step, or nothing (then synthesis follows)."""
    tools = _tools(config)
    question = next_step_question(
        state["objective"], state["steps"], state["evidence"], tools.vocabulary()
    )
    if question is None:
        return {"trace": ["replan: nothing new to ask"]}
    step = Step(step_id=len(state["steps"]) + 1, question=question)
    return {
        "steps": [*state["steps"], step],
        "trace": [f"replan: step {step.step_id} = {question!r}"],
    }


def after_replan(state: ResearchState) -> str:
    return "execute" if any(s.status == "pending" for s in state["steps"]) else "synthesize"


# --------------------------------------------------------------------------- 5 synthesize


def _pool_evidence(state: ResearchState) -> list[Evidence]:
    steps = state["steps"]
    chosen = [s for s in steps if s.status == "completed"] or steps
    ids = list(dict.fromkeys(c for s in chosen for c in s.evidence_ids))
    return [state["evidence"][c] for c in ids if c in state["evidence"]]


def _answer_units(
    state: ResearchState, evidence: list[Evidence], tools: ResearchTools, cfg: ResearchConfig
) -> list[Scored]:
    vocabulary = tools.vocabulary()
    units = pick(score_units(state["objective"], evidence, vocabulary), cfg.answer_sentences)
    if state["question_type"] == "multi_hop" and len(state["steps"]) > 1:
        last = state["steps"][-1]
        last_evidence = [state["evidence"][c] for c in last.evidence_ids if c in state["evidence"]]
        extra = pick(
            score_units(f"{state['objective']} {last.question}", last_evidence, vocabulary), 1
        )
        units = pick(units + extra, cfg.answer_sentences + 1)
    return units


def _support(
    state: ResearchState, units: list[Scored], evidence: list[Evidence], tools: ResearchTools
) -> float:
    """Simple: one passage must cover the question; multi-hop: the cited passages together."""
    vocabulary = tools.vocabulary()
    terms = content_terms(state["objective"])
    if state["question_type"] == "multi_hop":
        joined = "\n".join(f"{u.evidence.context}\n{u.evidence.text}" for u in units)
        return coverage(terms, joined, vocabulary)
    return max(
        (coverage(terms, f"{h.context}\n{h.text}", vocabulary) for h in evidence), default=0.0
    )


def _llm_draft(
    state: ResearchState, evidence: list[Evidence], tools: ResearchTools
) -> tuple[str, list[Citation], bool] | None:
    passages = evidence[:5]
    errors = state.get("gate_errors") or []
    prompt = (
        f"Question: {state['objective']}\n\nEvidence:\n"
        f"{skills.evidence_block([p.text for p in passages])}"
    )
    if errors:
        prompt += "\n\nYour previous answer was rejected: " + "; ".join(errors)
    reply = tools.llm.structured(skills.SYNTHESIZE, prompt, skills.SynthesizedAnswer)
    if reply is None:
        return None
    if reply.insufficient or not reply.sentences:
        return INSUFFICIENT, [], True
    citations: list[Citation] = []
    lines = []
    for sentence in reply.sentences:
        marks = [n for n in sentence.citations if 1 <= n <= len(passages)]
        for n in marks:
            hit = passages[n - 1]
            citations.append(
                Citation(
                    n=n,
                    chunk_id=hit.chunk_id,
                    file=hit.file,
                    heading=hit.heading,
                    sentence=sentence.text,
                )
            )
        lines.append(sentence.text + "".join(f" [{n}]" for n in marks))
    return "\n".join(lines), citations, False


def synthesize_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Draft the answer: extractive with [n] citations, or generated from the evidence."""
    tools, cfg = _tools(config), _config(state)
    evidence = _pool_evidence(state)
    units = _answer_units(state, evidence, tools, cfg)
    support = _support(state, units, evidence, tools)
    completed = [s for s in state["steps"] if s.status == "completed"]
    confidence = sum(s.confidence for s in completed or state["steps"]) / max(
        1, len(completed or state["steps"])
    )
    insufficient = (
        not completed or support < cfg.min_support or confidence < cfg.min_confidence or not units
    )
    verbatim = True
    if insufficient:
        answer, citations = INSUFFICIENT, []
    else:
        answer, citations = cite(units)
        if Constraints(**state["constraints"]).requires_quote:
            answer = "\n".join(f"“{c.sentence}” [{c.n}]" for c in citations)
        if tools.llm is not None and tools.llm.enabled and not state.get("gate_fallback"):
            drafted = _llm_draft(state, evidence, tools)
            if drafted is not None:
                answer, citations, insufficient = drafted
                verbatim = False
    draft = ResearchResult(
        question=state["question"],
        answer=answer,
        citations=citations,
        confidence=confidence,
        insufficient=insufficient,
        question_type=state["question_type"],
    )
    return {
        "draft": draft,
        "verbatim": verbatim,
        "trace": [
            f"synthesize: {len(citations)} citations, support {support:.3f}, "
            f"confidence {confidence:.3f}{', INSUFFICIENT' if insufficient else ''}"
        ],
    }


# --------------------------------------------------------------------------- 6 verify


def verify_node(state: ResearchState, config: RunnableConfig) -> Update:
    """The validation gate: strip ungrounded citations, re-prompt on unmet constraints."""
    cfg = _config(state)
    draft = state["draft"]
    constraints = Constraints(**state["constraints"])
    counters = state["counters"].model_copy()
    report = check(
        draft.citations,
        state["evidence"],
        constraints,
        counters.retrieval_calls,
        draft.insufficient,
        draft.answer,
        verbatim=state.get("verbatim", True),
    )
    counters.citations_stripped += report.stripped
    trace = [f"gate: {'ok' if report.ok else '; '.join(report.errors)}"]
    update: Update = {"counters": counters, "gate_errors": report.errors, "trace": trace}
    if report.ok:
        return update
    searches_short = any(e.startswith("MIN_SEARCHES") for e in report.errors)
    rounds = len(state["steps"])
    if searches_short and rounds < cfg.max_tool_calls:
        step = Step(step_id=rounds + 1, question=state["objective"])
        update["steps"] = [*state["steps"], step]
        update["route"] = "execute"
        return update
    if counters.reprompts < cfg.max_reprompts and not searches_short:
        counters.reprompts += 1
        update["route"] = "synthesize"
        update["gate_fallback"] = counters.reprompts >= cfg.max_reprompts
        return update
    # Out of re-prompts: keep only what is grounded.
    kept = {c.sentence for c in report.citations}
    lines = [
        line
        for line in draft.answer.splitlines()
        if any(normalise(k) in normalise(line) for k in kept)
    ]
    if not lines:
        fixed = draft.model_copy(
            update={"answer": INSUFFICIENT, "citations": [], "insufficient": True}
        )
    else:
        fixed = draft.model_copy(update={"answer": "\n".join(lines), "citations": report.citations})
    update["draft"] = fixed
    update["trace"] = [*trace, "gate: kept the grounded part after the last re-prompt"]
    return update


def after_verify(state: ResearchState) -> str:
    if state.get("gate_errors") and state.get("route") in ("execute", "synthesize"):
        return state["route"]
    return "mc_select"


# --------------------------------------------------------------------------- 7 MC, finish


def _mc_units(state: ResearchState, tools: ResearchTools, evidence: list[Evidence]) -> list[Scored]:
    return score_units(state["objective"], evidence, tools.vocabulary())[:12]


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
        evidence = _pool_evidence(state)
    units = _mc_units(state, tools, evidence)
    tools.prepare(
        [f"{state['objective']} {option}" for option in choices.values()]
        + [u.text for u in units[:3]]
    )
    scores, reasons = score_options(
        state["objective"], choices, units, tools.vocabulary(), tools.text_similarities
    )
    letter = select(scores, is_negated(state["objective"]))
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
    if not stated and draft.insufficient:
        return {**update, "trace": ["mc: no option is stated in the evidence"]}
    reasoning = "\n".join(
        f"- ({k}) {choices[k]}: {reasons.get(k, '')} [score {scores.get(k, 0):.2f}]"
        for k in choices
    )
    answer = f"Answer: ({letter}) {choices[letter]}\n{reasoning}"
    if not draft.insufficient:
        answer += f"\nEvidence:\n{draft.answer}"
    new = draft.model_copy(
        update={
            "answer": answer,
            "mc_letter": letter,
            "mc_reasoning": reasons,
            "insufficient": False,
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


def finalize_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Memory write-back of good answers, counters, and the result."""
    tools, cfg = _tools(config), _config(state)
    draft = state["draft"]
    counters = state["counters"].model_copy()
    llm = tools.llm
    if llm is not None:
        counters.llm_calls, counters.chars_in = llm.calls, llm.chars_in
        counters.chars_out, counters.parse_failures = llm.chars_out, llm.parse_failures
    trace = []
    good = (
        not draft.insufficient
        and not draft.from_cache
        and draft.confidence >= cfg.memory_min_confidence
    )
    # The MC letter is not stored: the same question may come with other options.
    base = draft.answer
    if draft.mc_letter:
        base = draft.answer.split("\nEvidence:\n", 1)[1] if "\nEvidence:\n" in base else ""
    if cfg.write_memory and good and base:
        tools.remember(
            state["objective"], base, [c.model_dump() for c in draft.citations], draft.confidence
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

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
from agentcycle.agent.research.answer_type import split_bridge, split_pair
from agentcycle.agent.research.classify import classify, parse_choices, with_pointed_named
from agentcycle.agent.research.comparison import split_comparison
from agentcycle.agent.research.compose import bridge_name
from agentcycle.agent.research.evaluate import next_step_question, route, step_status
from agentcycle.agent.research.injection import check_injection
from agentcycle.agent.research.named_document import document_scopes
from agentcycle.agent.research.references import follow
from agentcycle.agent.research.retrieve import coverage, step_chunks, support_terms
from agentcycle.agent.research.rewrite import rewrite_queries, without_document_names
from agentcycle.agent.research.state import (
    Counters,
    Evidence,
    ResearchConfig,
    ResearchResult,
    ResearchState,
    Step,
)
from agentcycle.agent.research.synthesize import pick, score_units
from agentcycle.agent.research.tools import ResearchTools
from agentcycle.agent.research.validate import parse_constraints
from agentcycle.agent.research.wording import in_corpus_words

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
        "objective": in_corpus_words(objective),
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
    if question_type == "simple" and split_bridge(state["objective"]) is not None:
        # "X needs Y; which rule decides what it gets?": the context is a fact of its own
        question_type, why = "multi_hop", "a context sets up the fact the asking clause is about"
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
    comparison = split_comparison(state["objective"])
    if comparison is not None:  # each side is looked up on its own, often in another file
        steps = [
            Step(step_id=1, question=comparison.first),
            Step(step_id=2, question=comparison.second),
        ]
        return {
            "memory_hit": None,
            "steps": steps,
            "trace": [
                f"plan: a {comparison.operation} of two facts: step 1 = {comparison.first!r}, "
                f"step 2 = {comparison.second!r}"
            ],
        }
    pair = split_pair(state["objective"])
    if pair is not None:  # "how many calls …, and what is the response time …?": two facts
        steps = [Step(step_id=1, question=pair[0]), Step(step_id=2, question=pair[1])]
        return {
            "memory_hit": None,
            "steps": steps,
            "trace": [f"plan: two questions: step 1 = {pair[0]!r}, step 2 = {pair[1]!r}"],
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


SCOPED_K = 3  # passages read from inside each document the question names


def execute_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Run the first pending step: rewrite, pooled retrieval, rerank, cite, confidence."""
    tools, cfg = _tools(config), _config(state)
    steps = [s.model_copy() for s in state["steps"]]
    index = next(i for i, s in enumerate(steps) if s.status == "pending")
    step = steps[index]
    counters = state["counters"].model_copy()
    evidence = dict(state["evidence"])
    queries = _queries(step.question, tools, counters)
    # "According to the seed architecture document's notes, …": no passage names the
    # document, so its name ranks nothing; what is asked of it does
    asked = without_document_names(step.question)
    tools.prepare([asked, *queries])
    rankings = tools.search_many(queries, cfg.per_query_k)
    by_unit = tools.search_units(asked, cfg.per_query_k)
    counters.retrieval_calls += len(queries) + 1
    used = {c for s in steps if s.status != "pending" for c in s.evidence_ids}
    vocabulary = tools.vocabulary()
    top, ranked = step_chunks(  # confidence is judged on the `ranked` reranked ones
        asked, rankings, by_unit, used, vocabulary, cfg.top_k, cfg.unit_hits_kept
    )
    # "According to the User Guide, …": the named document's best passages are read too,
    # where the whole corpus's ranking may hold none of them
    scopes = [s for s in document_scopes(step.question) if not any(s.holds(h) for h in top)]
    seen = {h.chunk_id for h in top} | used
    for scope in scopes:
        scoped = tools.search(scope.query, SCOPED_K, file=scope.file, heading=scope.heading)
        top += [h for h in scoped if h.chunk_id not in seen]
        seen |= {h.chunk_id for h in scoped}
    counters.retrieval_calls += len(scopes)
    sims = tools.similarities(asked, [h.chunk_id for h in top]) if top else []
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
    units = pick(score_units(asked, top, vocabulary), cfg.answer_sentences)
    step.queries = queries
    step.evidence_ids = [h.chunk_id for h in top]
    step.answer = " ".join(u.text for u in units)
    step.confidence = sum(sims[:ranked]) / len(sims[:ranked]) if sims else 0.0
    readings = [support_terms(q, vocabulary) for q in {step.question, asked}]
    step.support = max(  # read with and without the document's name, as the answer is
        (coverage(terms, f"{h.context}\n{h.text}", vocabulary) for terms in readings for h in top),
        default=0.0,
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
    step = next(s for s in steps if s.status == "pending")  # the one execute just ran
    step.status = step_status(step.confidence, step.support, cfg)  # type: ignore[assignment]
    return {
        "steps": steps,
        "trace": [
            f"step {step.step_id} {step.status}: confidence {step.confidence:.3f}, "
            f"support {step.support:.3f}"
        ],
    }


def after_evaluate(state: ResearchState) -> str:
    if any(s.status == "pending" for s in state["steps"]):
        return "execute"  # a planned step not yet run (the other side of a comparison)
    planned_two = split_comparison(state["objective"]) or split_pair(state["objective"])
    if planned_two is not None and all(s.status == "completed" for s in state["steps"]):
        return "synthesize"  # each side found its passage: more steps would only dilute
    return route(state["question_type"], state["steps"], state["iteration"], _config(state))


def _bridged_step(state: ResearchState, tools: ResearchTools) -> str | None:
    """The next step of a two-hop question ("… the Tier 3 probe runs a single program.
    What category does programs.yaml assign to that program?"): the asking clause with
    the program the passages read so far name, so the search looks for that program's
    row; while no passage names it, the context sentence alone, to find it. None when
    both were asked (the generic replanning goes on)."""
    bridged = split_bridge(state["objective"])
    if bridged is None:
        return None
    context, asking = bridged
    asked = {step.question for step in state["steps"]}
    read = state["evidence"]
    evidence = [read[c] for c in dict.fromkeys(c for s in state["steps"] for c in s.evidence_ids)]
    name = bridge_name(context, asking, evidence, tools.vocabulary(), tools.text_similarities)
    if name:
        named = with_pointed_named(asking, name)
        return named if named not in asked else None
    return context if context not in asked else None


def replan_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Add the next step, or nothing (then synthesis follows)."""
    tools = _tools(config)
    question = _bridged_step(state, tools) or next_step_question(
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

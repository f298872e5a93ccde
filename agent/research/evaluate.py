"""Step evaluation, routing and the rules-only replanner (legal-RAG seed, nodes 5–6).

A step is completed when its evidence is on topic — mean query/chunk similarity at or
above the evaluator threshold — or when one retrieved passage covers the step's
question (support); otherwise it failed. Routing follows the seed: simple questions
stop after their step; multi-hop questions replan until the replanner has nothing new
to ask, three steps completed, four iterations ran, or the last three steps failed
with low scores (stagnation). The replanner asks next for what the question names but
the evidence does not contain yet, plus the bridge: rare terms the last step's answer
introduced (the intermediate fact a multi-hop question only points at).
"""

from __future__ import annotations

from agentcycle.agent.research.state import Evidence, ResearchConfig, Step
from agentcycle.agent.research.text import (
    Vocabulary,
    content_terms,
    has_number,
    present_terms,
)


def step_status(confidence: float, support: float, config: ResearchConfig) -> str:
    if confidence >= config.evaluator_threshold or support >= config.min_support:
        return "completed"
    return "failed"


def stagnated(steps: list[Step], config: ResearchConfig) -> bool:
    last = steps[-config.stagnation_run :]
    return len(last) == config.stagnation_run and all(
        s.status == "failed" and s.confidence < config.stagnation_score for s in last
    )


def route(question_type: str, steps: list[Step], iteration: int, config: ResearchConfig) -> str:
    """'replan' or 'synthesize' after a step was evaluated."""
    if question_type != "multi_hop":
        return "synthesize"
    completed = sum(s.status == "completed" for s in steps)
    if (
        iteration >= config.max_iterations
        or completed >= config.max_completed_steps
        or stagnated(steps, config)
    ):
        return "synthesize"
    return "replan"


def next_step_question(
    objective: str,
    steps: list[Step],
    evidence: dict[str, Evidence],
    vocabulary: Vocabulary,
    bridge_limit: int = 3,
) -> str | None:
    """The next step's question, or None when there is nothing new to look for."""
    terms = content_terms(objective)
    answered = "\n".join(s.answer for s in steps)
    cited = "\n".join(
        evidence[c].context for s in steps for c in s.evidence_ids[:2] if c in evidence
    )
    covered = present_terms(terms, f"{answered}\n{cited}")
    missing = [t for t in sorted(terms, key=vocabulary.idf, reverse=True) if t not in covered]
    last = steps[-1].answer if steps else ""
    objective_terms = set(terms)
    bridge = [
        t
        for t in content_terms(last)
        if t not in objective_terms and not has_number(t) and len(t) > 2 and vocabulary.known(t)
    ]
    bridge = sorted(bridge, key=vocabulary.idf, reverse=True)[:bridge_limit]
    words = [(vocabulary.surface_forms(t, 1) or [t])[0] for t in missing[:4] + bridge]
    if not words:
        return None
    question = " ".join(words)
    asked = {frozenset(content_terms(s.question)) for s in steps}
    if frozenset(content_terms(question)) in asked:
        return None  # the same question again: stagnation, stop
    return question

"""The research graph: injection → classify → plan → (execute → evaluate → replan)* →
synthesize → verify → MC select → finalize, compiled once per process.

Routing after each node follows the legal-RAG seed; the validation gate after
synthesis follows DocuChat. `research()` runs it with the tools of the caller's
layer (Prefect tasks in the `ask` flow, plain storage calls in tests).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from langgraph.errors import GraphRecursionError
from langgraph.graph import END, START, StateGraph

from agentcycle.agent.research import node_answer, node_finish, nodes
from agentcycle.agent.research.state import (
    INSUFFICIENT,
    ResearchConfig,
    ResearchResult,
    ResearchState,
)
from agentcycle.agent.research.tools import ResearchTools

RECURSION_LIMIT = 80


def _after_injection(state: ResearchState) -> str:
    return "classify" if state["injection"]["is_safe"] else "refuse"


def _after_plan(state: ResearchState) -> str:
    return "recall" if state.get("memory_hit") else "execute"


@cache
def research_graph() -> Any:
    graph = StateGraph(ResearchState)
    for name, node in (
        ("injection", nodes.injection_node),
        ("refuse", nodes.refuse_node),
        ("classify", nodes.classify_node),
        ("plan", nodes.plan_node),
        ("recall", node_finish.recall_node),
        ("execute", nodes.execute_node),
        ("evaluate", nodes.evaluate_node),
        ("replan", nodes.replan_node),
        ("synthesize", node_answer.synthesize_node),
        ("verify", node_answer.verify_node),
        ("mc_select", node_finish.mc_select_node),
        ("finalize", node_finish.finalize_node),
    ):
        graph.add_node(name, node)
    graph.add_edge(START, "injection")
    graph.add_conditional_edges("injection", _after_injection, ["classify", "refuse"])
    graph.add_edge("refuse", END)
    graph.add_edge("classify", "plan")
    graph.add_conditional_edges("plan", _after_plan, ["recall", "execute"])
    graph.add_edge("recall", "mc_select")
    graph.add_edge("execute", "evaluate")
    graph.add_conditional_edges(
        "evaluate", nodes.after_evaluate, ["execute", "replan", "synthesize"]
    )
    graph.add_conditional_edges("replan", nodes.after_replan, ["execute", "synthesize"])
    graph.add_edge("synthesize", "verify")
    graph.add_conditional_edges(
        "verify", node_answer.after_verify, ["execute", "synthesize", "mc_select"]
    )
    graph.add_edge("mc_select", "finalize")
    graph.add_edge("finalize", END)
    return graph.compile()


def research(
    question: str,
    tools: ResearchTools,
    choices: dict[str, str] | None = None,
    config: ResearchConfig | None = None,
) -> ResearchResult:
    """Answer one question with citations (or refuse, or say the evidence is insufficient)."""
    try:
        state = research_graph().invoke(
            {
                "question": question,
                "choices": choices or {},
                "config": config or ResearchConfig(),
                "trace": [],
            },
            config={"configurable": {"tools": tools}, "recursion_limit": RECURSION_LIMIT},
        )
    except GraphRecursionError:
        # Every loop is bounded (steps, iterations, re-prompts, tool calls); should one
        # still run away, the reader gets an honest answer, not a traceback.
        return ResearchResult(
            question=question,
            answer=f"{INSUFFICIENT} (the research loop hit its step limit)",
            direct=INSUFFICIENT,
            insufficient=True,
            trace=[f"stopped: more than {RECURSION_LIMIT} graph steps"],
        )
    result: ResearchResult = state["result"]
    return result.model_copy(update={"trace": state.get("trace", [])})

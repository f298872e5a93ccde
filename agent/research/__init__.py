"""The research agent: grounded, cited answers over a corpus, with or without an LLM.

`research(question, tools)` runs the LangGraph research graph (see `graph`); the
Prefect layer supplies the tools (`tasks.research`) and the `ask` flow records the
answer. Pure Python: nothing here imports Prefect or the storage layer.
"""

from agentcycle.agent.research.graph import research, research_graph
from agentcycle.agent.research.state import ResearchConfig, ResearchResult

__all__ = ["ResearchConfig", "ResearchResult", "research", "research_graph"]

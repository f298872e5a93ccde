"""What every research node needs from LangGraph's call: the tools and the config.

The tools arrive in `config["configurable"]["tools"]` (so the compiled graph is shared
by every run and nodes never import Prefect or storage); the thresholds in the state.
"""

from __future__ import annotations

from typing import Any

from agentcycle.agent.research.state import ResearchConfig, ResearchState
from agentcycle.agent.research.tools import ResearchTools

Update = dict[str, Any]


def tools_of(config: Any) -> ResearchTools:
    return config["configurable"]["tools"]


def config_of(state: ResearchState) -> ResearchConfig:
    return state.get("config") or ResearchConfig()

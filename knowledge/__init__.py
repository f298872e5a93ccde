"""Knowledge packs: YAML declarations of programs and workflows, validated by pydantic."""

from agentcycle.knowledge.loader import PackError, load_pack
from agentcycle.knowledge.schema import STOP, Pack, Program, Workflow

__all__ = ["STOP", "Pack", "PackError", "Program", "Workflow", "load_pack"]

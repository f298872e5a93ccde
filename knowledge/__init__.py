"""Knowledge packs: YAML declarations of programs and workflows, validated by pydantic."""

from agentcycle.knowledge.loader import PackError, load_pack
from agentcycle.knowledge.pack import Pack
from agentcycle.knowledge.schema import STOP, Program, Workflow

__all__ = ["STOP", "Pack", "PackError", "Program", "Workflow", "load_pack"]

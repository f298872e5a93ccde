"""A loaded knowledge pack: every file of the pack, validated and cross-checked."""

from __future__ import annotations

from pydantic import Field

from agentcycle.knowledge.errors_schema import DiagnosableError, RecoverableError
from agentcycle.knowledge.log_schema import LogIdentification
from agentcycle.knowledge.metrics_schema import MetricsFile
from agentcycle.knowledge.schema import FileCategory, Program, Strict, Workflow


class Pack(Strict):
    """What the agent knows about one domain; built only by `load_pack`."""

    name: str
    directory: str
    failure_markers: list[str]
    log_identification: LogIdentification = Field(default_factory=LogIdentification)
    programs: dict[str, Program]
    workflows: dict[str, Workflow]
    default_workflow: str
    file_categories: dict[str, FileCategory] = Field(default_factory=dict)
    metrics: MetricsFile = Field(default_factory=MetricsFile)
    recoverable_errors: dict[str, RecoverableError] = Field(default_factory=dict)
    diagnosable_errors: dict[str, DiagnosableError] = Field(default_factory=dict)

    def workflow(self, name: str | None = None) -> Workflow:
        return self.workflows[name or self.default_workflow]

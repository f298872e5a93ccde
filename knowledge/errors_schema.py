"""`recoverable_errors.yaml` and `diagnosable_errors.yaml`: failures the agent knows.

A recoverable error has a detection pattern, an optional extraction regex and a
resolution strategy that turns the log into one strategy setting for a forced retry.
A diagnosable error is terminal: the session stops cleanly with a what / likely cause /
how to fix explanation written to `failure_diagnosis.html`.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from agentcycle.knowledge.schema import Strict, valid_regex

RESOLUTION_STRATEGIES = ("choose_array", "set_value")


class Resolution(Strict):
    strategy: str = Field(description=f"One of {', '.join(RESOLUTION_STRATEGIES)}.")
    parameter: str = Field(description="The strategy flag the fix sets.")
    value: str | None = Field(default=None, description="For set_value: the value to set.")
    prefer: dict[str, str] = Field(
        default_factory=dict,
        description="choose_array: program → the word its array should contain "
        "(e.g. autosol: anomalous); 'default' applies to every other program.",
    )

    @field_validator("strategy")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in RESOLUTION_STRATEGIES:
            raise ValueError(
                f"unknown strategy {value!r} (known: {', '.join(RESOLUTION_STRATEGIES)})"
            )
        return value


class RecoverableError(Strict):
    description: str = ""
    detect: str
    extract: str | None = Field(default=None, description="Regex; group 1 is the material.")
    programs: list[str] = Field(default_factory=list, description="Empty: any program.")
    resolution: Resolution

    _regex = field_validator("detect", "extract")(classmethod(lambda cls, v: valid_regex(v)))


class DiagnosableError(Strict):
    description: str = ""
    detect: str
    programs: list[str] = Field(default_factory=list)
    what: str
    cause: str
    fix: str

    _regex = field_validator("detect")(classmethod(lambda cls, v: valid_regex(v)))


class RecoverableErrorsFile(Strict):
    errors: dict[str, RecoverableError] = Field(default_factory=dict)


class DiagnosableErrorsFile(Strict):
    errors: dict[str, DiagnosableError] = Field(default_factory=dict)

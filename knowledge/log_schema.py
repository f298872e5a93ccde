"""Pack models for reading program logs: which program wrote a log, and its metrics.

Kept apart from the program schema because logs come in shapes no program chose (the
PHENIX agent's wrapper, the GUI's copy, a wizard that never names itself) and the rules
for those shapes are pack-wide, while metric patterns are per program.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


def valid_regex(value: str | None) -> str | None:
    """A pattern from a pack must compile; say why when it does not."""
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {value!r}: {exc}") from exc
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MetricPattern(_Strict):
    """How to read one quality metric from a program's log.

    Patterns are matched line-wise (MULTILINE). `after`/`until` confine the search to
    sections of the log (from each match of `after` to the next match of `until`), so a
    value is read from the table it belongs to and not from a look-alike elsewhere.
    """

    pattern: str = Field(description="Regular expression; group `group` (or the match) is it.")
    type: Literal["float", "int", "string", "bool"] = "float"
    extract: Literal["first", "last"] = "last"
    pick_min: bool = Field(default=False, description="Take the smallest of all matches.")
    pick_max: bool = False
    fallback_pattern: str | None = None
    value: str | None = Field(
        default=None, description="Constant value to record when the pattern matches."
    )
    group: int = Field(default=1, ge=0, description="Which capture group holds the value.")
    after: str | None = Field(
        default=None, description="Only search sections that start at a match of this."
    )
    until: str | None = Field(
        default=None, description="A section ends at the first match of this after its start."
    )
    round: int | None = Field(
        default=None,
        ge=0,
        description="Decimals to report (the precision the program's own summary uses).",
    )

    _regex = field_validator("pattern", "fallback_pattern", "after", "until")(
        classmethod(lambda cls, v: valid_regex(v))
    )

    @model_validator(mode="after")
    def _one_pick(self) -> MetricPattern:
        if self.pick_min and self.pick_max:
            raise ValueError("pick_min and pick_max cannot both be true")
        return self


class LogIdentity(_Strict):
    """How a program's log is recognised when its header does not name the program."""

    names: list[str] = Field(
        default_factory=list,
        description="Other names a log's header may use for this program (mmtbx.xtriage).",
    )
    signatures: list[list[str]] = Field(
        default_factory=list,
        description="Phrase sets; a log holding every phrase of one set is this program's "
        "(in addition to `log_detection`, which is one more set).",
    )
    embeds: list[str] = Field(
        default_factory=list,
        description="Programs whose output this program's log quotes (a wizard running "
        "phenix.refine): when both match, this program wins.",
    )


class SummaryBlock(_Strict):
    """A trailing block of `Name: value` lines some runners append (the PHENIX agent's
    FINAL QUALITY METRICS REPORT); only a block that ends the log counts."""

    start: str = Field(description="Regex of the block's heading line.")
    end: str = Field(description="Regex of the line that closes the block.")
    line: str = Field(
        default=r"^\s*([A-Za-z][\w ()/%-]*?)\s*:\s*(.*?)\s*$",
        description="Regex of one entry: group 1 the name, group 2 the value.",
    )

    _regex = field_validator("start", "end", "line")(classmethod(lambda cls, v: valid_regex(v)))


class LogIdentification(_Strict):
    """Pack-wide rules for naming the program that wrote a log."""

    name_lines: list[str] = Field(
        default_factory=list,
        description="Regexes of header lines that name the program (group 1), strongest "
        "first; searched only in the log's first `head_lines` lines.",
    )
    head_lines: int = Field(default=60, ge=1)
    strip_prefixes: list[str] = Field(
        default_factory=list,
        description="Line prefixes a runner adds in front of program output ('LOG TEXT:').",
    )
    bare_name_prefix: str = Field(
        default="",
        description="Prefix that turns a bare name ('xtriage') into the pack's ('phenix.xtriage').",
    )
    program_name: str = Field(
        default=r"[A-Za-z][\w.]*",
        description="What a program name looks like; names outside this are ignored.",
    )
    ignore_names: list[str] = Field(
        default_factory=list, description="Words after 'Starting' that are not programs."
    )
    summary_block: SummaryBlock | None = None

    _regex = field_validator("name_lines")(
        classmethod(lambda cls, v: [valid_regex(pattern) for pattern in v])
    )

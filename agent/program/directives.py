"""User directives: structured instructions extracted from the goal text by rules.

"Refine until R-free is below 0.25, skip validation, stop after refinement" becomes
data the workflow engine applies to the list of valid programs (layer 1); no later
layer second-guesses it. Extraction is deterministic and conservative: a phrase it
does not understand is ignored and recorded, never guessed at. The goal text is
untrusted input: nothing in it is ever executed or passed to a program.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import gemmi
from pydantic import BaseModel, Field

# Words users say for a metric → the metric name packs use.
METRIC_WORDS = {
    "r-free": "r_free",
    "rfree": "r_free",
    "r_free": "r_free",
    "r free": "r_free",
    "r-work": "r_work",
    "rwork": "r_work",
    "r_work": "r_work",
    "clashscore": "clashscore",
    "resolution": "resolution",
    "map cc": "map_cc",
    "map-model cc": "map_cc",
}
BELOW = r"(?:below|under|less than|lower than|<=?|at most|better than)"
ABOVE = r"(?:above|over|greater than|higher than|>=?|at least)"
NUMBER = r"(\d+(?:\.\d+)?)"
SPACE_GROUP_PHRASE = re.compile(
    r"space ?group (?:is |of |=\s*)?"
    r"([A-Za-z0-9][A-Za-z0-9 /_\-:]{0,14}?)(?=[,.;)]|$| and | with )",
    re.IGNORECASE,
)
KEY_VALUE = re.compile(r"(?<![\w.=/])([A-Za-z_][\w.]{0,60})=([^\s,;'\"]{1,100})")
UNIT_CELL_PHRASE = re.compile(r"(?:unit )?cell (?:is |of |=\s*)?\(?" + r"[,\s]+".join([NUMBER] * 6))


class MetricTarget(BaseModel):
    metric: str
    below: float | None = None
    above: float | None = None

    def met(self, value: object) -> bool:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False
        if self.below is not None and not value < self.below:
            return False
        return self.above is None or value > self.above


class Directives(BaseModel):
    """What the user asked for, in a form the workflow engine can apply."""

    stop_after: list[str] = Field(
        default_factory=list, description="Stop once all of these programs have run."
    )
    stop_after_cycle: int | None = Field(default=None, ge=1)
    metric_targets: list[MetricTarget] = Field(default_factory=list)
    start_with: list[str] = Field(default_factory=list)
    skip: list[str] = Field(default_factory=list)
    prefer: list[str] = Field(default_factory=list)
    parameters: dict[str, str] = Field(
        default_factory=dict, description="key=value settings the user wrote in the advice."
    )
    space_group: str | None = None
    unit_cell: list[float] | None = None
    recognised: list[str] = Field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.recognised


def valid_space_group(text: str) -> str | None:
    """The Hermann–Mauguin symbol for a symbol or an IT number 1–230, else None."""
    text = text.strip()
    if text.isdigit():
        number = int(text)
        return gemmi.find_spacegroup_by_number(number).hm if 1 <= number <= 230 else None
    if not re.fullmatch(r"[PCIFRAB][0-9 /\-_mnabcdeMNABCDE:]*", text):
        return None  # English words ("determination") never reach gemmi
    group = gemmi.find_spacegroup_by_name(text)
    return group.hm if group is not None else None


def _program_pattern(aliases: dict[str, list[str]]) -> str:
    names = sorted(aliases, key=len, reverse=True)
    if not names:
        return "((?!))"  # no program names: a group that never matches
    return "(" + "|".join(re.escape(n) for n in names) + ")"


def _lookup(aliases: dict[str, list[str]], word: str) -> list[str]:
    return aliases[word.lower()]


def extract_directives(text: str, programs: dict[str, Iterable[str]]) -> Directives:
    """Directives from free text; `programs` maps each program to its aliases.

    An alias may name several programs ("validation" → rmsz and ramalyze).
    """
    aliases: dict[str, list[str]] = {}
    for name, words in programs.items():
        for word in [name, *words]:
            aliases.setdefault(word.lower(), []).append(name)
    lowered = " ".join(text.lower().split())
    found = Directives()
    prog = _program_pattern(aliases)

    if match := re.search(rf"stop (?:right )?after (?:the )?(?:first )?{prog}\b", lowered):
        found.stop_after = _lookup(aliases, match.group(1))
        found.recognised.append(f"stop after {' and '.join(found.stop_after)}")
    if match := re.search(
        r"(?:stop after|at most|no more than|max(?:imum)?(?: of)?) (\d+) cycles?", lowered
    ) or re.search(r"stop after cycle (\d+)", lowered):
        found.stop_after_cycle = int(match.group(1))
        found.recognised.append(f"stop after cycle {found.stop_after_cycle}")
    for word, metric in METRIC_WORDS.items():
        for match in re.finditer(
            rf"{re.escape(word)}\W*(?:is |of |to |drops? |gets? )?{BELOW}\s*{NUMBER}", lowered
        ):
            found.metric_targets.append(MetricTarget(metric=metric, below=float(match.group(1))))
            found.recognised.append(f"{metric} below {match.group(1)}")
        for match in re.finditer(
            rf"{re.escape(word)}\W*(?:is |of |to |gets? )?{ABOVE}\s*{NUMBER}", lowered
        ):
            found.metric_targets.append(MetricTarget(metric=metric, above=float(match.group(1))))
            found.recognised.append(f"{metric} above {match.group(1)}")
    if match := re.search(rf"(?:start|begin) with {prog}\b", lowered):
        found.start_with = _lookup(aliases, match.group(1))
        found.recognised.append(f"start with {' and '.join(found.start_with)}")
    for match in re.finditer(rf"(?:skip|don't run|do not run|without|no) {prog}\b", lowered):
        for name in _lookup(aliases, match.group(1)):
            if name not in found.skip:
                found.skip.append(name)
                found.recognised.append(f"skip {name}")
    for match in re.finditer(rf"(?:prefer|use) {prog}\b", lowered):
        for name in _lookup(aliases, match.group(1)):
            if name not in found.prefer and name not in found.skip:
                found.prefer.append(name)
                found.recognised.append(f"prefer {name}")
    for match in KEY_VALUE.finditer(text):
        found.parameters[match.group(1)] = match.group(2)
        found.recognised.append(f"parameter {match.group(1)}={match.group(2)}")
    if match := SPACE_GROUP_PHRASE.search(text.strip()):
        symbol = valid_space_group(match.group(1))
        if symbol:
            found.space_group = symbol
            found.recognised.append(f"space group {symbol}")
    if match := UNIT_CELL_PHRASE.search(lowered):
        found.unit_cell = [float(v) for v in match.groups()]
        found.recognised.append("unit cell " + " ".join(match.groups()))
    return found

"""Strategy settings: every key=value that reaches argv passes one function.

Sources, in order: the program's `defaults`, the user's `key=value` parameters from the
advice, crystal symmetry from directives. Rules (the seed's): strip parameters that
made this program fail earlier in the session (blacklist), placeholder values, keys
not in the program's `strategy_flags` allowlist, and values that fail their declared
type (a space group must be a Hermann–Mauguin symbol or 1–230). A value can never add
an argument the pack did not declare: tokens come only from the flag's `args`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from agentcycle.agent.directives import Directives, valid_space_group
from agentcycle.knowledge.schema import Program

PLACEHOLDER_VALUE = re.compile(r"^(?:|\?+|\.\.\.|<[^>]*>|x{3,}|tbd|todo|none|null|n/a)$", re.I)


@dataclass
class Settings:
    tokens: list[str] = field(default_factory=list)
    applied: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _candidates(
    program: Program, user_params: Mapping[str, str], directives: Directives
) -> tuple[dict[str, object], dict[str, str], list[str]]:
    settings: dict[str, object] = dict(program.defaults)
    origin = {key: "default" for key in settings}
    notes = []
    for key, value in user_params.items():
        if key not in program.strategy_flags:
            notes.append(f"stripped {key}={value}: not a strategy flag of this program")
            continue
        settings[key], origin[key] = value, "user"
    if directives.space_group and "space_group" in program.strategy_flags:
        settings["space_group"], origin["space_group"] = directives.space_group, "directive"
    if directives.unit_cell and "unit_cell" in program.strategy_flags:
        cell = " ".join(f"{v:g}" for v in directives.unit_cell)
        settings["unit_cell"], origin["unit_cell"] = cell, "directive"
    return settings, origin, notes


def postprocess(
    program: Program,
    user_params: Mapping[str, str] | None = None,
    directives: Directives | None = None,
    blacklist: set[str] | frozenset[str] = frozenset(),
) -> Settings:
    """The settings tokens for one command, with a note for everything stripped."""
    from agentcycle.agent.command import check_flag_value  # one validator for all values

    settings, origin, notes = _candidates(program, user_params or {}, directives or Directives())
    result = Settings(notes=notes)
    for key, value in settings.items():
        flag = program.strategy_flags[key]
        text = str(value).strip()
        if key in blacklist:
            result.notes.append(f"stripped {key}: it made this program fail earlier")
            continue
        if PLACEHOLDER_VALUE.match(text):
            result.notes.append(f"stripped {key}={text!r}: placeholder value")
            continue
        if key == "space_group" or flag.hint == "space group":
            symbol = valid_space_group(text)
            if symbol is None:
                result.notes.append(f"stripped {key}={text!r}: not a space group")
                continue
            text = symbol
        try:
            text = check_flag_value(key, flag, text)
        except ValueError as exc:
            result.notes.append(f"stripped {exc}")
            continue
        if origin[key] != "default":
            result.notes.append(f"{origin[key]} setting {key}={text}")
        result.applied[key] = text
        result.tokens.extend(t.replace("{key}", key).replace("{value}", text) for t in flag.args)
    return result

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

from agentcycle.agent.program.directives import Directives, valid_space_group
from agentcycle.knowledge.schema import Program, StrategyFlag

SAFE_STRING = re.compile(r"[A-Za-z0-9_.,:+\-/ ()]{1,200}")
"""A strategy string value: no quotes, no shell or PHIL syntax, no newlines."""


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


def strategy_tokens(program: Program, settings: Mapping[str, object]) -> list[str]:
    """argv tokens for strategy settings: allowlisted keys only, values checked by type."""
    tokens: list[str] = []
    for key, value in settings.items():
        flag = program.strategy_flags.get(key)
        if flag is None:
            raise ValueError(f"{key!r} is not a strategy flag of this program")
        text = check_flag_value(key, flag, value)
        tokens.extend(t.replace("{key}", key).replace("{value}", text) for t in flag.args)
    return tokens


def check_flag_value(key: str, flag: StrategyFlag, value: object) -> str:
    """The value as text, or ValueError when it does not fit the declared type."""
    text = str(value).strip()
    if flag.type == "bool":
        if text.lower() not in ("true", "false"):
            raise ValueError(f"{key}: expected true or false, got {text!r}")
        return text.lower()
    if flag.type == "choice":
        if text not in flag.choices:
            raise ValueError(f"{key}: expected one of {flag.choices}, got {text!r}")
        return text
    if flag.type in ("int", "float"):
        try:
            number = int(text) if flag.type == "int" else float(text)
        except ValueError:
            raise ValueError(f"{key}: expected {flag.type}, got {text!r}") from None
        if (flag.minimum is not None and number < flag.minimum) or (
            flag.maximum is not None and number > flag.maximum
        ):
            raise ValueError(f"{key}: {number} outside [{flag.minimum}, {flag.maximum}]")
        return str(number)
    if not SAFE_STRING.fullmatch(text):
        raise ValueError(f"{key}: {text!r} is not a plain value")
    return text

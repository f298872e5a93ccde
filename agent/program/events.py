"""Events: what each graph node noticed, with a level, and the one formatter for them.

Levels: `quiet` shows only decisions, stops and errors; `normal` adds what changed the
valid-program list and the state; `verbose` adds every note (commands, workflow notes).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

Verbosity = Literal["quiet", "normal", "verbose"]
VERBOSITIES: tuple[Verbosity, ...] = ("quiet", "normal", "verbose")

ALWAYS = frozenset({"decision", "stop_decision", "error"})
RANK = {"quiet": 0, "normal": 1, "verbose": 2}


def event(kind: str, message: str, level: Verbosity = "normal") -> dict[str, str]:
    return {"event": kind, "level": level, "message": message}


def visible(item: Mapping[str, str], verbosity: Verbosity) -> bool:
    if item["event"] in ALWAYS:
        return True
    return RANK.get(item.get("level", "normal"), 1) <= RANK[verbosity] and verbosity != "quiet"


def format_events(events: Iterable[Mapping[str, str]], verbosity: Verbosity) -> list[str]:
    """Lines for the events a reader at `verbosity` wants to see, in order."""
    return [f"[{item['event']}] {item['message']}" for item in events if visible(item, verbosity)]

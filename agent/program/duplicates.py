"""Duplicate command detection, in two tiers (the seed's rules).

1. Exact: the same argv (cycle-specific output prefix masked) as any earlier run. A
   repeat of a success is a duplicate; a repeat of a failure cannot help either.
2. Near: at least 80 % of the non-file tokens shared with an earlier *successful* run
   of the same program, unless the input files differ — different inputs mean a
   different computation, however similar the flags.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath

from agentcycle.agent.program.state import CycleRecord

NEAR_DUPLICATE_OVERLAP = 0.80


def command_signature(argv: list[str], program: str, cycle: int) -> tuple[str, ...]:
    """argv with the cycle-specific output prefix masked, to compare runs across cycles."""
    prefix = f"{program}_{cycle:03d}"
    return tuple(token.replace(prefix, "{prefix}") for token in argv)


def _is_file_token(token: str) -> bool:
    value = token.split("=", 1)[-1]
    return "/" in value and bool(PurePath(value).suffix)


def split_tokens(signature: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """(file basenames, other tokens) of a command signature."""
    files, other = set(), set()
    for token in signature:
        if _is_file_token(token):
            files.add(PurePath(token.split("=", 1)[-1]).name)
        else:
            other.add(token)
    return frozenset(files), frozenset(other)


def overlap(first: frozenset[str], second: frozenset[str]) -> float:
    union = first | second
    return len(first & second) / len(union) if union else 1.0


def duplicate_problem(
    argv: list[str], program: str, cycle: int, history: Iterable[CycleRecord]
) -> str | None:
    """Why this command repeats an earlier one, or None."""
    signature = command_signature(argv, program, cycle)
    files, tokens = split_tokens(signature)
    earlier = [r for r in history if r.program == program]
    for record in earlier:
        if command_signature(record.argv, record.program, record.cycle) != signature:
            continue
        if record.succeeded:
            return f"{program}: duplicate of cycle {record.cycle}"
        return (
            f"{program}: the same command failed in cycle {record.cycle} ({record.failure_reason})"
        )
    for record in earlier:
        if not record.succeeded:
            continue
        their_files, their_tokens = split_tokens(
            command_signature(record.argv, record.program, record.cycle)
        )
        shared = overlap(tokens, their_tokens)
        if their_files == files and shared >= NEAR_DUPLICATE_OVERLAP:
            return f"{program}: duplicate of cycle {record.cycle} ({shared:.0%} of tokens shared)"
    return None

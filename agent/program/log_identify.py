"""Which program wrote a log, by the pack's rules: its header first, its content second.

A header line that names the program (the PHENIX agent's `COMMAND THAT WAS RUN:`, a
`Starting phenix.X` banner, a `Command used:` line) is searched only near the top of
the log: further down, the same lines are quotes (the PHENIX agent's own log quotes the
blocks of every program it ran; wizards print the banners of the programs they call).
A log without such a header is recognised by the phrase sets the pack declares per
program; when several programs match and none embeds the others, the evidence is weak
and the answer is None, never a guess. A header naming a program the pack does not
declare still names it (the long tail), with no metrics to read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from agentcycle.knowledge.log_schema import LogIdentification
from agentcycle.knowledge.schema import Program


@dataclass(frozen=True)
class Identification:
    """The program that wrote a log, whether the pack declares it, and why we think so."""

    program: str | None
    declared: bool
    evidence: str


@cache
def _name_patterns(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Compiled once per pack's list of header patterns."""
    return tuple(re.compile(pattern) for pattern in patterns)


def _strip(line: str, prefixes: list[str]) -> str:
    for prefix in prefixes:
        if line.startswith(prefix):
            return line[len(prefix) :].lstrip()
    return line


def head_lines(text: str, rules: LogIdentification) -> list[str]:
    """The first `head_lines` non-blank lines, runner prefixes removed."""
    head: list[str] = []
    start = 0
    while len(head) < rules.head_lines and start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line = text[start:end].strip()
        start = end + 1
        if line:
            head.append(_strip(line, rules.strip_prefixes))
    return head


def canonical_name(
    raw: str, programs: dict[str, Program], rules: LogIdentification
) -> tuple[str | None, bool]:
    """(name, declared) for a name a header wrote; (None, False) if it is not a program."""
    name = raw.rsplit("/", 1)[-1].rsplit("\\", 1)[-1].strip(" *.:,;'\"")
    if not name or not re.fullmatch(rules.program_name, name):
        return None, False
    if name in programs:
        return name, True
    for declared, program in programs.items():
        if name in program.log_identity.names:
            return declared, True
    prefixed = rules.bare_name_prefix + name
    if prefixed in programs:
        return prefixed, True
    if "." in name:  # a qualified name (phenix.auto_sharpen): the long tail, named
        return name, False
    return None, False  # a bare word after 'Starting' ('job', 'FEM...') is no evidence


def _signatures(program: Program) -> list[list[str]]:
    sets = [program.log_detection] if program.log_detection else []
    return sets + [s for s in program.log_identity.signatures if s]


def by_content(text: str, programs: dict[str, Program]) -> list[str]:
    """Programs whose phrase sets all appear, minus those another match embeds."""
    matched = [
        name
        for name, program in programs.items()
        if any(all(phrase in text for phrase in phrases) for phrases in _signatures(program))
    ]
    embedded = {inner for other in matched for inner in programs[other].log_identity.embeds}
    return [name for name in matched if name not in embedded]


def identify(text: str, programs: dict[str, Program], rules: LogIdentification) -> Identification:
    """The program that wrote `text` (already normalised: no bare CR characters)."""
    head = head_lines(text, rules)
    for pattern in _name_patterns(tuple(rules.name_lines)):
        for line in head:
            match = pattern.match(line)
            if match is None:
                continue
            name, declared = canonical_name(match.group(1), programs, rules)
            if name is not None:
                return Identification(name, declared, f"header: {line[:80]}")
    candidates = by_content(text, programs)
    if len(candidates) == 1:
        return Identification(candidates[0], True, "content signature")
    if candidates:
        return Identification(None, False, "ambiguous: " + ", ".join(candidates))
    return Identification(None, False, "no header and no signature")

"""Prompt-injection screening before any retrieval (legal-RAG seed, node 1).

Rules-only mode matches instruction-override patterns; with an LLM configured the
seed's skill is asked too. Both fail open: a check that cannot decide (parser error,
timeout) lets the question through, because refusing honest questions is the worse
failure for a research tool and nothing downstream executes the question's text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        "instruction override",
        r"\b(ignore|disregard|forget|override|bypass)\b[^.?!]{0,40}\b(previous|prior|above|earlier|"
        r"all|any|your|the|system)\b[^.?!]{0,20}\b(instructions?|prompts?|rules|directions|"
        r"guidelines|context|constraints)",
    ),
    (
        "role hijack",
        r"\b(you are now|from now on,? you|act as|pretend (to be|you are)|"
        r"roleplay as|switch to) \b",
    ),
    (
        "prompt exfiltration",
        r"\b(reveal|print|show|repeat|output|leak|display)\b[^.?!]{0,30}"
        r"\b(system prompt|hidden prompt|your (instructions|prompt|rules))",
    ),
    ("jailbreak", r"\b(jailbreak|developer mode|do anything now|DAN mode)\b"),
    (
        "injected instruction block",
        r"(<\|im_start\|>|\[/?INST\]|###\s*(system|instruction)|"
        r"^\s*system\s*:|\bnew instructions?\s*:)",
    ),
    (
        "answer forcing",
        r"\b(instead|regardless)\b[^.?!]{0,30}\b(say|output|respond|answer|reply|"
        r"write)\b[^.?!]{0,30}[\"'“]",
    ),
)
_COMPILED = tuple((name, re.compile(p, re.IGNORECASE | re.MULTILINE)) for name, p in _PATTERNS)


@dataclass(frozen=True)
class InjectionVerdict:
    is_safe: bool
    reasoning: str
    source: str = "rules"

    def to_dict(self) -> dict[str, object]:
        return {"is_safe": self.is_safe, "reasoning": self.reasoning, "source": self.source}


def check_injection(text: str) -> InjectionVerdict:
    """Pattern rules: the first matching kind of injection, or safe."""
    for name, pattern in _COMPILED:
        match = pattern.search(text)
        if match:
            return InjectionVerdict(False, f"{name}: {match.group(0)!r}")
    return InjectionVerdict(True, "no injection pattern matched")

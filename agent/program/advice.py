"""User advice: gathered from `--goal` and README/notes files, sanitised, hashed.

Advice is untrusted text. Before anything reads it, instruction-override phrases, role
play, system-tag tricks, control characters and excessive repetition are removed, and
what was removed is recorded. The hash of the raw advice tells a resumed session that
the user said something new, so directives are extracted again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_ADVICE_CHARS = 5000
ADVICE_FILE_STEMS = ("readme", "notes", "note", "advice")
ADVICE_SUFFIXES = ("", ".md", ".txt", ".rst")

SUSPICIOUS = [
    (re.compile(p, re.IGNORECASE | re.MULTILINE), label)
    for p, label in [
        (
            r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:instructions?|rules?|prompts?|"
            r"directives?|guidelines?)\b[^.\n]*",
            "instruction override",
        ),
        (r"\byou are now\b[^.\n]*", "role play"),
        (r"\b(?:pretend|act) (?:to be|as)\b[^.\n]*", "role play"),
        (r"\bnew (?:system )?instructions?\s*:[^\n]*", "instruction override"),
        (r"</?\s*(?:system|assistant|user|instructions?)\s*>", "system tag"),
        (r"\[/?(?:INST|SYS)\]|<<\s*/?SYS\s*>>|<\|[a-z_]+\|>", "system tag"),
        (r"^\s*(?:system|assistant)\s*:", "role prefix"),
    ]
]
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
REPEATED_WORD = re.compile(r"\b(\w+)(?:\W+\1\b){5,}", re.IGNORECASE)


@dataclass(frozen=True)
class Advice:
    raw: str
    text: str
    digest: str
    removed: tuple[str, ...] = field(default_factory=tuple)
    sources: tuple[str, ...] = field(default_factory=tuple)


def find_advice_files(directory: Path) -> list[Path]:
    """README / notes files in the input folder, any case, sorted by name."""
    if not directory.is_dir():
        return []
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file()
        and p.resolve().is_relative_to(directory.resolve())  # never a link out of the folder
        and p.suffix.lower() in ADVICE_SUFFIXES
        and p.stem.lower() in ADVICE_FILE_STEMS
    )


def sanitise(text: str) -> tuple[str, list[str]]:
    """Text with injection attempts removed, and one note per removal."""
    removed: list[str] = []
    if CONTROL.search(text):
        removed.append("control characters")
        text = CONTROL.sub("", text)
    for pattern, label in SUSPICIOUS:
        for match in pattern.finditer(text):
            removed.append(f"{label}: {match.group(0).strip()[:80]!r}")
        text = pattern.sub(" ", text)
    for match in REPEATED_WORD.finditer(text):
        removed.append(f"repetition: {match.group(1)!r} x many")
    text = REPEATED_WORD.sub(lambda m: m.group(1), text)
    lines, seen = [], set()
    for line in text.splitlines():
        key = line.strip().lower()
        if key and key in seen:
            removed.append(f"repeated line: {line.strip()[:60]!r}")
            continue
        seen.add(key)
        lines.append(line)
    return re.sub(r"[ \t]{2,}", " ", "\n".join(lines)).strip(), removed


def gather_advice(goal: str, input_dir: Path) -> Advice:
    """The goal plus any README/notes files, labelled, truncated, sanitised and hashed."""
    parts, sources = [], []
    if goal.strip():
        parts.append(goal.strip())
        sources.append("--goal")
    for path in find_advice_files(input_dir):
        content = path.read_text(encoding="utf-8", errors="replace").strip()
        if content:
            parts.append(f"[{path.name}]\n{content}")
            sources.append(path.name)
    raw = "\n\n".join(parts)[:MAX_ADVICE_CHARS]
    text, removed = sanitise(raw)
    digest = hashlib.sha256(raw.encode()).hexdigest()
    return Advice(raw=raw, text=text, digest=digest, removed=tuple(removed), sources=tuple(sources))

"""Which files the session has, and what kind each one is.

Categories come from the pack's `file_categories.yaml`; this module only applies them.
Name patterns match at word boundaries (start of name or after `_`, `-`, `.`) so that
`ligand` matches `atp_ligand.pdb` but not `noligand.pdb`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from agentcycle.agent.program.file_facts import declared_facts
from agentcycle.knowledge.probes import CONTENT_PROBES
from agentcycle.knowledge.schema import FileCategory

INTERMEDIATE_PREFIXES = ("TEMP_", "EDITED_", ".")
INTERMEDIATE_DIRS = ("TEMP", "tmp")


@cache
def _word_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?:^|[_\-.]){re.escape(pattern.lower())}(?:$|[_\-.])")


def matches_word(name: str, pattern: str) -> bool:
    """True when `pattern` occurs in `name` as a whole word-part (case-insensitive)."""
    return bool(_word_pattern(pattern).search(name.lower()))


def is_intermediate(path: Path, root: Path) -> bool:
    """Scratch files a program leaves under `root` (its run directory); never used as inputs."""
    relative = path.relative_to(root)
    if relative.name.startswith(INTERMEDIATE_PREFIXES):
        return True
    return any(part in INTERMEDIATE_DIRS for part in relative.parts[:-1])


def _content_probe(probe: str, path: Path) -> bool:
    declared = declared_facts()  # a remote decision: the client read the file
    return declared.content_probe(probe, path) if declared else CONTENT_PROBES[probe](path)


def categorise(path: Path, categories: dict[str, FileCategory]) -> list[str]:
    """Every category whose extension, name patterns and exclusions all fit `path`."""
    suffix = path.suffix.lower()
    found = []
    for name, category in categories.items():
        if suffix not in category.extensions:
            continue
        if category.name_patterns and not any(
            matches_word(path.name, p) for p in category.name_patterns
        ):
            continue
        if any(matches_word(path.name, p) for p in category.exclude_patterns):
            continue
        if category.content and not _content_probe(category.content, path):
            continue
        found.append(name)
    return found


def list_input_files(directory: Path) -> list[Path]:
    """Regular, non-intermediate files directly in `directory`, sorted for determinism."""
    return sorted(
        p.resolve()
        for p in directory.iterdir()
        if p.is_file() and not is_intermediate(p, directory)
    )


def with_extension(files: Iterable[Path], extensions: Iterable[str]) -> list[Path]:
    wanted = {e.lower() for e in extensions}
    return [f for f in files if f.suffix.lower() in wanted]

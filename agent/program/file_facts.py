"""What the decision graph may know about files, when the files are on another machine.

In-process the graph reads the session's files itself: content probes while it
categorises them, unit cells for model placement, derived command values (MTZ column
labels), whether outputs still exist, and the log of a failed run. The decision service
has no files, so the client declares those facts in the request and the service
installs them here for the length of one `decide` call. Every place in the graph that
would touch the disk asks `declared_facts()` first: None means "read the disk" (the
in-process path, unchanged), otherwise the declared answer is used. An undeclared fact
reads as "cannot tell" (the same as an unreadable file), never as a disk read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

MACHINE = ""
"""The `path` key of a probe that reads no file (e.g. where the monomer library lives)."""


@dataclass(frozen=True)
class DeclaredFacts:
    """File facts sent by a client: keys are the client's paths as strings."""

    present: frozenset[str] = frozenset()
    content: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)
    cells: Mapping[str, tuple[float, ...] | None] = field(default_factory=dict)
    derived: Mapping[str, Mapping[str, str | None]] = field(default_factory=dict)
    logs: Mapping[str, str] = field(default_factory=dict)

    def exists(self, path: Path) -> bool:
        return str(path) in self.present

    def content_probe(self, probe: str, path: Path) -> bool:
        return bool(self.content.get(str(path), {}).get(probe, False))

    def cell(self, path: Path) -> tuple[float, ...] | None:
        return self.cells.get(str(path))

    def probe(self, probe: str, path: Path | None) -> str | None:
        return self.derived.get(MACHINE if path is None else str(path), {}).get(probe)

    def log_text(self, path: Path) -> str | None:
        return self.logs.get(str(path))


_FACTS: ContextVar[DeclaredFacts | None] = ContextVar("agentcycle_declared_facts", default=None)


def declared_facts() -> DeclaredFacts | None:
    """The facts of the decision being made remotely, or None in-process (read the disk)."""
    return _FACTS.get()


@contextmanager
def using_facts(facts: DeclaredFacts) -> Iterator[None]:
    """Decide with `facts` instead of the disk for the duration of the block."""
    token = _FACTS.set(facts)
    try:
        yield
    finally:
        _FACTS.reset(token)


def file_exists(path: Path) -> bool:
    """Is `path` a file: on the disk in-process, in the declared set remotely."""
    declared = declared_facts()
    return declared.exists(path) if declared else path.is_file()


def read_log(path: Path) -> str | None:
    """A failed run's log text, or None when there is none to read."""
    declared = declared_facts()
    if declared is not None:
        return declared.log_text(path)
    if not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")

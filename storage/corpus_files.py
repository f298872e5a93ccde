"""Which files a corpus is made of: discovery under the given paths and content hashes.

A file's hash is salted with the chunker version, so a change of chunking is seen as a
change of every file and re-chunks the corpus on the next ingest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentcycle.errors import UserError
from agentcycle.storage.chunking import MAX_CHARS, OVERLAP_CHARS, file_kind

CHUNKER_VERSION = f"md-blocks-v1/{MAX_CHARS}/{OVERLAP_CHARS}"


@dataclass(frozen=True)
class SourceFile:
    source: str
    file: str
    path: Path

    @property
    def key(self) -> tuple[str, str]:
        return (self.source, self.file)


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str

    def __str__(self) -> str:
        return f"skipped {self.path}: {self.reason}"


def file_hash(data: bytes) -> str:
    """Content hash of a file, salted with the chunker version so re-chunking is noticed."""
    digest = hashlib.sha256(CHUNKER_VERSION.encode())
    digest.update(data)
    return digest.hexdigest()


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def discover(paths: Sequence[Path]) -> tuple[list[SourceFile], list[Skipped], set[str]]:
    """Files to ingest, files refused by type, and the folders whose contents we own.

    A folder argument owns every file under it (files gone from it are deleted from the
    corpus); a file argument owns only itself.
    """
    if not paths:
        raise UserError("ingest: give at least one file or folder")
    files: list[SourceFile] = []
    skipped: list[Skipped] = []
    folders: set[str] = set()
    for given in paths:
        path = Path(given).expanduser()
        if not path.exists():
            raise UserError(f"{given}: no such file or folder")
        path = path.resolve()
        if path.is_dir():
            folders.add(str(path))
            candidates = sorted(p for p in path.rglob("*") if p.is_file())
            root = path
            candidates = [p for p in candidates if not _hidden(p.relative_to(root))]
        else:
            root, candidates = path.parent, [path]
        for candidate in candidates:
            if file_kind(candidate) is None:
                skipped.append(Skipped(str(candidate), "unsupported file type "
                                       f"{candidate.suffix or '(no suffix)'!r}"))
                continue
            files.append(SourceFile(str(root), candidate.relative_to(root).as_posix(), candidate))
    return files, skipped, folders

"""Taking a user's input folder in: only regular files that really live inside it.

A session copies its inputs so that every path a command sees lies inside the session.
Copying is also where a hostile or careless folder could leak or hang us: a symlink to
`/etc/passwd`, a FIFO that blocks on open, `/dev/zero` that never ends, a name with
spaces, quotes or a leading `-` that a program would read as an option. So every entry
is checked before anything is written (one line naming the file when it is refused),
each file is opened without following links and checked again on the open descriptor,
and the copy gets a safe name (letters, digits, `._-`); the original name is kept.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from agentcycle.agent.program.files import is_intermediate
from agentcycle.errors import UserError

SAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME = 120
COPY_CHUNK = 1 << 20
FILE_MODE = 0o600
DIR_MODE = 0o700


@dataclass(frozen=True)
class InputFile:
    """One accepted input: where it is, the name its copy gets, the name the user gave it."""

    source: Path
    safe_name: str
    original_name: str


def safe_name(name: str) -> str:
    """`name` with anything but letters, digits and `._-` replaced by `_`.

    A leading `-` or `.` is replaced too: a program must never read a file name as an
    option, and a dot-file would be taken for a scratch file.
    """
    cleaned = SAFE_CHARS.sub("_", name).strip("_") or "input"
    if cleaned[0] in "-.":
        cleaned = "_" + cleaned[1:]
    if len(cleaned) > MAX_NAME:
        _stem, dot, suffix = cleaned.rpartition(".")
        keep = suffix if dot and len(suffix) <= 10 else ""
        cleaned = cleaned[: MAX_NAME - len(keep) - 1] + ("." + keep if keep else "")
    return cleaned


def _unique(name: str, taken: set[str]) -> str:
    if name.lower() not in taken:
        return name
    stem, dot, suffix = name.rpartition(".")
    if not dot or not stem:
        stem, suffix = name, ""
    n = 2
    while True:
        candidate = f"{stem}_{n}" + (f".{suffix}" if suffix else "")
        if candidate.lower() not in taken:
            return candidate
        n += 1


def _kind(mode: int) -> str:
    for test, label in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                        (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return label
    return "not a regular file"


def scan_inputs(directory: Path) -> list[InputFile]:
    """The folder's input files, checked; a refused entry raises `UserError` (one line).

    Sub-folders and scratch files (dot-files, `TEMP_…`) are skipped as before; anything
    else that is not a regular file inside the folder is refused rather than skipped,
    so the user learns why their file was not used.
    """
    if not directory.is_dir():
        raise UserError(f"{directory}: input directory does not exist")
    root = directory.resolve()
    accepted: list[InputFile] = []
    taken: set[str] = set()
    for entry in sorted(directory.iterdir(), key=lambda p: p.name):
        if is_intermediate(entry, directory):
            continue
        try:
            real = entry.resolve(strict=True)
        except (OSError, RuntimeError):
            raise UserError(f"{entry}: broken or looping symlink; refused") from None
        if real.is_dir() and not entry.is_symlink():
            continue
        if not real.is_relative_to(root):
            raise UserError(f"{entry}: links outside the input folder (to {real}); refused")
        mode = real.stat().st_mode
        if stat.S_ISDIR(mode):
            continue
        if not stat.S_ISREG(mode):
            raise UserError(f"{entry}: is {_kind(mode)}; only regular files are taken in")
        name = _unique(safe_name(entry.name), taken)
        taken.add(name.lower())
        accepted.append(InputFile(source=real, safe_name=name, original_name=entry.name))
    return accepted


def copy_input(item: InputFile, target_dir: Path) -> Path:
    """Copy one accepted file into `target_dir` (0600), re-checked on the open descriptor.

    `O_NOFOLLOW | O_NONBLOCK`: a file swapped for a symlink or a FIFO after the scan is
    refused instead of followed or waited on.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(item.source, flags)
    except OSError as exc:
        raise UserError(f"{item.source}: cannot open input: {exc.strerror}") from None
    target = target_dir / item.safe_name
    with os.fdopen(fd, "rb") as source:
        if not stat.S_ISREG(os.fstat(source.fileno()).st_mode):
            raise UserError(f"{item.source}: is no longer a regular file; refused")
        out_fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(out_fd, "wb") as out:
            while chunk := source.read(COPY_CHUNK):
                out.write(chunk)
    stamp = os.stat(item.source)
    os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    return target

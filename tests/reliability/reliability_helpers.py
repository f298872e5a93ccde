"""Shared pieces of the reliability suite: scratch folders, the in-process CLI, tallies."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentcycle.agent.program.session import create_session
from agentcycle.knowledge import load_pack

TESTS = Path(__file__).resolve().parents[1]
TOY_PACK = TESTS / "packs" / "toy"

BOMB = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{n}: &{n} [{', '.join(['*' + p] * 9)}]"
       for p, n in zip("abcdefgh", "bcdefghi", strict=True)]
)
DEEP = "x: " + "[" * 3000 + "]" * 3000


def print_tally(request: pytest.FixtureRequest, text: str) -> None:
    """Print past pytest's output capture, so the tally shows in every run."""
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        print(f"\nreliability: {text}", flush=True)


@dataclass
class Work:
    """A case's scratch folder with a valid toy input folder, suite and corpus."""

    root: Path

    @property
    def inputs(self) -> Path:
        return self.root / "IN"

    @property
    def session(self) -> Path:
        return self.root / "session"

    def suite(self, body: str, name: str = "suite.yaml") -> Path:
        path = self.root / name
        path.write_text(body, encoding="utf-8")
        return path

    def pack(self, replace: dict[str, str | bytes] | None = None) -> Path:
        pack = self.root / "pack"
        shutil.copytree(TOY_PACK, pack)
        for name, content in (replace or {}).items():
            if isinstance(content, bytes):
                (pack / name).write_bytes(content)
            else:
                (pack / name).write_text(content, encoding="utf-8")
        return pack

    def real_session(self) -> Path:
        """A valid toy session (no cycle run), made the way `run` makes one."""
        target = self.root / "made"
        create_session(load_pack(str(TOY_PACK)), str(TOY_PACK), self.inputs, target)
        return target


VALID_QA = """\
name: tiny
corpus_root: corpus
corpus: ["*.md"]
questions:
- id: q1
  type: simple
  question: What colour is the sky?
  answer: blue
"""


def _snapshot(*roots: Path) -> dict[str, tuple[int, int]]:
    """Every path under the roots with its size and mtime (symlinks not followed)."""
    seen: dict[str, tuple[int, int]] = {}
    for root in roots:
        if not root.exists() and not root.is_symlink():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                st = path.lstat()
                size = st.st_size if not path.is_dir() else 0
                seen[str(path)] = (size, st.st_mtime_ns if not path.is_dir() else 0)
    return seen


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run `agentcycle ARGV` through its real entry point; (exit code, stderr)."""
    code, _, err = cli_full(argv, capsys)
    return code, err


def cli_full(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run `agentcycle ARGV` through its real entry point; (exit code, stdout, stderr)."""
    from agentcycle.cli.main import main

    old_argv, old_umask = sys.argv, os.umask(0o022)
    os.umask(old_umask)
    sys.argv = ["agentcycle", *argv]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = old_argv
        os.umask(old_umask)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


Setup = Callable[[Work], list[str]]

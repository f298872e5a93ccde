"""Turn a program's command template and the session's files into an argv list.

The template is the only source of argument names: values fill `{placeholders}` inside
declared tokens and can never add a token of their own, and the result is an argv list
that is never handed to a shell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentcycle.agent.files import categorise, with_extension
from agentcycle.agent.probes import PROBES
from agentcycle.agent.workflow import History, holds
from agentcycle.knowledge.schema import PLACEHOLDER, FileCategory, InputSlot, Program


@dataclass(frozen=True)
class FilePool:
    """Files the session may use, newest first, with their categories and the best per category."""

    files: tuple[Path, ...]
    categories: Mapping[Path, tuple[str, ...]]
    best: Mapping[str, Path]

    @classmethod
    def build(
        cls,
        files: list[Path],
        file_categories: dict[str, FileCategory],
        best: Mapping[str, str],
        output_categories: Mapping[Path, str] | None = None,
    ) -> FilePool:
        assigned = dict(output_categories or {})
        cats = {
            f: (assigned[f],) if f in assigned else tuple(categorise(f, file_categories))
            for f in files
        }
        return cls(
            files=tuple(files),
            categories=cats,
            best={k: Path(v) for k, v in best.items() if Path(v) in cats},
        )


@dataclass
class BuiltCommand:
    """An argv, the files it reads, and what could not be filled."""

    argv: list[str] = field(default_factory=list)
    input_files: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and bool(self.argv)


def select_file(slot: InputSlot, pool: FilePool) -> Path | None:
    """Best file of a slot category → newest file of a slot category → extension fallback."""
    candidates = with_extension(pool.files, slot.extensions)
    for category in slot.categories:
        best = pool.best.get(category)
        if best is not None and best in candidates:
            return best
    for category in slot.categories:
        in_category = [f for f in candidates if category in pool.categories.get(f, ())]
        if in_category:
            return in_category[0]
    if slot.categories:
        # Extension fallback only for files that no declared category claims otherwise.
        uncategorised = [f for f in candidates if not pool.categories.get(f)]
        return uncategorised[0] if uncategorised else None
    return candidates[0] if candidates else None


def resolve_values(
    program_name: str,
    program: Program,
    pool: FilePool,
    cycle: int,
    pack_dir: str,
    environ: Mapping[str, str] | None = None,
) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Values for every placeholder: chosen files, parameters, built-ins; and what is missing."""
    environ = os.environ if environ is None else environ
    files: dict[str, str] = {}
    missing: list[str] = []
    for slot_name, slot in program.inputs.items():
        chosen = select_file(slot, pool)
        if chosen is not None:
            files[slot_name] = str(chosen)
        elif slot.required:
            missing.append(f"input {slot_name} ({', '.join(slot.extensions)})")
    values = dict(files)
    for name, param in program.parameters.items():
        value: str | None = None
        if param.env and environ.get(param.env):
            value = environ[param.env]
        elif param.derive is not None:
            source = files.get(param.derive.input) if param.derive.input else None
            if param.derive.input is None or source is not None:
                value = PROBES[param.derive.probe](Path(source) if source else None)
        if value is None and param.default is not None:
            value = str(param.default)
        if value is not None:
            values[name] = value
        elif param.required:
            missing.append(f"parameter {name}")
    values.update(
        cycle=str(cycle),
        program=program_name,
        prefix=f"{program_name}_{cycle:03d}",
        pack_dir=pack_dir,
    )
    return values, files, missing


def _fill(token: str, values: Mapping[str, str]) -> str | None:
    names = PLACEHOLDER.findall(token)
    if any(name not in values for name in names):
        return None
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], token)


def build_command(
    program_name: str,
    program: Program,
    pool: FilePool,
    cycle: int,
    pack_dir: str,
    environ: Mapping[str, str] | None = None,
    history: History | None = None,
) -> BuiltCommand:
    """Fill the template. A group with an unfilled optional value, or whose `when`
    condition does not hold on the history, is dropped whole."""
    values, files, missing = resolve_values(program_name, program, pool, cycle, pack_dir, environ)
    history = history or History(())
    argv: list[str] = []
    for item, group in zip(program.command, program.groups(), strict=True):
        if group.when is not None and not holds(group.when, history):
            continue
        filled = [_fill(token, values) for token in group.args]
        if all(token is not None for token in filled):
            argv.extend(token for token in filled if token is not None)
        elif isinstance(item, str):
            unfilled = [n for n in PLACEHOLDER.findall(item) if n not in values]
            if not any(n in program.inputs or n in program.parameters for n in unfilled):
                missing.append(f"token {item!r}")
    return BuiltCommand(argv=argv, input_files=files, missing=missing)

"""Turn a program's command template and the session's files into an argv list.

The template is the only source of argument names: values fill `{placeholders}` inside
declared tokens and can never add a token of their own, and the result is an argv list
that is never handed to a shell.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from agentcycle.agent.program.directives import Directives
from agentcycle.agent.program.file_facts import declared_facts
from agentcycle.agent.program.files import categorise, matches_word
from agentcycle.agent.program.postprocess import postprocess
from agentcycle.agent.program.workflow import History, holds
from agentcycle.knowledge.probes import PROBES
from agentcycle.knowledge.schema import PLACEHOLDER, FileCategory, InputSlot, Program


@dataclass(frozen=True)
class FilePool:
    """Files the session may use, newest first, with their categories, the best file per
    category and the files locked for the session."""

    files: tuple[Path, ...]
    categories: Mapping[Path, tuple[str, ...]]
    best: Mapping[str, Path]
    locked: Mapping[str, Path] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        files: list[Path],
        file_categories: dict[str, FileCategory],
        best: Mapping[str, str],
        output_categories: Mapping[Path, str] | None = None,
        locked: Mapping[str, str] | None = None,
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
            locked={k: Path(v) for k, v in (locked or {}).items() if Path(v) in cats},
        )


@dataclass(frozen=True)
class CommandContext:
    """Everything one command needs: the builder is one call with one argument."""

    program_name: str
    program: Program
    pool: FilePool
    cycle: int
    pack_dir: str
    history: History = field(default_factory=lambda: History(()))
    environ: Mapping[str, str] | None = None
    user_settings: Mapping[str, str] = field(default_factory=dict)
    directives: Directives | None = None
    blacklist: frozenset[str] = frozenset()
    file_hints: Mapping[str, str] = field(default_factory=dict)  # slot → name, from an LLM


@dataclass
class BuiltCommand:
    """An argv, the files it reads, what could not be filled, and what was changed."""

    argv: list[str] = field(default_factory=list)
    input_files: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.missing and bool(self.argv)


def allowed(path: Path, slot: InputSlot, pool: FilePool) -> bool:
    """The exclusion guards every source of a file passes, whatever chose it."""
    if path.suffix.lower() not in slot.extensions:
        return False
    if any(matches_word(path.name, pattern) for pattern in slot.exclude_patterns):
        return False
    return not set(pool.categories.get(path, ())) & set(slot.exclude_categories)


def _preferred_first(files: list[Path], slot: InputSlot) -> list[Path]:
    if not slot.prefer_patterns:
        return files
    liked = [f for f in files if any(matches_word(f.name, p) for p in slot.prefer_patterns)]
    return liked + [f for f in files if f not in liked]


def select_file(
    slot: InputSlot, pool: FilePool, hint: str | None = None, taken: frozenset[Path] = frozenset()
) -> Path | None:
    """LLM hint → locked file → best file of a slot category → newest file of a slot
    category → extension fallback; every source passes the same exclusion guards, so a
    hinted ligand never fills a model slot."""
    candidates = _preferred_first(
        [f for f in pool.files if f not in taken and allowed(f, slot, pool)], slot
    )
    if hint is not None:
        hinted = next((f for f in candidates if f.name == Path(hint).name), None)
        fits = hinted is not None and (
            not slot.categories or set(pool.categories.get(hinted, ())) & set(slot.categories)
        )
        if fits:
            return hinted
    if slot.locked and slot.categories:
        locked = pool.locked.get(slot.categories[0])
        if locked is not None and locked in candidates:
            return locked
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


def resolve_values(context: CommandContext) -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Values for every placeholder: chosen files, parameters, built-ins; and what is missing."""
    program, pool, history = context.program, context.pool, context.history
    environ = context.environ
    environ = os.environ if environ is None else environ
    files: dict[str, str] = {}
    missing: list[str] = []
    for slot_name, slot in program.inputs.items():
        # One file fills one slot: two half-map slots get two different half maps.
        taken = frozenset(Path(f) for f in files.values())
        chosen = select_file(slot, pool, context.file_hints.get(slot_name), taken)
        if chosen is not None:
            files[slot_name] = str(chosen)
        elif slot.required:
            missing.append(f"input {slot_name} ({', '.join(slot.extensions)})")
    _drop_half_maps(program, pool, files)
    values = dict(files)
    for name, param in program.parameters.items():
        value: str | None = None
        if param.env and environ.get(param.env):
            value = environ[param.env]
        elif param.from_metric is not None:
            metric = history.latest_metric(param.from_metric)
            value = None if metric is None else str(metric)
        elif param.derive is not None:
            source = files.get(param.derive.input) if param.derive.input else None
            if param.derive.input is None or source is not None:
                path = Path(source) if source else None
                declared = declared_facts()  # a remote decision: the client ran the probe
                probe = partial(declared.probe, param.derive.probe) if declared else None
                value = (probe or PROBES[param.derive.probe])(path)
        if value is None and param.default is not None:
            value = str(param.default)
        if value is not None:
            values[name] = value
        elif param.required:
            missing.append(f"parameter {name}")
    values.update(
        cycle=str(context.cycle),
        program=context.program_name,
        prefix=f"{context.program_name}_{context.cycle:03d}",
        pack_dir=context.pack_dir,
    )
    return values, files, missing


def _drop_half_maps(program: Program, pool: FilePool, files: dict[str, str]) -> None:
    """With a full map chosen, half maps go only to programs that keep them."""
    if program.keep_half_maps_with_full_map:
        return
    has_full = any("full_map" in pool.categories.get(Path(f), ()) for f in files.values())
    if not has_full:
        return
    for slot_name, path in list(files.items()):
        if (
            "half_map" in pool.categories.get(Path(path), ())
            and not program.inputs[slot_name].required
        ):
            del files[slot_name]


def _fill(token: str, values: Mapping[str, str]) -> str | None:
    names = PLACEHOLDER.findall(token)
    if any(name not in values for name in names):
        return None
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], token)


def build_command(context: CommandContext) -> BuiltCommand:
    """The one entry point: select files → strategy (prefix, values) → invariants
    (auto-filled values, locked files) → assemble the template → settings (defaults,
    user settings, recovery fixes, crystal symmetry) through post-processing.

    A group with an unfilled optional value, or whose `when` condition does not hold on
    the history, is dropped whole; a missing required value is named in `missing`.
    """
    program = context.program
    values, files, missing = resolve_values(context)
    argv: list[str] = []
    for item, group in zip(program.command, program.groups(), strict=True):
        if group.when is not None and not holds(group.when, context.history):
            continue
        filled = [_fill(token, values) for token in group.args]
        if all(token is not None for token in filled):
            argv.extend(token for token in filled if token is not None)
        elif isinstance(item, str):
            unfilled = [n for n in PLACEHOLDER.findall(item) if n not in values]
            if not any(n in program.inputs or n in program.parameters for n in unfilled):
                missing.append(f"token {item!r}")
    settings = postprocess(program, context.user_settings, context.directives, context.blacklist)
    argv.extend(settings.tokens)
    return BuiltCommand(argv=argv, input_files=files, missing=missing, notes=settings.notes)

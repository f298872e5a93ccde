"""The decision service's one versioned JSON API, and the code both ends share.

A request carries what `decide` is given in-process (the pack by name and version hash,
the history of cycles, the files with their categories and the facts read from them,
directives, settings) and a response carries the `Decision`. The client turns
`session.decision_inputs(...)` into a request (`to_request`); the service turns the
request back into the same arguments and runs the same `decide` under the declared
file facts (`decide_request`). So a decision made remotely is the decision made in
process, with no file content crossing the wire beyond what the request declares: the
content-probe verdicts, unit cells, derived values (MTZ labels) and the log of the
previous cycle when it failed (what recovery reads).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.directives import Directives
from agentcycle.agent.program.experience import DocPassage, Experience, PastCase
from agentcycle.agent.program.file_facts import MACHINE, DeclaredFacts, using_facts
from agentcycle.agent.program.files import categorise
from agentcycle.agent.program.graph import decide
from agentcycle.agent.program.outcomes import StopKind
from agentcycle.agent.program.placement import read_cell
from agentcycle.agent.program.recovery import Diagnosis, Recovery
from agentcycle.agent.program.state import LOG_NAME, CycleRecord
from agentcycle.errors import UserError
from agentcycle.knowledge import Pack, load_pack
from agentcycle.knowledge.probes import CONTENT_PROBES, PROBES

API_VERSION = "1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FileEntry(_Model):
    """One file the decision may use, as the client sees it: never its content."""

    path: str
    categories: list[str] = Field(default_factory=list, description="Informational.")
    content: dict[str, bool] = Field(default_factory=dict, description="Content-probe verdicts.")
    cell: list[float] | None = Field(default=None, description="Unit cell, for placement.")
    derived: dict[str, str | None] = Field(default_factory=dict, description="Probe → value.")


class DecisionRequest(_Model):
    api_version: str
    pack: str = Field(description="Pack name (or a directory the service can read).")
    pack_hash: str = Field(description="sha256 of the pack's YAML files; must match.")
    pack_dir: str = Field(description="The client's pack directory, for {pack_dir} in argv.")
    workflow: str
    cycles: list[CycleRecord]
    files: list[FileEntry]
    output_categories: dict[str, str] = Field(default_factory=dict)
    best_files: dict[str, str] = Field(default_factory=dict)
    locked_files: dict[str, str] = Field(default_factory=dict)
    cycle: int = Field(ge=1)
    max_cycles: int = Field(ge=1)
    environ: dict[str, str] = Field(default_factory=dict)
    directives: Directives = Field(default_factory=Directives)
    goal: str = ""
    session_dir: str | None = None
    advice_changed: bool = False
    blacklist: dict[str, list[str]] = Field(default_factory=dict)
    recoveries: dict[str, dict[str, str]] = Field(default_factory=dict)
    present: list[str] = Field(default_factory=list, description="Other paths that exist.")
    machine: dict[str, str | None] = Field(default_factory=dict, description="File-less probes.")
    logs: dict[str, str] = Field(default_factory=dict, description="The failed run's log.")
    llm: dict[str, Any] = Field(default_factory=dict, description="The session's LLM planner.")
    experience: dict[str, Any] | None = Field(default=None, description="Retrieved memory.")


class DecisionResponse(_Model):
    api_version: str = API_VERSION
    program: str
    reason: str
    argv: list[str] = Field(default_factory=list)
    input_files: dict[str, str] = Field(default_factory=dict)
    phase: str = ""
    valid_programs: list[str] = Field(default_factory=list)
    events: list[dict[str, str]] = Field(default_factory=list)
    recovery: dict[str, Any] | None = None
    diagnosis: dict[str, Any] | None = None
    stop_kind: StopKind | None = None


ErrorCode = Literal["unauthorized", "too_large", "api_version", "pack", "invalid", "internal"]


class ErrorBody(_Model):
    code: ErrorCode
    message: str


class ErrorResponse(_Model):
    api_version: str = API_VERSION
    error: ErrorBody


class RequestProblem(ValueError):
    """A request the service cannot decide on; `code` goes into the structured error."""

    def __init__(self, code: ErrorCode, message: str):
        super().__init__(message)
        self.code = code


def pack_hash(pack: Pack) -> str:
    """The pack's version: sha256 over its YAML files' names and bytes."""
    directory = Path(pack.directory)
    stamps = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(directory.glob("*.yaml")))
    return _hash_files(directory, stamps)


@lru_cache(maxsize=16)
def _hash_files(directory: Path, stamps: tuple[tuple[str, int], ...]) -> str:
    digest = hashlib.sha256()
    for name, _ in stamps:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _env_names(pack: Pack) -> set[str]:
    return {p.env for prog in pack.programs.values() for p in prog.parameters.values() if p.env}


def _file_entry(
    path: Path, pack: Pack, version: str, declared: str | None, cells: set[Path]
) -> FileEntry:
    """Everything the graph could read from `path`, read here on the client (cached on the
    file's size and modification time: a session offers the same files every cycle)."""
    try:
        stat = path.stat()
        stamp: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        stamp = None
    key = (path, stamp, version, declared, path in cells)
    entry = _ENTRIES.get(key)
    if entry is None:
        if len(_ENTRIES) >= MAX_CACHED_ENTRIES:
            _ENTRIES.clear()
        entry = _ENTRIES[key] = _read_entry(path, pack, declared, path in cells)
    return entry


_ENTRIES: dict[tuple[object, ...], FileEntry] = {}
MAX_CACHED_ENTRIES = 4096


def _read_entry(path: Path, pack: Pack, declared: str | None, with_cell: bool) -> FileEntry:
    suffix = path.suffix.lower()
    probes = {
        c.content for c in pack.file_categories.values() if c.content and suffix in c.extensions
    }
    content = {name: CONTENT_PROBES[name](path) for name in sorted(probes)}
    with using_facts(DeclaredFacts(content={str(path): content})):  # probes read once
        categories = [declared] if declared else categorise(path, pack.file_categories)
    derived: dict[str, str | None] = {}
    for program in pack.programs.values():
        for param in program.parameters.values():
            source = param.derive.input if param.derive else None
            if param.derive and source and suffix in program.inputs[source].extensions:
                derived[param.derive.probe] = PROBES[param.derive.probe](path)
    cell = read_cell(path) if with_cell else None
    return FileEntry(
        path=str(path),
        categories=categories,
        content=content,
        cell=list(cell) if cell else None,
        derived=derived,
    )


def _placement_files(pack: Pack, workflow: str, entries: list[tuple[Path, list[str]]]) -> set[Path]:
    """The model and data file whose cells placement compares (as `perceive_history` picks)."""
    probe = pack.workflow(workflow).placement_probe
    if probe is None:
        return set()
    model = next((f for f, cats in entries if probe.model_category in cats), None)
    data = [f for f, cats in entries if set(cats) & set(probe.data_categories)][:1]
    return {f for f in (model, *data) if f is not None}


def to_request(inputs: Mapping[str, Any], pack_ref: str) -> DecisionRequest:
    """Serialise `decide`'s arguments (from `session.decision_inputs`) into a request."""
    pack: Pack = inputs["pack"]
    session_dir: Path | None = inputs.get("session_dir")
    declared = {Path(k): v for k, v in (inputs.get("output_categories") or {}).items()}
    version = pack_hash(pack)
    files = [_file_entry(f, pack, version, declared.get(f), set()) for f in inputs["files"]]
    wanted = _placement_files(
        pack, inputs["workflow"], [(Path(e.path), e.categories) for e in files]
    )
    if wanted:
        files = [
            _file_entry(Path(e.path), pack, version, declared.get(Path(e.path)), wanted)
            if Path(e.path) in wanted
            else e
            for e in files
        ]
    cycles: list[CycleRecord] = inputs["cycles"]
    present: list[str] = []
    logs: dict[str, str] = {}
    if session_dir is not None:
        for record in cycles:
            present += [str(session_dir / r) for r in record.outputs if (session_dir / r).exists()]
        if cycles and cycles[-1].failed and cycles[-1].run_dir:
            log = session_dir / cycles[-1].run_dir / LOG_NAME
            if log.is_file():
                logs[str(log)] = log.read_text(encoding="utf-8", errors="replace")
    environ = os.environ if inputs.get("environ") is None else inputs["environ"]
    machine = {
        p.derive.probe: PROBES[p.derive.probe](None)
        for prog in pack.programs.values()
        for p in prog.parameters.values()
        if p.derive and not p.derive.input
    }
    return DecisionRequest(
        api_version=API_VERSION,
        pack=pack_ref,
        pack_hash=version,
        pack_dir=pack.directory,
        workflow=inputs["workflow"],
        cycles=cycles,
        files=files,
        output_categories={str(k): v for k, v in declared.items()},
        best_files=dict(inputs.get("best_files") or {}),
        locked_files=dict(inputs.get("locked_files") or {}),
        cycle=inputs["cycle"],
        max_cycles=inputs["max_cycles"],
        environ={k: environ[k] for k in sorted(_env_names(pack)) if k in environ},
        directives=inputs.get("directives") or Directives(),
        goal=inputs.get("goal", ""),
        session_dir=str(session_dir) if session_dir is not None else None,
        advice_changed=inputs.get("advice_changed", False),
        blacklist=dict(inputs.get("blacklist") or {}),
        recoveries={k: dict(v) for k, v in (inputs.get("recoveries") or {}).items()},
        present=sorted(set(present)),
        machine=machine,
        logs=logs,
        llm=dict(inputs.get("llm") or {}),
        experience=asdict(inputs["experience"]) if inputs.get("experience") else None,
    )


def _load_checked_pack(request: DecisionRequest) -> Pack:
    if request.api_version != API_VERSION:
        raise RequestProblem(
            "api_version",
            f"API version mismatch: client speaks {request.api_version}, "
            f"service speaks {API_VERSION}",
        )
    try:
        pack = load_pack(request.pack)
    except UserError as exc:
        raise RequestProblem("pack", f"pack {request.pack!r}: {exc}") from None
    served = pack_hash(pack)
    if served != request.pack_hash:
        raise RequestProblem(
            "pack",
            f"pack {request.pack!r}: version hash differs (client {request.pack_hash}, "
            f"service {served}); deploy the same pack on both sides",
        )
    if request.workflow not in pack.workflows:
        raise RequestProblem("invalid", f"workflow {request.workflow!r} not in pack {pack.name}")
    return pack.model_copy(update={"directory": request.pack_dir})


def decide_request(request: DecisionRequest) -> DecisionResponse:
    """The service's side: the same `decide` call, with the declared facts instead of a disk."""
    pack = _load_checked_pack(request)
    facts = DeclaredFacts(
        present=frozenset([*(f.path for f in request.files), *request.present]),
        content={f.path: f.content for f in request.files},
        cells={f.path: tuple(f.cell) if f.cell else None for f in request.files},
        derived={MACHINE: request.machine, **{f.path: f.derived for f in request.files}},
        logs=request.logs,
    )
    with using_facts(facts):
        decision = decide(
            pack,
            request.workflow,
            request.cycles,
            [Path(f.path) for f in request.files],
            cycle=request.cycle,
            max_cycles=request.max_cycles,
            best_files=request.best_files,
            output_categories={Path(k): v for k, v in request.output_categories.items()},
            environ=request.environ,
            directives=request.directives,
            goal=request.goal,
            session_dir=Path(request.session_dir) if request.session_dir else None,
            locked_files=request.locked_files,
            advice_changed=request.advice_changed,
            blacklist=request.blacklist,
            recoveries=request.recoveries,
            experience=_experience(request.experience),
            llm=request.llm or None,
        )
    return to_response(decision)


def _experience(data: dict[str, Any] | None) -> Experience | None:
    if data is None:
        return None
    return Experience(
        cases=tuple(PastCase(**case) for case in data.get("cases", ())),
        passages=tuple(DocPassage(**passage) for passage in data.get("passages", ())),
        problem=data.get("problem", ""),
    )


def to_response(decision: Decision) -> DecisionResponse:
    return DecisionResponse(
        program=decision.program,
        reason=decision.reason,
        argv=decision.argv,
        input_files=decision.input_files,
        phase=decision.phase,
        valid_programs=decision.valid_programs,
        events=decision.events,
        recovery=asdict(decision.recovery) if decision.recovery else None,
        diagnosis=asdict(decision.diagnosis) if decision.diagnosis else None,
        stop_kind=decision.stop_kind,
    )


def from_response(response: DecisionResponse) -> Decision:
    """The client's side: the service's answer as the `Decision` the session records."""
    return Decision(
        program=response.program,
        reason=response.reason,
        argv=response.argv,
        input_files=response.input_files,
        phase=response.phase,
        valid_programs=response.valid_programs,
        events=response.events,
        recovery=Recovery(**response.recovery) if response.recovery else None,
        diagnosis=Diagnosis(**response.diagnosis) if response.diagnosis else None,
        stop_kind=response.stop_kind,
    )

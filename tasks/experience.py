"""The `retrieve` and `remember` tasks of a cycle: the program agent's memory.

`retrieve` runs before PLAN: it finds past cycles of the same pack on similar data (or
with the same error) in the LanceDB `runs` table, and passages of the pack's own
documentation corpus (`knowledge/packs/<name>/docs/`, ingested on first use), and hands
them to the decision graph as an `Experience`. It is cached on its query (features,
phase, last error, and the versions of both tables), and every retrieval, cached or
not, is logged to the `retrievals` dataset with the session id and cycle; what was found
also goes to `retrieved.json` in the session folder, which the reports quote.

`remember` runs after `record`: the finished cycle becomes one `runs` row.

A `runs` table that cannot be read or written is reported once per session (a warning
event and a log line) and the cycle goes on without experience.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

from prefect import task
from prefect.cache_policies import NO_CACHE
from prefect.context import TaskRunContext

from agentcycle.agent.program import experience as exp
from agentcycle.agent.program.decision import Decision
from agentcycle.agent.program.state import SessionState, load_session, write_atomic
from agentcycle.agent.program.workflow import History, current_phase
from agentcycle.errors import UserError
from agentcycle.knowledge import Pack, load_pack
from agentcycle.storage import runs
from agentcycle.storage.corpus import ingest, open_corpus
from agentcycle.storage.datasets import append_rows
from agentcycle.storage.search import search
from agentcycle.storage.tables import file_lock

RETRIEVED_FILE = "retrieved.json"
MAX_CASES = 12
DOC_PASSAGES = 2
LOGGER = logging.getLogger("agentcycle.memory")
_docs_checked: dict[str, str | None] = {}  # pack directory -> corpus name (once per process)


# --------------------------------------------------------------------------- docs

def docs_corpus(pack: Pack) -> str | None:
    """The pack's documentation corpus, ingested (or brought up to date) on first use in
    this process; None when the pack has no `docs/` folder."""
    key = str(Path(pack.directory).resolve())
    if key not in _docs_checked:
        folder = Path(pack.directory) / "docs"
        name = f"pack-{pack.name}"
        if not folder.is_dir() or not any(folder.glob("*.md")):
            _docs_checked[key] = None
        else:
            with file_lock(f"ingest-{name}"):
                ingest(name, [folder])
            _docs_checked[key] = name
    return _docs_checked[key]


def _corpus_version(corpus: str | None) -> int:
    return open_corpus(corpus).version if corpus else 0


# --------------------------------------------------------------------------- the query

@dataclasses.dataclass(frozen=True)
class Query:
    """What one cycle asks memory: small, hashable, and the cache key's material."""

    pack: str
    session_id: str
    features: exp.DataFeatures
    phase: str
    phase_programs: tuple[str, ...]
    error_kinds: tuple[str, ...]
    last: str  # the last cycle: program, outcome and error
    docs: str | None

    def text(self) -> str:
        """What is embedded: phase, programs, data features and the last failure."""
        return (f"{' '.join(self.phase_programs)} ({self.phase}) on {self.features.text()}; "
                f"{self.last}").strip()


def _read_memo(session_dir: Path) -> dict[str, Any]:
    try:
        return json.loads((session_dir / RETRIEVED_FILE).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {"cycles": {}}


def build_query(session_dir: Path, state: SessionState, pack: Pack,
                memo: dict[str, Any]) -> Query:
    """The cycle's query from the session: data features, phase, last failure."""
    inputs = [session_dir / rel for rel in state.inputs]
    if not memo.get("data_key"):
        memo["data_key"] = exp.data_key(inputs)
    features = exp.data_features(pack, state.workflow, inputs, state.cycles, memo["data_key"])
    workflow = pack.workflow(state.workflow)
    phase, _ = current_phase(workflow, History(tuple(state.cycles)))
    programs = tuple(p for p in workflow.phases[phase].programs if p != "STOP")
    kinds: tuple[str, ...] = ()
    last = ""
    if state.cycles:
        record = state.cycles[-1]
        last = f"last {record.program} {'failed' if record.failed else 'ok'}"
        if record.failed:
            log = session_dir / record.run_dir / "program.log" if record.run_dir else None
            text = log.read_text(encoding="utf-8", errors="replace") if log and log.is_file() \
                else ""
            kind = exp.error_kind(pack, record.program, text)
            kinds = (kind,) if kind else ()
            last += f": {kind or 'unknown error'}"
    return Query(pack.name, state.session_id, features, phase, programs, kinds, last,
                 docs_corpus(pack))


# --------------------------------------------------------------------------- retrieve

def _query_key(context: TaskRunContext, parameters: dict[str, Any]) -> str:
    """Cached on the query and on what memory held when it was asked."""
    query: Query = parameters["query"]
    try:
        table = runs.runs_table(create=False)
        version = table.version if table is not None else 0
    except runs.MemoryUnavailable as exc:
        version = f"unavailable {exc}"
    digest = hashlib.sha256(repr((query, version, _corpus_version(query.docs))).encode())
    return f"retrieve-{digest.hexdigest()}"


def retrieve(query: Query) -> exp.Experience:
    """Past cases and documentation passages for one query (the task's body)."""
    problem = ""
    cases: list[exp.PastCase] = []
    try:
        features = query.features
        rows = runs.find_cases(query.pack, data_key=features.data_key,
                               error_kinds=query.error_kinds,
                               experiment_type=features.experiment_type,
                               resolution=features.resolution, space_group=features.space_group,
                               unit_cell=features.unit_cell, exclude_session=query.session_id)
    except runs.MemoryUnavailable as exc:
        rows, problem = [], str(exc)
    for row in rows:
        same_error = bool(row["error_kind"]) and row["error_kind"] in query.error_kinds
        if not (exp.similar_data(row, query.features) or same_error):
            continue
        cases.append(exp.PastCase(
            session_id=row["session_id"], cycle=row["cycle"], program=row["program"],
            outcome=row["outcome"], same_data=row["data_key"] == query.features.data_key,
            same_error=same_error,
            similarity=1.0 if row["data_key"] == features.data_key else 0.5,
            error_kind=row["error_kind"] or "",
            error=row["error"] or "", settings=json.loads(row["settings"] or "{}"),
            metrics=json.loads(row["metrics"] or "{}"), target_value=row["target_value"],
            log_summary=row["log_summary"] or ""))
        if len(cases) >= MAX_CASES:
            break
    passages: list[exp.DocPassage] = []
    if query.docs:
        # BM25 only: a query embedding would cost more than the whole step's budget
        hits = search(query.docs, query.text(), k=DOC_PASSAGES, mode="text")
        passages = [exp.DocPassage(h.file, h.heading, h.text, round(h.score, 4)) for h in hits]
    return exp.Experience(tuple(cases), tuple(passages), problem)


@task(name="retrieve", task_run_name="retrieve", cache_key_fn=_query_key, persist_result=True)
def retrieve_task(query: Query) -> exp.Experience:
    return retrieve(query)


def retrieval_rows(session_id: str, cycle: int, query: Query, found: exp.Experience,
                   latency_ms: float) -> list[dict[str, Any]]:
    """`retrievals` rows: one per case and passage; one empty row when nothing was found."""
    base = {"session_id": session_id, "cycle": cycle, "query": query.text(), "mode": "hybrid",
            "k": MAX_CASES, "latency_ms": latency_ms}
    rows = [{**base, "query_id": f"{session_id}/{cycle}/runs", "corpus": "runs", "rank": rank,
             "chunk_id": f"{c.session_id}/{c.cycle}", "file": c.session_id,
             "heading": f"cycle {c.cycle} {c.program}", "score": c.similarity}
            for rank, c in enumerate(found.cases, start=1)]
    rows += [{**base, "query_id": f"{session_id}/{cycle}/docs", "corpus": query.docs or "",
              "k": DOC_PASSAGES, "rank": rank, "file": p.file, "heading": p.heading,
              "score": p.score}
             for rank, p in enumerate(found.passages, start=1)]
    return rows or [{**base, "query_id": f"{session_id}/{cycle}/runs", "corpus": "runs",
                     "rank": 0}]


def retrieve_for_cycle(session_dir: str, cycle: int, use_task: bool = True) -> exp.Experience:
    """Run the retrieve task for the session's next cycle, log it, keep what it found.

    A memory problem reaches the graph (as one warning event) only the first time in a
    session; later cycles go on silently without experience.
    """
    directory = Path(session_dir)
    state = load_session(directory)
    pack = load_pack(state.pack)
    memo = _read_memo(directory)
    query = build_query(directory, state, pack, memo)
    started = time.perf_counter()
    found = retrieve_task(query) if use_task else retrieve(query)
    latency_ms = (time.perf_counter() - started) * 1000
    append_rows("retrievals", retrieval_rows(state.session_id, cycle, query, found, latency_ms))
    if found.problem:
        if memo.get("problem_reported"):
            found = dataclasses.replace(found, problem="")
        else:
            memo["problem_reported"] = True
            LOGGER.warning("memory unavailable, going on without experience: %s", found.problem)
    memo["cycles"][str(cycle)] = {
        "query": query.text(),
        "cases": [dataclasses.asdict(c) for c in found.cases],
        "passages": [dataclasses.asdict(p) for p in found.passages],
    }
    write_atomic(directory / RETRIEVED_FILE, json.dumps(memo, indent=1, default=str))
    return found


def retrieved(session_dir: Path) -> dict[int, dict[str, Any]]:
    """What retrieve found per cycle (for reports): {cycle: {query, cases, passages}}."""
    return {int(k): v for k, v in _read_memo(session_dir).get("cycles", {}).items()}


# --------------------------------------------------------------------------- remember

def remember(session_dir: str, decision: Decision) -> int:
    """Store the session's last finished cycle as a `runs` row; 0 rows if memory is broken."""
    directory = Path(session_dir)
    state = load_session(directory)
    if not state.cycles:
        return 0
    record = state.cycles[-1]
    pack = load_pack(state.pack)
    memo = _read_memo(directory)
    inputs = [directory / rel for rel in state.inputs]
    key = memo.get("data_key") or exp.data_key(inputs)
    features = exp.data_features(pack, state.workflow, inputs, state.cycles, key)
    log = directory / record.run_dir / "program.log" if record.run_dir else None
    text = log.read_text(encoding="utf-8", errors="replace") if log and log.is_file() else ""
    recovered = decision.recovery.name if decision.recovery is not None else ""
    row = exp.run_row(state.session_id, pack.name, record, features, decision.settings,
                      recovered, text, pack)
    row["vector"] = None  # embedded by the first `search runs` that needs it
    try:
        return runs.append_runs([row])
    except (runs.MemoryUnavailable, UserError) as exc:
        if not memo.get("problem_reported"):
            memo["problem_reported"] = True
            write_atomic(directory / RETRIEVED_FILE, json.dumps(memo, indent=1, default=str))
            LOGGER.warning("memory unavailable, this cycle is not remembered: %s", exc)
        return 0


@task(name="remember", task_run_name="remember", cache_policy=NO_CACHE)  # writes a `runs` row
def remember_task(session_dir: str, decision: Decision) -> int:
    return remember(session_dir, decision)


def tidy_runs() -> bool:
    """Merge the `runs` table's small files once there are many; False when memory is
    broken or there was nothing to merge.

    Done once per session rather than per cycle. The rows' vectors are not computed
    here: only `agentcycle search runs` reads them, and it embeds what is missing
    (loading the model would cost every session's end seconds).
    """
    try:
        return runs.compact_runs()
    except runs.MemoryUnavailable as exc:
        LOGGER.warning("memory unavailable, the runs table is not compacted: %s", exc)
        return False


@task(name="tidy-runs", task_run_name="tidy-runs", cache_policy=NO_CACHE)
def tidy_runs_task() -> bool:
    return tidy_runs()

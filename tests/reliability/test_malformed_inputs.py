"""Malformed and hostile inputs: each is one `error:` line, exit code 2, nothing written.

Cases cover packs, suites, sessions, CLI arguments and input folders (storage files
that must *not* stop a command are in test_storage_degrades.py). Each case runs the real
CLI entry point (`agentcycle.cli.main.main`) in this process, which is what makes 80
cases take seconds; a handful also run as a subprocess to prove the installed entry
point behaves the same. The module prints its tally: tried / clean.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from reliability_helpers import (
    BOMB,
    DEEP,
    TOY_PACK,
    VALID_QA,
    Setup,
    Work,
    _cli,
    _snapshot,
    print_tally,
)

from agentcycle.agent.program.session import create_session
from agentcycle.config import home_dir
from agentcycle.knowledge import load_pack

TALLY = {"tried": 0, "clean": 0}


@pytest.fixture(scope="module", autouse=True)
def tally(request: pytest.FixtureRequest) -> Iterator[None]:
    # Importing Prefect makes its home folder (`<home>/prefect`) once per process when
    # our home exists: done here, so it is not blamed on whichever case imports it first
    # when this module runs alone (a real command runs in a process of its own).
    from agentcycle.server import apply_prefect_environment

    apply_prefect_environment()
    import prefect  # noqa: F401

    yield
    print_tally(request, f"malformed inputs: {TALLY['tried']} tried / {TALLY['clean']} clean")


def _mc(body: str) -> str:
    return VALID_QA.replace("  type: simple\n", body)


CASES: dict[str, tuple[Setup, str]] = {
    # ---- packs
    "pack: alias bomb": (lambda w: ["knowledge", "validate", str(w.pack({"metrics.yaml": BOMB}))],
                         "alias bomb"),
    "pack: nesting bomb": (lambda w: ["knowledge", "validate",
                                      str(w.pack({"metrics.yaml": DEEP}))], "nested deeper"),
    "pack: 5 MB file": (lambda w: ["knowledge", "validate", str(w.pack(
        {"metrics.yaml": "# " + "x" * (5 * 1024 * 1024)}))], "limit"),
    "pack: non-UTF-8": (lambda w: ["knowledge", "validate", str(w.pack(
        {"programs.yaml": b"programs:\n  \xff\xfe: 1\n"}))], "not UTF-8"),
    "pack: duplicate key": (lambda w: ["knowledge", "validate", str(w.pack(
        {"metrics.yaml": "a: 1\na: 2\n"}))], "duplicate key"),
    "pack: YAML syntax": (lambda w: ["knowledge", "validate", str(w.pack(
        {"programs.yaml": "programs: [unclosed\n"}))], "programs.yaml:"),
    "pack: programs is a list": (lambda w: ["knowledge", "validate", str(w.pack(
        {"programs.yaml": "- a\n- b\n"}))], "programs.yaml"),
    "pack: programs empty": (lambda w: ["knowledge", "validate", str(w.pack(
        {"programs.yaml": ""}))], "programs.yaml"),
    "pack: unknown program in workflow": (lambda w: ["knowledge", "validate", str(w.pack(
        {"workflows.yaml": (TOY_PACK / "workflows.yaml").read_text().replace(
            "programs: [validate]", "programs: [validat]")}))], "validat"),
    "pack: binary garbage": (lambda w: ["knowledge", "validate", str(w.pack(
        {"workflows.yaml": bytes(range(256)) * 4}))], "workflows.yaml"),
    "pack: no such pack": (lambda w: ["knowledge", "validate", "no-such-pack-x"], "not found"),
    "pack: run with bomb": (lambda w: ["run", str(w.pack({"metrics.yaml": BOMB})),
                                       str(w.inputs), "--session", str(w.session)], "bomb"),
    "pack: run with no such pack": (lambda w: ["run", "nope-pack", str(w.inputs), "--session",
                                               str(w.session)], "not found"),
    # ---- suites
    "suite: no questions": (lambda w: ["eval", str(w.suite("name: s\ncorpus_root: corpus\n"))],
                            "no samples"),
    "suite: empty questions": (lambda w: ["eval", str(w.suite(
        "name: s\ncorpus_root: corpus\nquestions: []\n"))], "no samples"),
    "suite: questions not a list": (lambda w: ["eval", str(w.suite(
        "name: s\nquestions: {a: 1}\n"))], "must be a list"),
    "suite: non-UTF-8": (lambda w: ["eval", str(w.root / "bin.yaml")], "not UTF-8"),
    "suite: YAML syntax": (lambda w: ["eval", str(w.suite("name: [s\n"))], "(yaml)"),
    "suite: alias bomb": (lambda w: ["eval", str(w.suite(BOMB))], "bomb"),
    "suite: top-level list": (lambda w: ["eval", str(w.suite("- a\n- b\n"))], "mapping"),
    "suite: mc without choices": (lambda w: ["eval", str(w.suite(_mc("  type: mc\n")))],
                                  "choices"),
    "suite: mc answer not a choice": (lambda w: ["eval", str(w.suite(_mc(
        "  type: mc\n  choices: {A: red, B: green}\n")))], "not one of the choices"),
    "suite: empty id": (lambda w: ["eval", str(w.suite(VALID_QA.replace("id: q1", "id: ''")))],
                        "field id"),
    "suite: path id": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "id: q1", "id: ../../etc/x")))], "field id"),
    "suite: duplicate id": (lambda w: ["eval", str(w.suite(VALID_QA + VALID_QA.split(
        "questions:\n")[1]))], "duplicate id"),
    "suite: unknown type": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "type: simple", "type: essay")))], "field type"),
    "suite: missing question": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "  question: What colour is the sky?\n", "")))], "field question"),
    "suite: extra field": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "  answer: blue\n", "  answer: blue\n  bogus: 1\n")))], "bogus"),
    "suite: corpus_root missing": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "corpus_root: corpus", "corpus_root: /nonexistent")))], "corpus_root"),
    "suite: corpus matches nothing": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        '"*.md"', '"*.pdf"')))], "no file"),
    "suite: corpus glob escapes": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        '"*.md"', '"../../*"')))], "corpus"),
    "suite: unsafe name": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "name: tiny", "name: ../evil")))], "name"),
    "suite: missing file": (lambda w: ["eval", str(w.root / "nope.yaml")], "no such suite"),
    "suite: a folder": (lambda w: ["eval", str(w.root / "corpus")], "not a regular file"),
    "suite: JSONL bad line": (lambda w: ["eval", str(w.suite('{"id": "a"\n', "s.jsonl"))],
                              "not JSON"),
    "suite: JSONL empty": (lambda w: ["eval", str(w.suite("\n", "s.jsonl"))], "no samples"),
    "suite: tolerance negative": (lambda w: ["eval", str(w.suite(VALID_QA.replace(
        "  answer: blue\n", "  answer: blue\n  tolerance: -1\n")))], "tolerance"),
    # ---- CLI numbers and ids
    "eval --limit -5": (lambda w: ["eval", str(w.suite(VALID_QA)), "--limit", "-5"], "--limit"),
    "eval --limit 0": (lambda w: ["eval", str(w.suite(VALID_QA)), "--limit", "0"], "--limit"),
    "eval --limit abc": (lambda w: ["eval", str(w.suite(VALID_QA)), "--limit", "abc"],
                         "--limit"),
    "eval --resume unknown": (lambda w: ["eval", str(w.suite(VALID_QA)), "--resume",
                                         "NO_SUCH_RUN"], "no evaluation run"),
    "eval --resume path": (lambda w: ["eval", str(w.suite(VALID_QA)), "--resume", "../x"],
                           "not a run id"),
    "eval --retry-failed unknown": (lambda w: ["eval", str(w.suite(VALID_QA)),
                                               "--retry-failed", "nope-1"], "no evaluation run"),
    "eval --concurrency 0": (lambda w: ["eval", str(w.suite(VALID_QA)), "--concurrency", "0"],
                             "--concurrency"),
    "eval --epochs -1": (lambda w: ["eval", str(w.suite(VALID_QA)), "--epochs", "-1"],
                         "--epochs"),
    "eval --corpus bad name": (lambda w: ["eval", str(w.suite(VALID_QA)), "--corpus",
                                          "bad name!"], "corpus"),
    "eval --resume and --retry": (lambda w: ["eval", str(w.suite(VALID_QA)), "--resume", "a",
                                             "--retry-failed", "b"], "choose one"),
    "eval compare one run": (lambda w: ["eval", "compare", "a"], "usage"),
    "run --max-cycles 0": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--max-cycles", "0",
                                      "--session", str(w.session)], "--max-cycles"),
    "run --max-cycles -3": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--max-cycles",
                                       "-3", "--session", str(w.session)], "--max-cycles"),
    "run --max-cycles abc": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--max-cycles",
                                        "abc", "--session", str(w.session)], "--max-cycles"),
    "run --verbosity bogus": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--verbosity",
                                         "loud", "--session", str(w.session)], "verbosity"),
    "run missing arguments": (lambda w: ["run"], "Missing argument"),
    "unknown command": (lambda w: ["frobnicate"], "No such command"),
    "unknown option": (lambda w: ["query", "--frob", "SELECT 1"], "--frob"),
    "search -k 0": (lambda w: ["search", "nosuch", "x", "-k", "0"], "k"),
    "search unknown corpus": (lambda w: ["search", "nosuch", "sky"], "does not exist"),
    "ingest bad corpus name": (lambda w: ["ingest", "bad name!", str(w.root)], "corpus"),
    "ingest missing path": (lambda w: ["ingest", "docs", str(w.root / "nope")], "no such"),
    "ingest an empty folder into a new corpus": (lambda w: ["ingest", "docs", str(_empty(w))],
                                                 "nothing to ingest"),
    "ingest a FIFO into a new corpus": (lambda w: ["ingest", "docs", str(_fifo(w))],
                                        "nothing to ingest"),
    "eval a FIFO as the suite": (lambda w: ["eval", str(_fifo(w))], "not a regular file"),
    "query empty SQL": (lambda w: ["query", "  "], "empty"),
    "report unknown": (lambda w: ["report", "nosuch"], "unknown"),
    "query COPY TO a file": (lambda w: ["query", f"COPY (SELECT 1) TO '{w.root / 'x.csv'}'"],
                             "disabled"),
    "query read_text": (lambda w: ["query", "SELECT * FROM read_text('/etc/hostname')"],
                        "disabled"),
    "query ATTACH": (lambda w: ["query", f"ATTACH '{w.root / 'x.db'}'"], "query failed"),
    "query bad SQL": (lambda w: ["query", "SELEC nonsense"], "Parser Error"),
    "store check --session missing": (lambda w: ["store", "check", "--session",
                                                 str(w.root / "nope")], "no session.json"),
    # ---- sessions
    "show binary session.json": (lambda w: ["show", str(_session_file(w, b"\x89PNG\xff\x00"))],
                                 "not UTF-8"),
    "show broken JSON": (lambda w: ["show", str(_session_file(w, b'{"session_id": '))],
                         "not a valid session"),
    "show wrong schema": (lambda w: ["show", str(_session_file(w, b'{"a": 1}'))],
                          "not a valid session"),
    "show JSON list": (lambda w: ["show", str(_session_file(w, b"[1, 2]"))],
                       "not a valid session"),
    "show missing session": (lambda w: ["show", str(w.root / "nope")], "no session here"),
    "show session.json folder": (lambda w: ["show", str(_session_dir_as_folder(w))],
                                 "session"),
    "resume missing session": (lambda w: ["resume", str(w.root / "nope")], "no session here"),
    "resume binary session.json": (lambda w: ["resume", str(_session_file(w, bytes(64)))],
                                   "session"),
    "resume pack gone": (lambda w: ["resume", str(_session_pack_gone(w))], "not found"),
    "resume --max-cycles too low": (lambda w: ["resume", str(w.real_session()),
                                               "--max-cycles", "0"], "--max-cycles"),
    "prune --last 0": (lambda w: ["prune", str(w.real_session()), "--last", "0"], "--last"),
    # ---- input folders
    "input: symlink to /etc/passwd": (lambda w: _run_with(w, lambda i: (i / "data.dat").unlink()
                                      or (i / "data.dat").symlink_to("/etc/passwd")), "outside"),
    "input: symlink to /dev/zero": (lambda w: _run_with(w, lambda i: (i / "z.dat").symlink_to(
        "/dev/zero")), "outside"),
    "input: FIFO": (lambda w: _run_with(w, lambda i: os.mkfifo(i / "pipe.dat")), "FIFO"),
    "input: socket": (lambda w: _run_with(w, _make_socket), "socket"),
    "input: broken symlink": (lambda w: _run_with(w, lambda i: (i / "gone.dat").symlink_to(
        i / "missing")), "broken"),
    "input: symlinked folder outside": (lambda w: _run_with(w, lambda i: (i / "etc").symlink_to(
        "/etc")), "outside"),
    "input: folder missing": (lambda w: ["run", str(TOY_PACK), str(w.root / "nope"),
                                         "--session", str(w.session)], "does not exist"),
    "input: a file, not a folder": (lambda w: ["run", str(TOY_PACK), str(w.inputs / "data.dat"),
                                               "--session", str(w.session)], "does not exist"),
    "input: empty folder": (lambda w: ["run", str(TOY_PACK), str(_empty(w)), "--session",
                                       str(w.session)], "no input files"),
    "--session is an input file": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--session",
                                              str(w.inputs / "data.dat")], "--session"),
    "--session inside the inputs": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--session",
                                               str(w.inputs / "sess")], "--session"),
    "--session not empty": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--session",
                                       str(w.root / "corpus")], "not empty"),
    "--session under a file": (lambda w: ["run", str(TOY_PACK), str(w.inputs), "--session",
                                          str(w.root / "corpus" / "a.md" / "s")], "--session"),
}


def _session_file(work: Work, content: bytes) -> Path:
    folder = work.root / "sess"
    folder.mkdir(exist_ok=True)
    (folder / "session.json").write_bytes(content)
    return folder


def _session_dir_as_folder(work: Work) -> Path:
    folder = work.root / "sess"
    (folder / "session.json").mkdir(parents=True)
    return folder


def _session_pack_gone(work: Work) -> Path:
    pack = work.pack()
    session = work.root / "made"
    create_session(load_pack(str(pack)), str(pack), work.inputs, session)
    shutil.rmtree(pack)
    return session


def _make_socket(inputs: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(inputs / "sock.dat"))
    server.close()


def _empty(work: Work) -> Path:
    folder = work.root / "EMPTY"
    folder.mkdir()
    return folder


def _fifo(work: Work) -> Path:
    path = work.root / "pipe.yaml"
    os.mkfifo(path)
    return path


def _run_with(work: Work, change: Callable[[Path], object]) -> list[str]:
    change(work.inputs)
    return ["run", str(TOY_PACK), str(work.inputs), "--session", str(work.session)]


def _server_database(path: str) -> bool:
    """The Prefect server's own SQLite files in the home (`prefect.db`, its `-wal` and
    `-shm`): the server started by earlier cases writes them on its own schedule (its
    services, a WAL checkpoint), whatever the command under test does."""
    return Path(path).name.startswith("prefect.db") and Path(path).parent.name == "prefect"


def test_there_are_at_least_60_cases() -> None:
    assert len(CASES) >= 60


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_input_is_one_line_exit_2_nothing_written(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    setup, expected = CASES[name]
    work = Work(tmp_path)
    work.inputs.mkdir()
    (work.inputs / "data.dat").write_text("1.8\n")
    (work.inputs / "start.model").write_text("0.40\n")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("# Sky\nThe sky is blue.\n")
    (tmp_path / "bin.yaml").write_bytes(b"name: \xff\xfe\xfa\n")
    argv = setup(work)
    before = _snapshot(tmp_path, home_dir())
    TALLY["tried"] += 1
    code, err = _cli(argv, capsys)
    after = _snapshot(tmp_path, home_dir())
    lines = err.strip().splitlines()
    assert code == 2, f"{name}: exit {code}: {err}"
    assert len(lines) == 1 and lines[0].startswith("error: "), f"{name}: {err}"
    assert "Traceback" not in err
    assert expected.lower() in lines[0].lower(), f"{name}: {lines[0]}"
    changed = {
        path for path in set(after) | set(before)
        if after.get(path) != before.get(path) and not _server_database(path)
    }  # fmt: skip
    assert not changed, f"{name}: wrote {changed}"
    TALLY["clean"] += 1


@pytest.mark.parametrize("name", ["suite: alias bomb", "input: FIFO", "eval --limit -5",
                                  "show binary session.json"])
def test_the_installed_entry_point_behaves_the_same(name: str, tmp_path: Path) -> None:
    work = Work(tmp_path)
    work.inputs.mkdir()
    (work.inputs / "data.dat").write_text("1.8\n")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("# Sky\nThe sky is blue.\n")
    argv = CASES[name][0](work)
    with contextlib.ExitStack():
        done = subprocess.run([sys.executable, "-m", "agentcycle.cli.main", *argv],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert not work.session.exists()


def test_a_yaml_bomb_is_refused_in_well_under_a_second(tmp_path: Path) -> None:
    import time

    from agentcycle.errors import UserError

    pack = Work(tmp_path).pack({"metrics.yaml": BOMB})
    started = time.perf_counter()
    with pytest.raises(UserError, match="bomb"):
        load_pack(str(pack))
    assert time.perf_counter() - started < 0.5


def test_input_names_are_made_safe_and_recorded(tmp_path: Path) -> None:
    inputs = tmp_path / "IN"
    inputs.mkdir()
    (inputs / "my data; rm -rf.dat").write_text("1.8\n")
    (inputs / "-start.model").write_text("0.40\n")
    (inputs / "link.dat").symlink_to(inputs / "my data; rm -rf.dat")  # inside: accepted
    state = create_session(load_pack(str(TOY_PACK)), str(TOY_PACK), inputs, tmp_path / "s")
    names = sorted(Path(p).name for p in state.inputs)
    assert names == ["_start.model", "link.dat", "my_data_rm_-rf.dat"]
    assert state.input_names["inputs/_start.model"] == "-start.model"
    copies = list((tmp_path / "s" / "inputs").iterdir())
    assert all(p.stat().st_mode & 0o777 == 0o600 and not p.is_symlink() for p in copies)
    assert (tmp_path / "s").stat().st_mode & 0o777 == 0o700
    from agentcycle.reports.summary import session_markdown

    assert "'-start.model'" in session_markdown(state)
    assert json.loads((tmp_path / "s" / "session.json").read_text())["input_names"]

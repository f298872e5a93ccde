"""Knowledge packs load into pydantic models; every mistake is reported at its line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from agentcycle.knowledge import PackError, load_pack
from conftest import TOY_PACK, cli_command


def broken_copy(tmp_path: Path, filename: str, old: str, new: str) -> Path:
    """A copy of the toy pack with one textual edit in one file."""
    pack = tmp_path / "broken"
    shutil.copytree(TOY_PACK, pack)
    path = pack / filename
    text = path.read_text()
    assert old in text, f"test setup: {old!r} not in {filename}"
    path.write_text(text.replace(old, new, 1))
    return pack


def line_of(path: Path, needle: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


@pytest.mark.parametrize("name", ["xtal", "phenix"])
def test_shipped_packs_load(name: str) -> None:
    pack = load_pack(name)
    assert pack.programs
    for workflow in pack.workflows.values():
        for phase in workflow.phases.values():
            for program in phase.programs:
                assert program == "STOP" or program in pack.programs


def test_toy_pack_loads_with_its_directory() -> None:
    pack = load_pack(TOY_PACK)
    assert pack.directory == str(TOY_PACK)
    assert pack.programs["refine"].done_tracking.strategy == "count"


BROKEN = [
    # (file, old text, new text, needle on the reported line, words in the message)
    (
        "programs.yaml",
        "    log_parsing:\n      resolution",
        "    log_parsin:\n      resolution",
        "log_parsin:",
        "programs.inspect.log_parsin: unknown field",
    ),
    (
        "programs.yaml",
        "timeout: 30\n  refine",
        "timeout: soon\n  refine",
        "timeout: soon",
        "programs.inspect.timeout: Input should be a valid number",
    ),
    (
        "workflows.yaml",
        "programs: [validate]",
        "programs: [validat]",
        "programs: [validat]",
        "unknown program 'validat'",
    ),
    (
        "programs.yaml",
        "extensions: [.dat], categories: [data]}\n    log_parsing",
        "extensions: [dat], categories: [data]}\n    log_parsing",
        "extensions: [dat]",
        "extension 'dat' must start with '.'",
    ),
    (
        "programs.yaml",
        "categories: [data]}\n    log_parsing",
        "categories: [dta]}\n    log_parsing",
        "categories: [dta]",
        "unknown file category 'dta'",
    ),
    (
        "programs.yaml",
        "pattern: 'resolution:",
        "pattern: '(resolution:",
        "pattern: '(resolution:",
        "invalid regular expression",
    ),
    (
        "workflows.yaml",
        "{to: refine, when:",
        "{to: refin, when:",
        "{to: refin",
        "unknown phase 'refin'",
    ),
]


@pytest.mark.parametrize(("filename", "old", "new", "needle", "message"), BROKEN)
def test_broken_pack_reports_file_line_field(
    tmp_path: Path, filename: str, old: str, new: str, needle: str, message: str
) -> None:
    pack = broken_copy(tmp_path, filename, old, new)
    with pytest.raises(PackError) as caught:
        load_pack(pack)
    problem = str(caught.value)
    path = pack / filename
    assert problem.startswith(f"{path}:{line_of(path, needle)}: "), problem
    assert message in problem


def test_yaml_syntax_error_has_line(tmp_path: Path) -> None:
    pack = broken_copy(tmp_path, "workflows.yaml", "start: analyse", "start: [analyse")
    with pytest.raises(PackError) as caught:
        load_pack(pack)
    assert str(caught.value).startswith(f"{pack / 'workflows.yaml'}:")
    assert "(yaml)" in str(caught.value)


def test_validate_cli_one_line_exit_2(tmp_path: Path) -> None:
    pack = broken_copy(
        tmp_path, "programs.yaml", "timeout: 30\n  refine", "timeout: soon\n  refine"
    )
    done = subprocess.run(
        cli_command("knowledge", "validate", str(pack)), capture_output=True, text=True
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "programs.inspect.timeout" in lines[0]
    assert "Traceback" not in done.stderr


def test_validate_cli_ok() -> None:
    done = subprocess.run(
        cli_command("knowledge", "validate", "xtal"), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("xtal: ok")

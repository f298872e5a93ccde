"""Knowledge packs load into pydantic models; every mistake is reported at its line."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import TOY_PACK, cli_command

from agentcycle.knowledge import PackError, load_pack
from agentcycle.knowledge.loader import PACKS_DIR as PACKS


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
        "extensions: [.dat], categories: [data]}\n    strategy_flags",
        "extensions: [dat], categories: [data]}\n    strategy_flags",
        "extensions: [dat]",
        "extension 'dat' must start with '.'",
    ),
    (
        "programs.yaml",
        "categories: [data]}\n    strategy_flags",
        "categories: [dta]}\n    strategy_flags",
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
    (
        "workflows.yaml",
        "start: analyse",
        "start: analyze",
        "start: analyze",
        "workflows.main.start: unknown phase 'analyze'",
    ),
    (
        "programs.yaml",
        "type: int",
        "type: integer",
        "type: integer",
        "programs.validate.log_parsing.outliers.type: Input should be",
    ),
    (
        "programs.yaml",
        "extract: last}",
        "extract: final}",
        "extract: final}",
        "programs.refine.log_parsing.r_free.extract: Input should be 'first' or 'last'",
    ),
    (
        "programs.yaml",
        'command: [python3, "{pack_dir}/fake_program.py", inspect, "{data}"]',
        'command: [python3, "{pack_dir}/fake_program.py", inspect, "{dta}"]',
        "{dta}",
        "uses {dta}, which is neither an input",
    ),
    (
        "programs.yaml",
        "strategy: count",
        "strategy: many",
        "strategy: many",
        "programs.refine.done_tracking.strategy: Input should be",
    ),
    (
        "workflows.yaml",
        "{done: inspect}",
        "{done: inspect, not_done: refine}",
        "{done: inspect, not_done: refine}",
        "a condition needs exactly one of",
    ),
    (
        "programs.yaml",
        "timeout: 60",
        "timeout: -5",
        "timeout: -5",
        "programs.refine.timeout: Input should be greater than 0",
    ),
    (
        "file_categories.yaml",
        "model: {extensions: [.model]}",
        "model: {extension: [.model]}",
        "model: {extension",
        "categories.model.extension: unknown field",
    ),
    (
        "programs.yaml",
        '      - {pattern: "*.model", category: model}',
        '      - {pattern: "*.model", category: modle}',
        "category: modle",
        "unknown file category 'modle'",
    ),
    (
        "workflows.yaml",
        "  main:\n    start",
        "  main:\n    stat",
        "stat: analyse",
        "workflows.main.stat: unknown field",
    ),
    (
        "programs.yaml",
        "    description: Check the model.\n",
        "    description: Check the model.\n    description: twice\n",
        "description: twice",
        "programs.validate.description: duplicate key",
    ),
]


@pytest.mark.parametrize(("filename", "old", "new", "needle", "message"), BROKEN)
def test_broken_pack_reports_file_line_field(
    tmp_path: Path, filename: str, old: str, new: str, needle: str, message: str
) -> None:
    pack = broken_copy(tmp_path, filename, old, new)
    with pytest.raises(PackError) as caught:
        load_pack(pack)
    path = pack / filename
    located = [p for p in caught.value.problems if message in p]
    assert len(located) == 1, caught.value.problems
    assert located[0].startswith(f"{path}:{line_of(path, needle)}: "), located[0]


def test_at_least_fifteen_distinct_mistakes_are_covered() -> None:
    assert len({message for *_, message in BROKEN}) >= 15


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


def test_json_schemas_are_current_and_accept_the_shipped_packs() -> None:
    import json

    import jsonschema
    import yaml

    from agentcycle.knowledge.json_schema import SCHEMAS_DIR, schema_texts

    for filename, text in schema_texts().items():
        assert (SCHEMAS_DIR / filename).read_text() == text, (
            f"run agentcycle knowledge schema --out knowledge/schemas ({filename})"
        )
    for pack in ("xtal", "phenix"):
        for kind in ("programs", "workflows", "file_categories"):
            schema = json.loads((SCHEMAS_DIR / f"{kind}.schema.json").read_text())
            data = yaml.safe_load((PACKS / pack / f"{kind}.yaml").read_text())
            jsonschema.validate(data, schema)
    programs = json.loads((SCHEMAS_DIR / "programs.schema.json").read_text())
    bad = yaml.safe_load((TOY_PACK / "programs.yaml").read_text())
    bad["programs"]["inspect"]["log_parsin"] = {}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, programs)

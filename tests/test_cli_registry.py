"""The command registry: `agentcycle --help` lists every command without importing any
command module, and every registered command loads and shows its own help."""

from __future__ import annotations

import subprocess

import pytest
from conftest import cli_command
from typer.testing import CliRunner

from agentcycle.cli.main import COMMANDS, app


def test_root_help_lists_every_command_and_imports_none() -> None:
    probe = (
        "import sys; from typer.testing import CliRunner; from agentcycle.cli.main import app; "
        "out = CliRunner().invoke(app, ['--help']).output; "
        "print(sorted(m for m in sys.modules if m.startswith('agentcycle.cli.') "
        "and m != 'agentcycle.cli.main')); "
        "print(sorted(m for m in ('prefect', 'torch', 'lancedb', 'duckdb') if m in sys.modules)); "
        "print(out)"
    )
    done = subprocess.run([cli_command()[0], "-c", probe], capture_output=True, text=True,
                          timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    loaded, heavy, help_text = done.stdout.split("\n", 2)
    assert loaded == "[]" and heavy == "[]"
    listed = [line.split()[1] for line in help_text.splitlines() if line.startswith("│ ")]
    assert [name for name in listed if name in COMMANDS] == list(COMMANDS)


HEAVY = ("prefect", "torch", "lancedb", "duckdb", "langgraph", "dask")


def test_each_commands_help_loads_no_heavy_library() -> None:
    """`agentcycle run --help` took ~3 s loading Prefect, LangGraph and LanceDB that help
    never uses: each command's module imports them when the command runs."""
    probe = (
        "import sys; from typer.testing import CliRunner; from agentcycle.cli.main import app; "
        "shown = CliRunner().invoke(app, [sys.argv[1], '--help']); "
        f"print(shown.exit_code, sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    found = {}
    for name in COMMANDS:
        done = subprocess.run([cli_command()[0], "-c", probe, name], capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        found[name] = done.stdout.strip() or done.stderr[-300:]
    assert found == dict.fromkeys(COMMANDS, "0 []"), found


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_command_loads_with_its_own_help(name: str) -> None:
    shown = CliRunner().invoke(app, [name, "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert f"agentcycle {name}" in shown.output
    loaded = COMMANDS[name].load(name)
    first_words = " ".join(COMMANDS[name].help.split()[:3])
    assert first_words in " ".join((loaded.help or "").split()), (name, loaded.help)


def test_unknown_command_is_one_line_with_a_suggestion() -> None:
    done = subprocess.run(cli_command("rn"), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert lines[0].endswith(": No such command 'rn'. Did you mean 'run'?"), lines[0]


@pytest.mark.parametrize("options", [
    ["--workers", "2", "--dask-address", "tcp://127.0.0.1:8786"],
    ["--dask-address", "http://x y"],
])
def test_a_bad_eval_option_is_refused_before_a_heavy_library_loads(options: list[str]) -> None:
    """`eval` read its suite and imported the flow (Prefect, Dask, LanceDB: ~5 s) before
    it checked its own options; a wrong option now answers at once."""
    probe = (
        "import sys; from typer.testing import CliRunner; from agentcycle.cli.main import app; "
        "shown = CliRunner().invoke(app, sys.argv[1:]); "
        f"print(type(shown.exception).__name__, sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run([cli_command()[0], "-c", probe, "eval", "suite.yaml", *options],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.stdout.strip() == "UserError []", done.stdout + done.stderr[-300:]

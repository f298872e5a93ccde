"""`agentcycle ask` on the PHENIX User Guide for real: the answer a person reads first.

The User Guide (read from ../shared at run time) is ingested once into a temporary
home with the real embedding model; the CLI runs the `ask` flow on the session's
Prefect server, rules only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SHARED
from typer.testing import CliRunner

GUIDE = SHARED / "data" / "corpus" / "phenix-agent-docs" / "USER_GUIDE.md"
CORPUS = "docs"


@pytest.fixture(scope="module")
def docs_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if not GUIDE.is_file():
        pytest.skip(f"corpus file not present: {GUIDE}")
    home = tmp_path_factory.mktemp("docs-home")
    source = home / "src"
    source.mkdir()
    (source / GUIDE.name).write_text(GUIDE.read_text())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AGENTCYCLE_HOME", str(home))
        from agentcycle.storage.corpus import ingest

        ingest(CORPUS, [source])
        yield home


def _ask(home: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    import typer

    from agentcycle.cli.ask import ask as ask_command

    monkeypatch.setenv("AGENTCYCLE_HOME", str(home))
    app = typer.Typer()
    app.command()(ask_command)
    app.command("noop")(lambda: None)
    result = CliRunner().invoke(app, ["ask", CORPUS, *args, "--no-memory"])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.slow
def test_max_cycles_answer_reads_as_the_value_with_clean_cited_evidence(
    docs_home: Path, prefect_api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcycle.agent.research.clean import is_clean

    out = _ask(docs_home, monkeypatch, "What is the default value of Max cycles?")
    lines = [line for line in out.splitlines() if line.strip()]
    assert "20" in lines[0] and len(lines[0]) <= 40, out
    evidence = lines[lines.index("Evidence:") + 1 : lines.index("Sources:")]
    assert 1 <= len(evidence) <= 3 and all(line.rstrip().endswith("]") for line in evidence)
    assert is_clean("\n".join(evidence)), evidence
    sources = lines[lines.index("Sources:") + 1 :]
    assert sources and all(s.startswith("[") and "USER_GUIDE.md" in s for s in sources)

    payload = json.loads(
        _ask(docs_home, monkeypatch, "What is the default value of Max cycles?", "--format", "json")
    )
    assert "20" in payload["answer"] and payload["insufficient"] is False
    assert payload["evidence"] and payload["citations"] and 0 < payload["confidence"] <= 1


@pytest.mark.slow
def test_near_miss_question_is_refused(
    docs_home: Path, prefect_api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = json.loads(
        _ask(
            docs_home,
            monkeypatch,
            "What is the default port of the AI Agent's REST server?",
            "--format",
            "json",
        )
    )
    assert payload["insufficient"] is True and payload["citations"] == []
    assert "insufficient evidence" in payload["answer"].lower()

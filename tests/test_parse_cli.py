"""`agentcycle parse`: the real CLI on the real PHENIX logs in ../shared."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import SHARED, cli_command

LOGS = SHARED / "data" / "phenix-logs"
LABELS = json.loads((LOGS / "labels.json").read_text())


def run_parse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cli_command("parse", *args), capture_output=True, text=True, timeout=120, check=False
    )


def as_value(label: str) -> float | bool | str:
    if label in ("True", "False"):
        return label == "True"
    try:
        return float(label)
    except ValueError:
        return label


def test_json_gives_every_labelled_program_and_value() -> None:
    logs = sorted(LOGS.glob("*.log")) + sorted(LOGS.glob("gui/*.log"))
    result = run_parse(*map(str, logs), "--format", "json")
    assert result.returncode == 0, result.stderr
    items = {str(Path(item["log"]).relative_to(LOGS)): item for item in json.loads(result.stdout)}
    assert set(items) == {str(p.relative_to(LOGS)) for p in logs}
    for name, labels in LABELS.items():
        item = items[name]
        assert set(item) == {"log", "program", "metrics", "failed", "failure_reason"}
        if "program" in labels:
            assert item["program"] == labels["program"], name
        if "failed" in labels:
            assert item["failed"] is as_value(labels["failed"]), name
            assert item["failure_reason"]
        for label, value in labels.items():
            if label in ("program", "note", "failed"):
                continue
            key = "_".join(label.lower().split())
            assert item["metrics"][key] == as_value(value), (name, label)


def test_unreadable_logs_are_named_and_the_rest_still_print(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("")
    binary = tmp_path / "binary.log"
    binary.write_bytes(b"\x00\x01\x02 not text")
    latin = tmp_path / "latin.log"
    latin.write_bytes("Clashscore: 1.0 \xe9\n".encode("latin-1"))
    good = LOGS / "molprobity_4_esterase.log"
    missing = tmp_path / "missing.log"
    result = run_parse(
        str(empty), str(good), str(binary), str(latin), str(missing), "--format", "json"
    )
    assert result.returncode == 2
    items = json.loads(result.stdout)
    assert [item["log"] for item in items] == [str(good)]
    assert items[0]["metrics"]["molprobity_score"] == 0.86
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 4
    for path, word in (
        (empty, "empty"),
        (binary, "binary"),
        (latin, "UTF-8"),
        (missing, "no such"),
    ):
        assert any(line.startswith(str(path)) and word in line for line in errors), errors


def test_table_format_names_program_and_status() -> None:
    result = run_parse(str(LOGS / "xtriage_1_err.log"), str(LOGS / "fem_407.log"))
    assert result.returncode == 0, result.stderr
    assert "phenix.xtriage" in result.stdout and "failed" in result.stdout
    assert "(unknown)" in result.stdout  # fem_407 names no program: null, not a guess

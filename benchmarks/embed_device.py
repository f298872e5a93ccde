"""Embedding speed and agreement on every device and precision this machine has.

    .venv/bin/python benchmarks/embed_device.py [--corpus DIR] [--model DIR]
        [--batch-sizes 32,256] [--reference ref.npz] [--save vectors.npz]

Chunks the corpus as `ingest` does (the same file list, the same embed texts), then runs
one subprocess per (device, precision) this machine has: CPU float32 always, CPU
bfloat16 where the CPU multiplies bf16 natively, CUDA float32 and bfloat16 where torch
sees a GPU. Each subprocess picks its device through `AGENTCYCLE_EMBED_DEVICE`, as a user
would, loads the model, embeds every chunk at each batch size (ingest uses 32) and 50
single queries (as `ask` embeds a question), and saves its vectors.

Prints, per configuration: where the model really ran, load seconds, chunks/s per batch
size, the median single-query milliseconds, and the lowest cosine of any chunk's vector
to CPU float32's here and (with --reference, vectors another machine saved with
--save) to that machine's. The first lines say what `auto` picks on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_CORPUS = SHARED / "data" / "corpus"
QUERIES = 50


def corpus_texts(corpus: Path) -> tuple[list[str], list[str]]:
    """(chunk hashes, embed texts) of the corpus's distinct chunks, in ingest's order."""
    from agentcycle.storage.chunking import SkipFile, chunk_document, parse_file
    from agentcycle.storage.corpus_files import discover

    files, _, _ = discover([corpus])
    texts: dict[str, str] = {}
    for source in files:
        try:
            chunks = chunk_document(parse_file(source.path))
        except SkipFile:
            continue
        for chunk in chunks:
            texts.setdefault(chunk.hash, chunk.embed_text)
    return list(texts), list(texts.values())


def configurations() -> list[tuple[str, str]]:
    """(device, precision) pairs worth timing here."""
    import torch

    from agentcycle.storage.embedding import cpu_has_bf16

    found = [("cpu", "float32")] + ([("cpu", "bfloat16")] if cpu_has_bf16() else [])
    if torch.cuda.is_available():
        found += [("cuda", "float32")]
        found += [("cuda", "bfloat16")] if torch.cuda.is_bf16_supported() else []
    return found


def measure_one(texts_file: Path, out: Path, model_path: str | None,
                batch_sizes: list[int]) -> None:
    """In a fresh process: load where the environment says, time, save vectors."""
    from agentcycle.storage.embedding import (
        DEFAULT_MODEL,
        EmbeddingModel,
        embed,
        embed_device,
        embed_dtype,
        get_model,
    )

    texts = json.loads(texts_file.read_text())
    dtype = embed_dtype()
    model = DEFAULT_MODEL if model_path is None else EmbeddingModel("bench", model_path)
    started = time.perf_counter()
    loaded = get_model(dtype, model.path)
    load_s = time.perf_counter() - started
    embed(texts[:64], dtype=dtype, model=model)  # warm-up: kernels, allocator, threads
    rates, vectors = {}, None
    for batch in batch_sizes:
        started = time.perf_counter()
        vectors = embed(texts, batch_size=batch, dtype=dtype, model=model)
        rates[batch] = len(texts) / (time.perf_counter() - started)
    single = []
    for text in texts[:QUERIES]:
        started = time.perf_counter()
        embed([text[:200]], dtype=dtype, model=model)
        single.append((time.perf_counter() - started) * 1000)
    np.save(out, vectors)
    report = {"asked": embed_device(), "ran_on": str(loaded.device), "load_s": load_s,
              "rates": rates, "query_ms": statistics.median(single)}
    out.with_suffix(".json").write_text(json.dumps(report))


def lowest_cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.min(np.sum(a * b, axis=1)))


def machine_line() -> str:
    import platform

    import torch

    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return (f"{platform.machine()}, {os.cpu_count()} CPUs, torch {torch.__version__}, "
            f"{gpu}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--model", help="a sentence-transformers folder (default: packaged)")
    parser.add_argument("--batch-sizes", default="32,256")
    parser.add_argument("--reference", type=Path, help="vectors saved by --save elsewhere")
    parser.add_argument("--save", type=Path, help="save CPU float32 vectors for --reference")
    parser.add_argument("--one", nargs=2, metavar=("TEXTS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    if args.one:
        measure_one(Path(args.one[0]), Path(args.one[1]), args.model, batch_sizes)
        return 0

    from agentcycle.storage.embedding import embed_device, embed_dtype

    hashes, texts = corpus_texts(args.corpus)
    print(f"machine: {machine_line()}")
    print(f"auto picks: device {embed_device()}, precision {embed_dtype()}")
    print(f"corpus: {args.corpus} — {len(texts)} distinct chunks")
    results: dict[tuple[str, str], tuple[dict, np.ndarray]] = {}
    with tempfile.TemporaryDirectory(prefix="embed-device-") as tmp:
        texts_file = Path(tmp) / "texts.json"
        texts_file.write_text(json.dumps(texts))
        for device, dtype in configurations():
            out = Path(tmp) / f"{device}-{dtype}.npy"
            env = dict(os.environ, AGENTCYCLE_EMBED_DEVICE=device, AGENTCYCLE_EMBED_DTYPE=dtype)
            command = [sys.executable, __file__, "--one", str(texts_file), str(out),
                       "--batch-sizes", args.batch_sizes]
            if args.model:
                command += ["--model", args.model]
            print(f"  timing {device} {dtype} …", flush=True)
            subprocess.run(command, env=env, check=True, timeout=1800)
            results[device, dtype] = (json.loads(out.with_suffix(".json").read_text()),
                                      np.load(out))
    baseline = results["cpu", "float32"][1]
    if args.save:
        np.savez(args.save, hashes=np.asarray(hashes), vectors=baseline)
    reference = None
    if args.reference:
        saved = np.load(args.reference)
        if list(saved["hashes"]) == hashes:
            reference = saved["vectors"]
        else:
            print(f"{args.reference}: other chunks than this corpus's; not compared")
    rate_heads = "".join(f"{f'chunks/s @{b}':>15}" for b in batch_sizes)
    print(f"\n{'device':<8}{'precision':<10}{'ran on':<9}{'load s':>8}{rate_heads}"
          f"{'query ms':>10}{'min cos':>9}{'vs ref':>8}")
    for (device, dtype), (report, vectors) in results.items():
        rates = "".join(f"{report['rates'][str(b)]:>15.0f}" for b in batch_sizes)
        versus = f"{lowest_cosine(vectors, reference):>8.5f}" if reference is not None else ""
        print(f"{device:<8}{dtype:<10}{report['ran_on']:<9}{report['load_s']:>8.2f}{rates}"
              f"{report['query_ms']:>10.1f}{lowest_cosine(vectors, baseline):>9.5f}{versus}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

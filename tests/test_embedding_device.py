"""The embedding device follows the hardware unless AGENTCYCLE_EMBED_DEVICE says otherwise."""

from __future__ import annotations

import pytest

from agentcycle.errors import UserError
from agentcycle.storage import embedding
from agentcycle.storage.embedding import embed_device, embed_dtype, get_model


@pytest.mark.parametrize(("cuda", "expected"), [(False, "cpu"), (True, "cuda")])
def test_auto_follows_what_torch_sees(monkeypatch, cuda: bool, expected: str) -> None:
    monkeypatch.delenv("AGENTCYCLE_EMBED_DEVICE", raising=False)
    assert embed_device(cuda_available=cuda) == expected


def test_override_and_refusals(monkeypatch) -> None:
    monkeypatch.setenv("AGENTCYCLE_EMBED_DEVICE", "cpu")
    assert embed_device(cuda_available=True) == "cpu"
    monkeypatch.setenv("AGENTCYCLE_EMBED_DEVICE", "cuda:1")
    assert embed_device(cuda_available=True) == "cuda:1"
    with pytest.raises(UserError, match="no CUDA device"):
        embed_device(cuda_available=False)
    monkeypatch.setenv("AGENTCYCLE_EMBED_DEVICE", "tpu")
    with pytest.raises(UserError, match="AGENTCYCLE_EMBED_DEVICE"):
        embed_device(cuda_available=False)


def test_real_model_loads_on_the_chosen_device(monkeypatch) -> None:
    monkeypatch.delenv("AGENTCYCLE_EMBED_DEVICE", raising=False)
    import torch

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert get_model().device.type == expected


@pytest.mark.parametrize(("device", "cpu_bf16", "expected"), [
    ("cpu", True, "bfloat16"),    # native bf16 units where the model runs: 1.8x faster
    ("cpu", False, "float32"),
    ("cuda", True, "float32"),    # the host CPU's units say nothing about the GPU's speed
    ("cuda:1", True, "float32"),
])
def test_auto_precision_follows_where_the_model_runs(monkeypatch, device: str, cpu_bf16: bool,
                                                     expected: str) -> None:
    monkeypatch.delenv("AGENTCYCLE_EMBED_DTYPE", raising=False)
    monkeypatch.setattr(embedding, "cpu_has_bf16", lambda: cpu_bf16)  # stands in for cpuinfo
    assert embed_dtype(device=device) == expected
    monkeypatch.setenv("AGENTCYCLE_EMBED_DTYPE", "float32")
    assert embed_dtype(device=device) == "float32"  # an explicit choice always wins
    monkeypatch.setenv("AGENTCYCLE_EMBED_DTYPE", "float16")
    with pytest.raises(UserError, match="AGENTCYCLE_EMBED_DTYPE"):
        embed_dtype(device=device)


def test_auto_precision_here_asks_the_real_hardware(monkeypatch) -> None:
    monkeypatch.delenv("AGENTCYCLE_EMBED_DTYPE", raising=False)
    monkeypatch.delenv("AGENTCYCLE_EMBED_DEVICE", raising=False)
    import torch

    native = embedding.cpu_has_bf16() and not torch.cuda.is_available()
    assert embed_dtype() == ("bfloat16" if native else "float32")

"""The embedding device follows the hardware unless AGENTCYCLE_EMBED_DEVICE says otherwise."""

from __future__ import annotations

import pytest

from agentcycle.errors import UserError
from agentcycle.storage.embedding import embed_device, get_model


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

"""A question set's fixed split: `tune` (tune on it) and `check` (report it).

The split is a hash of the sample id, decided once and never by content, so adding a
question never moves another one and nobody can tune on `check` by accident.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, Literal

Split = Literal["tune", "check"]
TUNE_SHARE = 0.60


def split_of(sample_id: str, tune_share: float = TUNE_SHARE) -> Split:
    """'tune' for about `tune_share` of ids, 'check' for the rest (SHA-256 of the id)."""
    digest = int(hashlib.sha256(sample_id.encode("utf-8")).hexdigest()[:8], 16)
    return "tune" if digest / 0xFFFFFFFF < tune_share else "check"


def select(samples: Iterable[Any], split: str) -> list[Any]:
    """The samples of one split ('all' keeps every sample); samples are dicts or models."""
    chosen = []
    for sample in samples:
        sample_id = sample["id"] if isinstance(sample, dict) else sample.id
        if split == "all" or split_of(sample_id) == split:
            chosen.append(sample)
    return chosen

"""Statistics of evaluation runs: accuracy with standard errors, percentiles, McNemar.

Pure functions over sample rows (dicts as `eval_samples` holds them), so they are
tested without a store or Prefect. With tens of questions a difference in accuracy
alone is mostly noise: runs are compared sample by sample and McNemar's exact test on
the discordant pairs (right in one run, wrong in the other) says whether it is not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from scipy.stats import binomtest

TYPES = ("simple", "multi_hop", "mc", "unanswerable", "scenario")
REGRESSION_ALPHA = 0.05


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (`q` in 0–1); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def binomial_se(p: float, n: int) -> float:
    """Standard error of a proportion `p` measured on `n` samples (0 for none)."""
    return math.sqrt(p * (1 - p) / n) if n else 0.0


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy per type with its binomial standard error, grounding, latency, calls."""
    by_type: dict[str, dict[str, Any]] = {}
    for kind in sorted(
        {r["sample_type"] for r in rows},
        key=lambda k: (TYPES.index(k) if k in TYPES else len(TYPES), k),
    ):
        marks = [bool(r["correct"]) for r in rows if r["sample_type"] == kind]
        p = sum(marks) / len(marks)
        by_type[kind] = {
            "n": len(marks),
            "correct": sum(marks),
            "accuracy": p,
            "se": binomial_se(p, len(marks)),
        }
    n = len(rows)
    correct = sum(bool(r["correct"]) for r in rows)
    accuracy = correct / n if n else 0.0
    grounded = [r["grounded"] for r in rows if r.get("grounded") is not None]
    latencies = [r["latency_s"] for r in rows if r["error"] is None]
    llm_calls = [r.get("llm_calls") or 0 for r in rows]
    calls = [llm + (r.get("retrieval_calls") or 0) for llm, r in zip(llm_calls, rows, strict=True)]
    return {
        "samples": n,
        "correct": correct,
        "accuracy": accuracy,
        "se": binomial_se(accuracy, n),
        "by_type": by_type,
        "errors": sum(r["error"] is not None for r in rows),
        "grounding_rate": sum(grounded) / len(grounded) if grounded else None,
        "latency_p50": percentile(latencies, 0.5),
        "latency_p95": percentile(latencies, 0.95),
        "mean_latency_s": sum(latencies) / len(latencies) if latencies else 0.0,
        "calls_per_question": sum(calls) / n if n else 0.0,
        "llm_calls_per_question": sum(llm_calls) / n if n else 0.0,
        "llm_failed_calls": sum(r.get("llm_failed_calls") or 0 for r in rows),
        "llm_fallbacks": sum(r.get("llm_fallbacks") or 0 for r in rows),
    }


def mcnemar_p(fixed: int, broken: int) -> float:
    """McNemar's exact two-sided p over the discordant pairs (1 when there are none)."""
    discordant = fixed + broken
    return binomtest(fixed, discordant, 0.5).pvalue if discordant else 1.0


def compare(
    run_a: str, rows_a: list[dict[str, Any]], run_b: str, rows_b: list[dict[str, Any]]
) -> dict[str, Any]:
    """Per-type deltas, McNemar's exact p over shared samples, and the flipped samples."""
    a = {r["sample_id"]: r for r in rows_a}
    b = {r["sample_id"]: r for r in rows_b}
    shared = sorted(set(a) & set(b))
    fixed = [s for s in shared if not a[s]["correct"] and b[s]["correct"]]
    broken = [s for s in shared if a[s]["correct"] and not b[s]["correct"]]
    p_value = mcnemar_p(len(fixed), len(broken))
    sum_a = summarise([a[s] for s in shared]) if shared else None
    sum_b = summarise([b[s] for s in shared]) if shared else None
    deltas = {}
    if sum_a and sum_b:
        for kind in sorted(set(sum_a["by_type"]) | set(sum_b["by_type"])):
            acc_a = sum_a["by_type"].get(kind, {}).get("accuracy")
            acc_b = sum_b["by_type"].get(kind, {}).get("accuracy")
            deltas[kind] = {
                "a": acc_a,
                "b": acc_b,
                "delta": None if acc_a is None or acc_b is None else acc_b - acc_a,
            }
    acc_a = sum_a["accuracy"] if sum_a else 0.0
    acc_b = sum_b["accuracy"] if sum_b else 0.0
    return {
        "run_a": run_a,
        "run_b": run_b,
        "shared": len(shared),
        "accuracy_a": acc_a,
        "accuracy_b": acc_b,
        "delta": acc_b - acc_a,
        "by_type": deltas,
        "fixed": fixed,
        "broken": broken,
        "p_value": p_value,
        "regressed": acc_b < acc_a and p_value < REGRESSION_ALPHA,
    }

"""Calibration of a support judge on labelled (claim, evidence, label) pairs: balanced
accuracy at the judge's own verdicts, ROC AUC of its scores, the threshold that would be
best on these pairs, a confusion matrix, a reliability table, and pairs per second.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from citeaudit.core import SupportJudge
from citeaudit.errors import InputError

__all__ = ["LabelledPair", "calibrate", "read_pairs"]

BINS = 10


class LabelledPair(NamedTuple):
    """A claim, the evidence it is judged against, and whether the evidence supports it."""

    claim: str
    evidence: str
    label: bool


def read_pairs(path: str, max_bytes: int) -> list[LabelledPair]:
    """Labelled pairs from JSONL (``{"claim", "evidence", "label": 1 | 0}``); a bad line is an
    input error naming it.
    """
    try:
        data = Path(path).read_bytes() if Path(path).stat().st_size <= max_bytes else None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", origin=path) from None
    if data is None:
        raise InputError(f"input is over the limit of {max_bytes} bytes", origin=path)
    pairs = []
    for number, line in enumerate(data.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise InputError(f"invalid JSON: {str(error).split(': line ')[0]}", origin=path,
                             place=f"line {number}") from None
        if not isinstance(row, dict) or not isinstance(row.get("claim"), str) or \
                not isinstance(row.get("evidence"), str) or row.get("label") not in (0, 1) or \
                isinstance(row.get("label"), float):
            raise InputError('a pair is {"claim": str, "evidence": str, "label": 1 | 0}',
                             origin=path, place=f"line {number}")
        pairs.append(LabelledPair(row["claim"], row["evidence"], row["label"] == 1))
    if not pairs or all(p.label for p in pairs) or not any(p.label for p in pairs):
        raise InputError("calibration needs pairs of both labels", origin=path)
    return pairs


def _balanced(predicted: Sequence[bool], labels: Sequence[bool]) -> float:
    tp = sum(1 for p, y in zip(predicted, labels, strict=True) if p and y)
    tn = sum(1 for p, y in zip(predicted, labels, strict=True) if not p and not y)
    positives = sum(labels)
    negatives = len(labels) - positives
    return (tp / positives + tn / negatives) / 2


def _auc(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """ROC AUC by ranks (Mann-Whitney U), ties sharing their average rank."""
    order = sorted(range(len(scores)), key=scores.__getitem__)
    ranks = [0.0] * len(scores)
    index = 0
    while index < len(order):
        end = index
        while end + 1 < len(order) and scores[order[end + 1]] == scores[order[index]]:
            end += 1
        for position in range(index, end + 1):
            ranks[order[position]] = (index + end) / 2 + 1
        index = end + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    rank_sum = sum(rank for rank, label in zip(ranks, labels, strict=True) if label)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def calibrate(pairs: Sequence[LabelledPair], judge: SupportJudge) -> dict[str, Any]:
    """How well ``judge`` separates supported from unsupported pairs."""
    start = time.perf_counter()
    judgements = judge.judge([(p.claim, [("evidence", p.evidence)]) for p in pairs])
    elapsed = time.perf_counter() - start
    labels = [p.label for p in pairs]
    scores = [j.score for j in judgements]
    verdicts = [j.supported for j in judgements]
    best_threshold, best = judge.threshold, -1.0
    for threshold in sorted(set(scores)):
        value = _balanced([s >= threshold for s in scores], labels)
        if value > best:
            best_threshold, best = threshold, value
    confusion = {
        "true_positive": sum(1 for v, y in zip(verdicts, labels, strict=True) if v and y),
        "false_positive": sum(1 for v, y in zip(verdicts, labels, strict=True) if v and not y),
        "true_negative": sum(1 for v, y in zip(verdicts, labels, strict=True)
                             if not v and not y),
        "false_negative": sum(1 for v, y in zip(verdicts, labels, strict=True) if not v and y),
    }
    reliability = []
    for b in range(BINS):
        members = [(s, y) for s, y in zip(scores, labels, strict=True)
                   if min(int(s * BINS), BINS - 1) == b]
        if members:
            reliability.append({"bin": [b / BINS, (b + 1) / BINS], "pairs": len(members),
                                "mean_score": sum(s for s, _ in members) / len(members),
                                "supported": sum(y for _, y in members) / len(members)})
    return {
        "judge": judge.name, "n": len(pairs),
        "threshold": judge.threshold,
        "balanced_accuracy": _balanced(verdicts, labels),
        "roc_auc": _auc(scores, labels),
        "best_threshold": best_threshold,
        "best_balanced_accuracy": best,
        "pairs_per_second": len(pairs) / elapsed if elapsed else None,
        "confusion": confusion,
        "reliability": reliability,
    }

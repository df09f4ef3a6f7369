"""Per-answer citation metrics.

* precision = valid unique cited ids / unique cited ids (1.0 when nothing is cited: no cited id
  is wrong; the missing citation is a finding, and recall is 0);
* recall = relevant ids that are cited / relevant ids (relevant: the gold ids when given, else
  every retrieved id; 0.0 when there are none);
* f1 = harmonic mean of precision and recall;
* weighted_coverage = weight of cited sources / weight of all sources (weights: ``score`` when
  every source has one, else ``1 / rank`` when every source has a rank, else equal);
* claim_coverage = claims with at least one valid citation / claims;
* out_of_range_score = 1 - out-of-range citations / citations (1.0 when nothing is cited);
* with a support judge, support_recall and support_precision (ALCE, see
  :mod:`citeaudit.support.alce`).

A refusal or an answer with no claims is the ``no_evidence`` outcome: its ratios are ``None``,
never NaN and never a silent 1.0 or 0.
"""

from __future__ import annotations

from collections.abc import Collection
from operator import itemgetter
from typing import Any, NamedTuple, cast

from citeaudit.core._checks import Context

__all__ = ["Metrics", "compute_metrics"]


class Metrics(NamedTuple):
    """Citation metrics for one answer. Ratios are in [0, 1], or ``None`` for no_evidence.

    A named tuple: built on every audit, at a sixth of a frozen dataclass's cost.
    """

    precision: float | None
    recall: float | None
    f1: float | None
    weighted_coverage: float | None
    claim_coverage: float | None
    out_of_range_score: float | None
    citations: int
    cited_ids: int
    valid_cited_ids: int
    claims: int
    claims_covered: int
    retrieved: int
    relevant: int
    # ALCE citation recall and precision by the support judge (None without one).
    support_recall: float | None = None
    support_precision: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, ratios rounded to 6 decimals."""
        data = dict(zip(self._fields, self, strict=True))
        for name in _RATIOS:
            value = data[name]
            if value is not None:
                data[name] = round(value, 6)
        return data


# The fields that hold ratios (floats, or None): every other one counts.
_RATIOS = tuple(name for name, kind in Metrics.__annotations__.items()
                if "float" in getattr(kind, "__forward_arg__", str(kind)))


_SOURCE_ID = itemgetter(0)  # of a Citation: read in C, no Python frame per citation
_CLAIM = itemgetter(1)


def compute_metrics(context: Context, relevant: Collection[str] | None = None) -> Metrics:
    """Metrics for one audited answer."""
    answer = context.answer
    snapshot = context.snapshot
    citations = answer.citations
    cited = set(map(_SOURCE_ID, citations))
    out_of_range = 0
    if None not in context.resolved:  # the common case: every citation resolved
        valid = cast(set[str], set(context.resolved))
        valid_written = cited
        covered = set(map(_CLAIM, citations))
        covered.discard(None)
    else:
        valid, valid_written, covered = set(), set(), set[int | None]()
        for citation, resolved in zip(citations, context.resolved, strict=True):
            if resolved is not None:
                valid.add(resolved)
                valid_written.add(citation.source_id)
                if citation.claim is not None:
                    covered.add(citation.claim)
            elif context.out_of_range(citation):
                out_of_range += 1
    wanted = set(relevant) if relevant is not None else None
    wanted_count = len(wanted) if wanted is not None else len(snapshot)
    counts = (len(answer.citations), len(cited), len(valid_written), len(answer.claims),
              len(covered), len(snapshot), wanted_count)
    if answer.refusal or not answer.claims:
        return Metrics(None, None, None, None, None, None, *counts)
    precision = len(valid_written) / len(cited) if cited else 1.0
    hits = len(valid & wanted) if wanted is not None else len(valid)
    recall = hits / wanted_count if wanted_count else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    claim_coverage = len(covered) / len(answer.claims)
    out_of_range_score = 1.0 - out_of_range / len(answer.citations) if answer.citations else 1.0
    return Metrics(precision, recall, f1, _weighted(context, valid), claim_coverage,
                   out_of_range_score, *counts)


def _weighted(context: Context, valid: set[str]) -> float:
    weights = context.snapshot.weights
    if not valid:
        return 0.0
    if weights is None:
        return len(valid) / len(context.snapshot)  # equal weights
    return min(1.0, sum(weights[i] for i in valid))

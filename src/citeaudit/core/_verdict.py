"""The verdict, defined once: an answer passes when nothing is wrong with it that was asked
about. Every command (``check``, ``render``, ``guard``, ``eval``, ``replay``) reads it from here.

* An error-severity finding fails it (seeds: PASS means no error finding).
* Thresholds on precision and recall apply only when they are set (flag or configuration),
  and never to a ``no_evidence`` outcome (nothing cited, nothing to measure).
* A record labelled ``answerable`` fails when it refuses; one labelled not answerable fails
  when it answers. Unlabelled refusals pass (and are counted as ``no_evidence``).

Each failure is a reason in words ("CA202 out-of-range", "recall 0.33 < min-recall 0.50",
"refused an answerable question"); :func:`reason_key` groups reasons across records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from citeaudit.core._rules import RULES

__all__ = ["ANSWERED_UNANSWERABLE", "REFUSED_ANSWERABLE", "reason_key", "reasons",
           "threshold_reasons"]

REFUSED_ANSWERABLE = "refused an answerable question"
ANSWERED_UNANSWERABLE = "answered an unanswerable question"
_THRESHOLD = re.compile(r"(precision|recall) [0-9.]+ < (min-precision|min-recall) ([0-9.]+)")
_TIMES = re.compile(r" ×[0-9]+$")


def threshold_reasons(precision: float | None, recall: float | None,
                      min_precision: float | None, min_recall: float | None) -> list[str]:
    """The thresholds a measured answer misses (a ratio that was not measured misses
    nothing).
    """
    missed = []
    if min_precision is not None and precision is not None and precision < min_precision:
        missed.append(f"precision {precision:.2f} < min-precision {min_precision:.2f}")
    if min_recall is not None and recall is not None and recall < min_recall:
        missed.append(f"recall {recall:.2f} < min-recall {min_recall:.2f}")
    return missed


def reasons(error_codes: Iterable[str], status: str, precision: float | None,
            recall: float | None, *, min_precision: float | None = None,
            min_recall: float | None = None, answerable: bool | None = None) -> list[str]:
    """Why an audited answer fails (nothing: it passes). ``error_codes`` are the codes of its
    error-severity findings, one per finding.
    """
    counts: dict[str, int] = {}
    for code in error_codes:
        counts[code] = counts.get(code, 0) + 1
    if not counts and answerable is None and min_precision is None and min_recall is None:
        return []  # the common case, on every audit: nothing to say
    found = []
    for code, count in sorted(counts.items()):
        rule = RULES.get(code)
        name = f"{code} {rule.name}" if rule is not None else code
        found.append(name if count == 1 else f"{name} ×{count}")
    refused = status == "no_evidence"
    if not refused:
        found += threshold_reasons(precision, recall, min_precision, min_recall)
    if answerable is True and refused:
        found.append(REFUSED_ANSWERABLE)
    elif answerable is False and not refused:
        found.append(ANSWERED_UNANSWERABLE)
    return found


def reason_key(reason: str) -> str:
    """What a reason has in common with the same reason of other records: the counts and
    measured values left out ("recall 0.33 < min-recall 0.50" → "recall < min-recall 0.5").
    """
    threshold = _THRESHOLD.fullmatch(reason)
    if threshold is not None:
        return f"{threshold[1]} < {threshold[2]} {float(threshold[3]):g}"
    return _TIMES.sub("", reason)

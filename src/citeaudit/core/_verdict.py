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
from typing import TYPE_CHECKING

from citeaudit.core._rules import RULES

if TYPE_CHECKING:
    from citeaudit.core._metrics import Metrics

__all__ = ["ANSWERED_UNANSWERABLE", "REFUSED_ANSWERABLE", "reason_key", "reasons",
           "threshold_reasons"]

REFUSED_ANSWERABLE = "refused an answerable question"
ANSWERED_UNANSWERABLE = "answered an unanswerable question"
# The measured value, the threshold, then (optionally) what was counted, in parentheses.
_THRESHOLD = re.compile(r"(precision|recall) [0-9.]+ < (min-precision|min-recall) ([0-9.]+)"
                        r"(?: \(.*\))?")
_TIMES = re.compile(r" ×[0-9]+$")


def threshold_reasons(precision: float | None, recall: float | None,
                      min_precision: float | None, min_recall: float | None, *,
                      metrics: Metrics | None = None, gold: bool = False,
                      defaults: tuple[bool, bool] = (False, False)) -> list[str]:
    """The thresholds a measured answer misses (a ratio that was not measured misses
    nothing). Given the answer's ``metrics``, each says what was counted ("cited 1 of 4
    retrieved passages"; ``gold``: of the record's relevant ids); ``defaults`` (precision,
    recall) marks a threshold nobody set, and the reason then names the option that sets it.
    """
    missed = []
    if min_precision is not None and precision is not None and precision < min_precision:
        counted = None if metrics is None else (
            f"{metrics.valid_cited_ids} of {metrics.cited_ids} cited ids name a retrieved"
            " passage")
        missed.append(f"precision {precision:.2f} < min-precision {min_precision:.2f}"
                      + _why(counted, "min-precision", default=defaults[0]))
    if min_recall is not None and recall is not None and recall < min_recall:
        counted = None if metrics is None else (
            f"cited {round(recall * metrics.relevant)} of {metrics.relevant}"
            f" {'relevant' if gold else 'retrieved'} passages")
        missed.append(f"recall {recall:.2f} < min-recall {min_recall:.2f}"
                      + _why(counted, "min-recall", default=defaults[1]))
    return missed


def _why(counted: str | None, option: str, *, default: bool) -> str:
    """What a missed threshold counted and, for a default one, how to change it; never
    "; " inside (an evaluator's reason joins its missed thresholds with it).
    """
    parts = [counted] if counted else []
    if default:
        parts.append(f"the default threshold: change it with --{option} or {option} in the"
                     " configuration")
    return f" ({', '.join(parts)})" if parts else ""


def reasons(error_codes: Iterable[str], status: str, precision: float | None,
            recall: float | None, *, min_precision: float | None = None,
            min_recall: float | None = None, answerable: bool | None = None,
            metrics: Metrics | None = None) -> list[str]:
    """Why an audited answer fails (nothing: it passes). ``error_codes`` are the codes of its
    error-severity findings, one per finding; given ``metrics``, a missed threshold says what
    was counted.
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
        found += threshold_reasons(precision, recall, min_precision, min_recall,
                                   metrics=metrics)
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

"""What evaluation frameworks hand over and keep: passages as lists of texts (with ids or
without), and an audit as one score per measure and a reason.

The measures, each in [0, 1]:

* ``verdict``: 1.0 when the audit passes, else 0.0;
* ``precision``, ``recall``, ``f1``, ``claim_coverage``: the report's metrics;
* ``valid_ids``: 1.0 when no cited id is unknown (CA201) or out of range (CA202), else 0.0:
  whether the answer made up a source.

An answer with nothing to cite (an accepted refusal, an answer without claims) has no
ratios; it scores its verdict on each of them, so a refusal the policy accepts is not
punished and one it rejects is not rewarded.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal, get_args

from citeaudit.core import Report
from citeaudit.errors import InputError

__all__ = ["MEASURES", "Measure", "measure_of", "passages_of", "reason_of", "rebased",
           "score_of", "scores_of"]

Measure = Literal["verdict", "f1", "precision", "recall", "claim_coverage", "valid_ids"]
MEASURES: Final[tuple[Measure, ...]] = get_args(Measure)

_FINDINGS_SHOWN = 5
_MADE_UP = frozenset({"CA201", "CA202"})


def scores_of(report: Report) -> dict[Measure, float]:
    """Every measure of one audit."""
    verdict = 1.0 if report.passed else 0.0
    metrics = report.metrics
    ratios: dict[Measure, float | None] = {
        "f1": metrics.f1, "precision": metrics.precision, "recall": metrics.recall,
        "claim_coverage": metrics.claim_coverage}
    scores: dict[Measure, float] = {"verdict": verdict}
    for name, value in ratios.items():
        scores[name] = verdict if value is None else float(value)
    scores["valid_ids"] = 0.0 if any(f.code in _MADE_UP for f in report.findings) else 1.0
    return scores


def score_of(report: Report, measure: Measure) -> float:
    """One measure of one audit."""
    return scores_of(report)[measure]


def measure_of(measure: str) -> Measure:
    """``measure`` checked against the measures' names (a ``ValueError`` naming them)."""
    for known in MEASURES:
        if measure == known:
            return known
    raise ValueError(f"unknown measure {measure!r}; choose one of {', '.join(MEASURES)}")


def reason_of(report: Report) -> str:
    """One line saying why the audit passed or failed: the verdict, then the findings
    (the first few, each with its code and severity).
    """
    metrics = report.metrics
    head = f"citations {'hold' if report.passed else 'do not hold'}: {report.status}"
    if metrics.precision is not None:
        head += (f", precision {metrics.precision:.2f}, recall {metrics.recall or 0.0:.2f},"
                 f" {metrics.claims_covered}/{metrics.claims} claims cited")
    parts = [head]
    parts += [f"{f.code} {f.severity.value}: {f.message}"
              for f in report.findings[:_FINDINGS_SHOWN]]
    if len(report.findings) > _FINDINGS_SHOWN:
        parts.append(f"and {len(report.findings) - _FINDINGS_SHOWN} more findings")
    if not report.findings:
        parts += list(report.reasons)
    return "; ".join(parts)


def passages_of(texts: Any, ids: Any, *, origin: str, field: str, ids_field: str,
                ) -> list[Any]:
    """The sources to audit against: the texts, cited by position (``[1]`` is the first),
    or, with ``ids`` (one per text), by id. An error names the field and the item.
    """
    if texts is None:
        raise InputError("no passages to audit against", origin=origin, place=f"$.{field}")
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InputError(f"passages must be a list of strings, not {type(texts).__name__}",
                         origin=origin, place=f"$.{field}")
    for position, text in enumerate(texts):
        if not isinstance(text, str):
            raise InputError(f"a passage must be a string, not {type(text).__name__}",
                             origin=origin, place=f"$.{field}[{position}]")
    if ids is None:
        return list(texts)
    if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence):
        raise InputError(f"ids must be a list, not {type(ids).__name__}", origin=origin,
                         place=f"$.{ids_field}")
    if len(ids) != len(texts):
        raise InputError(f"{len(ids)} ids for {len(texts)} passages", origin=origin,
                         place=f"$.{ids_field}")
    return [{"id": str(id_), "text": text} for id_, text in zip(ids, texts, strict=True)]


def rebased(error: InputError, *, origin: str, field: str) -> InputError:
    """``error`` (about sources given as ``$``) placed at ``field`` of the framework's object:
    ``$[1]`` becomes ``$.inputs.sources[1]``.
    """
    place = error.place or "$"
    if place.startswith("$"):
        place = f"$.{field}{place[1:]}"
    return type(error)(error.reason, origin=origin, place=place)

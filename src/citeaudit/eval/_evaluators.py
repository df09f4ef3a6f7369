"""Custom evaluators (seed 003's ``Evaluator``): anything with a ``name`` and
``evaluate(record, report)``, found through the entry-point group ``citeaudit.evaluators``.

An evaluator runs once per audited record, in the same worker as the audit; its verdict is
part of the record's verdict, and the aggregate and report show each evaluator's pass rate
and mean score. A package registers one in its ``pyproject.toml``::

    [project.entry-points."citeaudit.evaluators"]
    min_sources = "my_package.evaluators:MinSources"

The entry point names a class (created with no arguments) or a ready instance. The built-in
``out_of_range`` and ``citation_coverage`` are registered the same way; ``eval`` runs every
evaluator unless told otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, cast, runtime_checkable

from citeaudit.core import Config, Registry, instance_of, threshold_reasons
from citeaudit.errors import ConfigError

if TYPE_CHECKING:
    from citeaudit.core import Metrics, Report
    from citeaudit.eval._records import Record

__all__ = ["EVALUATORS", "CitationCoverage", "Evaluator", "EvaluatorResult", "OutOfRange",
           "load_evaluators"]


class EvaluatorResult(NamedTuple):
    """One evaluator's verdict on one record: pass, a score in [0, 1] and why."""

    passed: bool
    score: float
    reason: str = ""


@runtime_checkable
class Evaluator(Protocol):
    """Judges one audited record."""

    @property
    def name(self) -> str:
        """A short identifier, shown in results, aggregates and reports."""
        ...

    def evaluate(self, record: Record, report: Report) -> EvaluatorResult:
        """The verdict on ``record``, given its citation audit ``report``."""
        ...


class OutOfRange:
    """Seed 003's out-of-range detector: the share of citations that name an id outside the
    snapshot's numbering; passes when there are none.
    """

    name = "out_of_range"

    def evaluate(self, record: Record, report: Report) -> EvaluatorResult:  # noqa: ARG002
        score = report.metrics.out_of_range_score
        if score is None:  # no_evidence: nothing is cited
            return EvaluatorResult(True, 1.0, "nothing cited")
        bad = [f.marker for f in report.findings if f.code == "CA202"]
        return EvaluatorResult(not bad, score, "; ".join(f"{m} out of range" for m in bad
                                                          if m))


class CitationCoverage:
    """Seed 003's pass rule: citation precision >= ``min_precision`` (default 0.9) and
    coverage recall >= ``min_recall`` (default 0.5). The score is F1. A ``no_evidence``
    answer cites nothing and passes (refusals are judged by the ``answerable`` label).
    Its thresholds are ``--min-precision``/``--min-recall`` or the configuration's, and
    ``replay`` applies new ones to stored results.
    """

    name = "citation_coverage"
    DEFAULTS = (0.9, 0.5)

    def __init__(self, min_precision: float | None = None,
                 min_recall: float | None = None) -> None:
        self.min_precision = self.DEFAULTS[0] if min_precision is None else min_precision
        self.min_recall = self.DEFAULTS[1] if min_recall is None else min_recall
        # Which thresholds nobody set: a record failing one is told how to change it.
        self.defaults = (min_precision is None, min_recall is None)

    def configured(self, config: Config) -> CitationCoverage:
        """A copy with the configuration's thresholds, where it sets them."""
        return CitationCoverage(config.min_precision, config.min_recall)

    def evaluate(self, record: Record, report: Report) -> EvaluatorResult:
        metrics = report.metrics
        return self.judge(report.status, metrics.precision, metrics.recall, metrics.f1,
                          metrics=metrics, gold=record.relevant is not None)

    def judge(self, status: str, precision: float | None, recall: float | None,
              f1: float | None, *, metrics: Metrics | None = None,
              gold: bool = False) -> EvaluatorResult:
        """The verdict from the measured ratios (what ``replay`` re-applies); with the
        answer's ``metrics`` its reason says what was counted.
        """
        if status == "no_evidence":
            return EvaluatorResult(True, 1.0, "nothing cited")
        missed = threshold_reasons(precision, recall, self.min_precision, self.min_recall,
                                   metrics=metrics, gold=gold, defaults=self.defaults)
        if precision is None:
            missed.insert(0, "nothing cited")
        if recall is None:
            missed.append("recall not measured (no relevant ids)")
        return EvaluatorResult(not missed, f1 or 0.0, "; ".join(missed))


def _evaluator(loaded: object) -> Evaluator:
    return cast(Evaluator, instance_of(loaded, Evaluator, (
        "an evaluator has a name and evaluate(record, report)")))


EVALUATORS: Registry[Evaluator] = Registry("evaluators", {
    "out_of_range": f"{__name__}:OutOfRange",
    "citation_coverage": f"{__name__}:CitationCoverage",
}, what="evaluator", validate=_evaluator)


def load_evaluators(names: Sequence[str] | None = None,
                    config: Config | None = None) -> list[Evaluator]:
    """The evaluators named (default: every one, built-in and installed), configured by
    ``config`` where they take configuration (a ``configured(config)`` method).
    """
    wanted = list(EVALUATORS) if names is None else list(dict.fromkeys(names))
    unknown = [name for name in wanted if name not in EVALUATORS]
    if unknown:
        raise ConfigError(f"unknown evaluator {', '.join(unknown)} (installed:"
                          f" {', '.join(sorted(EVALUATORS))})")
    evaluators = [EVALUATORS[name] for name in wanted]
    if config is not None:
        evaluators = [e.configured(config) if hasattr(e, "configured") else e
                      for e in evaluators]
    return evaluators

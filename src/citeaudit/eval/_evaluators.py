"""Custom evaluators (seed 003's ``Evaluator``): anything with a ``name`` and
``evaluate(record, report)``, found through the entry-point group ``citeaudit.evaluators``.

An evaluator runs once per audited record, in the same worker as the audit; its verdict is
part of the record's verdict, and the aggregate and report show each evaluator's pass rate
and mean score. A package registers one in its ``pyproject.toml``::

    [project.entry-points."citeaudit.evaluators"]
    min_sources = "my_package.evaluators:MinSources"

The entry point names a class (created with no arguments) or a ready instance.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from citeaudit.errors import ConfigError

if TYPE_CHECKING:
    from citeaudit.core._engine import Report
    from citeaudit.eval._records import Record

__all__ = ["GROUP", "Evaluator", "EvaluatorResult", "OutOfRange", "load_evaluators"]

GROUP = "citeaudit.evaluators"


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


def load_evaluators(names: Sequence[str] | None = None) -> list[Evaluator]:
    """The evaluators installed under :data:`GROUP`: those named, or all of them, by name."""
    found = {point.name: point for point in entry_points(group=GROUP)}
    wanted = sorted(found) if names is None else list(dict.fromkeys(names))
    unknown = [name for name in wanted if name not in found]
    if unknown:
        known = ", ".join(sorted(found)) or "none"
        raise ConfigError(f"unknown evaluator {', '.join(unknown)} (installed: {known})")
    evaluators: list[Evaluator] = []
    for name in wanted:
        try:
            loaded = found[name].load()
            evaluator = loaded() if isinstance(loaded, type) else loaded
        except Exception as error:  # third-party code: whatever it raises is reported
            raise ConfigError(f"evaluator {name!r} cannot be loaded: {error}") from None
        if not isinstance(evaluator, Evaluator):
            raise ConfigError(f"evaluator {name!r} has no name and evaluate(record, report)")
        evaluators.append(evaluator)
    return evaluators

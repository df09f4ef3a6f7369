"""An example custom evaluator: the answer must cite at least ``minimum`` distinct sources
that were retrieved for it.

Register it in your package's ``pyproject.toml``::

    [project.entry-points."citeaudit.evaluators"]
    min_sources = "min_sources:MinSources"

and ``citeaudit eval`` runs it on every record (``--evaluator min_sources`` runs only it).
"""

from __future__ import annotations

from citeaudit import Report
from citeaudit.eval import EvaluatorResult, Record


class MinSources:
    """Passes when at least ``minimum`` distinct valid sources are cited."""

    name = "min_sources"

    def __init__(self, minimum: int = 2) -> None:
        self.minimum = minimum

    def evaluate(self, record: Record, report: Report) -> EvaluatorResult:
        cited = report.metrics.valid_cited_ids
        return EvaluatorResult(cited >= self.minimum, min(1.0, cited / self.minimum),
                               f"{record.id}: {cited} valid source(s) cited, {self.minimum}"
                               " wanted")

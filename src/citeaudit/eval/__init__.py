"""Dataset evaluation: audit many logged answers, aggregate, gate, replay and report.

``evaluate()`` runs a dataset (JSONL, JSON array or Parquet) through the audit in worker
processes, writes one result per record in input order and builds the aggregate;
``replay()`` re-applies thresholds to stored results (:mod:`citeaudit.report` shows them).
"""

from citeaudit.eval._evaluate import Dataset, evaluate, worst_records
from citeaudit.eval._evaluators import (
    EVALUATORS,
    CitationCoverage,
    Evaluator,
    EvaluatorResult,
    OutOfRange,
    load_evaluators,
)
from citeaudit.eval._records import Record, Unreadable, read_items
from citeaudit.eval._replay import replay, stored_results
from citeaudit.eval._results import Options, Summary
from citeaudit.eval._summary import Aggregate

__all__ = [
    "EVALUATORS",
    "Aggregate",
    "CitationCoverage",
    "Dataset",
    "Evaluator",
    "EvaluatorResult",
    "Options",
    "OutOfRange",
    "Record",
    "Summary",
    "Unreadable",
    "evaluate",
    "load_evaluators",
    "read_items",
    "replay",
    "stored_results",
    "worst_records",
]

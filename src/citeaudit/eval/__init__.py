"""Dataset evaluation: audit many logged answers, aggregate, gate, replay and report.

``evaluate()`` runs a dataset (JSONL, JSON array or Parquet) through the audit in worker
processes, writes one result per record in input order and builds the aggregate;
``replay()`` re-applies thresholds to stored results; ``html_report()`` renders a run.
"""

from citeaudit.eval.evaluate import Dataset, evaluate, worst_records
from citeaudit.eval.evaluators import Evaluator, EvaluatorResult, load_evaluators
from citeaudit.eval.html import html_report
from citeaudit.eval.records import Record, Unreadable, read_items
from citeaudit.eval.replay import replay, stored_results
from citeaudit.eval.results import Options, Summary, passes
from citeaudit.eval.summary import Aggregate

__all__ = [
    "Aggregate",
    "Dataset",
    "Evaluator",
    "EvaluatorResult",
    "Options",
    "Record",
    "Summary",
    "Unreadable",
    "evaluate",
    "html_report",
    "load_evaluators",
    "passes",
    "read_items",
    "replay",
    "stored_results",
    "worst_records",
]

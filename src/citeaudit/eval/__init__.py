"""Dataset evaluation: audit many logged answers, aggregate, gate, replay and report.

``evaluate()`` runs a dataset (JSONL, JSON array or Parquet) through the audit in worker
processes, writes one result per record in input order and builds the aggregate;
``replay()`` re-applies thresholds to stored results (:mod:`citeaudit.report` shows them).
"""

from citeaudit.eval._api import COLUMNS, EvalResults, evaluate_dataset
from citeaudit.eval._diff import FAIL_ON, DiffRun, FailOn, diff_runs, read_run
from citeaudit.eval._evaluate import Dataset, WorstRecord, evaluate, progress_for, worst_records
from citeaudit.eval._evaluators import (
    EVALUATORS,
    CitationCoverage,
    Evaluator,
    EvaluatorResult,
    OutOfRange,
    load_evaluators,
)
from citeaudit.eval._frameworks import (
    MEASURES,
    Measure,
    measure_of,
    passages_of,
    reason_of,
    rebased,
    score_of,
    scores_of,
)
from citeaudit.eval._gates import Gate, gate_line, gate_results, parse_gate
from citeaudit.eval._merge import merge, merged_worst
from citeaudit.eval._records import (
    DATASET_FORMATS,
    RawItem,
    Record,
    Unreadable,
    detect_format,
    line_item,
    read_items,
    row_item,
)
from citeaudit.eval._replay import replay, stored_results
from citeaudit.eval._results import (
    Options,
    Summary,
    new_aggregate,
    result_of,
    run_of,
    summary_of,
    testcase,
)
from citeaudit.eval._runner import audit_batch, default_jobs
from citeaudit.eval._summary import BINS, METRICS, PRECISION_GRID, RECALL_GRID, Aggregate

__all__ = [
    "BINS",
    "COLUMNS",
    "DATASET_FORMATS",
    "EVALUATORS",
    "FAIL_ON",
    "MEASURES",
    "METRICS",
    "PRECISION_GRID",
    "RECALL_GRID",
    "Aggregate",
    "CitationCoverage",
    "Dataset",
    "DiffRun",
    "EvalResults",
    "Evaluator",
    "EvaluatorResult",
    "FailOn",
    "Gate",
    "Measure",
    "Options",
    "OutOfRange",
    "RawItem",
    "Record",
    "Summary",
    "Unreadable",
    "WorstRecord",
    "audit_batch",
    "default_jobs",
    "detect_format",
    "diff_runs",
    "evaluate",
    "evaluate_dataset",
    "gate_line",
    "gate_results",
    "line_item",
    "load_evaluators",
    "measure_of",
    "merge",
    "merged_worst",
    "new_aggregate",
    "parse_gate",
    "passages_of",
    "progress_for",
    "read_items",
    "read_run",
    "reason_of",
    "rebased",
    "replay",
    "result_of",
    "row_item",
    "run_of",
    "score_of",
    "scores_of",
    "stored_results",
    "summary_of",
    "testcase",
    "worst_records",
]

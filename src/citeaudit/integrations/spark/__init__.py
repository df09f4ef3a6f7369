"""The audit on Spark (``pip install 'citeaudit[spark]'``): :func:`audit` turns a DataFrame
of logged answers into a DataFrame of results (:data:`RESULT`: the fields of ``citeaudit
eval``'s results, typed), computed in Arrow batches in the executors; :func:`aggregate`
builds the aggregate ``citeaudit eval`` prints from partial aggregates, not by collecting
rows. ``citeaudit eval DATASET --engine spark`` runs both.
"""

from citeaudit.integrations.spark._engine import aggregate, audit, audit_lines
from citeaudit.integrations.spark._run import spark_eval
from citeaudit.integrations.spark._schema import RESULT, result_of_row

__all__ = [
    "RESULT",
    "aggregate",
    "audit",
    "audit_lines",
    "result_of_row",
    "spark_eval",
]

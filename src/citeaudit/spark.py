"""The audit on Spark, at its documented path: the names of
:mod:`citeaudit.integrations.spark`, where the engine lives beside the other integrations.
Not a moved path: this is the front door, and it stays (``pip install 'citeaudit[spark]'``).
"""

from citeaudit.integrations.spark import (
    RESULT,
    aggregate,
    audit,
    audit_lines,
    result_of_row,
    spark_eval,
)

__all__ = [
    "RESULT",
    "aggregate",
    "audit",
    "audit_lines",
    "result_of_row",
    "spark_eval",
]

"""The audit on Spark (``pip install 'citeaudit[spark]'``) at its documented, lasting path:
the names of :mod:`citeaudit.integrations.spark`, where the engine lives, with no warning.
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

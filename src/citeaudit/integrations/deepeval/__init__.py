"""citeaudit in DeepEval (``pip install 'citeaudit[deepeval]'``): :class:`CitationMetric`, a
``BaseMetric`` that audits a test case's ``actual_output`` against its ``retrieval_context``:
deterministic, microseconds a case, no judge model and no tokens.
"""

from citeaudit.integrations.deepeval._metric import CitationMetric, audit_test_case

__all__ = ["CitationMetric", "audit_test_case"]

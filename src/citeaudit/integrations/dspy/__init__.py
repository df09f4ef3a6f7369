"""citeaudit in DSPy (``pip install 'citeaudit[dspy]'``): a program's ``dspy.Citations``
(character ranges into its Documents) or ``[n]`` markers audited against the documents
it was given, and a metric for DSPy optimizers, so that a program can be optimised for
citation correctness.
"""

from citeaudit.integrations.dspy._metric import answer_of, audit_prediction, citation_metric, metric

__all__ = ["answer_of", "audit_prediction", "citation_metric", "metric"]

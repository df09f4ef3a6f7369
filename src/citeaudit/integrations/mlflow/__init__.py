"""citeaudit in MLflow (``pip install 'citeaudit[mlflow]'``: ``mlflow-skinny`` is enough):
:class:`CitationScorer`, a GenAI scorer for ``mlflow.genai.evaluate`` that audits each
output against the passages in its inputs or in its trace's retriever span: one feedback
per measure, each with the audit's rationale; no judge model, no tokens.
"""

from citeaudit.integrations.mlflow._scorer import CitationScorer, sources_of_trace

__all__ = ["CitationScorer", "sources_of_trace"]

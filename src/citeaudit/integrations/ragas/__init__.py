"""citeaudit in RAGAS (``pip install 'citeaudit[ragas]'``): :class:`CitationScore`, a
single-turn metric that audits a sample's ``response`` against its ``retrieved_contexts``
(by position, or by ``retrieved_context_ids``): deterministic, no LLM, no embeddings.
"""

from citeaudit.integrations.ragas._metric import CitationScore, audit_sample

__all__ = ["CitationScore", "audit_sample"]

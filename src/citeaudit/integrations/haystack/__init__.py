"""citeaudit in Haystack (``pip install 'citeaudit[haystack]'``: ``haystack-ai``):
:class:`CitationGuard`, a component that guards replies or ``AnswerBuilder`` answers against
their documents, and :func:`snapshot_from` for Haystack ``Document`` lists.
"""

from citeaudit.integrations.haystack._component import CitationGuard, snapshot_from

__all__ = ["CitationGuard", "snapshot_from"]

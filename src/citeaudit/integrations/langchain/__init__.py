"""citeaudit in LangChain (``pip install 'citeaudit[langchain]'``: ``langchain-core``).

:func:`snapshot_from` makes retrieved Documents a snapshot and :func:`answer_from` an
``AIMessage`` an answer (its ``citation`` annotations as markers); :func:`audit` audits one,
:func:`guard` is a Runnable for LCEL (``chain | guard(documents=docs)``), and
:class:`CitationAuditHandler` audits every answer of a chain from its callbacks.
"""

from citeaudit.integrations.langchain._chain import Audit, CitationAuditHandler, audit, guard
from citeaudit.integrations.langchain._convert import answer_from, snapshot_from

__all__ = ["Audit", "CitationAuditHandler", "answer_from", "audit", "guard", "snapshot_from"]

"""The built-in answer formats: free ``text``, a ``claims`` list and the ``structured``
answer contract. Each is registered in the ``citeaudit.formats`` registry (see
:class:`~citeaudit.core.AnswerFormat`); provider formats are added the same way.
"""

from citeaudit.formats._claims import ClaimsFormat
from citeaudit.formats._structured import StructuredFormat
from citeaudit.formats._text import TextFormat

TEXT = TextFormat()
CLAIMS = ClaimsFormat()
STRUCTURED = StructuredFormat()

__all__ = ["CLAIMS", "STRUCTURED", "TEXT", "ClaimsFormat", "StructuredFormat", "TextFormat"]

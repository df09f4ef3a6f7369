"""The request path: number passages for the prompt, guard an answer before it is shown,
render verified citations as safe links, and audit an answer (or a provider's events) while
it streams.
"""

from citeaudit.request._chips import Chip, canonical_url
from citeaudit.request._events import EventStream
from citeaudit.request._guard import (
    DEFAULT_FALLBACK,
    POLICIES,
    Guarded,
    Ref,
    Resolution,
    guard,
    resolve,
)
from citeaudit.request._prompt import DEFAULT_CONTRACT, PromptContext, build_context
from citeaudit.request._render import neutralise, render, render_html, render_markdown
from citeaudit.request._stream import StreamAuditor, stream

__all__ = [
    "DEFAULT_CONTRACT",
    "DEFAULT_FALLBACK",
    "POLICIES",
    "Chip",
    "EventStream",
    "Guarded",
    "PromptContext",
    "Ref",
    "Resolution",
    "StreamAuditor",
    "build_context",
    "canonical_url",
    "guard",
    "neutralise",
    "render",
    "render_html",
    "render_markdown",
    "resolve",
    "stream",
]

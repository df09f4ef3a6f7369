"""The request path: number passages for the prompt, guard an answer before it is shown,
render verified citations as safe links, and audit an answer (or a provider's events) while
it streams.
"""

from citeaudit.request._chips import DEFAULT_QUOTE_LENGTH, Chip, canonical_url
from citeaudit.request._events import EventStream, read_events
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
from citeaudit.request._render import (
    FORMATS,
    escape_markdown,
    neutralise,
    render,
    render_html,
    render_markdown,
)
from citeaudit.request._stream import StreamAuditor, stream

__all__ = [
    "DEFAULT_CONTRACT",
    "DEFAULT_FALLBACK",
    "DEFAULT_QUOTE_LENGTH",
    "FORMATS",
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
    "escape_markdown",
    "guard",
    "neutralise",
    "read_events",
    "render",
    "render_html",
    "render_markdown",
    "resolve",
    "stream",
]

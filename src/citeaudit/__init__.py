"""citeaudit: audit the citations in answers from retrieval-augmented generation.

>>> import citeaudit
>>> report = citeaudit.audit("Refunds take 30 days [1].", ["Refunds take 30 days."])
>>> report.status, report.passed
('ok', True)
"""

from citeaudit.answer import Answer, Citation, Claim, parse_answer
from citeaudit.audit import Report, Status, audit, findings_of, iter_findings, prepare
from citeaudit.checks import Check, Context
from citeaudit.chips import Chip, canonical_url
from citeaudit.config import DEFAULT_REFUSAL, Config, load_config
from citeaudit.errors import (
    CiteauditError,
    ConfigError,
    GrammarError,
    InputError,
    OutputError,
    RunError,
    SnapshotError,
)
from citeaudit.findings import Finding, Problem
from citeaudit.grammar import Grammar, Malformed, Marker, get_grammar, infer_grammar
from citeaudit.guard import DEFAULT_FALLBACK, POLICIES, Guarded, Ref, Resolution, guard, resolve
from citeaudit.metrics import Metrics
from citeaudit.prompt import DEFAULT_CONTRACT, PromptContext, build_context
from citeaudit.render import neutralise, render, render_html, render_markdown
from citeaudit.rules import RULES, Rule, Severity
from citeaudit.segment import Segmenter, segment
from citeaudit.sources import Snapshot, Source, load_snapshot
from citeaudit.stream import StreamAuditor, stream

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_CONTRACT",
    "DEFAULT_FALLBACK",
    "DEFAULT_REFUSAL",
    "POLICIES",
    "RULES",
    "Answer",
    "Check",
    "Chip",
    "Citation",
    "CiteauditError",
    "Claim",
    "Config",
    "ConfigError",
    "Context",
    "Finding",
    "Grammar",
    "GrammarError",
    "Guarded",
    "InputError",
    "Malformed",
    "Marker",
    "Metrics",
    "OutputError",
    "Problem",
    "PromptContext",
    "Ref",
    "Report",
    "Resolution",
    "Rule",
    "RunError",
    "Segmenter",
    "Severity",
    "Snapshot",
    "SnapshotError",
    "Source",
    "Status",
    "StreamAuditor",
    "__version__",
    "audit",
    "build_context",
    "canonical_url",
    "findings_of",
    "get_grammar",
    "guard",
    "infer_grammar",
    "iter_findings",
    "load_config",
    "load_snapshot",
    "neutralise",
    "parse_answer",
    "prepare",
    "render",
    "render_html",
    "render_markdown",
    "resolve",
    "segment",
    "stream",
]

"""citeaudit: audit the citations in answers from retrieval-augmented generation.

>>> import citeaudit
>>> report = citeaudit.audit("Refunds take 30 days [1].", ["Refunds take 30 days."])
>>> report.status, report.passed
('ok', True)
"""

from citeaudit.answer import Answer, Citation, Claim, parse_answer
from citeaudit.audit import Report, Status, audit, findings_of, iter_findings, prepare
from citeaudit.checks import Check, Context
from citeaudit.config import DEFAULT_REFUSAL, Config, load_config
from citeaudit.errors import CiteauditError, ConfigError, GrammarError, InputError, SnapshotError
from citeaudit.findings import Finding, Problem
from citeaudit.grammar import Grammar, Malformed, Marker, get_grammar, infer_grammar
from citeaudit.metrics import Metrics
from citeaudit.rules import RULES, Rule, Severity
from citeaudit.segment import Segmenter, segment
from citeaudit.sources import Snapshot, Source, load_snapshot

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_REFUSAL",
    "RULES",
    "Answer",
    "Check",
    "Citation",
    "CiteauditError",
    "Claim",
    "Config",
    "ConfigError",
    "Context",
    "Finding",
    "Grammar",
    "GrammarError",
    "InputError",
    "Malformed",
    "Marker",
    "Metrics",
    "Problem",
    "Report",
    "Rule",
    "Segmenter",
    "Severity",
    "Snapshot",
    "SnapshotError",
    "Source",
    "Status",
    "__version__",
    "audit",
    "findings_of",
    "get_grammar",
    "infer_grammar",
    "iter_findings",
    "load_config",
    "load_snapshot",
    "parse_answer",
    "prepare",
    "segment",
]

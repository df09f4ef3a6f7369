"""The engine: one entry point (:func:`run`) that validates the snapshot, reads the answer,
resolves citations, runs the checks, judges support once and builds the report.

Everything else (the request path, dataset evaluation, the command line, the service and the
adapters) calls this package and nothing beneath it. It imports nothing outside itself but
:mod:`citeaudit.errors`; the layers are checked by import-linter contracts in CI.
"""

from citeaudit.core._answer import (
    FORMATS,
    Answer,
    AnswerFormat,
    Citation,
    Claim,
    Reading,
    parse_answer,
)
from citeaudit.core._checks import CHECKS, Check, Context
from citeaudit.core._config import DEFAULT_REFUSAL, Config, load_config
from citeaudit.core._engine import (
    GrammarSpec,
    Report,
    Status,
    audit,
    findings_of,
    iter_findings,
    prepare,
    report_of,
)
from citeaudit.core._findings import Finding, Problem
from citeaudit.core._grammar import Grammar, Malformed, Marker, get_grammar, infer_grammar
from citeaudit.core._metrics import Metrics
from citeaudit.core._rules import RULES, Rule, Severity
from citeaudit.core._segment import Segmenter, segment
from citeaudit.core._sources import Snapshot, Source, load_snapshot

__all__ = [
    "CHECKS",
    "DEFAULT_REFUSAL",
    "FORMATS",
    "RULES",
    "Answer",
    "AnswerFormat",
    "Check",
    "Citation",
    "Claim",
    "Config",
    "Context",
    "Finding",
    "Grammar",
    "GrammarSpec",
    "Malformed",
    "Marker",
    "Metrics",
    "Problem",
    "Reading",
    "Report",
    "Rule",
    "Segmenter",
    "Severity",
    "Snapshot",
    "Source",
    "Status",
    "audit",
    "findings_of",
    "get_grammar",
    "infer_grammar",
    "iter_findings",
    "load_config",
    "load_snapshot",
    "parse_answer",
    "prepare",
    "report_of",
    "segment",
]

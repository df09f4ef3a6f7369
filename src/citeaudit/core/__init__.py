"""The engine: one entry point (:func:`run`) that validates the snapshot, reads the answer,
resolves citations, runs the checks, judges support once and builds the report.

Everything else (the request path, dataset evaluation, the command line, the service and the
adapters) calls this package and nothing beneath it. It imports nothing outside itself but
:mod:`citeaudit.errors`; the layers are checked by import-linter contracts in CI.
"""

from citeaudit.core._amounts import without_identifiers
from citeaudit.core._answer import (
    FORMATS,
    Answer,
    AnswerFormat,
    AnswerKind,
    Citation,
    Claim,
    Location,
    Reading,
    SourcesAsGiven,
    choose_format,
    citations_of,
    new_answer,
    parse_answer,
    without_markers,
)
from citeaudit.core._checks import CHECKS, Check, Context
from citeaudit.core._config import DEFAULT_REFUSAL, Config, config_with, load_config, parse_severity
from citeaudit.core._engine import (
    GrammarSpec,
    Report,
    Status,
    audit,
    choose_grammar,
    findings_of,
    iter_findings,
    prepare,
    report_of,
    resolve_id,
    run,
)
from citeaudit.core._findings import Finding, Problem
from citeaudit.core._grammar import (
    BracketGrammar,
    Chain,
    Grammar,
    Malformed,
    Marker,
    get_grammar,
    infer_grammar,
    sighting,
)
from citeaudit.core._judging import JUDGES, Judgement, Passage, SupportJudge, get_judge
from citeaudit.core._loading import (
    DEFAULT_MAX_BYTES,
    JSON_STRING,
    MAX_DEPTH,
    decode_json,
    decode_text,
    read_bytes,
    too_deep,
)
from citeaudit.core._metrics import Metrics
from citeaudit.core._native import compiled, core, mode
from citeaudit.core._policy import exempt, list_items, under_cited_lead
from citeaudit.core._refusal import PATTERN_WINDOW, Refusal
from citeaudit.core._registry import Registry, instance_of
from citeaudit.core._rules import RULES, Rule, Severity
from citeaudit.core._segment import Segmenter, Span, code_spans, covered, mask, segment
from citeaudit.core._sources import (
    NO_METADATA,
    Snapshot,
    Source,
    kind_of,
    load_snapshot,
    numbered_ids,
    passage,
)
from citeaudit.core._verdict import reason_key, threshold_reasons

__all__ = [
    "CHECKS",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_REFUSAL",
    "FORMATS",
    "JSON_STRING",
    "JUDGES",
    "MAX_DEPTH",
    "NO_METADATA",
    "PATTERN_WINDOW",
    "RULES",
    "Answer",
    "AnswerFormat",
    "AnswerKind",
    "BracketGrammar",
    "Chain",
    "Check",
    "Citation",
    "Claim",
    "Config",
    "Context",
    "Finding",
    "Grammar",
    "GrammarSpec",
    "Judgement",
    "Location",
    "Malformed",
    "Marker",
    "Metrics",
    "Passage",
    "Problem",
    "Reading",
    "Refusal",
    "Registry",
    "Report",
    "Rule",
    "Segmenter",
    "Severity",
    "Snapshot",
    "Source",
    "SourcesAsGiven",
    "Span",
    "Status",
    "SupportJudge",
    "audit",
    "choose_format",
    "choose_grammar",
    "citations_of",
    "code_spans",
    "compiled",
    "config_with",
    "core",
    "covered",
    "decode_json",
    "decode_text",
    "exempt",
    "findings_of",
    "get_grammar",
    "get_judge",
    "infer_grammar",
    "instance_of",
    "iter_findings",
    "kind_of",
    "list_items",
    "load_config",
    "load_snapshot",
    "mask",
    "mode",
    "new_answer",
    "numbered_ids",
    "parse_answer",
    "parse_severity",
    "passage",
    "prepare",
    "read_bytes",
    "reason_key",
    "report_of",
    "resolve_id",
    "run",
    "segment",
    "sighting",
    "threshold_reasons",
    "too_deep",
    "under_cited_lead",
    "without_identifiers",
    "without_markers",
]

"""The engine's one entry point, :func:`run`, and what is built on it: :func:`audit`,
:func:`iter_findings`, and (outside the engine) the guard, the stream, eval and the CLI.

``run`` validates the snapshot, reads the answer in its format, resolves every citation,
runs the built-in checks and any custom ones, judges support once (the judgements are kept
in the context, read by the CA5xx check and the ALCE metrics alike), computes the metrics
and gives the verdict.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from citeaudit.core._alce import alce
from citeaudit.core._answer import (
    Answer,
    AnswerFormat,
    Citation,
    Reading,
    choose_format,
    unreadable_answer,
)
from citeaudit.core._checks import (
    BUILTIN,
    CHECKS,
    CODES,
    Check,
    Context,
    claim_support,
    judged_passages,
    new_context,
)
from citeaudit.core._config import Config
from citeaudit.core._findings import Finding, Problem, finding_order
from citeaudit.core._grammar import Grammar, get_grammar, infer
from citeaudit.core._metrics import Metrics, compute_metrics
from citeaudit.core._refusal import Refusal
from citeaudit.core._report import Report, Status, new_report
from citeaudit.core._rules import RULES, Rule, Severity
from citeaudit.core._segment import Segmenter, segment
from citeaudit.core._sources import Snapshot, load_snapshot, resolve_id
from citeaudit.core._verdict import reasons as verdict_reasons
from citeaudit.errors import ConfigError, InputError

__all__ = ["Audited", "Report", "Status", "audit", "iter_findings", "prepare", "resolve_id",
           "run"]

GrammarSpec = str | Grammar | Sequence[str | Grammar] | None

_DEFAULT = Config()
# What each rule family establishes, for the report's checked / not checked lists.
_SCOPES = (
    (("CA101",), "marker syntax"),
    (("CA201", "CA202", "CA203"), "cited ids in snapshot"),
    (("CA301", "CA302"), "claims cited"),
    (("CA401", "CA402", "CA403"), "answer-level citation and refusal"),
    (("CA404",), "answer contract"),
)
_SUPPORT = "support (whether a cited passage supports its claim)"


def prepare(answer: Any, sources: Any, *, grammar: GrammarSpec = None,
            refusal: str | Sequence[str] | Refusal | None = None, config: Config | None = None,
            segmenter: Segmenter = segment, answer_format: str | None = None) -> Context:
    """Find the answer's format, validate the snapshot, pick the grammar, parse the answer
    and resolve every citation.

    Raises :class:`~citeaudit.SnapshotError` for a broken snapshot and
    :class:`~citeaudit.GrammarError` for a grammar that cannot be built; everything wrong with
    the answer itself becomes a finding.
    """
    config = config or _DEFAULT
    form = choose_format(answer, answer_format)
    snapshot = load_snapshot(sources) if form is None else form.snapshot(answer, sources)
    reading, why = _reading(answer, snapshot, grammar, refusal, config, segmenter)
    return _prepared(form, answer, snapshot, reading, why, config)


def _reading(answer: Any, snapshot: Snapshot, grammar: GrammarSpec,  # noqa: PLR0917 -- prepare's own arguments
             refusal: str | Sequence[str] | Refusal | None, config: Config,
             segmenter: Segmenter) -> tuple[Reading, str]:
    """How to read an answer, and why its grammar was chosen."""
    spec = grammar if grammar is not None else (config.grammar or None)
    if spec is not None:
        chosen, why, scanned = get_grammar(spec), "asked for", None
    else:
        chosen, why, scanned = infer(snapshot, answer if isinstance(answer, str) else None)
    accepted = config.refusals if refusal is None else Refusal.of(refusal, config.refusal_regex)
    return Reading(chosen, accepted, segmenter, scanned, config.rules, snapshot,
                   config.claim_settings), why


def _prepared(form: AnswerFormat | None, answer: Any, snapshot: Snapshot,  # noqa: PLR0917 -- _reading's two values
              reading: Reading, why: str, config: Config) -> Context:
    parsed = unreadable_answer(answer) if form is None else form.parse(answer, reading)
    return new_context(parsed, snapshot, config, _resolve(parsed, snapshot),
                       reading.grammar.name, why, {})


def choose_grammar(snapshot: Snapshot, grammar: GrammarSpec, config: Config,
                   text: str | None = None) -> Grammar:
    """The grammar asked for (argument, then configuration), else the one inferred from the
    snapshot and ``text`` (see :func:`~citeaudit.core._grammar.infer`).
    """
    spec = grammar if grammar is not None else (config.grammar or None)
    return get_grammar(spec) if spec is not None else infer(snapshot, text).grammar


def _resolve(answer: Answer, snapshot: Snapshot) -> tuple[str | None, ...]:
    return _resolved(answer.citations, snapshot.index, resolve_id, snapshot)


def _resolved(citations: Sequence[Citation], known: Mapping[str, object],
              resolve: Callable[[str, str, Snapshot], str | None], snapshot: Snapshot,
              ) -> tuple[str | None, ...]:
    """The snapshot id each citation names (see :func:`resolve_id`); most cited ids are in
    ``known``, the snapshot's index, as written: one dict lookup.
    """
    found = []
    for citation in citations:
        source_id = citation.source_id
        found.append(source_id if source_id in known else resolve(source_id, citation.prefix,
                                                                   snapshot))
    return tuple(found)


def findings_of(context: Context, checks: Sequence[Check] | None = None) -> list[Finding]:
    """Run the checks (default: the built-in ones) over a prepared context: enabled codes
    only, configured severities, deterministic order (whatever order ``checks`` come in).

    A custom check states problems with rule codes from the rule table, or with codes of its
    own that it declares in a ``rules`` attribute (a sequence of :class:`Rule`, whose
    severity its findings get).
    """
    config = context.config
    enabled = config.enabled
    found: list[Finding] = []
    chosen = _builtin_active(enabled) if checks is None else _active(enabled, checks)
    for check in chosen:
        problems = check(context)
        if problems:  # most checks find nothing
            _collect(found, problems, enabled, config.severity_of, Finding, RULES, _own_finding,
                     check)
    if len(found) > 1:
        found.sort(key=finding_order)
    return found


def _collect(found: list[Finding], problems: Iterable[Problem], enabled: frozenset[str],  # noqa: PLR0917 -- the loop's collaborators, passed once a check
             severity_of: Callable[[str], Severity], finding: type[Finding],
             rules: Mapping[str, Rule], own: Callable[[Check, Problem], Finding],
             check: Check) -> None:
    """Append to ``found`` the finding of each problem whose code is enabled, and ``own``'s
    for a code neither enabled nor a rule's (a custom check's own).
    """
    for problem in problems:
        code = problem.code
        if code in enabled:
            found.append(finding(code, severity_of(code), *problem[1:]))
        elif code not in rules:
            found.append(own(check, problem))


def _own_finding(check: Check, problem: Problem) -> Finding:
    """The finding of a code a custom check declares (see :func:`_own_rule`)."""
    return Finding(problem.code, _own_rule(check, problem).severity, *problem[1:])


def _active(enabled: frozenset[str], checks: Sequence[Check]) -> list[Check]:
    """The checks to run: a built-in check whose rules are all switched off is not."""
    return [check for check in checks
            if (codes := CODES.get(check)) is None or not enabled.isdisjoint(codes)]


@functools.lru_cache(maxsize=64)
def _builtin_active(enabled: frozenset[str]) -> list[Check]:
    return _active(enabled, BUILTIN)


def _own_rule(check: Check, problem: Problem) -> Rule:
    for rule in getattr(check, "rules", ()):
        if isinstance(rule, Rule) and rule.code == problem.code:
            return rule
    name = getattr(check, "__name__", type(check).__name__)
    raise ConfigError(f"check {name} states {problem.code}, which is neither a rule code nor"
                      " one of the rules it declares")


def iter_findings(answer: Any, sources: Any, *, grammar: GrammarSpec = None,
                  refusal: str | Sequence[str] | None = None, config: Config | None = None,
                  segmenter: Segmenter = segment, checks: Sequence[Check] = (),
                  answer_format: str | None = None) -> Iterator[Finding]:
    """Every finding for ``answer`` audited against ``sources``, in deterministic order.

    The findings of :func:`run`, which everything builds on. ``answer`` is free text, a list
    of claim strings or a structured object; ``sources`` is any snapshot shape (see
    :func:`~citeaudit.load_snapshot`).
    """
    yield from run(answer, sources, grammar=grammar, refusal=refusal, config=config,
                   segmenter=segmenter, checks=checks,
                   answer_format=answer_format).report.findings


def audit(answer: Any, sources: Any, *, grammar: GrammarSpec = None,
          refusal: str | Sequence[str] | None = None, config: Config | None = None,
          relevant: Collection[str] | None = None, answerable: bool | None = None,
          checks: Sequence[Check] = (), segmenter: Segmenter = segment,
          answer_format: str | None = None) -> Report:
    """Audit one answer against the snapshot of sources retrieved for its request.

    ``relevant`` (gold-relevant ids) changes what recall is measured against; by default it is
    every retrieved id. ``answerable`` labels the question (a refusal of an answerable one
    fails, an answer to an unanswerable one fails). ``checks`` run beside the built-in ones;
    ``segmenter`` replaces the claim segmenter for free text; ``answer_format`` names the
    answer's format (default: the first that recognises it). The report passes when there is
    no error-severity finding and the thresholds that are set are met (see
    :mod:`citeaudit.core._verdict`).
    """
    config = config or _DEFAULT
    if (config.settles and type(answer) is str and not checks and segmenter is segment
            and answer_format is None and relevant is None and answerable is None):
        form = choose_format(answer)
        settle = getattr(form, "settled", None)
        if form is not None and settle is not None:
            return _settled(form, settle, answer, grammar, refusal, config, sources)
    return run(answer, sources, grammar=grammar, refusal=refusal, config=config,
               relevant=relevant, answerable=answerable, checks=checks,
               segmenter=segmenter, answer_format=answer_format).report


def _settled(form: AnswerFormat, settle: Callable[[Any, Reading, bool], Status | None],  # noqa: PLR0917
             answer: str, grammar: GrammarSpec, refusal: str | Sequence[str] | None,
             config: Config, sources: Any) -> Report:
    """The report of an answer whose format can settle its status from its markers and
    claims alone (``settle``, see ``Config.settles``): its findings, reasons and metrics made
    by the whole audit when first read. Where ``settle`` cannot say, the whole audit now.
    """
    snapshot = form.snapshot(answer, sources)
    reading, why = _reading(answer, snapshot, grammar, refusal, config, segment)
    status = settle(answer, reading, config.empty_fails)
    if status is None:
        return _whole(form, answer, snapshot, reading, why, config)
    checked, not_checked = _scope(config.enabled, None)
    return new_report((), _unmeasured, status, status != "unverified", checked, not_checked,
                      reading.grammar.name, snapshot, (), form.name, why,
                      complete=functools.partial(_whole, form, answer, snapshot, reading, why,
                                                 config))


def _unmeasured() -> Metrics:
    """The metrics of a settled report, never called: its whole report's replace them."""
    raise AssertionError("a settled report is completed before it is measured")


def _whole(form: AnswerFormat, answer: Any, snapshot: Snapshot,  # noqa: PLR0917 -- _reading's two values
           reading: Reading, why: str, config: Config) -> Report:
    context = _prepared(form, answer, snapshot, reading, why, config)
    return report_of(context, findings_of(context))


class Audited(NamedTuple):
    """What :func:`run` gives: the prepared context (for the request path's chips and
    repairs) and the report.
    """

    context: Context
    report: Report


def run(answer: Any, sources: Any, *, grammar: GrammarSpec = None,
        refusal: str | Sequence[str] | Refusal | None = None, config: Config | None = None,
        relevant: Collection[str] | None = None, answerable: bool | None = None,
        checks: Sequence[Check] = (), segmenter: Segmenter = segment,
        answer_format: str | None = None) -> Audited:
    """The engine's entry point: prepare the context, run the built-in checks and
    ``checks``, and build the report. Raises :class:`~citeaudit.InputError` for input the
    audit cannot use (a broken snapshot, ``relevant`` ids it does not hold).
    """
    context = prepare(answer, sources, grammar=grammar, refusal=refusal, config=config,
                      segmenter=segmenter, answer_format=answer_format)
    if relevant is not None:
        unknown = [i for i in relevant if i not in context.snapshot]
        if unknown:
            raise InputError(f"names ids not in the snapshot: {', '.join(unknown)}",
                             origin="relevant")
    named = context.config.checks
    if named or checks:
        checks = (*BUILTIN, *(CHECKS.require(name) for name in named), *checks)
    found = findings_of(context, checks or None)
    return Audited(context, report_of(context, found, relevant, answerable))


def report_of(context: Context, findings: Sequence[Finding],
              relevant: Collection[str] | None = None, answerable: bool | None = None,
              ) -> Report:
    """Assemble the report for findings already computed from ``context``."""
    config = context.config
    judged, unjudged = judged_passages(context) if config.support is not None else ([], [])
    wanted = None if relevant is None else frozenset(relevant)  # as it is now, not when read

    def measure() -> Metrics:
        metrics = compute_metrics(context, wanted)
        if config.support is not None and metrics.precision is not None:
            metrics = _with_support(context, metrics, judged)
        return metrics

    errors = [f.code for f in findings if f.severity is Severity.ERROR]
    status: Status
    if errors:
        status = "unverified"
    elif context.answer.refusal or not context.answer.claims:
        status = "no_evidence"
    else:
        status = "ok"
    metrics: Metrics | Callable[[], Metrics] = measure
    precision = recall = None
    measured = None
    if (config.min_precision is not None or config.min_recall is not None
            or config.support is not None):
        metrics = measured = measure()  # the verdict reads the figures, or a judge runs
        precision, recall = measured.precision, measured.recall
    reasons = verdict_reasons(errors, status, precision, recall,
                              min_precision=config.min_precision,
                              min_recall=config.min_recall, answerable=answerable,
                              metrics=measured)
    checked, not_checked = _scope(config.enabled, config.support)
    if unjudged:
        claims = ", ".join(map(str, unjudged))
        not_checked = (*not_checked, f"support of claim{'s' if len(unjudged) > 1 else ''}"
                                     f" {claims}: its cited passages have no text")
    support = None if config.support is None else tuple(
        judged for _, judged in claim_support(context))
    return new_report(tuple(findings), metrics, status, not reasons, checked, not_checked,
                      context.grammar, context.snapshot, tuple(reasons), context.answer.kind,
                      context.grammar_reason, support, context.answer.exempt)


def _with_support(context: Context, metrics: Metrics,
                  judged: list[tuple[Any, str, list[tuple[str, str]]]]) -> Metrics:
    """The metrics with ALCE citation recall and precision by the configured judge."""
    recall, precision = alce([(text, passages) for _, text, passages in judged],
                             context.support_judge())
    return metrics._replace(support_recall=recall, support_precision=precision)


@functools.lru_cache(maxsize=64)
def _scope(enabled: frozenset[str], support: str | None,
           ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What the enabled rules check, and what they do not."""
    checked = tuple(scope for codes, scope in _SCOPES if not enabled.isdisjoint(codes))
    ignored = tuple(f"{scope} (rules ignored)" for codes, scope in _SCOPES
                    if enabled.isdisjoint(codes))
    if support is None:
        return checked, (*ignored, _SUPPORT)
    return (*checked, f"support, by the {support} judge"), ignored

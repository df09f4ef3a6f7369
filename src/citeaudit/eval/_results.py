"""One result per dataset record: the JSON line written to the results file, the summary the
aggregate is built from, and the verdict rule that eval and replay share.

A record passes when it was readable, its audit passes (no error-severity finding; its
``answerable`` label, when it has one, agrees with whether it refused: see
:mod:`citeaudit.core._verdict`) and every evaluator passes it (by default ``out_of_range`` and
``citation_coverage``, which holds the precision and recall thresholds).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from citeaudit._version import __version__ as version
from citeaudit.core import Check, Config, Severity
from citeaudit.core import run as run_audit
from citeaudit.errors import CiteauditError, InputError
from citeaudit.eval._evaluators import CitationCoverage, Evaluator, EvaluatorResult
from citeaudit.eval._records import RawItem, Record, Unreadable, digest_of, parse_record
from citeaudit.request import neutralise

if TYPE_CHECKING:
    from citeaudit.eval._summary import Aggregate

__all__ = ["Options", "Summary", "new_aggregate", "process", "result_of", "run_of",
           "summary_of", "testcase"]


@dataclass(frozen=True)
class Options:
    """What every record is audited with."""

    config: Config
    evaluators: tuple[Evaluator, ...] = ()
    junit: bool = False
    checks: tuple[Check, ...] = ()  # custom checks, beside the built-in and configured ones
    # What run a result belongs to, written in every result (see :func:`run_of`); not part of
    # the digest, so that the shards of one run share it.
    run: dict[str, Any] | None = dataclasses.field(default=None, compare=False)

    @functools.cached_property
    def audit_config(self) -> Config:
        """The configuration each record is audited with: its thresholds belong to the
        ``citation_coverage`` evaluator when that runs (they are applied once, there).
        """
        if any(e.name == CitationCoverage.name for e in self.evaluators):
            return dataclasses.replace(self.config, min_precision=None, min_recall=None)
        return self.config

    @functools.cached_property
    def digest(self) -> str:
        """A short fingerprint of everything that changes a result: the configuration, the
        evaluators and the version of citeaudit (a resumed run keeps results only under the
        same one).
        """
        config = self.config
        settings: dict[str, Any] = {f.name: getattr(config, f.name)
                                    for f in dataclasses.fields(config) if f.init}
        settings["severity"] = sorted((code, level.value)
                                      for code, level in config.severity.items())
        settings["not_citable"] = sorted(config.not_citable)  # a set: no order across runs
        settings["require"] = sorted(config.require)
        settings["evaluators"] = [evaluator.name for evaluator in self.evaluators]
        settings["checks"] = [getattr(check, "__qualname__", repr(check))
                              for check in self.checks]
        settings["version"] = version
        return hashlib.blake2b(orjson.dumps(settings, option=orjson.OPT_SORT_KEYS,
                                            default=str), digest_size=8).hexdigest()


def run_of(options: Options, dataset: str, shard: tuple[int, int] | None = None,
           ) -> dict[str, Any]:
    """What every result of a run says of the run, so that results files can be merged and
    checked against each other: the dataset's file name, the shard (``[I, N]``: every N-th
    record from the I-th) and the ``citation_coverage`` thresholds the aggregate shows.
    """
    min_precision, min_recall = new_aggregate(options).thresholds
    return {"dataset": dataset if dataset == "-" else PurePath(dataset).name,
            "shard": list(shard) if shard is not None else None,
            "min_precision": min_precision, "min_recall": min_recall}


def new_aggregate(options: Options) -> Aggregate:
    """An empty aggregate for a run with these options."""
    from citeaudit.eval._summary import Aggregate  # noqa: PLC0415 - it imports this module

    coverage = next((e for e in options.evaluators if isinstance(e, CitationCoverage)), None)
    if coverage is None:
        return Aggregate()
    return Aggregate(coverage.min_precision, coverage.min_recall)


class Summary(NamedTuple):
    """What the aggregate needs of one result."""

    ordinal: int
    place: str
    id: str | None
    status: str  # ok / unverified / no_evidence / unreadable
    passed: bool
    errors: int
    precision: float | None
    recall: float | None
    f1: float | None
    claim_coverage: float | None
    support_recall: float | None
    support_precision: float | None
    codes: tuple[str, ...]
    tags: tuple[tuple[str, str], ...]
    evaluators: tuple[tuple[str, bool, float], ...]
    reason: str | None = None  # why an unreadable record could not be audited
    reasons: tuple[str, ...] = ()  # why it failed, in words
    audit_passed: bool = False
    answerable: bool | None = None


def process(item: RawItem, options: Options) -> tuple[bytes, Summary, str | None]:
    """Audit one item: its result line, its summary, and (if asked) its JUnit test case."""
    result = result_of(item, options)
    return (orjson.dumps(result) + b"\n", summary_of(result),
            testcase(result) if options.junit else None)


def result_of(item: RawItem, options: Options) -> dict[str, Any]:
    """Audit one item: its result (the results file's line, decoded)."""
    parsed = parse_record(item)
    if isinstance(parsed, Unreadable):
        return _unreadable(item, parsed.id, parsed.reason, options)
    try:
        return _audited(item, parsed, options)
    except CiteauditError as error:
        reason = getattr(error, "reason", str(error))
        if isinstance(error, InputError):
            # Where in the record: a JSON path, or the field a value came from.
            where = error.place or (None if error.origin.startswith("<") else error.origin)
            reason = f"{where}: {reason}" if where else reason
        return _unreadable(item, parsed.id, reason, options)
    except Exception as error:  # a bug: this record unreadable, the run not lost
        return _unreadable(item, parsed.id, f"the audit failed ({type(error).__name__}:"
                           f" {error}): a bug in citeaudit or in a check it ran", options)


def _audited(item: RawItem, record: Record, options: Options) -> dict[str, Any]:
    # The whole audit at once: its findings are written (a settled report would make them
    # after its verdict, scanning the answer twice).
    report = run_audit(record.answer, record.sources, grammar=record.grammar,
                       config=options.audit_config, relevant=record.relevant,
                       answerable=record.answerable, checks=options.checks).report
    verdicts = {evaluator.name: _evaluate(evaluator, record, report)
                for evaluator in options.evaluators}
    reasons = [*report.reasons, *(f"{name}: {v.reason or 'failed'}"
                                  for name, v in verdicts.items() if not v.passed)]
    result = {
        "index": item.ordinal, "place": item.place, "id": record.id, "status": report.status,
        "passed": not reasons, "reasons": reasons, "audit_passed": report.passed,
        "errors": report.errors,
        "findings": [f.to_dict() for f in report.findings],
        "metrics": report.metrics.to_dict(),
        "fingerprint": report.fingerprint,
        "tags": dict(record.tags),
        "evaluators": {name: v._asdict() for name, v in verdicts.items()},
        "record_digest": digest_of(item), "options_digest": options.digest,
    }
    if options.run is not None:
        result["run"] = options.run
    if record.answerable is not None:
        result["answerable"] = record.answerable
    if report.exempt:  # what the claim policy did not ask to carry a citation, and why
        result["exempt"] = [unit.to_dict() for unit in report.exempt]
    return result


def _evaluate(evaluator: Evaluator, record: Record, report: Any) -> EvaluatorResult:
    try:
        result = evaluator.evaluate(record, report)
        score = float(result.score)
        if not math.isfinite(score):  # no mean could be taken, nor JSON hold it
            return EvaluatorResult(False, 0.0, f"evaluator gave the score {score}, not a"
                                   " finite number")
        return EvaluatorResult(bool(result.passed), score, str(result.reason))
    except Exception as error:
        return EvaluatorResult(False, 0.0, f"evaluator raised {type(error).__name__}: {error}")


def _unreadable(item: RawItem, record_id: str | None, reason: str,
                options: Options) -> dict[str, Any]:
    result = {"index": item.ordinal, "place": item.place, "id": record_id,
              "status": "unreadable", "passed": False, "error": reason,
              "record_digest": digest_of(item), "options_digest": options.digest}
    if options.run is not None:
        result["run"] = options.run
    return result


def summary_of(result: dict[str, Any]) -> Summary:
    """The summary of one result (a result line, decoded)."""
    if result["status"] == "unreadable":
        return Summary(result["index"], result["place"], result["id"], "unreadable", False, 0,
                       None, None, None, None, None, None, (), (), (), result.get("error"))
    metrics = result["metrics"]
    return Summary(
        result["index"], result["place"], result["id"], result["status"], result["passed"],
        result["errors"], metrics["precision"], metrics["recall"], metrics["f1"],
        metrics["claim_coverage"], metrics.get("support_recall"),
        metrics.get("support_precision"), tuple(f["code"] for f in result["findings"]),
        tuple(sorted(result["tags"].items())),
        tuple((name, v["passed"], v["score"]) for name, v in result["evaluators"].items()),
        None, tuple(result.get("reasons", ())),
        result.get("audit_passed", result["errors"] == 0), result.get("answerable"))


def testcase(result: dict[str, Any]) -> str:
    """One JUnit ``<testcase>``; a failure carries the findings, one per line."""
    # Imported here: xml.sax.saxutils imports urllib.request, http.client and ssl, a seventh
    # of the command line's start for a few escapes only JUnit output needs.
    from xml.sax.saxutils import escape as xml_escape  # noqa: PLC0415
    from xml.sax.saxutils import quoteattr  # noqa: PLC0415

    name = quoteattr(_xml(str(result["id"] if result["id"] is not None else result["place"])))
    head = f'  <testcase classname="citeaudit" name={name}>'
    if result["status"] == "unreadable":
        message = quoteattr(_xml(f"{result['place']}: {result['error']}"))
        return f'{head}<error type="unreadable" message={message}/></testcase>\n'
    if result["passed"]:
        return f"{head}</testcase>\n"
    lines = _failure_lines(result)
    message = quoteattr(_xml(lines[0]))
    body = xml_escape(_xml("\n".join(lines)))
    return f"{head}<failure message={message}>{body}</failure></testcase>\n"


def _failure_lines(result: dict[str, Any]) -> list[str]:
    lines = ["; ".join(result.get("reasons") or ()) or f"status {result['status']}"]
    lines += [f"{f['code']} {f['severity']}: {f['message']}" for f in result["findings"]
              if f["severity"] == Severity.ERROR.value]
    lines += [f"evaluator {name}: {v['reason'] or 'failed'}"
              for name, v in result["evaluators"].items() if not v["passed"]]
    metrics = result["metrics"]
    lines.append(f"precision {_ratio(metrics['precision'])}, recall {_ratio(metrics['recall'])}")
    return lines


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _xml(text: str) -> str:
    """Text that XML 1.0 can carry: control characters neutralised."""
    return neutralise(text).replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")

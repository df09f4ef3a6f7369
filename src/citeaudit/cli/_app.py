"""The command line: translates arguments into library calls and results into exit codes.

No checking logic lives here. Every input error becomes exit code 2 in :func:`main`, the one
place that catches :class:`~citeaudit.CiteauditError`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from enum import IntEnum
from pathlib import Path
from typing import Any, NoReturn, TextIO

import orjson

from citeaudit import __version__
from citeaudit._files import refuse_inputs, write_atomically
from citeaudit.core._answer import FORMATS as ANSWER_FORMATS
from citeaudit.core._config import (
    DEFAULT_REFUSAL,
    Config,
    load_config,
    parse_severity,
)
from citeaudit.core._engine import audit
from citeaudit.core._judging import JUDGES, get_judge
from citeaudit.core._loading import DEFAULT_MAX_BYTES, decode_json, decode_text, read_bytes
from citeaudit.core._rules import RULES, Severity
from citeaudit.core._sources import Snapshot, load_snapshot
from citeaudit.errors import CiteauditError, ConfigError, InputError, SnapshotError
from citeaudit.eval._evaluate import Dataset, evaluate, progress_for, worst_records
from citeaudit.eval._evaluators import load_evaluators
from citeaudit.eval._records import DATASET_FORMATS, detect_format
from citeaudit.eval._replay import replay, stored_results
from citeaudit.eval._results import Options, Summary
from citeaudit.eval._runner import default_jobs
from citeaudit.report._formatters import FORMATTERS, one_line, verdict_line
from citeaudit.report._html import html_report
from citeaudit.report._tables import Gate, junit, markdown, parse_gate, replay_table, table
from citeaudit.request._chips import DEFAULT_QUOTE_LENGTH
from citeaudit.request._guard import DEFAULT_FALLBACK, POLICIES, guard
from citeaudit.request._prompt import DEFAULT_CONTRACT, build_context
from citeaudit.request._render import FORMATS, render_html, render_markdown

__all__ = ["ExitCode", "main"]


class ExitCode(IntEnum):
    """Exit codes of every command."""

    OK = 0  # passed
    FAILED = 1  # findings at error severity, or a threshold not met
    INPUT_ERROR = 2  # input or usage error: the audit could not run
    INTERRUPTED = 130  # Ctrl-C: what was written is complete (eval --resume goes on)
    CLOSED_PIPE = 141  # the reader of standard output went away (128 + SIGPIPE, as cat)


class UsageError(CiteauditError):
    """Arguments that argparse rejected."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: error: {message}")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="citeaudit", description="Audit the citations in RAG answers against"
                     " the sources retrieved for each request.")
    parser.add_argument("--version", action="version", version=f"citeaudit {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    check = commands.add_parser(
        "check", help="audit one answer against its snapshot",
        description="Audit one answer against the snapshot of sources retrieved for it. Exit 0:"
        " passed; 1: error findings or a threshold not met; 2: the input could not be used.")
    _inputs(check)
    check.add_argument("--select", metavar="CODES", type=_codes,
                       help="only these rule codes or prefixes (comma-separated)")
    check.add_argument("--extend-select", metavar="CODES", type=_codes,
                       help="rule codes to enable on top of the selection (e.g. CA403)")
    check.add_argument("--ignore", metavar="CODES", type=_codes,
                       help="rule codes or prefixes to switch off")
    check.add_argument("--severity", metavar="CODE=LEVEL", action="append", default=[],
                       help="set a rule's severity: error or warning (repeatable)")
    check.add_argument("--claim-policy", choices=("all", "quantities"),
                       help="which claims need a citation (default: all)")
    _thresholds(check)
    check.add_argument("--check", action="append", metavar="NAME", dest="checks",
                       help="also run this installed check (repeatable)")
    _support(check)
    check.add_argument("--relevant", metavar="IDS", type=_codes,
                       help="gold-relevant source ids (comma-separated): recall is measured"
                       " against them instead of every retrieved id")
    check.add_argument("--format", choices=tuple(FORMATTERS), default="text",
                       help="output format (default: text)")
    _config_options(check)

    render = commands.add_parser(
        "render", help="render an answer as safe HTML or Markdown with source links",
        description="Audit an answer, apply a policy to what fails and render the result:"
        " escaped text, links only from verified markers, then the sources. The output is"
        " written in every case. Exit 0: passed; 1: the answer did not pass; 2: the input"
        " could not be used.")
    _inputs(render)
    render.add_argument("--to", choices=(*FORMATS, "json"), default="html",
                        help="output format (default: html); json: the served text, chips,"
                        " removals, report, and the snapshot when flagged for review")
    render.add_argument("--policy", choices=POLICIES, default="strip",
                        help="strip unverifiable markers, drop the claims carrying them, or"
                        " withhold an unverified answer (default: strip)")
    render.add_argument("--fallback", metavar="TEXT", default=DEFAULT_FALLBACK,
                        help="what a withheld answer is replaced by")
    render.add_argument("--quote-length", type=_positive, metavar="N", default=DEFAULT_QUOTE_LENGTH,
                        help=f"longest quote shown per source (default {DEFAULT_QUOTE_LENGTH})")
    _thresholds(render)
    _config_options(render)

    context = commands.add_parser(
        "context", help="number passages, print the prompt block and write the snapshot",
        description="Number the passages chosen for one request (1..N, after trimming),"
        " print the prompt block (the citation contract, then the numbered passages) and"
        " write the snapshot the answer will be audited against: both from one numbering.")
    context.add_argument("passages", metavar="PASSAGES",
                         help="JSON list of passages: strings or objects with text and"
                         " optional url/source_url, title/label/section; - reads standard"
                         " input")
    context.add_argument("-o", "--out", required=True, type=Path, metavar="FILE",
                         help="where to write the snapshot (JSON)")
    context.add_argument("--contract", type=Path, metavar="FILE",
                         help="the citation contract text ({refusal} is replaced by the"
                         " refusal string; default: the built-in contract)")
    context.add_argument("--refusal", metavar="TEXT", default=DEFAULT_REFUSAL,
                         help="the exact refusal string the contract asks for")
    context.add_argument("--max-passages", type=_positive, metavar="N",
                         help="keep at most N passages (before numbering)")
    context.add_argument("--max-chars", type=_positive, metavar="N",
                         help="keep passages while their text totals at most N characters")
    context.add_argument("--max-bytes", type=_positive, metavar="N",
                         help="refuse input files larger than N bytes (default 1000000)")

    evaluate_ = commands.add_parser(
        "eval", help="audit a dataset of logged answers, aggregate and gate",
        description="Audit every record of a dataset (JSONL, a JSON array or Parquet; records"
        " {id, sources, answer, relevant?, tags?, grammar?}), write one result per record in"
        " input order, print the aggregate and gate on it. Exit 0: every gate holds; 1: a gate"
        " fails; 2: a record or the input could not be read (the other records are still"
        " audited and written).")
    evaluate_.add_argument("dataset", metavar="DATASET", help="the dataset file; - reads"
                           " standard input (JSONL)")
    evaluate_.add_argument("--dataset-format", choices=tuple(DATASET_FORMATS),
                           help="jsonl, json (an array) or parquet (default: by extension)")
    evaluate_.add_argument("-o", "--out", type=Path, metavar="FILE",
                           help="write one result per record here (JSONL, input order; as"
                           " FILE.partial, renamed to FILE when the run is complete)")
    evaluate_.add_argument("--resume", action="store_true",
                           help="keep the complete results already written for --out (when"
                           " they match this dataset and these options) and audit the rest")
    evaluate_.add_argument("-j", "--jobs", type=_positive, metavar="N",
                           help="worker processes (default: all cores)")
    evaluate_.add_argument("--grammar", action="append", metavar="NAME",
                           help="marker grammar for records that name none (repeat to chain)")
    evaluate_.add_argument("--refusal", metavar="TEXT", action="append",
                           help="an accepted refusal string (repeatable; compared after"
                           " normalising white space, case, quotes and final punctuation)")
    _thresholds(evaluate_, ", by the citation_coverage evaluator")
    evaluate_.add_argument("--check", action="append", metavar="NAME", dest="checks",
                           help="also run this installed check (repeatable)")
    _support(evaluate_)
    evaluate_.add_argument("--gate", action="append", default=[], type=_gate,
                           metavar="METRIC>=VALUE",
                           help="a condition on the aggregate, e.g. pass_rate>=0.95 or"
                           " mean_precision>=0.9 (repeatable; default: pass_rate>=1)")
    evaluate_.add_argument("--evaluator", action="append", metavar="NAME",
                           help="run only these installed evaluators (repeatable; default:"
                           " all of them)")
    evaluate_.add_argument("--no-evaluators", action="store_true",
                           help="run no custom evaluator")
    evaluate_.add_argument("--format", choices=("table", "json", "markdown", "junit"),
                           default="table", help="how to print the aggregate (default: table;"
                           " junit: one test case per record)")
    evaluate_.add_argument("--report", type=Path, metavar="FILE",
                           help="write a self-contained HTML report")
    evaluate_.add_argument("--max-bytes", type=_positive, metavar="N",
                           help="records larger than N bytes are unreadable (default 1000000)")
    _config_options(evaluate_)

    replay_ = commands.add_parser(
        "replay", help="re-apply thresholds to stored eval results",
        description="Re-apply thresholds to the results of citeaudit eval without auditing"
        " again: how many records pass, which verdicts change, and (--sweep) the pass rate"
        " over a grid of threshold pairs. Exit 0: every record passes; 1: some do not.")
    replay_.add_argument("results", metavar="RESULTS", help="a results file of citeaudit eval"
                         " (- reads standard input)")
    _thresholds(replay_, ", by the citation_coverage evaluator")
    replay_.add_argument("--sweep", action="store_true",
                         help="also the pass rate over a grid of (precision, recall) pairs")
    replay_.add_argument("--format", choices=("table", "json"), default="table",
                         help="output format (default: table)")
    _config_options(replay_)

    calibrate_ = commands.add_parser(
        "calibrate", help="measure a support judge on labelled claim-evidence pairs",
        description="Judge labelled pairs ({\"claim\", \"evidence\", \"label\": 1|0} per"
        " line) and report balanced accuracy at the judge's threshold, ROC AUC, the best"
        " threshold on these pairs, a confusion matrix and pairs per second.")
    calibrate_.add_argument("pairs", metavar="PAIRS", help="labelled pairs (JSONL)")
    calibrate_.add_argument("--judge", choices=tuple(JUDGES), default="lexical",
                            help="the support judge (default: lexical)")
    calibrate_.add_argument("--threshold", type=float, metavar="S",
                            help="the judge's threshold (default: its own)")
    calibrate_.add_argument("--format", choices=("text", "json"), default="text",
                            help="output format (default: text)")
    calibrate_.add_argument("--report", type=Path, metavar="FILE",
                            help="write an HTML page with the reliability curve")
    calibrate_.add_argument("--max-bytes", type=_positive, metavar="N", default=50_000_000,
                            help="refuse larger pair files (default 50000000)")

    rules = commands.add_parser("rules", help="list every rule code",
                                description="List every rule code with its name, default"
                                " severity and summary.")
    rules.add_argument("--format", choices=("text", "json"), default="text",
                       help="output format (default: text)")
    return parser


def _inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("snapshot", metavar="SNAPSHOT",
                        help="JSON snapshot: {\"sources\": [...]}, a list of passages, or an id"
                        " mapping")
    parser.add_argument("answer", metavar="ANSWER",
                        help="the answer: .json (claims list, structured object or string) or"
                        " plain text; - reads standard input")
    parser.add_argument("--answer-format", choices=("auto", "json", *ANSWER_FORMATS),
                        default="auto",
                        metavar="FORMAT",
                        help="how to read ANSWER: auto (JSON when the name ends in .json, then"
                        " the first format that recognises it), json (the same, whatever the"
                        f" name), or a format: {', '.join(ANSWER_FORMATS)} (text reads the file as"
                        " text)")
    parser.add_argument("--grammar", action="append", metavar="NAME",
                        help="marker grammar: numeric, S, id, source or regex:PATTERN; repeat"
                        " to chain (default: inferred from the snapshot ids)")
    parser.add_argument("--refusal", metavar="TEXT", action="append",
                        help="an accepted refusal string (repeatable; compared after"
                        " normalising white space, case, quotes and final punctuation)")
    parser.add_argument("--max-bytes", type=_positive, metavar="N",
                        help="refuse input files larger than N bytes (default 1000000)")


def _thresholds(parser: argparse.ArgumentParser, applied_by: str = "") -> None:
    default = " (default 0.9)" if applied_by else " (default: none)"
    parser.add_argument("--min-precision", type=float, metavar="P",
                        help=f"fail below this citation precision{applied_by}"
                        f"{default}")
    parser.add_argument("--min-recall", type=float, metavar="R",
                        help=f"fail below this coverage recall{applied_by}"
                        f"{default.replace('0.9', '0.5')}")


def _support(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--support", choices=tuple(JUDGES), metavar="JUDGE",
                        help="also judge whether cited passages support their claims"
                        f" (CA501-CA503): {', '.join(tuple(JUDGES))}")
    parser.add_argument("--support-threshold", type=float, metavar="S",
                        help="the judge's score below which a claim is unsupported")


def _config_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, metavar="FILE",
                       help="configuration file (default: nearest citeaudit.toml or"
                       " pyproject.toml with [tool.citeaudit])")
    where.add_argument("--no-config", action="store_true", help="ignore configuration files")


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number


def _gate(value: str) -> Gate:
    try:
        return parse_gate(value)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _codes(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None, stdin: Any = None) -> int:
    """Run the command line; returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        code = _command(argv, out, err, stdin)
        out.flush()  # a write error shows here, not after main has returned
        return code
    except UsageError as error:  # argparse's form: "citeaudit check: error: ..."
        _say(err, f"{one_line(str(error))}\n")
        return ExitCode.INPUT_ERROR
    except CiteauditError as error:
        _say(err, f"citeaudit: error: {one_line(str(error))}\n")
        return ExitCode.INPUT_ERROR
    except SystemExit as exit_:  # --help and --version
        return int(exit_.code or 0)
    except KeyboardInterrupt:
        _say(err, "citeaudit: interrupted\n")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as cat does
        _silence(out)
        return ExitCode.CLOSED_PIPE
    except OSError as error:  # standard output cannot be written (a full disk, EIO)
        _silence(out)
        _say(err, f"citeaudit: error: <stdout>: cannot write: {error.strerror or error}\n")
        return ExitCode.INPUT_ERROR


def _command(argv: Sequence[str] | None, out: TextIO, err: TextIO, stdin: Any) -> int:
    with contextlib.redirect_stdout(out):  # --help and --version write to stdout
        args = _parser().parse_args(argv)
    if args.command == "rules":
        return _rules(args, out)
    if args.command == "context":
        return _context(args, out, stdin or sys.stdin.buffer)
    if args.command == "eval":
        return _eval(args, out, err, stdin or sys.stdin.buffer)
    if args.command == "replay":
        return _replay(args, out, stdin or sys.stdin.buffer)
    if args.command == "calibrate":
        return _calibrate(args, out)
    if args.command == "render":
        return _render(args, out, err, stdin or sys.stdin.buffer)
    return _check(args, out, stdin or sys.stdin.buffer)


def _write(out: TextIO, text: str) -> None:
    """Write in pieces: a reader that goes away during one large write is not always told
    to the writer, while it is on the next write.
    """
    for start in range(0, len(text), 1 << 16):
        out.write(text[start:start + (1 << 16)])


def _say(stream: TextIO, text: str) -> None:
    """Write to standard error, which may itself be closed."""
    with contextlib.suppress(OSError, ValueError):
        stream.write(text)
        stream.flush()


def _silence(out: TextIO) -> None:
    """Point a failed standard output at /dev/null, so that the interpreter's last flush does
    not fail again on its way out.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if out is sys.stdout or out is sys.__stdout__:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, out.fileno())
            os.close(null)


def _config(args: argparse.Namespace) -> Config:
    base = Config() if args.no_config else load_config(args.config)
    option = vars(args).get  # render has fewer options than check
    severity = dict(base.severity)
    for item in option("severity") or ():
        code, _, level = item.partition("=")
        if code not in RULES:
            raise ConfigError(f"--severity: unknown rule code {code!r}")
        severity[code] = parse_severity(level, code)
    return base.replace(
        grammar=tuple(args.grammar) if args.grammar else None,
        refusal=tuple(args.refusal) if args.refusal else None, select=option("select"),
        extend_select=option("extend_select"),
        ignore=option("ignore"), severity=severity, min_precision=args.min_precision,
        min_recall=args.min_recall, max_bytes=args.max_bytes,
        claim_policy=option("claim_policy"), support=option("support"),
        checks=tuple(option("checks") or ()) or None,
        support_threshold=option("support_threshold"))


def _inputs_of(args: argparse.Namespace, config: Config, stdin: Any,
               ) -> tuple[Snapshot, Any, str]:
    """The snapshot, the answer and the answer's name (see :func:`_empty_file_config`)."""
    snapshot_data = decode_json(read_bytes(args.snapshot, max_bytes=config.max_bytes),
                                origin=args.snapshot)
    snapshot = load_snapshot(snapshot_data, origin=args.snapshot)
    raw = read_bytes(args.answer, max_bytes=config.max_bytes, stdin=stdin)
    as_json = args.answer_format not in ("auto", "text") or (
        args.answer_format == "auto" and args.answer.lower().endswith(".json"))
    origin = "<stdin>" if args.answer == "-" else args.answer
    answer: Any = decode_json(raw, origin=origin) if as_json else decode_text(raw, origin=origin)
    return snapshot, answer, origin


@contextlib.contextmanager
def _answer_named(origin: str) -> Iterator[None]:
    """Input errors about the answer value, attributed to the file it came from."""
    try:
        yield
    except InputError as error:
        if error.origin != "<answer>":
            raise
        raise error.located(origin) from None


def _named_format(args: argparse.Namespace) -> str | None:
    return args.answer_format if args.answer_format in ANSWER_FORMATS else None


def _empty_file_config(config: Config, answer: Any) -> Config:
    """An answer file that is empty or only white space is input nobody meant to pass: CA403
    is an error for it unless the configuration says otherwise (an empty claim list, ``[]``,
    stays allowed, as the structured contract says).
    """
    if not isinstance(answer, str) or answer.strip() or "CA403" in config.severity:
        return config
    return config.replace(extend_select=(*config.extend_select, "CA403"),
                          severity={**config.severity, "CA403": Severity.ERROR})


def _check(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    config = _config(args)
    snapshot, answer, origin = _inputs_of(args, config, stdin)
    config = _empty_file_config(config, answer)
    with _answer_named(origin):
        report = audit(answer, snapshot, config=config, relevant=args.relevant,
                       answer_format=_named_format(args))
    shown = answer if isinstance(answer, str) else ""
    FORMATTERS[args.format].write(report, shown, origin, out)
    return ExitCode.OK if report.passed else ExitCode.FAILED


def _render(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: Any) -> int:
    config = _config(args)
    snapshot, answer, origin = _inputs_of(args, config, stdin)
    config = _empty_file_config(config, answer)
    with _answer_named(origin):
        served = guard(answer, snapshot, policy=args.policy, fallback=args.fallback,
                       config=config, quote_length=args.quote_length,
                       answer_format=_named_format(args))
    if args.to == "json":
        _write(out, orjson.dumps(served.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        _write(out, render_html(served) if args.to == "html" else render_markdown(served))
    err.write(verdict_line(served.report))  # the rendering is on stdout: the verdict beside it
    return ExitCode.OK if served.report.passed else ExitCode.FAILED


def _context(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    max_bytes = args.max_bytes or DEFAULT_MAX_BYTES
    origin = "<stdin>" if args.passages == "-" else args.passages
    refuse_inputs(args.out, [args.passages, *([args.contract] if args.contract else [])])
    passages = decode_json(read_bytes(args.passages, max_bytes=max_bytes, stdin=stdin),
                           origin=origin)
    if not isinstance(passages, list):
        raise SnapshotError("the passages must be a JSON list", origin=origin, place="$")
    contract = DEFAULT_CONTRACT
    if args.contract is not None:
        contract = decode_text(read_bytes(str(args.contract), max_bytes=max_bytes),
                               origin=str(args.contract))
    try:
        built = build_context(passages, contract=contract, refusal=args.refusal,
                              max_passages=args.max_passages, max_chars=args.max_chars)
    except SnapshotError as error:
        raise error.located(origin) from None
    write_atomically(args.out, orjson.dumps(built.snapshot.to_dict(), option=orjson.OPT_INDENT_2)
                     + b"\n", what="the snapshot")
    out.write(built.prompt)
    return ExitCode.OK


def _eval(args: argparse.Namespace, out: TextIO, err: TextIO, stdin: Any) -> int:
    config = _config(args)
    if args.report is not None and args.dataset == "-":
        raise UsageError("citeaudit eval: error: --report reads the dataset twice: give a"
                         " file, not -")
    if args.resume and args.out is None:
        raise UsageError("citeaudit eval: error: --resume needs --out")
    if args.report is not None:
        refuse_inputs(args.report, [args.dataset, *([args.out] if args.out else [])])
    evaluators = () if args.no_evaluators else tuple(load_evaluators(args.evaluator, config))
    options = Options(config, evaluators, junit=args.format == "junit")
    dataset = Dataset(args.dataset, format=detect_format(args.dataset, args.dataset_format),
                      max_bytes=config.max_bytes, stdin=stdin)
    unreadable = 0

    def report_unreadable(summary: Summary) -> None:
        nonlocal unreadable
        unreadable += 1
        err.write(f"citeaudit: error: {args.dataset}: {summary.place}:"
                  f" {one_line(summary.reason or '')}\n")

    progress = progress_for(dataset, err)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as cases:
        try:
            aggregate = evaluate(dataset, options, jobs=args.jobs or default_jobs(),
                                 out=args.out, resume=args.resume,
                                 junit=cases if options.junit else None,
                                 on_unreadable=report_unreadable, progress=progress)
        finally:
            if progress is not None:
                progress.close()
        data = aggregate.to_dict()
        gates = args.gate or [Gate("pass_rate", ">=", 1.0)]
        data["gates"] = [{"gate": str(g), "holds": g.holds(data)} for g in gates]
        if args.format == "junit":
            junit(data, cases, out)
        elif args.format == "json":
            out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
        else:
            out.write(table(data) if args.format == "table" else markdown(data))
            for gate in data["gates"]:
                out.write(f"gate {gate['gate']}: {'holds' if gate['holds'] else 'FAILS'}\n")
    if args.report is not None:
        run = {"version": __version__,
               "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
               "dataset": args.dataset, "gates": data["gates"],
               "options": {"grammar": ", ".join(config.grammar) or "inferred",
                           "refusal": " | ".join((config.refusal,) if isinstance(
                               config.refusal, str) else config.refusal),
                           "refusal regex": config.refusal_regex,
                           "thresholds": _thresholds_shown(aggregate.thresholds),
                           "rules": ", ".join(sorted(config.enabled)),
                           "claim policy": config.claim_policy,
                           "support judge": config.support,
                           "evaluators": ", ".join(e.name for e in evaluators) or "none"}}
        html = html_report(aggregate, worst_records(dataset, aggregate, options),
                           title=f"citeaudit: {Path(args.dataset).name}", run=run)
        write_atomically(args.report, html, what="the report")
    if unreadable:
        err.write(f"citeaudit: error: {unreadable} record{'s' if unreadable != 1 else ''} of"
                  f" {args.dataset} could not be audited\n")
        return ExitCode.INPUT_ERROR
    return ExitCode.OK if all(g["holds"] for g in data["gates"]) else ExitCode.FAILED


def _thresholds_shown(thresholds: tuple[float | None, float | None]) -> str:
    precision, recall = thresholds
    if precision is None or recall is None:
        return "none (citation_coverage not run)"
    return f"precision >= {precision:g}, recall >= {recall:g} (citation_coverage)"


def _replay(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    base = Config() if args.no_config else load_config(args.config)
    config = base.replace(min_precision=args.min_precision, min_recall=args.min_recall)
    data = replay(stored_results(args.results, stdin), config.min_precision,
                  config.min_recall, sweep=args.sweep)
    if args.format == "json":
        out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        out.write(replay_table(data))
    return ExitCode.OK if data["passed"] == data["records"] else ExitCode.FAILED


def _calibrate(args: argparse.Namespace, out: TextIO) -> int:
    from citeaudit.report._calibration import (  # noqa: PLC0415 - only calibrate needs it
        calibration_html,
        calibration_text,
    )
    from citeaudit.support._calibrate import calibrate, read_pairs  # noqa: PLC0415

    if args.report is not None:
        refuse_inputs(args.report, [args.pairs])
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise ConfigError(f"--threshold must lie in [0, 1], not {args.threshold}")
    data = calibrate(read_pairs(args.pairs, args.max_bytes), get_judge(args.judge,
                                                                       args.threshold))
    if args.format == "json":
        out.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        out.write(calibration_text(data))
    if args.report is not None:
        write_atomically(args.report, calibration_html(data), what="the report")
    return ExitCode.OK


def _rules(args: argparse.Namespace, out: TextIO) -> int:
    if args.format == "json":
        rows = [{"code": r.code, "name": r.name, "severity": r.severity.value,
                 "enabled": r.default_enabled, "summary": r.summary} for r in RULES.values()]
        out.write(orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode() + "\n")
        return ExitCode.OK
    for rule in RULES.values():
        state = "" if rule.default_enabled else " (off by default)"
        out.write(f"{rule.code}  {rule.name:<26} {rule.severity.value:<8} {rule.summary}{state}\n")
    return ExitCode.OK

"""The command line: translates arguments into library calls and results into exit codes.

No checking logic lives here. Every input error becomes exit code 2 in :func:`main`, the one
place that catches :class:`~citeaudit.CiteauditError`.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, NoReturn, TextIO

import orjson

from citeaudit import __version__
from citeaudit.audit import audit
from citeaudit.chips import DEFAULT_QUOTE_LENGTH
from citeaudit.config import DEFAULT_REFUSAL, Config, load_config, parse_severity
from citeaudit.errors import CiteauditError, ConfigError, InputError, SnapshotError
from citeaudit.guard import DEFAULT_FALLBACK, POLICIES, guard
from citeaudit.loading import DEFAULT_MAX_BYTES, decode_json, decode_text, read_bytes
from citeaudit.output import FORMATTERS, one_line
from citeaudit.prompt import DEFAULT_CONTRACT, build_context
from citeaudit.render import FORMATS, render_html, render_markdown
from citeaudit.rules import RULES
from citeaudit.sources import Snapshot, load_snapshot

__all__ = ["ExitCode", "main"]


class ExitCode(IntEnum):
    """Exit codes of every command."""

    OK = 0  # passed
    FAILED = 1  # findings at error severity, or a threshold not met
    INPUT_ERROR = 2  # input or usage error: the audit could not run


class UsageError(CiteauditError):
    """Arguments that argparse rejected."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


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
    parser.add_argument("--answer-format", choices=("auto", "json", "text"), default="auto",
                        help="how to read ANSWER (auto: JSON when the name ends in .json)")
    parser.add_argument("--grammar", action="append", metavar="NAME",
                        help="marker grammar: numeric, S, id, source or regex:PATTERN; repeat"
                        " to chain (default: inferred from the snapshot ids)")
    parser.add_argument("--refusal", metavar="TEXT", help="the exact refusal string")
    parser.add_argument("--max-bytes", type=_positive, metavar="N",
                        help="refuse input files larger than N bytes (default 1000000)")


def _thresholds(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--min-precision", type=float, metavar="P",
                        help="fail below this citation precision (default 0.9)")
    parser.add_argument("--min-recall", type=float, metavar="R",
                        help="fail below this coverage recall (default 0.5)")


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


def _codes(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None, stdin: Any = None) -> int:
    """Run the command line; returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        with contextlib.redirect_stdout(out):  # --help and --version write to stdout
            args = _parser().parse_args(argv)
        if args.command == "rules":
            return _rules(args, out)
        if args.command == "context":
            return _context(args, out, stdin or sys.stdin.buffer)
        command = _render if args.command == "render" else _check
        return command(args, out, stdin or sys.stdin.buffer)
    except CiteauditError as error:
        err.write(f"citeaudit: error: {one_line(str(error))}\n")
        return ExitCode.INPUT_ERROR
    except SystemExit as exit_:  # --help and --version
        return int(exit_.code or 0)


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
        refusal=args.refusal, select=option("select"), extend_select=option("extend_select"),
        ignore=option("ignore"), severity=severity, min_precision=args.min_precision,
        min_recall=args.min_recall, max_bytes=args.max_bytes,
        claim_policy=option("claim_policy"))


def _inputs_of(args: argparse.Namespace, config: Config, stdin: Any,
               ) -> tuple[Snapshot, Any, str]:
    """The snapshot, the answer and the answer's name."""
    snapshot_data = decode_json(read_bytes(args.snapshot, max_bytes=config.max_bytes),
                                origin=args.snapshot)
    snapshot = load_snapshot(snapshot_data, origin=args.snapshot)
    raw = read_bytes(args.answer, max_bytes=config.max_bytes, stdin=stdin)
    as_json = args.answer_format == "json" or (
        args.answer_format == "auto" and args.answer.lower().endswith(".json"))
    origin = "<stdin>" if args.answer == "-" else args.answer
    answer: Any = decode_json(raw, origin=origin) if as_json else decode_text(raw, origin=origin)
    return snapshot, answer, origin


def _check(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    config = _config(args)
    snapshot, answer, origin = _inputs_of(args, config, stdin)
    if args.relevant:
        unknown = [i for i in args.relevant if i not in snapshot]
        if unknown:
            raise InputError(f"--relevant names ids not in the snapshot: {', '.join(unknown)}",
                             origin=args.snapshot)
    report = audit(answer, snapshot, config=config, relevant=args.relevant)
    shown = answer if isinstance(answer, str) else ""
    FORMATTERS[args.format].write(report, shown, origin, out)
    return ExitCode.OK if report.passed else ExitCode.FAILED


def _render(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    config = _config(args)
    snapshot, answer, _ = _inputs_of(args, config, stdin)
    served = guard(answer, snapshot, policy=args.policy, fallback=args.fallback,
                   config=config, quote_length=args.quote_length)
    if args.to == "json":
        out.write(orjson.dumps(served.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        out.write(render_html(served) if args.to == "html" else render_markdown(served))
    return ExitCode.OK if served.report.passed else ExitCode.FAILED


def _context(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    max_bytes = args.max_bytes or DEFAULT_MAX_BYTES
    origin = "<stdin>" if args.passages == "-" else args.passages
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
    try:
        args.out.write_bytes(orjson.dumps(built.snapshot.to_dict(), option=orjson.OPT_INDENT_2)
                             + b"\n")
    except OSError as error:
        raise InputError(f"cannot write the snapshot: {error.strerror}",
                         origin=str(args.out)) from None
    out.write(built.prompt)
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

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
from citeaudit.config import Config, load_config, parse_severity
from citeaudit.errors import CiteauditError, ConfigError, InputError
from citeaudit.loading import decode_json, decode_text, read_bytes
from citeaudit.output import FORMATTERS, one_line
from citeaudit.rules import RULES
from citeaudit.sources import load_snapshot

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
    check.add_argument("snapshot", metavar="SNAPSHOT",
                       help="JSON snapshot: {\"sources\": [...]}, a list of passages, or an id"
                       " mapping")
    check.add_argument("answer", metavar="ANSWER",
                       help="the answer: .json (claims list, structured object or string) or"
                       " plain text; - reads standard input")
    check.add_argument("--answer-format", choices=("auto", "json", "text"), default="auto",
                       help="how to read ANSWER (auto: JSON when the name ends in .json)")
    check.add_argument("--grammar", action="append", metavar="NAME",
                       help="marker grammar: numeric, S, id, source or regex:PATTERN; repeat to"
                       " chain (default: inferred from the snapshot ids)")
    check.add_argument("--refusal", metavar="TEXT", help="the exact refusal string")
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
    check.add_argument("--max-bytes", type=int, metavar="N",
                       help="refuse input files larger than N bytes (default 1000000)")
    check.add_argument("--min-precision", type=float, metavar="P",
                       help="fail below this citation precision (default 0.9)")
    check.add_argument("--min-recall", type=float, metavar="R",
                       help="fail below this coverage recall (default 0.5)")
    check.add_argument("--relevant", metavar="IDS", type=_codes,
                       help="gold-relevant source ids (comma-separated): recall is measured"
                       " against them instead of every retrieved id")
    check.add_argument("--format", choices=tuple(FORMATTERS), default="text",
                       help="output format (default: text)")
    where = check.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, metavar="FILE",
                       help="configuration file (default: nearest citeaudit.toml or"
                       " pyproject.toml with [tool.citeaudit])")
    where.add_argument("--no-config", action="store_true", help="ignore configuration files")

    rules = commands.add_parser("rules", help="list every rule code",
                                description="List every rule code with its name, default"
                                " severity and summary.")
    rules.add_argument("--format", choices=("text", "json"), default="text",
                       help="output format (default: text)")
    return parser


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
        return _check(args, out, stdin or sys.stdin.buffer)
    except CiteauditError as error:
        err.write(f"citeaudit: error: {one_line(str(error))}\n")
        return ExitCode.INPUT_ERROR
    except SystemExit as exit_:  # --help and --version
        return int(exit_.code or 0)


def _config(args: argparse.Namespace) -> Config:
    base = Config() if args.no_config else load_config(args.config)
    severity = dict(base.severity)
    for item in args.severity:
        code, _, level = item.partition("=")
        if code not in RULES:
            raise ConfigError(f"--severity: unknown rule code {code!r}")
        severity[code] = parse_severity(level, code)
    return base.replace(
        grammar=tuple(args.grammar) if args.grammar else None,
        refusal=args.refusal, select=args.select, extend_select=args.extend_select,
        ignore=args.ignore, severity=severity, min_precision=args.min_precision,
        min_recall=args.min_recall, max_bytes=args.max_bytes, claim_policy=args.claim_policy)


def _check(args: argparse.Namespace, out: TextIO, stdin: Any) -> int:
    config = _config(args)
    snapshot_data = decode_json(read_bytes(args.snapshot, max_bytes=config.max_bytes),
                                origin=args.snapshot)
    snapshot = load_snapshot(snapshot_data, origin=args.snapshot)
    raw = read_bytes(args.answer, max_bytes=config.max_bytes, stdin=stdin)
    as_json = args.answer_format == "json" or (
        args.answer_format == "auto" and args.answer.lower().endswith(".json"))
    origin = "<stdin>" if args.answer == "-" else args.answer
    answer: Any = decode_json(raw, origin=origin) if as_json else decode_text(raw, origin=origin)
    if args.relevant:
        unknown = [i for i in args.relevant if i not in snapshot]
        if unknown:
            raise InputError(f"--relevant names ids not in the snapshot: {', '.join(unknown)}",
                             origin=args.snapshot)
    report = audit(answer, snapshot, config=config, relevant=args.relevant)
    shown = answer if isinstance(answer, str) else ""
    FORMATTERS[args.format].write(report, shown, origin, out)
    return ExitCode.OK if report.passed else ExitCode.FAILED


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

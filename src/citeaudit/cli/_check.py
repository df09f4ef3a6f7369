"""``citeaudit check``: audit one answer against its snapshot."""

from __future__ import annotations

import argparse
from typing import Any

from citeaudit.cli._common import (
    IO,
    ExitCode,
    answer_named,
    codes,
    config_of,
    config_options,
    input_options,
    inputs_of,
    named_format,
    support_options,
    threshold_options,
)
from citeaudit.core import EXEMPT_KINDS, PRESETS, _engine
from citeaudit.report import FORMATTERS, TextFormatter

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "check", help="audit one answer against its snapshot",
        description="Audit one answer against the snapshot of sources retrieved for it. Exit 0:"
        " passed; 1: error findings or a threshold not met; 2: the input could not be used.")
    input_options(parser)
    parser.add_argument("--select", metavar="CODES", type=codes,
                        help="only these rule codes or prefixes (comma-separated)")
    parser.add_argument("--extend-select", metavar="CODES", type=codes,
                        help="rule codes to enable on top of the selection (e.g. CA403)")
    parser.add_argument("--ignore", metavar="CODES", type=codes,
                        help="rule codes or prefixes to switch off")
    parser.add_argument("--severity", metavar="CODE=LEVEL", action="append", default=[],
                        help="set a rule's severity: error or warning (repeatable)")
    parser.add_argument("--claim-policy", choices=("all", "quantities"),
                        help="which claims need a citation (default: all)")
    parser.add_argument("--claims", choices=PRESETS,
                        help="how uncited sentences are judged by what they say: strict (the"
                        " policy's rules alone), balanced (default) or lenient")
    parser.add_argument("--require", metavar="KINDS", type=codes,
                        help="kinds of sentence that need a citation all the same (comma-"
                        f"separated: {', '.join(EXEMPT_KINDS)})")
    parser.add_argument("--show-exempt", action="store_true",
                        help="also list the uncited sentences that need no citation, with"
                        " their kind and score (text output)")
    threshold_options(parser)
    parser.add_argument("--check", action="append", metavar="NAME", dest="checks",
                        help="also run this installed check (repeatable)")
    support_options(parser)
    parser.add_argument("--relevant", metavar="IDS", type=codes,
                        help="gold-relevant source ids (comma-separated): recall is measured"
                        " against them instead of every retrieved id")
    parser.add_argument("--format", choices=tuple(FORMATTERS), default="text",
                        help="output format (default: text)")
    config_options(parser)


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out, _, stdin = io
    config = config_of(args)
    snapshot, answer, origin = inputs_of(args, config, stdin)
    with answer_named(origin):
        # The whole report at once: its findings are shown.
        report = _engine.run(answer, snapshot, config=config, relevant=args.relevant,
                             answer_format=named_format(args)).report
    shown = answer if isinstance(answer, str) else ""
    formatter = TextFormatter(show_exempt=True) if args.show_exempt and args.format == "text" \
        else FORMATTERS[args.format]
    formatter.write(report, shown, origin, out)
    return ExitCode.OK if report.passed else ExitCode.FAILED

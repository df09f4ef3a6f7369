"""``citeaudit render``: audit an answer, apply a policy and render it as safe HTML or
Markdown.
"""

from __future__ import annotations

import argparse
from typing import Any

from citeaudit.cli._common import (
    IO,
    ExitCode,
    answer_named,
    config_of,
    config_options,
    input_options,
    inputs_of,
    named_format,
    positive,
    threshold_options,
    write,
)
from citeaudit.report import json_text, verdict_line
from citeaudit.request import (
    DEFAULT_FALLBACK,
    DEFAULT_QUOTE_LENGTH,
    FORMATS,
    POLICIES,
    guard,
    render_html,
    render_markdown,
)

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "render", help="render an answer as safe HTML or Markdown with source links",
        description="Audit an answer, apply a policy to what fails and render the result:"
        " escaped text, links only from verified markers, then the sources. The output is"
        " written in every case. Exit 0: passed; 1: the answer did not pass; 2: the input"
        " could not be used.")
    input_options(parser)
    parser.add_argument("--to", choices=(*FORMATS, "json"), default="html",
                        help="output format (default: html); json: the served text, chips,"
                        " removals, report, and the snapshot when flagged for review")
    parser.add_argument("--policy", choices=POLICIES, default="strip",
                        help="strip unverifiable markers, drop the claims carrying them, or"
                        " withhold an unverified answer (default: strip)")
    parser.add_argument("--fallback", metavar="TEXT", default=DEFAULT_FALLBACK,
                        help="what a withheld answer is replaced by")
    parser.add_argument("--quote-length", type=positive, metavar="N", default=DEFAULT_QUOTE_LENGTH,
                        help=f"longest quote shown per source (default {DEFAULT_QUOTE_LENGTH})")
    threshold_options(parser)
    config_options(parser)


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out, err, stdin = io
    config = config_of(args)
    snapshot, answer, origin = inputs_of(args, config, stdin)
    with answer_named(origin):
        served = guard(answer, snapshot, policy=args.policy, fallback=args.fallback,
                       config=config, quote_length=args.quote_length,
                       answer_format=named_format(args))
    if args.to == "json":
        write(out, json_text(served.to_dict()) + "\n")
    else:
        write(out, render_html(served) if args.to == "html" else render_markdown(served))
    err.write(verdict_line(served.report))  # the rendering is on stdout: the verdict beside it
    return ExitCode.OK if served.report.passed else ExitCode.FAILED

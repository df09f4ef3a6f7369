"""``citeaudit diff``: compare two runs record by record."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from citeaudit._files import refuse_inputs, write_atomically
from citeaudit.cli._common import IO, ExitCode, write, write_json
from citeaudit.eval import FAIL_ON, diff_runs, read_run
from citeaudit.report import diff_html, diff_text

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "diff", help="compare two runs: regressed and fixed records, findings, metrics",
        description="Compare the results of two runs of citeaudit eval (files, or folders of"
        " shards or part files as merge and replay read them), matching records by id: the"
        " records that regressed (passed in A, fail in B) and were fixed, the findings each"
        " gained and lost by rule code, the aggregate's metrics of both runs overall and per"
        " tag, and the records only one run holds. Exit 0: no failure under --fail-on (by"
        " default the diff never fails); 1: --fail-on regressed and a record regressed, or"
        " --fail-on changed and anything differs; 2: a run cannot be read.")
    parser.add_argument("a", metavar="A", help="the results of the earlier run (the base)")
    parser.add_argument("b", metavar="B", help="the results of the later run")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default) or json (docs/diff.md)")
    parser.add_argument("--html", type=Path, metavar="FILE",
                        help="also write the diff as a self-contained HTML page")
    parser.add_argument("--fail-on", choices=FAIL_ON, default="never",
                        help="exit 1 when a record regressed (regressed: the CI gate), when"
                        " anything differs (changed), or never (default)")


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out = io.out
    if args.html is not None:
        refuse_inputs(args.html, [args.a, args.b])
    data = diff_runs(read_run(args.a), read_run(args.b), fail_on=args.fail_on)
    if args.html is not None:
        page = diff_html(data, title=f"citeaudit diff: {Path(args.a).name} \u2192"
                         f" {Path(args.b).name}")
        write_atomically(args.html, page, what="the diff page")
    if args.format == "json":
        write_json(out, data)
    else:
        write(out, diff_text(data))
    return ExitCode.FAILED if data["failed"] else ExitCode.OK

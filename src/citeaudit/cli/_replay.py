"""``citeaudit replay``: re-apply thresholds to stored results."""

from __future__ import annotations

import argparse
from typing import Any

from citeaudit.cli._common import (
    IO,
    ExitCode,
    config_options,
    gate,
    threshold_options,
    write_json,
)
from citeaudit.core import Config, load_config
from citeaudit.eval import gate_line, gate_results, replay, stored_results
from citeaudit.report import one_line, replay_table

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "replay", help="re-apply thresholds to stored eval results",
        description="Re-apply thresholds to the results of citeaudit eval without auditing"
        " again: how many records pass, which verdicts change, and (--sweep) the pass rate"
        " over a grid of threshold pairs. Exit 0: every gate holds (default: every record"
        " passes); 1: a gate fails.")
    parser.add_argument("results", metavar="RESULTS", help="a results file of citeaudit eval"
                        " (- reads standard input)")
    threshold_options(parser, ", by the citation_coverage evaluator")
    parser.add_argument("--sweep", action="store_true",
                        help="also the pass rate over a grid of (precision, recall) pairs")
    parser.add_argument("--gate", action="append", default=[], type=gate,
                        metavar="METRIC>=VALUE",
                        help="a condition on the replayed run: pass_rate or records"
                        " (repeatable; default: pass_rate>=1)")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="output format (default: table)")
    config_options(parser)


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out, _, stdin = io
    base = Config() if args.no_config else load_config(args.config)
    config = base.replace(min_precision=args.min_precision, min_recall=args.min_recall)
    data = replay(stored_results(args.results, stdin), config.min_precision,
                  config.min_recall, sweep=args.sweep)
    data["gates"] = gate_results(data, args.gate)
    if args.format == "json":
        write_json(out, data)
    else:
        out.write(replay_table(data))
        out.writelines(one_line(gate_line(result)) + "\n" for result in data["gates"])
    return ExitCode.OK if all(g["holds"] for g in data["gates"]) else ExitCode.FAILED

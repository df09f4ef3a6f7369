"""``citeaudit merge``: join results files (shards, resumed runs, other days) into one run."""

from __future__ import annotations

import argparse
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeaudit._files import refuse_inputs, write_atomically
from citeaudit._version import __version__
from citeaudit.cli._common import IO, ExitCode, gate
from citeaudit.cli._eval import show
from citeaudit.eval import DATASET_FORMATS, Dataset, detect_format, merge, merged_worst
from citeaudit.report import html_report

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "merge", help="merge results files (shards, resumed runs) into one aggregate",
        description="Merge the results files of citeaudit eval (the shards of a run written"
        " with --shard I/N on several machines, a run and its resumed rest, or runs of"
        " different days with --allow-mismatch) into one aggregate, gated and printed as eval"
        " prints it; the aggregate of a run's merged shards is the aggregate of one run over"
        " the whole dataset. Exit 0: every gate holds; 1: a gate fails; 2: the inputs cannot"
        " be read or do not belong together, or hold records that could not be audited.")
    parser.add_argument("results", metavar="RESULTS", nargs="+",
                        help="results files of citeaudit eval")
    parser.add_argument("-o", "--out", type=Path, metavar="FILE",
                        help="write the merged results here (JSONL, in dataset order)")
    parser.add_argument("--allow-mismatch", action="store_true",
                        help="merge results of different datasets or settings, incomplete"
                        " shards and partial files (runs of different datasets follow each"
                        " other in the order given)")
    parser.add_argument("--gate", action="append", default=[], type=gate,
                        metavar="METRIC>=VALUE",
                        help="a condition on the aggregate (repeatable; default:"
                        " pass_rate>=1)")
    parser.add_argument("--format", choices=("table", "json", "markdown", "junit"),
                        default="table", help="how to print the aggregate (default: table)")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="write a self-contained HTML report")
    parser.add_argument("--dataset", metavar="FILE",
                        help="the dataset the results came from: the report then shows the"
                        " worst records' answers")
    parser.add_argument("--dataset-format", choices=tuple(DATASET_FORMATS),
                        help="jsonl, json (an array) or parquet (default: by extension)")


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out, err, _ = io
    inputs = [*args.results, *([args.dataset] if args.dataset else [])]
    if args.report is not None:
        refuse_inputs(args.report, inputs)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as cases:
        aggregate = merge(args.results, allow_mismatch=args.allow_mismatch, out=args.out,
                          junit=cases if args.format == "junit" else None)
        data = show(aggregate, args.format, args.gate, cases, out)
    if args.report is not None:
        dataset = None
        if args.dataset is not None:
            dataset = Dataset(args.dataset, max_bytes=1 << 62,
                              format=detect_format(args.dataset, args.dataset_format))
        worst = merged_worst(args.results, aggregate, allow_mismatch=args.allow_mismatch,
                             dataset=dataset)
        names = ", ".join(Path(path).name for path in args.results)
        header = {"version": __version__,
                  "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                  "dataset": args.dataset or names, "gates": data["gates"],
                  "options": {"merged from": names}}
        html = html_report(aggregate, worst, title=f"citeaudit: merge of {names}", run=header)
        write_atomically(args.report, html, what="the report")
    if aggregate.all.unreadable:  # as the runs merged said (eval's exit code)
        count = aggregate.all.unreadable
        err.write(f"citeaudit: error: {count} record{'s' if count != 1 else ''} of the merged"
                  " results could not be audited\n")
        return ExitCode.INPUT_ERROR
    return ExitCode.OK if all(g["holds"] for g in data["gates"]) else ExitCode.FAILED

"""``citeaudit calibrate``: measure a support judge on labelled pairs."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from citeaudit._files import refuse_inputs, write_atomically
from citeaudit.cli._common import (
    IO,
    ExitCode,
    positive,
    write_json,
)
from citeaudit.core import JUDGES, get_judge
from citeaudit.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "calibrate", help="measure a support judge on labelled claim-evidence pairs",
        description="Judge labelled pairs ({\"claim\", \"evidence\", \"label\": 1|0} per"
        " line) and report balanced accuracy at the judge's threshold, ROC AUC, the best"
        " threshold on these pairs, a confusion matrix and pairs per second.")
    parser.add_argument("pairs", metavar="PAIRS", help="labelled pairs (JSONL)")
    parser.add_argument("--judge", choices=tuple(JUDGES), default="lexical",
                        help="the support judge (default: lexical)")
    parser.add_argument("--threshold", type=float, metavar="S",
                        help="the judge's threshold (default: its own)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="write an HTML page with the reliability curve")
    parser.add_argument("--max-bytes", type=positive, metavar="N", default=50_000_000,
                        help="refuse larger pair files (default 50000000)")


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out = io.out
    from citeaudit.report import (  # noqa: PLC0415 - only calibrate needs it
        calibration_html,
        calibration_text,
    )
    from citeaudit.support import calibrate, read_pairs  # noqa: PLC0415

    if args.report is not None:
        refuse_inputs(args.report, [args.pairs])
    if args.threshold is not None and not 0.0 <= args.threshold <= 1.0:
        raise ConfigError(f"--threshold must lie in [0, 1], not {args.threshold}")
    data = calibrate(read_pairs(args.pairs, args.max_bytes), get_judge(args.judge,
                                                                       args.threshold))
    if args.format == "json":
        write_json(out, data)
    else:
        out.write(calibration_text(data))
    if args.report is not None:
        write_atomically(args.report, calibration_html(data), what="the report")
    return ExitCode.OK

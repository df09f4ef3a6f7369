"""``citeaudit rules``: list every rule code."""

from __future__ import annotations

import argparse
from typing import Any

from citeaudit.cli._common import (
    IO,
    ExitCode,
    write_json,
)
from citeaudit.core import RULES

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser("rules", help="list every rule code",
                                description="List every rule code with its name, default"
                                " severity and summary.")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out = io.out
    if args.format == "json":
        rows = [{"code": r.code, "name": r.name, "severity": r.severity.value,
                 "enabled": r.default_enabled, "summary": r.summary} for r in RULES.values()]
        write_json(out, rows)
        return ExitCode.OK
    for rule in RULES.values():
        state = "" if rule.default_enabled else " (off by default)"
        out.write(f"{rule.code}  {rule.name:<26} {rule.severity.value:<8} {rule.summary}{state}\n")
    return ExitCode.OK

"""The command line: translates arguments into library calls and results into exit codes.

One module per command (``add_parser`` + ``run``), dispatched by :data:`COMMANDS`. No
checking logic lives here. Every input error becomes exit code 2 in :func:`main`, the one
place that catches :class:`~citeaudit.CiteauditError`.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, TextIO

from citeaudit._speedups import mode
from citeaudit._version import __version__
from citeaudit.cli import (
    _calibrate,
    _check,
    _context,
    _diff,
    _eval,
    _mcp,
    _merge,
    _render,
    _replay,
    _rules,
    _serve,
)
from citeaudit.cli._common import IO, ExitCode, Parser, UsageError
from citeaudit.errors import CiteauditError
from citeaudit.report import one_line

__all__ = ["COMMANDS", "ExitCode", "main"]

COMMANDS: dict[str, ModuleType] = {
    "check": _check, "render": _render, "context": _context, "eval": _eval,
    "merge": _merge, "diff": _diff, "replay": _replay, "calibrate": _calibrate,
    "rules": _rules, "serve": _serve, "mcp": _mcp}


def _parser() -> Parser:
    parser = Parser(prog="citeaudit", description="Audit the citations in RAG answers against"
                    " the sources retrieved for each request.")
    parser.add_argument("--version", action="version",
                        version=f"citeaudit {__version__} ({mode()})")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS.values():
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None,
         stderr: TextIO | None = None, stdin: Any = None) -> int:
    """Run the command line; returns the exit code."""
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    try:
        code = _command(argv, IO(out, err, stdin or sys.stdin.buffer))
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
    except KeyboardInterrupt as interrupt:  # its argument, if any, says how to go on
        hint = f": {interrupt.args[0]}" if interrupt.args else ""
        _say(err, one_line(f"citeaudit: interrupted{hint}") + "\n")
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as cat does
        _silence(out)
        return ExitCode.CLOSED_PIPE
    except OSError as error:  # standard output cannot be written (a full disk, EIO)
        _silence(out)
        _say(err, f"citeaudit: error: <stdout>: cannot write: {error.strerror or error}\n")
        return ExitCode.INPUT_ERROR


def _command(argv: Sequence[str] | None, io: IO) -> int:
    with contextlib.redirect_stdout(io.out):  # --help and --version write to stdout
        args = _parser().parse_args(argv)
    result: int = COMMANDS[args.command].run(args, io)
    return result


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



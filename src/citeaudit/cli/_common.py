"""What the commands share: exit codes, the streams, the options several commands take,
reading a snapshot and an answer, and writing output.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from enum import IntEnum
from pathlib import Path
from typing import Any, NamedTuple, NoReturn, TextIO

from citeaudit.core import FORMATS as ANSWER_FORMATS
from citeaudit.core import (
    JUDGES,
    RULES,
    Config,
    Snapshot,
    SourcesAsGiven,
    choose_format,
    decode_json,
    decode_text,
    load_config,
    load_snapshot,
    parse_severity,
    read_bytes,
)
from citeaudit.errors import CiteauditError, ConfigError, InputError
from citeaudit.eval import Gate, parse_gate
from citeaudit.report import json_text
from citeaudit.request import read_events

__all__ = ["IO", "ExitCode", "Parser", "UsageError", "answer_named", "codes", "config_of",
           "config_options", "gate", "input_options", "inputs_of",
           "named_format", "positive", "shard", "support_options", "threshold_options", "write",
           "write_json"]


class ExitCode(IntEnum):
    """Exit codes of every command."""

    OK = 0  # passed
    FAILED = 1  # findings at error severity, or a threshold not met
    INPUT_ERROR = 2  # input or usage error: the audit could not run
    INTERRUPTED = 130  # Ctrl-C: what was written is complete (eval --resume goes on)
    CLOSED_PIPE = 141  # the reader of standard output went away (128 + SIGPIPE, as cat)


class UsageError(CiteauditError):
    """Arguments that argparse rejected."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: error: {message}")


class IO(NamedTuple):
    """The streams a command reads and writes (tests pass their own)."""

    out: TextIO
    err: TextIO
    stdin: Any  # a binary stream


def write_json(out: TextIO, data: Any) -> None:
    """The one JSON writer: indented, one object, a final newline."""
    write(out, json_text(data) + "\n")


def input_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("snapshot", metavar="SNAPSHOT",
                        help="JSON snapshot: {\"sources\": [...]}, a list of passages, or an id"
                        " mapping")
    parser.add_argument("answer", metavar="ANSWER", nargs="?",
                        help="the answer: .json (claims list, structured object, string or a"
                        " provider's response) or plain text; - reads standard input. Alone"
                        " (one file), a provider's response that carries its own retrieval")
    parser.add_argument("--answer-format", choices=("auto", "json", *ANSWER_FORMATS),
                        default="auto",
                        metavar="FORMAT",
                        help="how to read ANSWER: auto (JSON when the name ends in .json, then"
                        " the first format that recognises it), json (the same, whatever the"
                        f" name), or a format: {', '.join(ANSWER_FORMATS)} (text reads the file as"
                        " text)")
    parser.add_argument("--grammar", action="append", metavar="NAME",
                        help="marker grammar: numeric, S, id, source or regex:PATTERN; repeat"
                        " to chain (default: inferred from the snapshot ids)")
    parser.add_argument("--refusal", metavar="TEXT", action="append",
                        help="an accepted refusal string (repeatable; compared after"
                        " normalising white space, case, quotes and final punctuation)")
    parser.add_argument("--max-bytes", type=positive, metavar="N",
                        help="refuse input files larger than N bytes (default 1000000)")


def threshold_options(parser: argparse.ArgumentParser, applied_by: str = "") -> None:
    default = " (default 0.9)" if applied_by else " (default: none)"
    parser.add_argument("--min-precision", type=float, metavar="P",
                        help=f"fail below this citation precision{applied_by}"
                        f"{default}")
    parser.add_argument("--min-recall", type=float, metavar="R",
                        help=f"fail below this coverage recall{applied_by}"
                        f"{default.replace('0.9', '0.5')}")


def support_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--support", choices=tuple(JUDGES), metavar="JUDGE",
                        help="also judge whether cited passages support their claims"
                        f" (CA501-CA504): {', '.join(tuple(JUDGES))}")
    parser.add_argument("--support-threshold", type=float, metavar="S",
                        help="the judge's score below which a claim is unsupported")


def config_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--config", type=Path, metavar="FILE",
                       help="configuration file (default: nearest citeaudit.toml or"
                       " pyproject.toml with [tool.citeaudit])")
    where.add_argument("--no-config", action="store_true", help="ignore configuration files")


def positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {number}")
    return number


def shard(value: str) -> tuple[int, int]:
    """``I/N``: the I-th of N shards."""
    number, slash, count = value.partition("/")
    try:
        parsed = int(number), int(count)
    except ValueError:
        parsed = (0, 0)
    if not slash or parsed[1] < 1 or not 1 <= parsed[0] <= parsed[1]:
        raise argparse.ArgumentTypeError(f"not a shard I/N with 1 <= I <= N: {value!r}")
    return parsed


def gate(value: str) -> Gate:
    try:
        return parse_gate(value)
    except ConfigError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def codes(value: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in value.split(",") if part.strip())


def write(out: TextIO, text: str) -> None:
    """Write in pieces: a reader that goes away during one large write is not always told
    to the writer, while it is on the next write.
    """
    for start in range(0, len(text), 1 << 16):
        out.write(text[start:start + (1 << 16)])


def config_of(args: argparse.Namespace) -> Config:
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
        refusal=tuple(args.refusal) if args.refusal else None, select=option("select"),
        extend_select=option("extend_select"),
        ignore=option("ignore"), severity=severity, min_precision=args.min_precision,
        min_recall=args.min_recall, max_bytes=args.max_bytes,
        claim_policy=option("claim_policy"), support=option("support"),
        claims=option("claims"), require=option("require"),
        checks=tuple(option("checks") or ()) or None,
        support_threshold=option("support_threshold"))


def inputs_of(args: argparse.Namespace, config: Config, stdin: Any,
               ) -> tuple[Snapshot, Any, str]:
    """The snapshot, the answer and the answer's name."""
    if args.answer is None:  # one file: a response that carries its retrieval
        args.answer, args.snapshot = args.snapshot, None
        snapshot_data = None
    else:
        snapshot_data = decode_json(read_bytes(args.snapshot, max_bytes=config.max_bytes),
                                    origin=args.snapshot)
    raw = read_bytes(args.answer, max_bytes=config.max_bytes, stdin=stdin)
    as_json = args.answer_format not in ("auto", "text") or (
        args.answer_format == "auto" and args.answer.lower().endswith(".json"))
    origin = "<stdin>" if args.answer == "-" else args.answer
    answer: Any
    if args.answer_format == "auto" and args.answer.lower().endswith(".jsonl"):
        answer = _stream_of(raw, origin)  # a provider's recorded event stream
    else:
        answer = decode_json(raw, origin=origin) if as_json else decode_text(raw, origin=origin)
    with answer_named(origin):
        form = choose_format(answer, named_format(args))
    if form is None or isinstance(form, SourcesAsGiven):
        if args.snapshot is None:
            raise InputError("needs a SNAPSHOT file before the answer: only a provider's"
                             " response carries its own retrieval", origin=origin)
        return load_snapshot(snapshot_data, origin=args.snapshot), answer, origin
    try:  # a provider's response: its snapshot is in the request (SNAPSHOT) or in itself
        return form.snapshot(answer, snapshot_data), answer, origin
    except InputError as error:
        # the sources a response carries are named in the response's file, not the request's
        raise error.located(origin if error.origin == "<answer>" else
                            args.snapshot or origin) from None


def _stream_of(raw: bytes, origin: str) -> dict[str, Any]:
    """The response a provider's recorded events (one JSON object a line) assemble into; a
    line that is no JSON, or no event of the stream, is an input error naming the line.
    """
    numbered = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            numbered.append((number, decode_json(line, origin=origin)))
        except InputError as error:
            column = (error.place or "").partition(", ")[2]
            raise InputError(error.reason, origin=origin, place=f"line {number}"
                             + (f", {column}" if column else "")) from None
    return read_events(numbered, origin)[1]


@contextlib.contextmanager
def answer_named(origin: str) -> Iterator[None]:
    """Input errors about the answer value, attributed to the file it came from."""
    try:
        yield
    except InputError as error:
        if error.origin != "<answer>":
            raise
        raise error.located(origin) from None


def named_format(args: argparse.Namespace) -> str | None:
    return args.answer_format if args.answer_format in ANSWER_FORMATS else None

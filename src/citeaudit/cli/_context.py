"""``citeaudit context``: number passages, print the prompt block, write the snapshot."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import orjson

from citeaudit._files import refuse_inputs, write_atomically
from citeaudit.cli._common import (
    IO,
    ExitCode,
    positive,
)
from citeaudit.core import DEFAULT_MAX_BYTES, DEFAULT_REFUSAL, decode_json, decode_text, read_bytes
from citeaudit.errors import SnapshotError
from citeaudit.request import DEFAULT_CONTRACT, build_context

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "context", help="number passages, print the prompt block and write the snapshot",
        description="Number the passages chosen for one request (1..N, after trimming),"
        " print the prompt block (the citation contract, then the numbered passages) and"
        " write the snapshot the answer will be audited against: both from one numbering.")
    parser.add_argument("passages", metavar="PASSAGES",
                        help="JSON list of passages: strings or objects with text and"
                        " optional url/source_url, title/label/section; - reads standard"
                        " input")
    parser.add_argument("-o", "--out", required=True, type=Path, metavar="FILE",
                        help="where to write the snapshot (JSON)")
    parser.add_argument("--contract", type=Path, metavar="FILE",
                        help="the citation contract text ({refusal} is replaced by the"
                        " refusal string; default: the built-in contract)")
    parser.add_argument("--refusal", metavar="TEXT", default=DEFAULT_REFUSAL,
                        help="the exact refusal string the contract asks for")
    parser.add_argument("--max-passages", type=positive, metavar="N",
                        help="keep at most N passages (before numbering)")
    parser.add_argument("--max-chars", type=positive, metavar="N",
                        help="keep passages while their text totals at most N characters")
    parser.add_argument("--max-bytes", type=positive, metavar="N",
                        help="refuse input files larger than N bytes (default 1000000)")


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code."""
    out, _, stdin = io
    max_bytes = args.max_bytes or DEFAULT_MAX_BYTES
    origin = "<stdin>" if args.passages == "-" else args.passages
    refuse_inputs(args.out, [args.passages, *([args.contract] if args.contract else [])],
                  stdin=stdin)
    passages = decode_json(read_bytes(args.passages, max_bytes=max_bytes, stdin=stdin),
                           origin=origin)
    if not isinstance(passages, list):
        raise SnapshotError("the passages must be a JSON list", origin=origin, place="$")
    contract = DEFAULT_CONTRACT
    if args.contract is not None:
        contract = decode_text(read_bytes(str(args.contract), max_bytes=max_bytes),
                               origin=str(args.contract))
    try:
        built = build_context(passages, contract=contract, refusal=args.refusal,
                              max_passages=args.max_passages, max_chars=args.max_chars)
    except SnapshotError as error:
        raise error.located(origin) from None
    write_atomically(args.out, orjson.dumps(built.snapshot.to_dict(), option=orjson.OPT_INDENT_2)
                     + b"\n", what="the snapshot")
    out.write(built.prompt)
    return ExitCode.OK

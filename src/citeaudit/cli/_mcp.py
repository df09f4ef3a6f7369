"""``citeaudit mcp``: run the MCP server (needs ``pip install 'citeaudit[mcp]'``)."""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path
from typing import Any

from citeaudit.cli._common import IO, ExitCode, positive
from citeaudit.cli._serve import _seconds
from citeaudit.core import Config, load_config
from citeaudit.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "mcp", help="run an MCP server: audit, guard and context as an agent's tools",
        description="Serve the Model Context Protocol tools audit (an answer's citations"
        " checked against its sources: the report), guard (the answer to serve and its"
        " chips) and context (passages numbered into a prompt block and a snapshot), each"
        " answering what POST /v1/<tool> of citeaudit serve answers, under the same limits."
        " Over standard input and output (the default: an MCP client starts it) or streamable"
        " HTTP at /mcp (--transport http). Over HTTP, bearer tokens come from CITEAUDIT_TOKENS"
        " (comma separated) and --token-file; without any, no authentication.")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="stdio (default) or http (streamable HTTP at /mcp)")
    parser.add_argument("--host", default="127.0.0.1", help="with --transport http: the"
                        " address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="with --transport http: the"
                        " port (default 8000)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="a citeaudit.toml whose settings every call starts from")
    parser.add_argument("--token-file", type=Path, metavar="FILE",
                        help="with --transport http: accepted bearer tokens, one a line")
    parser.add_argument("--max-bytes", type=positive, metavar="N", default=1_000_000,
                        help="the largest arguments of a call, as compact JSON (default"
                        " 1000000)")
    parser.add_argument("--concurrency", type=positive, metavar="N", default=32,
                        help="calls at work at once (default 32; one more is refused)")
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS", default=10.0,
                        help="the longest a call may take (default 10)")


def run(args: argparse.Namespace, _: IO) -> int:
    """Run the command; returns the exit code when the server stops."""
    if importlib.util.find_spec("mcp") is None or importlib.util.find_spec("uvicorn") is None:
        raise ConfigError("citeaudit mcp needs the mcp extra: pip install 'citeaudit[mcp]'")
    from citeaudit.service import Settings, run_mcp, tokens_from  # noqa: PLC0415 - the extra

    settings = Settings(
        config=load_config(args.config) if args.config is not None else Config(),
        tokens=tokens_from(os.environ.get("CITEAUDIT_TOKENS"), args.token_file)
        if args.transport == "http" else frozenset(),
        max_bytes=args.max_bytes, max_concurrency=args.concurrency, timeout=args.timeout)
    run_mcp(settings, args.transport, args.host, args.port)
    return ExitCode.OK

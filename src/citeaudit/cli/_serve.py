"""``citeaudit serve``: run the HTTP service (needs ``pip install 'citeaudit[service]'``)."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from citeaudit.cli._common import IO, ExitCode, positive
from citeaudit.core import load_config
from citeaudit.errors import ConfigError

__all__ = ["add_parser", "run"]


def add_parser(commands: Any) -> None:
    """Add the command to ``commands`` (argparse's subparsers)."""
    parser = commands.add_parser(
        "serve", help="run the audit as an HTTP service",
        description="Serve POST /v1/audit, /v1/guard and /v1/context (JSON in and out, the"
        " library's answers), POST /v1/stream (NDJSON, or a WebSocket: an answer audited"
        " while it streams) and /v1/eval (NDJSON: a dataset run), GET /healthz, /readyz,"
        " /metrics (Prometheus), /openapi.json and /docs. Bearer tokens come from"
        " CITEAUDIT_TOKENS (comma separated) and --token-file; without any, no"
        " authentication.")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default"
                        " 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--workers", type=positive, default=1, metavar="N",
                        help="worker processes (default 1; /metrics reports the totals over"
                        " all of them)")
    parser.add_argument("--config", type=Path, metavar="FILE",
                        help="a citeaudit.toml whose settings every request starts from")
    parser.add_argument("--token-file", type=Path, metavar="FILE",
                        help="accepted bearer tokens, one a line")
    parser.add_argument("--max-bytes", type=positive, metavar="N", default=1_000_000,
                        help="the largest request body (default 1000000; 413 beyond)")
    parser.add_argument("--concurrency", type=positive, metavar="N", default=32,
                        help="audits at once per worker (default 32; 503 beyond)")
    parser.add_argument("--timeout", type=_seconds, metavar="SECONDS", default=10.0,
                        help="the longest an audit may take (default 10; 504 beyond)")
    parser.add_argument("--read-timeout", type=_seconds, metavar="SECONDS", default=10.0,
                        help="the longest a request's headers, and a one-shot body, may take"
                        " to arrive (default 10; the connection is closed, the body's is 408)")
    parser.add_argument("--max-connections", type=positive, metavar="N", default=1000,
                        help="open connections per worker, fewer when the file limit"
                        " (ulimit -n) is lower (default 1000; beyond, the one waiting longest"
                        " for its client is closed)")
    parser.add_argument("--stream-concurrency", type=positive, metavar="N", default=32,
                        help="streams (/v1/stream, /v1/eval, the WebSocket) at once per worker,"
                        " apart from --concurrency (default 32; 503 beyond)")
    parser.add_argument("--streams-per-client", type=_count, metavar="N", default=0,
                        help="streams at once from one client address (default 0: no cap;"
                        " 429 beyond; behind a proxy, every client has the proxy's address)")
    parser.add_argument("--stream-idle-timeout", type=_seconds, metavar="SECONDS",
                        default=30.0, help="the longest a stream waits for its client to"
                        " send or to read (default 30; the stream is ended with an error)")
    parser.add_argument("--stream-duration", type=_seconds, metavar="SECONDS", default=300.0,
                        help="the longest a stream may last (default 300)")
    parser.add_argument("--stream-max-bytes", type=positive, metavar="N",
                        default=10_000_000, help="the most a /v1/stream or WebSocket stream"
                        " may send in all (default 10000000; 413)")
    parser.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                        help="allow browsers on ORIGIN to call the service (repeatable;"
                        " default: CORS off)")
    parser.add_argument("--no-access-log", action="store_true",
                        help="write no access log (one JSON line a request on stderr)")
    parser.add_argument("--log-bodies", action="store_true",
                        help="log request bodies (answer and passage text) too")


def _seconds(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {value!r}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, not {value}")
    return seconds


def _count(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {number}")
    return number


def run(args: argparse.Namespace, io: IO) -> int:
    """Run the command; returns the exit code when the server stops."""
    if importlib.util.find_spec("uvicorn") is None or \
            importlib.util.find_spec("starlette") is None:
        raise ConfigError("citeaudit serve needs the service extra: pip install"
                          " 'citeaudit[service]'")
    if args.config is not None:
        load_config(args.config)  # a broken file stops here, not in every worker
    from citeaudit.service import (  # noqa: PLC0415 - the extra
        METRICS_DIR,
        Settings,
        environment_of,
        from_environment,
    )

    # The workers build their app from the environment (see service._settings).
    os.environ.update(environment_of(Settings(
        max_bytes=args.max_bytes, max_concurrency=args.concurrency, timeout=args.timeout,
        read_timeout=args.read_timeout, max_connections=args.max_connections,
        stream_concurrency=args.stream_concurrency,
        streams_per_client=args.streams_per_client,
        stream_idle_timeout=args.stream_idle_timeout, stream_duration=args.stream_duration,
        stream_max_bytes=args.stream_max_bytes)))
    os.environ.update({
        "CITEAUDIT_SERVE_CORS": ",".join(args.cors),
        "CITEAUDIT_SERVE_ACCESS_LOG": "0" if args.no_access_log else "1",
        "CITEAUDIT_SERVE_LOG_BODIES": "1" if args.log_bodies else "0"})
    for name, value in (("CITEAUDIT_SERVE_CONFIG", args.config),
                        ("CITEAUDIT_TOKEN_FILE", args.token_file)):
        if value is not None:
            os.environ[name] = str(value.resolve())
        else:
            os.environ.pop(name, None)
    from_environment()  # unreadable token file or configuration: an error before binding
    # Several workers keep their counts in a folder of the run's own, so that /metrics adds
    # them all up (service._pooled); one worker counts in memory alone, as fast as before.
    metrics_dir = tempfile.mkdtemp(prefix="citeaudit-metrics-") if args.workers > 1 else None
    if metrics_dir is not None:
        os.environ[METRICS_DIR] = metrics_dir
    else:
        os.environ.pop(METRICS_DIR, None)
    try:
        _serve(args, io)
    finally:
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)
    return ExitCode.OK


def _serve(args: argparse.Namespace, io: IO) -> None:
    import uvicorn  # noqa: PLC0415 - the service extra

    # Errors the service logs (the access log is written by the app itself: see Settings).
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=io.err)
    uvicorn.run("citeaudit.service:app_from_environment", factory=True, host=args.host,
                port=args.port, workers=args.workers, access_log=False, log_level="warning",
                lifespan="on",
                # Headers' deadline and size, and the cap on connections (HttpProtocol);
                # a WebSocket message is bounded as a request body is.
                http="citeaudit.service:HttpProtocol", ws_max_size=args.max_bytes,
                # The app reads no client address or scheme, so X-Forwarded-* need not be
                # read for it; and the server does not name itself.
                proxy_headers=False, server_header=False)

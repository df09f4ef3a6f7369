"""What a running service is allowed to do: who may call it, how much it reads, how much
work it takes on at once, how long a request or a stream may take, what it logs.
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Any

from citeaudit.core import DEFAULT_MAX_BYTES, Config
from citeaudit.errors import ConfigError

__all__ = ["Settings", "tokens_from"]

# The settings a number each, as ``citeaudit serve`` hands them to its workers: the field,
# the environment variable.
_NUMBERS = {"max_bytes": "CITEAUDIT_SERVE_MAX_BYTES",
            "max_concurrency": "CITEAUDIT_SERVE_CONCURRENCY",
            "timeout": "CITEAUDIT_SERVE_TIMEOUT",
            "read_timeout": "CITEAUDIT_SERVE_READ_TIMEOUT",
            "max_connections": "CITEAUDIT_SERVE_MAX_CONNECTIONS",
            "stream_concurrency": "CITEAUDIT_SERVE_STREAM_CONCURRENCY",
            "streams_per_client": "CITEAUDIT_SERVE_STREAMS_PER_CLIENT",
            "stream_idle_timeout": "CITEAUDIT_SERVE_STREAM_IDLE_TIMEOUT",
            "stream_duration": "CITEAUDIT_SERVE_STREAM_DURATION",
            "stream_max_bytes": "CITEAUDIT_SERVE_STREAM_MAX_BYTES"}
# The folder where several workers keep their counts (see Settings.metrics_dir).
METRICS_DIR = "CITEAUDIT_SERVE_METRICS_DIR"
# Those that may be 0 (for none).
_MAY_BE_ZERO = frozenset({"streams_per_client"})


@dataclasses.dataclass(frozen=True)
class Settings:
    """The service's settings (``citeaudit serve`` builds them from its options).

    ``tokens``: bearer tokens accepted (none: no authentication); ``max_bytes``: the largest
    request body, and WebSocket message (413 beyond, checked before the body is read whole);
    ``max_concurrency``: audits run at once per worker (503 with ``Retry-After`` beyond,
    never a queue); ``timeout``: seconds one audit may take (504 beyond); ``read_timeout``:
    seconds a request's headers, and a one-shot body, may take to arrive (the connection is
    closed; 408); ``max_connections``: open connections per worker (beyond, the one idle
    longest is closed); ``stream_concurrency``: streams (``/v1/stream``, ``/v1/eval`` and the
    WebSocket) at once per worker, a budget apart from the audits' (503 beyond);
    ``streams_per_client``: streams at once from one client address (429 beyond; 0: no cap);
    ``stream_idle_timeout``: seconds a stream may wait for its client, to read or to write;
    ``stream_duration``: seconds a stream may last; ``stream_max_bytes``: bytes one
    ``/v1/stream`` or WebSocket stream may send in all (its answer is held until its report);
    ``cors``: origins allowed to call from a browser (none: CORS off); ``access_log``: one
    JSON line a request on standard error (``citeaudit serve`` turns it on); ``log_bodies``:
    log answer and passage text too; ``metrics_dir``: for one of several worker processes, a
    folder (empty when the run begins) that every worker of the run shares, where each keeps
    a snapshot of its counts so that ``/metrics`` adds up all of them (``citeaudit serve``
    makes one for a run of several workers; None: this process's counts alone).
    """

    config: Config = dataclasses.field(default_factory=Config)
    tokens: frozenset[str] = frozenset()
    max_bytes: int = DEFAULT_MAX_BYTES
    max_concurrency: int = 32
    timeout: float = 10.0
    read_timeout: float = 10.0
    max_connections: int = 1000
    stream_concurrency: int = 32
    streams_per_client: int = 0
    stream_idle_timeout: float = 30.0
    stream_duration: float = 300.0
    stream_max_bytes: int = 10_000_000
    cors: tuple[str, ...] = ()
    access_log: bool = False
    log_bodies: bool = False
    metrics_dir: Path | None = None

    def __post_init__(self) -> None:
        for name in _NUMBERS:
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0 or (value == 0 and
                                                         name not in _MAY_BE_ZERO):
                least = "at least 0" if name in _MAY_BE_ZERO else "more than 0"
                raise ConfigError(f"service setting {name}: must be a finite number {least},"
                                  f" not {value!r}")


def tokens_from(environment: str | None, path: Path | None) -> frozenset[str]:
    """Bearer tokens from ``CITEAUDIT_TOKENS`` (comma separated) and a token file (one a
    line, ``#`` comments); a file that cannot be read is a :class:`~citeaudit.ConfigError`.
    """
    found = {t.strip() for t in (environment or "").split(",") if t.strip()}
    if path is not None:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise ConfigError(f"{path}: {error.strerror or error}") from None
        found |= {line.strip() for line in lines
                  if line.strip() and not line.lstrip().startswith("#")}
    return frozenset(found)


def environment_of(settings: Settings) -> dict[str, str]:
    """The environment that hands ``settings``' numbers to the workers."""
    return {variable: str(getattr(settings, name)) for name, variable in _NUMBERS.items()}


def numbers_from_environment() -> dict[str, Any]:
    """The numeric settings a worker was started with (the defaults where none were)."""
    kinds = {f.name: f.type for f in dataclasses.fields(Settings)}
    numbers: dict[str, Any] = {}
    for name, variable in _NUMBERS.items():
        given = os.environ.get(variable)
        if given is not None:
            numbers[name] = int(given) if kinds[name] == "int" else float(given)
    return numbers


def from_environment() -> Settings:
    """The settings ``citeaudit serve`` hands its workers, through the environment (each
    worker process builds its app from them).
    """
    from citeaudit.core import load_config  # noqa: PLC0415 - only the workers need it

    config_path = os.environ.get("CITEAUDIT_SERVE_CONFIG")
    token_file = os.environ.get("CITEAUDIT_TOKEN_FILE")
    metrics_dir = os.environ.get(METRICS_DIR)
    return dataclasses.replace(Settings(
        config=load_config(Path(config_path)) if config_path else Config(),
        tokens=tokens_from(os.environ.get("CITEAUDIT_TOKENS"),
                           Path(token_file) if token_file else None),
        cors=tuple(o for o in os.environ.get("CITEAUDIT_SERVE_CORS", "").split(",") if o),
        access_log=os.environ.get("CITEAUDIT_SERVE_ACCESS_LOG") != "0",
        log_bodies=os.environ.get("CITEAUDIT_SERVE_LOG_BODIES") == "1",
        metrics_dir=Path(metrics_dir) if metrics_dir else None),
        **numbers_from_environment())

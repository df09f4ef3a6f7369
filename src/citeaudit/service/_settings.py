"""What a running service is allowed to do: who may call it, how much it reads, how much
work it takes on at once, how long a request may take, what it logs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from citeaudit.core._config import Config
from citeaudit.core._loading import DEFAULT_MAX_BYTES
from citeaudit.errors import ConfigError

__all__ = ["Settings", "tokens_from"]


@dataclass(frozen=True)
class Settings:
    """The service's settings (``citeaudit serve`` builds them from its options).

    ``tokens``: bearer tokens accepted (none: no authentication); ``max_bytes``: the largest
    request body (413 beyond, checked before the body is read whole); ``max_concurrency``:
    audits run at once per worker (503 with ``Retry-After`` beyond, never a queue);
    ``timeout``: seconds one request may take (504 beyond); ``cors``: origins allowed to call
    from a browser (none: CORS off); ``access_log``: one JSON line a request on standard
    error (``citeaudit serve`` turns it on); ``log_bodies``: log answer and passage text too.
    """

    config: Config = field(default_factory=Config)
    tokens: frozenset[str] = frozenset()
    max_bytes: int = DEFAULT_MAX_BYTES
    max_concurrency: int = 32
    timeout: float = 10.0
    cors: tuple[str, ...] = ()
    access_log: bool = False
    log_bodies: bool = False


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


def from_environment() -> Settings:
    """The settings ``citeaudit serve`` hands its workers, through the environment (each
    worker process builds its app from them).
    """
    from citeaudit.core._config import load_config  # noqa: PLC0415 - only the workers need it

    config_path = os.environ.get("CITEAUDIT_SERVE_CONFIG")
    token_file = os.environ.get("CITEAUDIT_TOKEN_FILE")
    return Settings(
        config=load_config(Path(config_path)) if config_path else Config(),
        tokens=tokens_from(os.environ.get("CITEAUDIT_TOKENS"),
                           Path(token_file) if token_file else None),
        max_bytes=int(os.environ.get("CITEAUDIT_SERVE_MAX_BYTES", DEFAULT_MAX_BYTES)),
        max_concurrency=int(os.environ.get("CITEAUDIT_SERVE_CONCURRENCY", "32")),
        timeout=float(os.environ.get("CITEAUDIT_SERVE_TIMEOUT", "10")),
        cors=tuple(o for o in os.environ.get("CITEAUDIT_SERVE_CORS", "").split(",") if o),
        access_log=os.environ.get("CITEAUDIT_SERVE_ACCESS_LOG") != "0",
        log_bodies=os.environ.get("CITEAUDIT_SERVE_LOG_BODIES") == "1")

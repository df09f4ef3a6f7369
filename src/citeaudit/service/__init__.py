"""``citeaudit serve``: the audit as an HTTP service (``pip install 'citeaudit[service]'``).

>>> from citeaudit.service import Settings, create_app
>>> app = create_app(Settings(tokens=frozenset({"secret"})))   # an ASGI application

``citeaudit serve`` runs :func:`app_from_environment` in each uvicorn worker, served by
:class:`HttpProtocol`.

``citeaudit mcp``, the same work as the tools of an MCP server, is :func:`run_mcp`
(``pip install 'citeaudit[mcp]'``).
"""

from citeaudit.service._app import app_from_environment, create_app
from citeaudit.service._server import HttpProtocol
from citeaudit.service._settings import (
    METRICS_DIR,
    Settings,
    environment_of,
    from_environment,
    tokens_from,
)

__all__ = [
    "METRICS_DIR",
    "HttpProtocol",
    "Settings",
    "app_from_environment",
    "create_app",
    "environment_of",
    "from_environment",
    "run_mcp",
    "tokens_from",
]


def run_mcp(settings: Settings | None = None, transport: str = "stdio",
            host: str = "127.0.0.1", port: int = 8000) -> None:
    """Run the MCP server until its client (``stdio``) or a signal (``http``: streamable
    HTTP at ``/mcp`` on ``host:port``) ends it: the tools ``audit``, ``guard`` and
    ``context``, each the service's endpoint of that name under ``settings``' limits.
    """
    from citeaudit.service._mcp import run  # noqa: PLC0415 - the mcp extra, only when run

    run(settings or Settings(), transport, host, port)

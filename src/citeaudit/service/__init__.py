"""``citeaudit serve``: the audit as an HTTP service (``pip install 'citeaudit[service]'``).

>>> from citeaudit.service import Settings, create_app
>>> app = create_app(Settings(tokens=frozenset({"secret"})))   # an ASGI application
"""

from citeaudit.service._app import create_app
from citeaudit.service._settings import (
    METRICS_DIR,
    Settings,
    environment_of,
    from_environment,
    tokens_from,
)

__all__ = [
    "METRICS_DIR",
    "Settings",
    "create_app",
    "environment_of",
    "from_environment",
    "tokens_from",
]

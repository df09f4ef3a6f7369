"""The plugins the suite runs with, named here: pyproject's ``addopts`` turns plugin
autoloading off. Autoloaded, every installed plugin's distribution is marked for assertion
rewriting, so each worker re-compiled every module it imported of schemathesis, hypothesis,
anyio and citeaudit itself; named, only the plugin modules are. A plugin whose package is
not installed (the evaluation frameworks' environment has no xdist) is left out.
"""

import os
import sys
from importlib.util import find_spec

_PLUGINS = {
    "xdist": "xdist.plugin",  # pytest -n
    "hypothesis": "_hypothesis_pytestplugin",
    "schemathesis": "schemathesis.pytest.plugin",  # tests/test_service_schema.py
}

pytest_plugins = [
    *(plugin for package, plugin in _PLUGINS.items() if find_spec(package) is not None),
    "citeaudit.integrations.pytest",  # the assert_citations fixture, as users get it
]

# The suite starts some two hundred Python processes (the command line, the service, eval's
# workers), each importing the package. Where PYTHONDONTWRITEBYTECODE is set (as in many
# container images) none of them may cache the package's bytecode, so each compiles its
# hundred modules from source again (0.3 s against 0.16). The suite lets its own processes
# write the cache (``__pycache__``, ignored by git); the user's setting is theirs elsewhere.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

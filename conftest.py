"""The plugins the suite runs with, named here: pyproject's ``addopts`` turns plugin
autoloading off. Autoloaded, every installed plugin's distribution is marked for assertion
rewriting, so each worker re-compiled every module it imported of schemathesis, hypothesis,
anyio and citeaudit itself; named, only the plugin modules are. A plugin whose package is
not installed (the evaluation frameworks' environment has no xdist) is left out.
"""

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

"""The ``citeaudit`` pytest plugin (registered through the ``pytest11`` entry point): the
``assert_citations`` fixture, :func:`citeaudit.assert_citations` with the project's
configuration (the ``citeaudit.toml`` or ``[tool.citeaudit]`` found from pytest's root).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from citeaudit._assertions import citation_failure
from citeaudit.core import Report, load_config

__all__ = ["assert_citations"]


@pytest.fixture
def assert_citations(request: pytest.FixtureRequest) -> Callable[..., Report]:
    """``assert_citations(answer, sources, **options)``: fails the test, listing the
    findings, when the answer's citations do not hold; configured by the project.
    """
    config = load_config(start=request.config.rootpath)

    def check(answer: Any, sources: Any, **options: Any) -> Report:
        __tracebackhide__ = True  # the failure is shown at the test's line
        report, failure = citation_failure(answer, sources, **{"config": config, **options})
        if failure is not None:
            raise failure.with_traceback(None) from None
        return report

    return check

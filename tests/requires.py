"""The heavy parts of the suite: tests that need what the light ``test`` extra leaves out.

Each part has an install of its own (an extra; promptfoo's is npm's). Where a part is not
installed its tests are skipped with the command that installs it; where
``CITEAUDIT_REQUIRE_<PART>=1`` is set the missing part is a failure instead, so that CI cannot
pass by skipping. ``CITEAUDIT_REQUIRE_ALL=1`` requires every part but the evaluation
frameworks, which clash with the test extra and have an environment of their own: only
``CITEAUDIT_REQUIRE_EVALS`` requires them.
"""

from __future__ import annotations

import importlib.util
import os
from typing import NoReturn

import pytest

# Each part and how to install it.
PARTS = {
    "models": "pip install -e '.[test-models]' (the CPU build of torch first: docs/development.md)",
    "spark": "pip install -e '.[test-spark]'",
    "dataframe": "pip install -e '.[test-dataframe]'",
    "frameworks": "pip install -e '.[test-frameworks]'",
    "browser": "pip install -e '.[test-browser]' and apt-get install chromium",
    "evals": "pip install -e '.[evals-test]' in an environment of its own (docs/development.md)",
    "promptfoo": "npm ci --prefix examples/promptfoo",
    "typescript": "npm ci --prefix examples/service",
    "docs": "pip install -e '.[docs]'",
}
# The parts CITEAUDIT_REQUIRE_ALL leaves to their own variable.
ELSEWHERE = {"evals"}


def _set(variable: str) -> bool:
    return os.environ.get(variable, "").strip() not in ("", "0")


def variable(part: str) -> str:
    """The environment variable that makes ``part`` required."""
    return f"CITEAUDIT_REQUIRE_{part.upper()}"


def required(part: str) -> bool:
    """Whether a missing ``part`` fails its tests rather than skipping them."""
    if part not in PARTS:
        raise ValueError(f"unknown test part {part!r}: one of {', '.join(PARTS)}")
    return _set(variable(part)) or (part not in ELSEWHERE and _set("CITEAUDIT_REQUIRE_ALL"))


def reason(part: str) -> str:
    """The stated reason of a skip for want of ``part``."""
    return f"the {part} part: {PARTS[part]}"


def absent(part: str, what: str) -> NoReturn:
    """Skip the test (or the module, at its top) for want of ``what``, which ``part``
    provides; fail instead where the part is required.
    """
    if required(part):
        pytest.fail(f"{variable(part)} is set but {what} is missing: {PARTS[part]}",
                    pytrace=False)
    pytest.skip(f"{what} is missing; {reason(part)}", allow_module_level=True)


def needs(*modules: str, part: str) -> None:
    """Skip the test module (at its top, before it imports them) unless ``modules`` are
    installed; fail it instead where ``part`` is required. Found, not imported: the module's
    own imports then say what is broken in an installed part.
    """
    for name in modules:
        if importlib.util.find_spec(name) is None:
            absent(part, name)

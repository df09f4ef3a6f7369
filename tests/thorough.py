"""How many examples a property test tries.

Locally (the README's test command) a quarter of each test's count, at least 25, so the whole
suite runs in about two minutes; with ``CITEAUDIT_THOROUGH=1`` (``.ci/run`` sets it) every
test tries its full count. The fuzzers in ``fuzz/`` go further still.
"""

from __future__ import annotations

import os

THOROUGH = os.environ.get("CITEAUDIT_THOROUGH", "").strip() not in ("", "0")


def examples(count: int) -> int:
    """The number of examples to try where a test's full count is ``count``."""
    return count if THOROUGH else min(count, max(25, count // 4))

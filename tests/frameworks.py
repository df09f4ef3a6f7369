"""What the framework tests share: the evaluation frameworks (DeepEval, RAGAS, MLflow), the
answers their tests audit, and a way to run a framework's coroutine.

Their pins clash with the main test extra's (RAGAS needs openai 1, DeepEval an older click
than the model judges' hub), so CI installs them in a virtual environment of their own (the
``evals-test`` extra) and runs their tests there with ``CITEAUDIT_REQUIRE_EVALS`` set. Without
it, a missing framework skips its tests; with it, the skip is a failure (tests/requires.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib
import inspect
from types import ModuleType
from typing import Any

from requires import needs

PASSAGES = ["Refunds are issued within 14 days of receiving the returned item.",
            "Express shipping takes 1 business day."]
GOOD = "Refunds are issued within 14 days [1]. Express shipping takes a day [2]."
BAD = "Refunds are issued within 14 days [1]. Refunds take a year [4]."
REFUSAL = "Not covered by the provided documents."


def framework(name: str) -> ModuleType:
    """``name`` imported, or the test module skipped (failed under CITEAUDIT_REQUIRE_EVALS)."""
    needs(name, part="evals")
    return importlib.import_module(name)


def public_names(module: ModuleType) -> set[str]:
    """The names a package offers (what its ``__all__`` must list), as the API test reads
    them for the packages installed with the main test extra.
    """
    return {name for name in dir(module) if not name.startswith(("_", "@"))
            and not inspect.ismodule(getattr(module, name))}


def run_async(coroutine: Any) -> Any:
    """Run a coroutine in a thread of its own: a session's browser may hold this thread's
    event loop.
    """
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()

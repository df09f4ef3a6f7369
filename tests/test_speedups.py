"""The hand-written leaves (``citeaudit._speedups._leaves``) equal their oracles: the one line
of Python each one's docstring quotes, run from that docstring and from
``citeaudit._speedups._fallback``, over arbitrary input. ``citeaudit._speedups`` chooses the
leaf or its oracle in one place, by ``CITEAUDIT_PURE``.

The leaves are compared with their oracles in one process whichever mode the suite runs in.
Where they are not built the comparisons skip, unless ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI)
makes that a failure.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citeaudit import _speedups
from citeaudit._speedups import _fallback
from thorough import examples

PROFILE = settings(max_examples=examples(400), deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])
LEAVES = ["openings"]


def _built() -> ModuleType | None:
    try:
        return importlib.import_module("citeaudit._speedups._leaves")
    except ImportError:
        if os.environ.get("CITEAUDIT_REQUIRE_CORE") == "1":
            raise
        return None


BUILT = _built()
built = pytest.mark.skipif(BUILT is None, reason="the leaves are not built")


def _leaves() -> Any:
    assert BUILT is not None
    return BUILT


def _oracle(function: Callable[..., Any]) -> str:
    """The one line of Python ``function``'s docstring gives as its oracle."""
    found = re.search(r"^\s*Oracle: (.+)$", function.__doc__ or "", re.MULTILINE)
    assert found, f"{function.__name__} states no oracle"
    return found[1]


@built
@pytest.mark.parametrize("name", LEAVES)
def test_each_leaf_states_the_oracle_that_runs_without_it(name: str) -> None:
    assert _oracle(getattr(_leaves(), name)) == _oracle(getattr(_fallback, name))
    assert name in _speedups.__all__


def test_the_package_chooses_the_leaf_or_its_oracle() -> None:
    built = _speedups.LEAVES
    assert (_speedups.openings is not _fallback.openings) is built
    if _speedups.PURE:
        assert not built
    elif os.environ.get("CITEAUDIT_REQUIRE_CORE") == "1":
        assert built
    assert ("citeaudit._speedups._leaves" in _speedups.uncompiled()) is \
        (not built and not _speedups.PURE)


@pytest.mark.parametrize("pure", ["1", "0"])
def test_the_variable_chooses_in_a_new_process(pure: str) -> None:
    shown = "from citeaudit import _speedups; print(_speedups.openings.__module__)"
    env = {**os.environ, "CITEAUDIT_PURE": pure}
    done = subprocess.run([sys.executable, "-c", shown], env=env, capture_output=True,
                          text=True, check=True)
    chosen = "_leaves" if BUILT is not None and pure == "0" else "_fallback"
    assert done.stdout.strip() == f"citeaudit._speedups.{chosen}"


@built
@PROFILE
@given(st.one_of(st.binary(max_size=300), st.lists(st.sampled_from(
    [b"[", b"{", b"]", b"}", b"\x5b", b"\x7b\x5b", b"\xfb", b"\xdb", b"{\"a\": [1]}", b"x"]),
    max_size=60).map(b"".join)))
@example(bytes(range(256)) * 3 + b"[{")  # every byte, in words of eight and the tail
@example(b"")
def test_openings_equal_its_oracle(data: bytes) -> None:
    leaf = _leaves().openings
    expected = eval(_oracle(leaf), {}, {"data": data})  # the docstring's own line
    assert leaf(data) == expected
    assert _fallback.openings(data) == expected


@built
def test_openings_refuses_what_is_not_bytes() -> None:
    """A plain argument: exact ``bytes`` (``_loading.too_deep`` gives it a subclass's bytes)."""
    leaf = _leaves().openings
    for wrong in (None, "[{", bytearray(b"[{"), type("Bytes", (bytes,), {})(b"[{")):
        with pytest.raises(TypeError):
            leaf(wrong)

"""The leaves' oracles: each the one line of Python its hand-written leaf
(``_leaves.pyx``) computes, quoted in the leaf's docstring. They run where the leaves are not
built or ``CITEAUDIT_PURE=1``; ``tests/test_speedups.py`` holds each leaf to its oracle.
"""

from __future__ import annotations

__all__ = ["openings"]


def openings(data: bytes) -> int:
    """How many ``[`` and ``{`` ``data`` holds (the first test of a JSON input's depth).

    Oracle: data.count(b"[") + data.count(b"{")
    """
    return data.count(b"[") + data.count(b"{")

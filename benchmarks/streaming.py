"""The two streaming workloads the benchmarks measure, over answers already cut in chunks:
the stream auditor fed every chunk, and the floor any streaming auditor pays at least (one
call a chunk that only keeps it, then the one-shot audit, made whole: the stream's report has
its findings, and its context serves the rest of the text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import citeaudit
from citeaudit.core._engine import run

Chunked = Sequence[tuple[Sequence[str], Any]]  # (an answer's chunks, its snapshot)


def stream(chunked: Chunked) -> None:
    """Feed each answer's chunks to a stream auditor, then finish it."""
    for chunks, snapshot in chunked:
        auditor = citeaudit.stream(snapshot)
        feed = auditor.feed
        for chunk in chunks:
            feed(chunk)
        auditor.finish()


def floor(chunked: Chunked) -> None:
    """Keep each chunk (one call a chunk), then audit the answer once."""
    for chunks, snapshot in chunked:
        kept: list[str] = []
        keep = kept.append
        for chunk in chunks:
            keep(chunk)
        run("".join(kept), snapshot)

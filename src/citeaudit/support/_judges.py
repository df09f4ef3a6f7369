"""What the judges share: sentence windows of a passage and the device a model runs on."""

from __future__ import annotations

import itertools
import os
import re
from typing import Any

from citeaudit.errors import ConfigError

__all__ = ["device", "sentences", "windows"]

# One character class first (the engine skips to it; an alternation of a class and a newline
# is tried at every character, twice as slow), then which of the two it was.
_SENTENCE_END = re.compile(r"[.!?。！？\n](?:(?<=\n)|(?=\s))")


def sentences(text: str) -> list[tuple[int, int]]:
    """The spans of the sentences (and lines) of ``text``, blank ones left out."""
    spans = []
    start = 0
    for end in [m.end() for m in _SENTENCE_END.finditer(text)] + [len(text)]:
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    return spans


def windows(text: str) -> list[str]:
    """What a claim is compared with: each sentence, and each two adjacent sentences."""
    parts = [text[a:b].strip() for a, b in sentences(text)]
    return parts + [f"{a} {b}" for a, b in itertools.pairwise(parts)]

def device(torch: Any) -> str:
    """Where a model judge runs: ``CITEAUDIT_DEVICE`` when set (``cpu``, ``cuda``, ``cuda:1``,
    ``mps``), else CUDA or Apple's MPS when present, else the CPU.
    """
    chosen = os.environ.get("CITEAUDIT_DEVICE", "").strip()
    if chosen:
        kind = chosen.split(":", 1)[0]
        available = {"cpu": True, "cuda": torch.cuda.is_available(),
                     "mps": bool(getattr(torch.backends, "mps", None))
                     and torch.backends.mps.is_available()}
        if kind not in available:
            raise ConfigError(f"CITEAUDIT_DEVICE {chosen!r}: use cpu, cuda, cuda:N or mps")
        if not available[kind]:
            raise ConfigError(f"CITEAUDIT_DEVICE {chosen!r}: no such device here")
        return chosen
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    return "mps" if mps is not None and mps.is_available() else "cpu"

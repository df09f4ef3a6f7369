"""What the judges share: sentence windows of a passage and the device a model runs on."""

from __future__ import annotations

import itertools
import os
import re
from typing import Any

from citeaudit.core import Evidence
from citeaudit.errors import ConfigError

__all__ = ["device", "evidence", "locate", "placed_windows", "sentences", "stripped",
           "windows"]

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
    return [window for window, _, _ in placed_windows(text)]


def placed_windows(text: str) -> list[tuple[str, int, int]]:
    """:func:`windows` with where each is in ``text``: ``[start, end)``, white space at its
    ends left out (a two-sentence window's span holds the text between its sentences as
    written, the window itself one space).
    """
    parts = [stripped(text, a, b) for a, b in sentences(text)]
    texts = [text[a:b] for a, b in parts]
    return [(window, a, b) for window, (a, b) in zip(texts, parts, strict=True)] + [
        (f"{x} {y}", a, d) for (x, (a, _)), (y, (_, d))
        in itertools.pairwise(zip(texts, parts, strict=True))]


def stripped(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the white space at its ends (as ``str.strip`` sees it)."""
    segment = text[start:end]  # one slice and two C-level strips: no loop over characters
    kept = segment.strip()
    if not kept:
        return start, start
    start += len(segment) - len(segment.lstrip())
    return start, start + len(kept)


def evidence(source_id: str, text: str, start: int, end: int) -> Evidence:
    """The span ``[start, end)`` of passage ``text``, quoted."""
    return Evidence(source_id, start, end, text[start:end])


def _folded(text: str) -> tuple[str, list[int]]:
    """``text`` case-folded with each run of white space one space, and for each of its
    characters the index in ``text`` it comes from (folding may lengthen: ß is ss).
    """
    out: list[str] = []
    origin: list[int] = []
    space = False
    for index, character in enumerate(text):
        if character.isspace():
            if not space:
                out.append(" ")
                origin.append(index)
            space = True
            continue
        space = False
        for folded in character.casefold():
            out.append(folded)
            origin.append(index)
    return "".join(out), origin


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """Where ``quote`` is in ``text``: as written, else with case and white space folded
    (a model copies a passage loosely); ``None`` when it is not there.
    """
    quote = quote.strip()
    if not quote:
        return None
    at = text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    wanted = " ".join(quote.casefold().split())
    folded, origin = _folded(text)
    at = folded.find(wanted)
    if at < 0:
        return None
    return origin[at], origin[at + len(wanted) - 1] + 1

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

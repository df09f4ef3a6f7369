"""Which answers are refusals: any of the accepted refusal strings, compared after
normalising white space, case, quote characters and final punctuation, or an RE2 pattern
(``refusal-regex``) that matches the whole answer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from citeaudit.core._grammar import compile_linear
from citeaudit.errors import ConfigError

__all__ = ["PATTERN_WINDOW", "Refusal", "normalise_refusal"]

_QUOTES = str.maketrans("", "", "\"'`\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u00ab"
                        "\u00bb\u2039\u203a\u300c\u300d")
_SPACE = re.compile(r"\s+")
_FINAL = ".!?\u3002\uff01\uff1f\u2026;:, "
_FORMAT = "*_~"
PATTERN_WINDOW = 1000  # a stream holds back this much while a refusal pattern may match


def normalise_refusal(text: str) -> str:
    """``text`` as refusals are compared: case folded, quote characters dropped, white space
    collapsed, final punctuation and Markdown emphasis or quoting around it trimmed.
    """
    folded = _SPACE.sub(" ", text.casefold().translate(_QUOTES)).strip()
    # Markdown around the whole answer (emphasis, a quote block) is formatting, not words.
    return folded.lstrip(_FORMAT + "> ").rstrip(_FINAL + _FORMAT)


class Refusal:
    """The refusals an audit accepts."""

    __slots__ = ("_heads", "_normal", "_pattern", "_shortest", "longest", "pattern", "texts")

    def __init__(self, texts: Sequence[str], pattern: str | None = None) -> None:
        self.texts = tuple(texts)
        self._normal = frozenset(normalise_refusal(t) for t in self.texts)
        self.longest = max((len(t) for t in self.texts), default=0)
        # Normalising only shortens: a text shorter than every refusal is none of them.
        self._shortest = min((len(n) for n in self._normal), default=0)
        self._heads = tuple({n.split(" ", 1)[0] for n in self._normal})
        self.pattern = pattern
        self._pattern = _compile(pattern) if pattern is not None else None

    @classmethod
    def of(cls, value: str | Sequence[str] | Refusal, pattern: str | None = None) -> Refusal:
        """A matcher from one string, several, or a matcher."""
        if isinstance(value, Refusal):
            return value
        return _cached(value if isinstance(value, str) else tuple(value), pattern)

    def matches(self, text: str) -> bool:
        """Whether ``text`` (the whole answer, markers taken out) is a refusal."""
        if self._shortest <= len(text) <= 4 * self.longest + 64 and self._has_head(text) \
                and normalise_refusal(text) in self._normal:
            return True
        return self._pattern is not None and self._pattern.fullmatch(text.strip()) is not None

    def may_start(self, head: str) -> bool:
        """Whether an answer that begins with ``head`` may still turn out to be a refusal (a
        stream holds it back until it cannot). With a pattern, any head of up to
        :data:`PATTERN_WINDOW` characters may.
        """
        if self._pattern is not None and len(head) <= PATTERN_WINDOW:
            return True
        normal = normalise_refusal(head)
        return any(text.startswith(normal) for text in self._normal)

    def may_match(self, text: str) -> bool:
        """A cheap test: ``False`` means :meth:`matches` is ``False`` for ``text`` with some of
        its markers taken out too.
        """
        if self._pattern is not None:
            return True
        if not self._shortest <= len(text) <= 8 * self.longest + 256:
            return False
        return self._has_head(text)

    def _has_head(self, text: str) -> bool:
        """Whether ``text`` holds the first word of a refusal (a cheap filter)."""
        folded = text.casefold()
        return any(head in folded for head in self._heads)


@functools.lru_cache(maxsize=64)
def _cached(texts: str | tuple[str, ...], pattern: str | None) -> Refusal:
    return Refusal((texts,) if isinstance(texts, str) else texts, pattern)


def _compile(pattern: str) -> Any:
    try:
        return compile_linear(pattern)
    except ValueError as error:
        raise ConfigError(f"refusal-regex {pattern!r} cannot be compiled: {error}") from None

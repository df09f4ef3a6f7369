"""Does the cited passage support the claim? Support judges behind one seam.

``lexical`` (no model): amounts (CA501), quotations (CA502) and content-word alignment
(CA503). Enabled by ``--support NAME`` or ``support = "NAME"`` in the configuration.
"""

from __future__ import annotations

import functools

from citeaudit.errors import ConfigError
from citeaudit.support.judges import Judgement, Passage, SupportJudge

__all__ = ["Judgement", "Passage", "SupportJudge", "get_judge"]


@functools.lru_cache(maxsize=16)
def get_judge(name: str, threshold: float | None = None) -> SupportJudge:
    """The support judge called ``name`` (with its threshold, or its default)."""
    if name == "lexical":
        from citeaudit.support.lexical import DEFAULT_THRESHOLD, LexicalJudge  # noqa: PLC0415

        return LexicalJudge(DEFAULT_THRESHOLD if threshold is None else threshold)
    raise ConfigError(f"unknown support judge {name!r}")

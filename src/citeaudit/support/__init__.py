"""Does the cited passage support the claim? Support judges behind one seam.

``lexical`` (no model): amounts (CA501), quotations (CA502) and content-word alignment
(CA503); ``llm``: a chat model over an OpenAI-compatible API (CA503). Enabled by
``--support NAME`` or ``support = "NAME"`` in the configuration.
"""

from __future__ import annotations

import functools
import os

from citeaudit.errors import ConfigError
from citeaudit.support.judges import Judgement, Passage, SupportJudge

__all__ = ["Judgement", "Passage", "SupportJudge", "get_judge"]


def get_judge(name: str, threshold: float | None = None) -> SupportJudge:
    """The support judge called ``name`` (with its threshold, or its default). Judges are
    kept and reused (an audit asks for one per answer); the llm judge is rebuilt when its
    environment variables change.
    """
    if name == "lexical":
        return _lexical(threshold)
    if name in ("embedding", "nli"):
        variable = "CITEAUDIT_EMBEDDING_MODEL" if name == "embedding" else "CITEAUDIT_NLI_MODEL"
        return _model(name, os.environ.get(variable), threshold)
    if name == "llm":
        environment = tuple(sorted((k, v) for k, v in os.environ.items()
                                   if k.startswith("CITEAUDIT_LLM_")))
        return _llm(environment, threshold)
    raise ConfigError(f"unknown support judge {name!r}")


@functools.lru_cache(maxsize=16)
def _lexical(threshold: float | None) -> SupportJudge:
    from citeaudit.support.lexical import DEFAULT_THRESHOLD, LexicalJudge  # noqa: PLC0415

    return LexicalJudge(DEFAULT_THRESHOLD if threshold is None else threshold)


@functools.lru_cache(maxsize=4)
def _model(name: str, path: str | None, threshold: float | None) -> SupportJudge:
    """A model judge, loaded once per model and threshold."""
    if name == "embedding":
        from citeaudit.support.embedding import DEFAULT_THRESHOLD, EmbeddingJudge  # noqa: PLC0415

        return EmbeddingJudge(path, threshold=DEFAULT_THRESHOLD if threshold is None
                              else threshold)
    from citeaudit.support.nli import DEFAULT_THRESHOLD as NLI_THRESHOLD  # noqa: PLC0415
    from citeaudit.support.nli import NLIJudge  # noqa: PLC0415

    return NLIJudge(path, threshold=NLI_THRESHOLD if threshold is None else threshold)


@functools.lru_cache(maxsize=4)
def _llm(environment: tuple[tuple[str, str], ...], threshold: float | None) -> SupportJudge:
    del environment  # the cache key: what from_environment reads
    from citeaudit.support.llm import LLMJudge  # noqa: PLC0415

    return LLMJudge.from_environment(threshold)

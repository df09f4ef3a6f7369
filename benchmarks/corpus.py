"""Realistic generated RAG answers: ~1,000 characters, 5-10 sources, mixed marker shapes and
markdown. Deterministic for a given seed."""

from __future__ import annotations

import random

SUBJECTS = ["Reimbursements", "Expense reports", "Per diem claims", "Travel bookings",
            "Refund requests", "The service desk", "Manager approvals", "Receipts",
            "Corporate cards", "Mileage claims"]
VERBS = ["settle within", "must be filed within", "are reviewed within", "are paid after",
         "are archived for", "need approval within", "are processed in", "close after"]
TAILS = ["of approval", "of purchase", "of the trip", "business days", "calendar days",
         "of submission", "e.g. weekends excluded", "i.e. after the audit"]
HEADINGS = ["## Reimbursement", "### Filing rules", "## What to know", "### Exceptions"]


def _marker(rng: random.Random, sources: int) -> str:
    pick = rng.random()
    n = rng.randint(1, sources)
    if pick < 0.55:
        return f"[{n}]"
    if pick < 0.7:
        return f"[{n}][{rng.randint(1, sources)}]"
    if pick < 0.8:
        return f"[{n}, {rng.randint(1, sources)}]"
    if pick < 0.87:
        low = rng.randint(1, max(1, sources - 2))
        return f"[{low}-{low + 2}]"
    if pick < 0.93:
        return f"[S{n}]"
    if pick < 0.97:
        return f"[{sources + rng.randint(1, 5)}]"  # out of range
    return "[citation needed]"


def _sentence(rng: random.Random, sources: int) -> str:
    days = rng.choice([7, 14, 30, 60, 90, 3.5])
    text = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {days} {rng.choice(TAILS)}"
    if rng.random() < 0.15:
        return text + "."  # uncited
    if rng.random() < 0.3:
        return f"{text}. {_marker(rng, sources)}"  # marker after the full stop
    return f"{text} {_marker(rng, sources)}."


def answer(rng: random.Random, sources: int, size: int = 1000) -> str:
    parts: list[str] = []
    length = 0
    while length < size:
        shape = rng.random()
        if shape < 0.1 and parts:
            block = rng.choice(HEADINGS)
        elif shape < 0.3:
            block = "\n".join(f"- {_sentence(rng, sources)}" for _ in range(rng.randint(2, 3)))
        elif shape < 0.4:
            block = "\n".join(f"{i}. {_sentence(rng, sources)}"
                              for i in range(1, rng.randint(2, 4)))
        else:
            block = " ".join(_sentence(rng, sources) for _ in range(rng.randint(2, 4)))
        parts.append(block)
        length += len(block) + 2
    return "\n\n".join(parts)


def typographic(text: str) -> str:
    """``text`` as real answers are typeset: every ninth word in curly quotes, an em dash, a
    typographic apostrophe and a no-break space (ASCII-only text takes fast paths real answers
    do not).
    """
    words = text.split(" ")
    for i in range(0, len(words), 9):
        words[i] = f"\u201c{words[i]}\u201d"
    return (" ".join(words).replace(" e.g. ", " e.g.\u00a0").replace("days", "days\u2019")
            .replace(" of the ", " \u2014 of the "))


def corpus(count: int, seed: int = 7, *, typeset: bool = False) -> list[tuple[str, list[str]]]:
    """``count`` (answer, passages) pairs (``typeset``: answers and passages typographic)."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        sources = rng.randint(5, 10)
        passages = [f"Passage {n}: " + " ".join(rng.choice(SUBJECTS) for _ in range(20))
                    for n in range(1, sources + 1)]
        text = answer(rng, sources)
        if typeset:
            text, passages = typographic(text), [typographic(p) for p in passages]
        pairs.append((text, passages))
    return pairs

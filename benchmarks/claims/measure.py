"""CA301 + CA302 precision and recall of the engine itself on the labelled claims set.

    python benchmarks/claims/measure.py

Every answer of ``answers.jsonl`` is audited by citeaudit as a user would audit it (the
default configuration, ``claims = "balanced"``; then ``"lenient"`` and ``"strict"``, the
policy's rules alone), against a snapshot of its sources numbered 1..N (N the highest
``[n]`` in the text) holding the search results the answer came with, where it came with
them. A labelled unit counts as flagged when a CA301 or CA302 finding overlaps it; "needs a
citation" is the label ``citable``. Printed: precision and recall per split and source.
The model was trained on the dev split only (``train.py``); test is measured, never tuned on.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import citeaudit

HERE = Path(__file__).parent
DEV = ("deep-research-bench", "ai-search-benchmark", "drb-tickr", "drb-webweaver")
TEST = ("drb-firstprinciples", "onyx")
PRESETS = ("balanced", "lenient", "strict")


def labelled() -> dict[str, list[dict[str, Any]]]:
    """The labelled units by answer (a unit's first label counts, as in train.py)."""
    labels: dict[str, dict[str, Any]] = {}
    for path in sorted((HERE / "labels").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            labels.setdefault(row["id"], row)
    by_answer: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (HERE / "units.jsonl").read_text(encoding="utf-8").splitlines():
        unit = json.loads(line)
        if unit["id"] in labels:
            unit["label"] = labels[unit["id"]]["label"]
            by_answer[unit["answer"]].append(unit)
    return by_answer


def snapshot_of(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """Sources 1..N, holding the answer's search results where it has them."""
    numbers = [int(n) for n in re.findall(r"\[(\d{1,4})\]", answer["text"])]
    results = answer.get("passages") or []
    size = max(max(numbers, default=1), len(results))
    sources = []
    for n in range(1, size + 1):
        found = results[n - 1] if n <= len(results) else {}
        text = " ".join(filter(None, (found.get("title"), found.get("description")))) or "-"
        sources.append({"id": str(n), "text": text})
    return sources


def flagged_spans(text: str, sources: list[dict[str, Any]], preset: str,
                  ) -> list[tuple[int, int]]:
    report = citeaudit.audit(text, sources, config=citeaudit.Config(claims=preset))
    return [f.span for f in report.findings if f.code in ("CA301", "CA302") and f.span]


def main() -> None:
    units = labelled()
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    for line in (HERE / "answers.jsonl").read_text(encoding="utf-8").splitlines():
        answer = json.loads(line)
        mine = units.get(answer["answer"])
        if not mine:
            continue
        sources = snapshot_of(answer)
        for preset in PRESETS:
            spans = flagged_spans(answer["text"], sources, preset)
            for unit in mine:
                start, end = unit["span"]
                flag = any(a < end and start < b for a, b in spans)
                truth = unit["label"] == "citable"
                split = "dev" if unit["source"] in DEV else "test"
                for key in ((split, unit["source"], preset), (split, "all", preset)):
                    hits, flags, citable = counts[key]
                    counts[key] = [hits + (flag and truth), flags + flag, citable + truth]
    print(f"{'split':<5} {'source':<22} " + "  ".join(f"{p + ' P / R':<15}" for p in PRESETS))
    for split, sources in (("dev", (*DEV, "all")), ("test", (*TEST, "all"))):
        for source in sources:
            cells = []
            for preset in PRESETS:
                hits, flags, citable = counts[(split, source, preset)]
                precision = hits / flags if flags else 1.0
                recall = hits / citable if citable else 1.0
                cells.append(f"{precision:.3f} / {recall:.3f}")
            print(f"{split:<5} {source:<22} " + "  ".join(f"{c:<15}" for c in cells))


if __name__ == "__main__":
    main()

"""Our citation-aware segmenter beside maintained sentence segmenters, measured in one run.

    python3 -m pip install -e '.[bench]' && python3 benchmarks/bench_segment.py

For each segmenter: microseconds per ~1,000-character answer (median of rounds) and how many
of the segmentation table's cases (tests/test_segment.py) it splits exactly as expected.
This is the benchmark that decided to write our own: see docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from corpus import corpus  # noqa: E402 - the benchmark's own helper module

import citeaudit  # noqa: E402
from test_segment import CASES  # noqa: E402 - the expected splits are the tests' table

_GRAMMAR = citeaudit.get_grammar(["numeric", "S"])
_segment_module = importlib.import_module("citeaudit.core._segment")


def ours(text: str) -> list[str]:
    scan = _GRAMMAR.scan(text)
    marks = sorted(_segment_module.Span(m.start, m.end) for m in (*scan.markers, *scan.malformed))
    return [text[start:end] for start, end in citeaudit.segment(text, marks)]


def _others() -> dict[str, Callable[[str], list[str]]]:
    found: dict[str, Callable[[str], list[str]]] = {}
    try:
        import pysbd

        splitter = pysbd.Segmenter(language="en", clean=False)
        found["pysbd"] = lambda text: [s.strip() for s in splitter.segment(text) if s.strip()]
    except ImportError:
        pass
    try:
        import sentencex

        found["sentencex"] = lambda text: [s.strip() for s in sentencex.segment("en", text)
                                           if s.strip()]
    except ImportError:
        pass
    try:
        from nltk.tokenize.punkt import PunktSentenceTokenizer

        punkt = PunktSentenceTokenizer()
        found["nltk punkt"] = lambda text: [s.strip() for s in punkt.tokenize(text)]
    except ImportError:
        pass
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    texts = [answer for answer, _ in corpus(args.answers)]
    segmenters = {"citeaudit (scan + segment)": ours, **_others()}
    print(f"answers: {len(texts)}, mean {statistics.mean(map(len, texts)):.0f} chars;"
          f" table: {len(CASES)} cases")
    base = None
    for name, split in segmenters.items():
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            for text in texts:
                split(text)
            times.append((time.perf_counter() - start) / len(texts))
        per_answer = statistics.median(times) * 1e6
        base = base or per_answer
        agree = sum(1 for _, text, expected in CASES if split(text) == expected)
        print(f"  {name:<28} {per_answer:9.1f} us/answer  x{per_answer / base:6.1f}"
              f"  table {agree}/{len(CASES)}")


if __name__ == "__main__":
    main()

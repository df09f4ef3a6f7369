"""Full free-text audits per second beside seed 002's naive check(), measured in one run.

    python3 benchmarks/bench_audit.py [--answers N] [--rounds R]

Target: ratio (audit time / naive time) <= 1.0 per answer.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from corpus import corpus

import citeaudit

# Seed 002's check(), as the document gives it: the baseline.
SENTENCE = re.compile(r"(?<=[.!?]) +")
MARKER = re.compile(r"\[(\d+)\]")


def check(answer: str, passages: list[str]) -> dict[str, object]:
    valid = set(range(1, len(passages) + 1))
    cited = {int(m) for m in MARKER.findall(answer)}
    sentences = [s for s in SENTENCE.split(answer) if s.strip()]
    unmarked = [s for s in sentences
                if re.search(r"\d", s) and not MARKER.search(s)]
    return {"cited": sorted(cited), "bad_ids": sorted(cited - valid), "unmarked": unmarked}


def _time(work: Callable[[], object], rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    pairs = corpus(args.answers)
    snapshots = [(a, citeaudit.load_snapshot(p)) for a, p in pairs]
    mean_chars = statistics.mean(len(a) for a, _ in pairs)

    def naive() -> None:
        for answer, passages in pairs:
            check(answer, passages)

    def full() -> None:
        for answer, passages in pairs:
            citeaudit.audit(answer, passages)

    def prebuilt() -> None:
        for answer, snapshot in snapshots:
            citeaudit.audit(answer, snapshot)

    full()  # warm caches (regex compilation) before timing
    # Interleave the rounds so machine noise falls on all three alike.
    results: dict[str, list[float]] = {"naive": [], "full": [], "prebuilt": []}
    for _ in range(args.rounds):
        for name, work in (("naive", naive), ("full", full), ("prebuilt", prebuilt)):
            results[name].extend(_time(work, 1))
    medians = {name: statistics.median(times) for name, times in results.items()}

    latencies = []
    for answer, passages in pairs:
        start = time.perf_counter_ns()
        citeaudit.audit(answer, passages)
        latencies.append(time.perf_counter_ns() - start)
    latencies.sort()
    p50 = latencies[len(latencies) // 2] / 1000
    p99 = latencies[int(len(latencies) * 0.99)] / 1000

    count = len(pairs)
    print(f"answers: {count}, mean {mean_chars:.0f} chars, {args.rounds} rounds (medians)")
    for name, label in (("naive", "seed 002 check() (baseline)"),
                        ("full", "citeaudit.audit(answer, passages)"),
                        ("prebuilt", "citeaudit.audit(answer, snapshot)")):
        rate = count / medians[name]
        ratio = medians[name] / medians["naive"]
        print(f"  {label:<36} {rate:>9,.0f} answers/s  {1e6 / rate:7.1f} us/answer"
              f"  ratio {ratio:.2f}")
    print(f"  audit() latency: p50 {p50:.1f} us, p99 {p99:.1f} us")
    snapshot = snapshots[0][1]
    structured = {"status": "answered", "text": "Fact.", "citations": ["1"]}
    for label, answer in (("one-claim text 'Fact [1].'", "Fact [1]."),
                          ("structured, one citation", structured)):
        seconds = statistics.median(_time(lambda a=answer: [citeaudit.audit(a, snapshot)
                                                             for _ in range(1000)], 5))
        print(f"  fixed cost, {label:<28} {seconds * 1e3:7.1f} us/answer")
    ratio = medians["full"] / medians["naive"]
    print(f"target ratio <= 1.0: {'met' if ratio <= 1.0 else 'NOT met'} ({ratio:.2f})")


if __name__ == "__main__":
    main()

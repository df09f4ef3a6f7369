"""Full free-text audits per second beside seed 002's naive check(), measured in one run.

    python3 benchmarks/bench_audit.py [--answers N] [--rounds R]

Targets: ratio (audit time / naive time) <= 0.5 per answer from raw passages (stretch 0.3)
and <= 0.3 with a snapshot built beforehand, the verdict read (a settled report: its
findings are made when first read). Also printed: the same over the answers that
pass alone (nothing fails early), and the whole audit (findings made, as eval and the
service make them), each beside the naive check of the same answers; and the verdict and
the whole audit under ``claims = "strict"`` (the policy's rules alone, no content judge), so
that what the judge costs is read in the same run.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from corpus import corpus

import citeaudit
from citeaudit.core._engine import run

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
    passing = [(a, p) for a, p in pairs if citeaudit.audit(a, p).passed]
    mean_chars = statistics.mean(len(a) for a, _ in pairs)

    def loop(work: Callable[[str, Any], object], items: list[tuple[str, Any]],
             ) -> Callable[[], None]:
        def timed() -> None:
            for answer, sources in items:
                work(answer, sources)
        return timed

    def verdict(answer: str, sources: Any) -> bool:  # as a guard reads it
        return citeaudit.audit(answer, sources).passed

    def whole(answer: str, sources: Any) -> object:  # findings made, as eval makes them
        return run(answer, sources)

    strict = citeaudit.Config(claims="strict")  # the policy's rules alone: no content judge

    def verdict_strict(answer: str, sources: Any) -> bool:
        return citeaudit.audit(answer, sources, config=strict).passed

    def whole_strict(answer: str, sources: Any) -> object:
        return run(answer, sources, config=strict)

    works = {"naive": loop(check, pairs), "full": loop(verdict, pairs),
             "full strict": loop(verdict_strict, pairs), "whole strict": loop(whole_strict, pairs),
             "prebuilt": loop(verdict, snapshots), "whole": loop(whole, pairs),
             "naive passing": loop(check, passing), "passing": loop(verdict, passing)}
    for work in works.values():
        work()  # warm caches (regex compilation) before timing
    # Interleave the rounds so machine noise falls on every work alike.
    results: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(args.rounds):
        for name, work in works.items():
            results[name].extend(_time(work, 1))
    medians = {name: statistics.median(times) for name, times in results.items()}

    latencies = []
    for answer, passages in pairs:
        start = time.perf_counter_ns()
        verdict(answer, passages)
        latencies.append(time.perf_counter_ns() - start)
    latencies.sort()
    p50 = latencies[len(latencies) // 2] / 1000
    p99 = latencies[int(len(latencies) * 0.99)] / 1000

    print(f"answers: {len(pairs)}, mean {mean_chars:.0f} chars, {len(passing)} of them pass,"
          f" {args.rounds} rounds (medians)")
    for name, label, base, count in (
            ("naive", "seed 002 check() (baseline)", "naive", len(pairs)),
            ("full", "audit(answer, passages).passed", "naive", len(pairs)),
            ("prebuilt", "audit(answer, snapshot).passed", "naive", len(pairs)),
            ("whole", "whole audit, findings made", "naive", len(pairs)),
            ("full strict", "claims = strict: .passed", "naive", len(pairs)),
            ("whole strict", "claims = strict: whole audit", "naive", len(pairs)),
            ("naive passing", "check(), the answers that pass", "naive passing", len(passing)),
            ("passing", "audit().passed, the answers that pass", "naive passing",
             len(passing))):
        rate = count / medians[name]
        ratio = medians[name] / medians[base]
        print(f"  {label:<38} {rate:>9,.0f} answers/s  {1e6 / rate:7.1f} us/answer"
              f"  ratio {ratio:.2f}")
    print(f"  audit().passed latency: p50 {p50:.1f} us, p99 {p99:.1f} us")
    snapshot = snapshots[0][1]
    structured = {"status": "answered", "text": "Fact.", "citations": ["1"]}
    for label, answer in (("one-claim text 'Fact [1].'", "Fact [1]."),
                          ("structured, one citation", structured)):
        seconds = statistics.median(_time(lambda a=answer: [citeaudit.audit(a, snapshot)
                                                             for _ in range(1000)], 5))
        print(f"  fixed cost, {label:<28} {seconds * 1e3:7.1f} us/answer")
    for name, label, target in (("full", "from passages", 0.5),
                                ("full", "from passages (stretch)", 0.3),
                                ("prebuilt", "with a snapshot", 0.3)):
        ratio = medians[name] / medians["naive"]
        print(f"target ratio {label} <= {target}: {'met' if ratio <= target else 'NOT met'}"
              f" ({ratio:.3f})")


if __name__ == "__main__":
    main()

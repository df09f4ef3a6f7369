"""The request path per answer: guard + resolve + render beside audit, and streaming total cost
beside one-shot audit, measured in one run.

    python3 benchmarks/bench_request.py [--answers N] [--rounds R]

The baseline, "audit", is the whole audit (``run()``: findings made, as the guard, the stream's
finish and render need them); "audit().passed" is a settled report's verdict alone.

Targets: streaming (feed in token-sized chunks, then finish) <= 1.5x one-shot audit, and
<= 2x the floor (append every chunk to a list, then one audit); a chunk on the fast path (no
bracket, code character or newline) <= 0.1 us, measured beside a bare ``list.append`` call.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import streaming
from corpus import corpus

import citeaudit
from citeaudit.core._engine import run


def _with_urls(passages: list[str], rng: random.Random) -> list[dict[str, str]]:
    """Passages as chunks of a few documents, with URLs that differ only in form."""
    documents = max(1, len(passages) // 2)
    out = []
    for text in passages:
        doc = rng.randrange(documents)
        url = rng.choice([f"https://docs.example/{doc}", f"https://DOCS.example/{doc}/",
                          f"https://docs.example/{doc}?utm_source=rag#s{rng.randrange(9)}"])
        out.append({"text": text, "url": url, "title": f"Document {doc}"})
    return out


def _chunks(text: str, rng: random.Random, mean: int) -> list[str]:
    """``text`` cut into pieces of 1..2*mean-1 characters (model tokens average ~4)."""
    pieces = []
    position = 0
    while position < len(text):
        size = rng.randint(1, 2 * mean - 1)
        pieces.append(text[position:position + size])
        position += size
    return pieces


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    rng = random.Random(7)
    cases = [(answer, citeaudit.load_snapshot(_with_urls(passages, rng)))
             for answer, passages in corpus(args.answers)]
    tokens = [(_chunks(answer, rng, 4), snapshot) for answer, snapshot in cases]
    pieces = [(_chunks(answer, rng, 32), snapshot) for answer, snapshot in cases]

    def audit() -> None:  # findings made: what the guard, the stream and render read
        for answer, snapshot in cases:
            run(answer, snapshot)

    def verdict() -> None:  # a settled report's verdict alone (see bench_audit.py)
        for answer, snapshot in cases:
            citeaudit.audit(answer, snapshot).passed  # noqa: B018 -- the verdict read

    def guard() -> None:
        for answer, snapshot in cases:
            citeaudit.guard(answer, snapshot)

    def html() -> None:
        for answer, snapshot in cases:
            citeaudit.render_html(citeaudit.guard(answer, snapshot))

    def markdown() -> None:
        for answer, snapshot in cases:
            citeaudit.render_markdown(citeaudit.guard(answer, snapshot))

    def streamed(chunked: list[tuple[list[str], citeaudit.Snapshot]]) -> Callable[[], None]:
        return lambda: streaming.stream(chunked)

    def floor() -> None:
        """What any streaming auditor in Python pays at least (see streaming.floor)."""
        streaming.floor(tokens)

    works: dict[str, Callable[[], None]] = {
        "audit": audit, "audit().passed": verdict, "guard (strip) + chips": guard,
        "guard + render_html": html,
        "guard + render_markdown": markdown, "stream, ~4-char chunks": streamed(tokens),
        "stream, ~32-char chunks": streamed(pieces),
        "floor: append chunks + audit": floor}
    for work in works.values():
        work()  # warm caches before timing
    # Interleave the rounds so machine noise falls on all alike.
    times: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(args.rounds):
        for name, work in works.items():
            start = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - start)
    per_answer = {name: statistics.median(t) / len(cases) * 1e6 for name, t in times.items()}
    base = per_answer["audit"]
    chars = statistics.mean(len(answer) for answer, _ in cases)
    chunks = statistics.mean(len(c) for c, _ in tokens)
    print(f"{len(cases)} answers, mean {chars:.0f} characters ({chunks:.0f} token-sized chunks),"
          f" median of {args.rounds} rounds")
    for name, micros in per_answer.items():
        print(f"  {name:<26} {micros:8.1f} us/answer   ratio to audit {micros / base:5.2f}")
    ratio = per_answer["stream, ~4-char chunks"] / base
    print(f"streaming (token chunks) / one-shot audit: {ratio:.2f}"
          f" (target <= 1.5: {'met' if ratio <= 1.5 else 'NOT met'})")
    floor_ratio = per_answer["stream, ~4-char chunks"] / per_answer["floor: append chunks + audit"]
    print(f"streaming (token chunks) / floor: {floor_ratio:.2f}"
          f" (target <= 2: {'met' if floor_ratio <= 2 else 'NOT met'})")
    fast, append = _fast_path(args.rounds)
    print(f"fast-path chunk: {fast * 1e3:.0f} ns (a bare list.append call: {append * 1e3:.0f} ns;"
          f" target <= 100 ns: {'met' if fast <= 0.1 else 'NOT met'})")


def _fast_path(rounds: int, calls: int = 200_000) -> tuple[float, float]:
    """Microseconds a fast-path ``feed()`` call takes, and a bare ``list.append`` call, the
    medians of interleaved rounds (each call from the same Python loop).
    """
    chunks = [" the", " wor", "ds a", "nd m", "ore "] * (calls // 5)
    feeds: list[float] = []
    appends: list[float] = []
    for _ in range(rounds):
        auditor = citeaudit.stream(["Refunds take 30 days."])
        auditor.feed("Refunds take 30 days [1].")  # settled: what follows is on the fast path
        feed = auditor.feed
        start = time.perf_counter()
        for chunk in chunks:
            feed(chunk)
        feeds.append(time.perf_counter() - start)
        kept: list[str] = []
        keep = kept.append
        start = time.perf_counter()
        for chunk in chunks:
            keep(chunk)
        appends.append(time.perf_counter() - start)
    return (statistics.median(feeds) / len(chunks) * 1e6,
            statistics.median(appends) / len(chunks) * 1e6)


if __name__ == "__main__":
    main()

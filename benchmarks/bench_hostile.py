"""Hostile answer text: time per input at two sizes, and how time grows when size doubles,
for the one-shot audit, the streaming auditor fed 4-character chunks, and check's text
report (a line per finding, placed at its line and column).

    python3 benchmarks/bench_hostile.py [--size N]

Linear work shows a growth near 2.0 when the size doubles; a quadratic path shows ~4.0.
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable

import citeaudit
from citeaudit.report._formatters import TextFormatter

SHAPES = {
    "open brackets": "[", "markers": "[1]", "full stops": ".", "stop + space": ". ",
    "abbreviations": "Dr. ", "list numbers": "1. \n", "pipes": "| ", "newlines": "\n",
    "backtick runs": "`a", "fences": "```\n", "tildes": "~", "NULs": "\x00", "quotes": "> ",
    "headings": "# \n", "markers after stop": "x.[1]", "CJK": "。[1]", "open ranges": "[1-",
    "source heads": "[Source: ", "id lists": "[doc_1, ", "blank-line code": "`a\n\n",
    "nested brackets": "[[1]", "long range": "[1-999999999]",
    "malformed markers": "Fact [] here. ",
    "spaces": " ", "code paragraph": "`a b ", "long lines": "word [1] ",
    # the claim policy: repeated openers, a bounded scan that never finds its end, lists
    "policy openers": "however, ", "policy scan": "there is no x ",
    "policy list items": "- item\n", "e.g markers": "e.g[1]",
}


def _audit(text: str) -> None:
    citeaudit.audit(text, ["a", "b"])


def _stream(text: str) -> None:
    auditor = citeaudit.stream(["a", "b"])
    feed = auditor.feed
    for start in range(0, len(text), 4):
        feed(text[start:start + 4])
    auditor.finish()


def _support(text: str) -> None:
    """A long answer citing one long passage, both full of amounts and quotations: the
    lexical judge indexes the passage's amounts instead of comparing every pair.
    """
    passage = text.replace("[1]", "")
    citeaudit.audit(text, [passage], config=citeaudit.Config(support="lexical"))


SUPPORT_SHAPES = {
    "amounts": "Rose 31 to 7.5% [1]. ", "quotes": 'He said "words here" [1]. ',
    "amounts and quotes": 'In 1999 it was $4,200 and "quote 9" held [1]. ',
    "one long claim": "value 12 and 13 percent and ",
}


def _stream_markdown(text: str) -> None:
    auditor = citeaudit.stream(["a", "b"], render="markdown")
    feed = auditor.feed
    for start in range(0, len(text), 4):
        feed(text[start:start + 4])
    auditor.finish()


def _text_report(text: str) -> None:
    """check's text output of an answer with a finding in every sentence."""
    report = citeaudit.audit(text, ["a", "b"])
    TextFormatter().write(report, text, "answer.txt", io.StringIO())


REPORT_SHAPES = {
    "unmarked amounts": "Xy 1. ", "amounts on lines": "Xy 1.\n",
    "out-of-range markers": "Xy [9]. ", "one line, then lines": "Xy 1. Xy 2.\n\n",
}


def _time(work: Callable[[str], None], text: str, rounds: int = 3) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=100_000, help="characters (default 100,000)")
    args = parser.parse_args()
    for title, work in (("audit()", _audit), ("stream(), 4-character chunks", _stream),
                        ("stream(render='markdown'), 4-character chunks", _stream_markdown)):
        worst = 0.0
        print(f"{title}\n{'shape':<20} {'ms at N':>9} {'ms at 2N':>9} {'growth':>7}")
        for name, unit in SHAPES.items():
            small = _time(work, unit * (args.size // len(unit)))
            large = _time(work, unit * (2 * args.size // len(unit)))
            growth = large / small if small else 0.0
            worst = max(worst, growth)
            print(f"{name:<20} {small * 1e3:9.1f} {large * 1e3:9.1f} {growth:7.2f}")
        print(f"{title}: worst growth when the size doubles: {worst:.2f} (linear: about 2)\n")
    worst = 0.0
    size = args.size // 4  # support judging does more per character
    print(f"lexical support judge\n{'shape':<20} {'ms at N':>9} {'ms at 2N':>9} {'growth':>7}")
    for name, unit in SUPPORT_SHAPES.items():
        small = _time(_support, unit * (size // len(unit)) + " [1].")
        large = _time(_support, unit * (2 * size // len(unit)) + " [1].")
        growth = large / small if small else 0.0
        worst = max(worst, growth)
        print(f"{name:<20} {small * 1e3:9.1f} {large * 1e3:9.1f} {growth:7.2f}")
    print(f"lexical support judge: worst growth when the size doubles: {worst:.2f}\n")
    worst = 0.0
    print(f"text report\n{'shape':<20} {'ms at N':>9} {'ms at 2N':>9} {'growth':>7}")
    for name, unit in REPORT_SHAPES.items():
        small = _time(_text_report, unit * (args.size // len(unit)))
        large = _time(_text_report, unit * (2 * args.size // len(unit)))
        growth = large / small if small else 0.0
        worst = max(worst, growth)
        print(f"{name:<20} {small * 1e3:9.1f} {large * 1e3:9.1f} {growth:7.2f}")
    print(f"text report: worst growth when the size doubles: {worst:.2f}\n")


if __name__ == "__main__":
    main()

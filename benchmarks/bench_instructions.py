"""Instructions per answer, counted under cachegrind: exact and repeatable where wall time on
a shared machine moves twice over between runs.

    python3 benchmarks/bench_instructions.py [--answers N]

Needs valgrind. Each figure is one child process run twice, with and without the measured
work (the set-up, imports and corpus are subtracted); ``PYTHONHASHSEED=0`` keeps set and
dict order, and so the count, the same run to run. Prints instructions per answer for the
whole audit and its stages, and the ratio to seed 002's naive check in the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from bisect import bisect_left
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

WORK = {
    "naive": "seed 002 check() (baseline)",
    "audit": "citeaudit.audit(answer, snapshot)",
    "segment": "  segmentation (marks given)",
    "policy": "  claim policy, uncited sentences",
    "uncited": "  CA301/CA302 check",
    "unread": "  CA102 check",
}


def _child(work: str, answers: int) -> None:
    """Build everything, then run ``work`` once over the corpus ("none": nothing)."""
    from bench_audit import check  # the child imports what it measures
    from corpus import corpus

    import citeaudit
    from citeaudit.core import _checks, _engine
    from citeaudit.core._policy import policy_rule
    from citeaudit.core._segment import Span, segment

    pairs = corpus(answers)
    snapshots = [(a, citeaudit.load_snapshot(p)) for a, p in pairs]
    for answer, snapshot in snapshots:
        citeaudit.audit(answer, snapshot)  # warm: regex compilation, registries
    contexts = [_engine.prepare(a, s) for a, s in snapshots]
    grammar = citeaudit.get_grammar(["numeric", "S"])
    marked = []
    uncited = []
    for answer, _ in pairs:
        scan = grammar.scan(answer)
        marks = sorted(Span(m.start, m.end) for m in (*scan.markers, *scan.malformed))
        marked.append((answer, marks))
        starts = [m.start for m in marks]
        for start, end in segment(answer, marks):
            first = bisect_left(starts, start)
            if not (first < len(starts) and starts[first] < end):
                uncited.append((answer, start, end))
    if work == "naive":
        for answer, passages in pairs:
            check(answer, passages)
    elif work == "audit":
        for answer, snapshot in snapshots:
            citeaudit.audit(answer, snapshot)
    elif work == "segment":
        for answer, marks in marked:
            segment(answer, marks)
    elif work == "policy":
        for answer, start, end in uncited:
            policy_rule(answer, start, end)
    elif work == "uncited":
        for context in contexts:
            list(_checks.uncited_claims(context))
    elif work == "unread":
        for context in contexts:
            list(_checks.unread_markers(context))


def _count(work: str, answers: int, valgrind: str) -> int:
    command = [valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, __file__, "--child", work, "--answers", str(answers)]
    done = subprocess.run(command, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    for line in done.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.rsplit(":", 1)[1].replace(",", "").strip())
    raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.answers)
        return
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("bench_instructions.py needs valgrind (apt-get install valgrind)")
    base = _count("none", args.answers, valgrind)
    counts = {work: (_count(work, args.answers, valgrind) - base) / args.answers
              for work in WORK}
    print(f"answers: {args.answers}, instructions per answer (cachegrind, PYTHONHASHSEED=0)")
    for work, label in WORK.items():
        print(f"  {label:<38} {counts[work] / 1e3:9.1f} k  ratio to naive"
              f" {counts[work] / counts['naive']:6.2f}")


if __name__ == "__main__":
    main()

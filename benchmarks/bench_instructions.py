"""Instructions per answer, counted under cachegrind: exact and repeatable where wall time on
a shared machine moves twice over between runs.

    python3 benchmarks/bench_instructions.py [--answers N] [--simulate] [--typeset]

Needs valgrind. Each figure is one child process run twice, with and without the measured
work (the set-up, imports and corpus are subtracted); ``PYTHONHASHSEED=0`` keeps set and
dict order, and so the count, the same run to run. Prints instructions per answer for the
whole audit and its stages, and the ratio to seed 002's naive check in the same run, with the
compiled core and with the pure-Python reference (``CITEAUDIT_PURE=1``) side by side; then
streaming in token-sized chunks beside its floor (keep each chunk, then one audit).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import shutil
import subprocess
import sys
from bisect import bisect_left
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

WORK = {
    "naive": "seed 002 check() (baseline)",
    "audit": "citeaudit.audit(answer, snapshot).passed",
    "whole": "the whole audit (findings made: run())",
    "prepare": "  prepare: inference, scan, parse, resolve",
    "scan": "    marker scan (numeric,S)",
    "segment": "    segmentation (marks given)",
    "policy": "    claim policy, uncited sentences",
    "checks": "  the built-in checks",
    "uncited": "    CA301/CA302 check",
    "unread": "    CA102 check",
    "report": "  report: metrics, verdict",
    "floor": "floor: keep ~4-char chunks, audit()",
    "stream": "stream(): ~4-char chunks, finish()",
}


def _child(work: str, answers: int, typeset: bool = False) -> None:  # noqa: C901 -- one branch per measured workload, each a few lines
    """Build everything, then run ``work`` once over the corpus ("none": nothing)."""
    import streaming
    from bench_audit import check  # the child imports what it measures
    from corpus import corpus

    import citeaudit
    from citeaudit.core import _checks, _engine
    from citeaudit.core._segment import Span, segment

    pairs = corpus(answers, typeset=typeset)
    snapshots = [(a, citeaudit.load_snapshot(p)) for a, p in pairs]
    for answer, snapshot in snapshots:
        citeaudit.audit(answer, snapshot)  # warm: regex compilation, registries
    contexts = [_engine.prepare(a, s) for a, s in snapshots]
    findings = [_engine.findings_of(context) for context in contexts]
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
    rng = random.Random(7)
    chunked = []
    for answer, snapshot in snapshots:
        cuts = [0]
        while cuts[-1] < len(answer):
            cuts.append(cuts[-1] + rng.randint(1, 7))  # ~4 characters, a model token
        chunked.append(([answer[a:b] for a, b in itertools.pairwise(cuts)], snapshot))
    if work == "naive":
        for answer, passages in pairs:
            check(answer, passages)
    elif work == "audit":
        for answer, snapshot in snapshots:
            citeaudit.audit(answer, snapshot).passed  # noqa: B018 -- the verdict read
    elif work == "whole":
        for answer, snapshot in snapshots:
            _engine.run(answer, snapshot)
    elif work == "prepare":
        for answer, snapshot in snapshots:
            _engine.prepare(answer, snapshot)
    elif work == "scan":
        for answer, _ in pairs:
            grammar.scan(answer)
    elif work == "checks":
        for context in contexts:
            _engine.findings_of(context)
    elif work == "report":
        for context, found in zip(contexts, findings, strict=True):
            _engine.report_of(context, found)
    elif work == "segment":
        for answer, marks in marked:
            segment(answer, marks)
    elif work == "policy":
        from citeaudit.core._policy import policy_rule  # not in every tree measured
        for answer, start, end in uncited:
            policy_rule(answer, start, end)
    elif work == "uncited":
        for context in contexts:
            list(_checks.uncited_claims(context))
    elif work == "unread":
        for context in contexts:
            list(_checks.unread_markers(context))
    elif work == "floor":
        streaming.floor(chunked)
    elif work == "stream":
        streaming.stream(chunked)


_EVENTS = {"I   refs": "instructions", "Mispredicts": "branch mispredictions",
           "I1  misses": "L1 instruction-cache misses", "D1  misses": "L1 data-cache misses"}


def _count(work: str, answers: int, valgrind: str, *, simulate: bool = False,
           typeset: bool = False, pure: bool = False) -> dict[str, int]:
    """Instructions (and, with ``simulate``, the simulated branch and cache misses) of one
    child process (``pure``: with the pure-Python reference, ``CITEAUDIT_PURE=1``).
    """
    sims = ["--cache-sim=yes", "--branch-sim=yes"] if simulate else ["--cache-sim=no"]
    command = [valgrind, "--tool=cachegrind", *sims, "--cachegrind-out-file=/dev/null",
               sys.executable, __file__, "--child", work, "--answers", str(answers),
               *(["--typeset"] if typeset else [])]
    done = subprocess.run(command, capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONHASHSEED": "0",
                               "CITEAUDIT_PURE": "1" if pure else "0"})
    counts = {}
    for event in _EVENTS:
        if found := re.search(rf"{event}:\s+([0-9,]+)", done.stderr):
            counts[event] = int(found[1].replace(",", ""))
    if "I   refs" not in counts:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=300)
    parser.add_argument("--simulate", action="store_true",
                        help="also count simulated branch mispredictions and cache misses")
    parser.add_argument("--typeset", action="store_true",
                        help="typographic answers (curly quotes, dashes), as real ones are")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.answers, args.typeset)
        return
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("bench_instructions.py needs valgrind (apt-get install valgrind)")
    if args.simulate:
        _simulated(args.answers, valgrind)
        return
    typeset = args.typeset
    from citeaudit._speedups import compiled

    modes = {"compiled": False, "pure": True} if compiled() else {"pure": True}
    counts: dict[str, dict[str, float]] = {}
    for mode, pure in modes.items():
        base = _count("none", args.answers, valgrind, typeset=typeset, pure=pure)["I   refs"]
        counts[mode] = {work: (_count(work, args.answers, valgrind, typeset=typeset,
                                      pure=pure)["I   refs"] - base) / args.answers
                        for work in WORK}
    print(f"answers: {args.answers}{' typeset' if typeset else ''}, instructions per answer"
          " (cachegrind, PYTHONHASHSEED=0), k instructions and ratio to the naive check")
    print(f"  {'':<38} " + "".join(f"{mode:>22}" for mode in modes))
    for work, label in WORK.items():
        cells = "".join(f"{counts[m][work] / 1e3:11.1f} k"
                        f" {counts[m][work] / counts[m]['naive']:7.2f}" for m in modes)
        print(f"  {label:<38} {cells}")
    print("  stream() / its floor (target <= 2): " + ", ".join(
        f"{m} {counts[m]['stream'] / counts[m]['floor']:.2f}" for m in modes))


def _simulated(answers: int, valgrind: str) -> None:
    """Per answer of the whole audit and the naive check: instructions, and the branch and
    cache misses cachegrind simulates. Wall time follows the misses as well as the
    instructions: a change can add few instructions and many mispredicted branches.
    """
    base = _count("none", answers, valgrind, simulate=True)
    print(f"answers: {answers}, per answer (cachegrind simulation, PYTHONHASHSEED=0)")
    for work in ("naive", "audit"):
        counts = _count(work, answers, valgrind, simulate=True)
        print(f"  {WORK[work]}")
        for event, label in _EVENTS.items():
            print(f"    {label:<30} {(counts[event] - base[event]) / answers / 1e3:9.1f} k")


if __name__ == "__main__":
    main()

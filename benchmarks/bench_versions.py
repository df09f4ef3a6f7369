"""The audit of this tree beside the audit of an earlier revision, measured in one run.

    python3 benchmarks/bench_versions.py REVISION [--answers N] [--pairs P]

Checks REVISION out into a temporary git worktree (pure Python there: no core is built for
it) and runs the same ``bench_audit.py`` corpus through ``citeaudit.audit`` in processes
interleaved with this tree's, compiled core and pure reference (``CITEAUDIT_PURE=1``), ``P``
times each. Each process times 5 rounds, with seed 002's naive check beside them; medians over
the processes are printed with the ratio to REVISION. With valgrind on the path it also
counts instructions per answer once each (cachegrind, ``PYTHONHASHSEED=0``, the set-up
subtracted), which are exact where wall time on a shared machine is not.

Issue "Real answers, read right" set the bar: the audit no more than 10% slower than before
that work (revision ``ae877fa``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent


def _child(source: str, answers: int, work: str) -> None:
    """Time (``work`` "time") or just run once (``"audit"``, ``"none"``) the audit of the
    corpus with the package from ``source``.
    """
    sys.path[:0] = [source, str(HERE)]
    from bench_audit import check
    from corpus import corpus

    import citeaudit

    pairs = corpus(answers)
    snapshots = [(a, citeaudit.load_snapshot(p)) for a, p in pairs]
    for answer, snapshot in snapshots:
        citeaudit.audit(answer, snapshot)  # warm: regex compilation, registries
    if work == "audit":
        for answer, snapshot in snapshots:
            citeaudit.audit(answer, snapshot)
    if work != "time":
        return
    audits, naive = [], []
    for _ in range(5):
        start = time.perf_counter()
        for answer, passages in pairs:
            check(answer, passages)
        naive.append(time.perf_counter() - start)
        start = time.perf_counter()
        for answer, snapshot in snapshots:
            citeaudit.audit(answer, snapshot)
        audits.append(time.perf_counter() - start)
    print(json.dumps({"audit": statistics.median(audits) / answers * 1e6,
                      "naive": statistics.median(naive) / answers * 1e6,
                      "loaded": citeaudit.__file__}))


def _run(source: Path, answers: int, work: str, *, pure: bool,
         valgrind: str | None = None) -> str:
    command = [sys.executable, __file__, "--child", str(source), "--work", work,
               "--answers", str(answers)]
    if valgrind is not None:
        command = [valgrind, "--tool=cachegrind", "--cache-sim=no",
                   "--cachegrind-out-file=/dev/null", *command]
    env = {**os.environ, "PYTHONHASHSEED": "0", "CITEAUDIT_PURE": "1" if pure else "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return done.stderr if valgrind is not None else done.stdout


def _instructions(source: Path, answers: int, valgrind: str, *, pure: bool) -> float:
    def count(work: str) -> int:
        for line in _run(source, answers, work, pure=pure, valgrind=valgrind).splitlines():
            if "I   refs:" in line or "I refs:" in line:
                return int(line.rsplit(":", 1)[1].strip().replace(",", ""))
        raise RuntimeError("no instruction count in valgrind's output")
    return (count("audit") - count("none")) / answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("revision", nargs="?", default="ae877fa")
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--work", default="time", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.answers, args.work)
        return
    with tempfile.TemporaryDirectory() as scratch:
        before = Path(scratch) / "before"
        subprocess.run(["git", "-C", str(TREE), "worktree", "add", "--detach", "-q",
                        str(before), args.revision], check=True)
        try:
            _compare(before / "src", args)
        finally:
            subprocess.run(["git", "-C", str(TREE), "worktree", "remove", "--force",
                            str(before)], check=True)


def _compare(before: Path, args: argparse.Namespace) -> None:
    now = TREE / "src"
    runs = {f"{args.revision} (pure Python)": (before, True),
            "this tree, compiled core": (now, False),
            "this tree, pure (CITEAUDIT_PURE=1)": (now, True)}
    times: dict[str, list[dict[str, float]]] = {name: [] for name in runs}
    for _ in range(args.pairs):  # interleaved: the machine's load falls on all alike
        for name, (source, pure) in runs.items():
            times[name].append(json.loads(_run(source, args.answers, "time", pure=pure)))
    valgrind = shutil.which("valgrind")
    counts = {name: _instructions(source, args.answers, valgrind, pure=pure)
              for name, (source, pure) in runs.items()} if valgrind else {}
    first = next(iter(runs))
    base = statistics.median(t["audit"] for t in times[first])
    print(f"{args.answers} answers, {args.pairs} interleaved processes each;"
          " µs an answer (median of the processes' medians of 5 rounds)")
    for name in runs:
        audit = statistics.median(t["audit"] for t in times[name])
        naive = statistics.median(t["audit"] / t["naive"] for t in times[name])
        line = (f"  {name:<36} {audit:8.1f} µs  {audit / base:5.2f}× {args.revision}"
                f"  {naive:5.2f}× naive")
        if counts:
            line += f"  {counts[name] / 1e3:8.1f} k instr {counts[name] / counts[first]:5.2f}×"
        print(line)


if __name__ == "__main__":
    main()

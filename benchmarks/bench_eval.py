"""Dataset runs: records per second of ``citeaudit eval`` beside the time merely to parse the
same file with orjson, measured in the same run, and peak memory at 10x the records.

    python3 benchmarks/bench_eval.py [--records N] [--memory-records M] [--skip-memory]

Targets: one process >= 0.33 of the parse-only rate; --jobs 2 >= 1.8x one process; peak
memory at 1,000,000 records within 10% of 100,000. Beside the wall-clock rates, the CPU time
a record takes in each mode (the main process's and its workers'): the speed-up that two
cores would give if nothing else ran on them, a figure the machine's load does not move.
Then the floor under one process: on the same records, already parsed, the time of the
verdict alone (``audit(...).passed``) and of the whole audit with its findings, each beside
the parse, so that a run shows what a record's audit costs against the parse-only target.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import orjson

import citeaudit
from citeaudit.core import run as run_audit

sys.path.insert(0, str(Path(__file__).parent))

from corpus import SUBJECTS, answer

from citeaudit.core._config import Config
from citeaudit.eval import Dataset, Options, evaluate

WORDS = [word for subject in SUBJECTS for word in subject.lower().split()] + [
    "within", "days", "approval", "receipt", "policy", "manager", "travel", "refund", "desk"]


def records(count: int, seed: int = 11) -> Iterator[bytes]:
    """Logged answers like real ones: ~1 kB answers over 5-10 passages of ~700 characters,
    about 7 kB a record, with tags.
    """
    rng = random.Random(seed)
    for number in range(count):
        sources = rng.randint(5, 10)
        passages = [{"text": " ".join(rng.choice(WORDS) for _ in range(110))[:700],
                     "url": f"https://docs.example/{rng.randrange(50)}",
                     "title": f"Document {n}", "score": round(rng.random(), 3)}
                    for n in range(1, sources + 1)]
        yield orjson.dumps({"id": f"q{number}", "sources": passages,
                            "answer": answer(rng, sources),
                            "tags": {"system": rng.choice(["a", "b"]),
                                     "prompt": rng.choice(["v1", "v2", "v3"])}}) + b"\n"


def write(path: Path, count: int) -> float:
    with path.open("wb") as handle:
        for line in records(count):
            handle.write(line)
    return path.stat().st_size / count


def parse_only(path: Path) -> float:
    start = time.perf_counter()
    with path.open("rb") as handle:
        for line in handle:
            orjson.loads(line)
    return time.perf_counter() - start


CPU: dict[int, list[tuple[float, float]]] = {}  # jobs: (main process, workers) CPU seconds


def _children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_eval(path: Path, jobs: int) -> float:
    """Wall seconds of one run; its CPU seconds (this process, its workers) go to CPU."""
    start, main_cpu, workers = time.perf_counter(), time.process_time(), _children()
    dataset = Dataset(str(path), format="jsonl", max_bytes=1_000_000)
    aggregate = evaluate(dataset, Options(Config()), jobs=jobs, out=Path("/dev/null"))
    assert aggregate.all.records > 0
    CPU.setdefault(jobs, []).append((time.process_time() - main_cpu, _children() - workers))
    return time.perf_counter() - start


def floor(path: Path, sample: int = 5_000) -> dict[str, float]:
    """Microseconds a record, medians of three rounds over the file's first ``sample``
    records: the parse, the verdict alone and the whole audit (findings made, as eval runs
    it), the last two on records parsed beforehand.
    """
    with path.open("rb") as handle:
        lines = [line for _, line in zip(range(sample), handle, strict=False)]
    parsed = [orjson.loads(line) for line in lines]
    config = citeaudit.Config()

    def parse() -> None:
        for line in lines:
            orjson.loads(line)

    def verdict() -> None:
        for record in parsed:
            citeaudit.audit(record["answer"], record["sources"], config=config).passed  # noqa: B018

    def whole() -> None:
        for record in parsed:
            run_audit(record["answer"], record["sources"], config=config).report.findings  # noqa: B018

    steps = {"parse (orjson)": parse, "verdict alone": verdict, "whole audit": whole}
    taken: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(3):
        for name, step in steps.items():
            start = time.perf_counter()
            step()
            taken[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) / len(lines) * 1e6 for name, t in taken.items()}


def peak_memory(count: int) -> int:
    """Peak resident memory (kB) of ``citeaudit eval - --jobs 2`` over ``count`` records
    streamed through a pipe (no file of that size is written).
    """
    folder = str(Path(__file__).parent)
    script = (f"import sys; sys.path.insert(0, {folder!r}); import bench_eval;"
              " out = sys.stdout.buffer\n"
              f"for line in bench_eval.records({count}): out.write(line)")
    command = [sys.executable, "-m", "citeaudit", "eval", "-", "--jobs", "2", "-o", "/dev/null",
               "--format", "json", "--gate", "records>=1"]
    code = ("import resource, subprocess, sys\n"
            f"producer = subprocess.Popen([sys.executable, '-c', {script!r}],"
            " stdout=subprocess.PIPE)\n"
            f"subprocess.run({command!r}, stdin=producer.stdout, stdout=subprocess.DEVNULL,"
            " check=True)\n"
            "producer.wait()\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    # The eval process and its workers are the only children measured: the producer runs
    # beside them, a sibling, and is waited for after.
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    return int(result.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--memory-records", type=int, default=1_000_000)
    parser.add_argument("--skip-memory", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dataset.jsonl"
        size = write(path, args.records)
        print(f"{args.records} records, {size / 1000:.1f} kB each on average")
        parse_only(path)  # warm the page cache
        times = {"parse only (orjson)": [], "eval, 1 process": [], "eval, --jobs 2": []}
        for _ in range(3):  # interleaved, so machine noise falls on all alike
            times["parse only (orjson)"].append(parse_only(path))
            times["eval, 1 process"].append(run_eval(path, 1))
            times["eval, --jobs 2"].append(run_eval(path, 2))
        rates = {name: args.records / sorted(t)[1] for name, t in times.items()}  # medians
        for name, rate in rates.items():
            print(f"  {name:<22} {rate:10,.0f} records/s")
        single = rates["eval, 1 process"] / rates["parse only (orjson)"]
        scaling = rates["eval, --jobs 2"] / rates["eval, 1 process"]
        print(f"one process / parse only: {single:.3f}"
              f" (target >= 0.33: {'met' if single >= 0.33 else 'NOT met'})")
        print(f"--jobs 2 / one process: {scaling:.2f}"
              f" (target >= 1.8: {'met' if scaling >= 1.8 else 'NOT met'})")
        # CPU time does not move with what else the machine runs: what two cores would give.
        alone = statistics.median(a + b for a, b in CPU[1]) / args.records
        main_cpu = statistics.median(a for a, _ in CPU[2]) / args.records
        both = statistics.median(a + b for a, b in CPU[2]) / args.records
        print(f"CPU a record: one process {alone * 1e6:.0f} µs; --jobs 2 {both * 1e6:.0f} µs,"
              f" of which the main process {main_cpu * 1e6:.0f} µs: two free cores would"
              f" give {2 * alone / both:.2f}x one process")
        costs = floor(path)
        parse_cost = costs["parse (orjson)"]
        print(f"the floor, µs a record: parse (orjson) {parse_cost:.1f}, " + ", ".join(
            f"{name} {cost:.1f} ({cost / parse_cost:.1f}x the parse)"
            for name, cost in costs.items() if name != "parse (orjson)"))
        print(f"one process at 0.33 of the parse rate leaves {3 * parse_cost:.1f} µs a record"
              f" for everything: the verdict alone takes {costs['verdict alone']:.1f}")
    if not args.skip_memory:
        small = peak_memory(args.memory_records // 10)
        large = peak_memory(args.memory_records)
        growth = large / small - 1
        print(f"peak memory: {small / 1024:.1f} MB at {args.memory_records // 10:,} records,"
              f" {large / 1024:.1f} MB at {args.memory_records:,}: {growth:+.1%}"
              f" (target within 10%: {'met' if abs(growth) <= 0.10 else 'NOT met'})")


if __name__ == "__main__":
    main()

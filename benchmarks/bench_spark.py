"""The Spark engine beside the local one, in the same run: records/s of ``eval --engine
spark`` on ``local[2]`` and of ``eval --jobs 2``, and a scaling table of ``local[1]`` and
``local[2]`` (one and two executor cores), with the overheads separated.

    python3 benchmarks/bench_spark.py [--records N] [--repeats R]

Each figure is the median of R runs over the same generated dataset (bench_eval's records:
~7 kB logged answers). Spark's figures exclude the session's start (a JVM: reported once);
they include its counting job, the Arrow hand-over and writing the results.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_eval import records

from citeaudit.core._config import Config
from citeaudit.eval import Dataset, Options, evaluate
from citeaudit.eval._evaluators import load_evaluators


def _options() -> Options:
    config = Config()
    return Options(config, tuple(load_evaluators(None, config)))


def _local(path: Path, jobs: int, out: Path) -> float:
    started = time.perf_counter()
    evaluate(Dataset(str(path), format="jsonl", max_bytes=1_000_000), _options(), jobs=jobs,
             out=out)
    return time.perf_counter() - started


def _spark(path: Path, cores: int, out: Path, repeats: int) -> tuple[float, list[float]]:
    from pyspark.sql import SparkSession

    from citeaudit.spark import spark_eval

    started = time.perf_counter()
    spark = (SparkSession.builder.master(f"local[{cores}]").appName("bench")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.pyspark.python", sys.executable).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.range(1).count()  # the JVM and a first job: the session's start
    start = time.perf_counter() - started
    times = []
    try:
        for _ in range(repeats + 1):  # the first run starts the Python workers: not counted
            began = time.perf_counter()
            spark_eval(str(path), form="jsonl", options=_options(), out=out)
            times.append(time.perf_counter() - began)
    finally:
        spark.stop()
    return start, times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "d.jsonl"
        with data.open("wb") as handle:
            handle.writelines(records(args.records))
        size = data.stat().st_size
        print(f"{args.records:,} records, {size / 1e6:.1f} MB")
        local = {jobs: statistics.median(_local(data, jobs, Path(folder) / f"l{jobs}.jsonl")
                                         for _ in range(args.repeats))
                 for jobs in (1, 2)}
        spark: dict[int, float] = {}
        for cores in (1, 2):
            start, times = _spark(data, cores, Path(folder) / f"s{cores}", args.repeats)
            spark[cores] = statistics.median(times)
            print(f"local[{cores}] session start (JVM, once per run): {start:.1f} s")
    rate = {name: args.records / seconds for name, seconds in (
        ("local --jobs 1", local[1]), ("local --jobs 2", local[2]),
        ("spark local[1]", spark[1]), ("spark local[2]", spark[2]))}
    print(f"\n{'engine':<16} {'records/s':>10} {'per core':>10}")
    for name, value in rate.items():
        cores = 2 if "2" in name else 1
        print(f"{name:<16} {value:>10,.0f} {value / cores:>10,.0f}")
    for top, bottom, why in (
            ("spark local[2]", "local --jobs 2", ""),
            ("spark local[2]", "spark local[1]", " (one executor core to two)"),
            ("spark local[1]", "local --jobs 1", " (Spark's cost a core: the counting job,"
             " the Arrow hand-over, the JVM beside)")):
        print(f"{top} / {bottom}: {rate[top] / rate[bottom]:.2f}{why}")
    per_core = rate["spark local[2]"] / 2
    print(f"\nK executor cores: about K x {per_core:,.0f} records/s while the audit, not the"
          " storage, is the bottleneck (each core audits its own partitions; the driver merges"
          " one partial aggregate per partition)")


if __name__ == "__main__":
    main()

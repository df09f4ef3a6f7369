"""``citeaudit eval --engine spark``: a whole dataset run on a Spark session, with the
results, aggregate, JUnit cases and worst records the local engine gives.

JSONL is read as text, line by line, so that every result (its place, its record digest) is
the one the local engine writes; Parquet as a table. Results go to a folder of part files:
JSONL lines, byte for byte the local engine's (``citeaudit merge`` and ``replay`` read the
folder), or Parquet with typed columns when the name ends in ``.parquet``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson
import pyarrow as pa
from pyspark.sql import SparkSession, functions

from citeaudit._files import refuse_inputs
from citeaudit.errors import InputError, OutputError
from citeaudit.eval._evaluate import WorstRecord
from citeaudit.eval._results import Options, run_of, testcase
from citeaudit.eval._summary import Aggregate
from citeaudit.spark._engine import aggregate, lines_results, rows_results
from citeaudit.spark._schema import result_of_row

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["session", "spark_eval"]


@contextlib.contextmanager
def session(master: str | None, *, progress: bool) -> Iterator[SparkSession]:
    """The active Spark session, or a new one on ``master`` (default ``local[*]``), stopped
    at the end if it was made here.
    """
    active = SparkSession.getActiveSession()
    if active is not None:
        yield active
        return
    builder = (SparkSession.builder.appName("citeaudit eval")
               .master(master or "local[*]")
               .config("spark.ui.showConsoleProgress", "true" if progress else "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true"))
    if (master or "local").startswith("local") and "PYSPARK_PYTHON" not in os.environ:
        builder = builder.config("spark.pyspark.python", sys.executable)
    quiet = Path(__file__).with_name("log4j2.properties")
    submit = os.environ.setdefault(  # read when the JVM starts: before any configuration
        "PYSPARK_SUBMIT_ARGS",
        f"--driver-java-options -Dlog4j2.configurationFile={quiet.as_uri()} pyspark-shell")
    try:
        spark = builder.getOrCreate()
    finally:
        if os.environ.get("PYSPARK_SUBMIT_ARGS") == submit and str(quiet) in submit:
            del os.environ["PYSPARK_SUBMIT_ARGS"]
    spark.sparkContext.setLogLevel("ERROR")
    try:
        yield spark
    finally:
        spark.stop()


def _results(spark: SparkSession, path: str, form: str, options: Options) -> DataFrame:
    if form == "jsonl":
        return lines_results(spark.read.option("lineSep", "\n").text(path), options)
    if form == "parquet":
        return rows_results(spark.read.parquet(path), options)
    raise InputError(f"--engine spark reads JSONL or Parquet, not {form}", origin=path)


def spark_eval(path: str, *, form: str, options: Options, master: str | None = None,
               out: Path | None = None, junit: IO[str] | None = None,
               progress: bool = False, worst: list[WorstRecord] | None = None) -> Aggregate:
    """Run the dataset at ``path`` (any path Spark reads) on Spark: results to ``out``, JUnit
    cases to ``junit``, and the worst records (when ``worst`` is a list) appended to it; the
    aggregate.
    """
    options = dataclasses.replace(options, run=run_of(options, path))
    if out is not None:
        refuse_inputs(out, [path])
        if Path(path).resolve().is_relative_to(out.resolve()):
            raise OutputError("holds the dataset: writing the results there would destroy"
                              " it; choose another output", origin=str(out))
    with session(master, progress=progress) as spark:
        try:
            results = _results(spark, path, form, options).persist()
            if out is not None:
                _write(results, out)
            total = aggregate(results)
            if junit is not None:
                for row in results.toLocalIterator():
                    junit.write(testcase(result_of_row(row.asDict(recursive=True))))
            if worst is not None:
                worst.extend(_worst(results, total))
        except Exception as error:
            if type(error).__module__.startswith(("pyspark", "py4j")):
                raise InputError(f"Spark could not run: {_first_line(error)}",
                                 origin=path) from None
            raise
        finally:
            with contextlib.suppress(Exception):
                results.unpersist()
    return total


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _write(results: DataFrame, out: Path) -> None:
    """The results as a folder of part files: Parquet, or the local engine's JSONL lines."""
    target = str(out)
    if out.suffix.lower() in (".parquet", ".pq"):
        results.write.mode("overwrite").parquet(target)
        return

    def lines(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            text = [orjson.dumps(result_of_row(row)).decode() for row in batch.to_pylist()]
            yield pa.RecordBatch.from_pydict({"value": text})

    results.mapInArrow(lines, "value string").write.mode("overwrite").text(target)


def _worst(results: DataFrame, total: Aggregate) -> list[WorstRecord]:
    """The worst records from the results (their answers are in the dataset, not here)."""
    wanted = [summary.ordinal for summary in total.worst_records()]
    if not wanted:
        return []
    rows = results.filter(functions.col("index").isin(wanted)).collect()
    found: dict[int, dict[str, Any]] = {}
    for row in rows:
        result = result_of_row(row.asDict(recursive=True))
        found[result["index"]] = {"id": result["id"], "place": result["place"],
                                  "status": result["status"],
                                  "findings": result.get("findings") or [],
                                  "metrics": result.get("metrics") or {}}
    return [found[ordinal] for ordinal in wanted if ordinal in found]

"""``citeaudit eval --engine spark``: a whole dataset run on a Spark session, with the
results, aggregate, JUnit cases and worst records the local engine gives.

JSONL is read as text, line by line, so that every result (its place, its record digest) is
the one the local engine writes; Parquet as a table. Results go to a folder of part files:
JSONL lines, byte for byte the local engine's (``citeaudit merge`` and ``replay`` read the
folder), or Parquet with typed columns (:data:`~citeaudit.spark.RESULT`) when the name ends
in ``.parquet``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson
from pyspark.sql import SparkSession, functions

from citeaudit._files import refuse_inputs
from citeaudit.errors import InputError, OutputError
from citeaudit.eval import Aggregate, Options, WorstRecord, run_of, summary_of
from citeaudit.integrations.spark._engine import (
    aggregate,
    lines_results,
    merged_parts,
    rows_results,
)

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
    quiet = Path(__file__).with_name("log4j2.properties")
    defaults = {  # read when the JVM and the context start: before any configuration
        "PYSPARK_SUBMIT_ARGS":
            f"--driver-java-options -Dlog4j2.configurationFile={quiet.as_uri()} pyspark-shell"}
    if (master or "local").startswith("local"):
        # The workers' Python: PySpark takes PYSPARK_PYTHON, else whatever "python3" is on
        # the path (not spark.pyspark.python), which need not be the one that has citeaudit.
        defaults["PYSPARK_PYTHON"] = sys.executable
    added = {name: value for name, value in defaults.items() if name not in os.environ}
    os.environ.update(added)
    try:
        spark = builder.getOrCreate()
    finally:
        for name, value in added.items():
            if os.environ.get(name) == value:
                del os.environ[name]
    # A failed task is one line from spark_eval (its cause): not Spark's stack traces too.
    spark.sparkContext.setLogLevel("FATAL")
    try:
        yield spark
    finally:
        spark.stop()


def _results(spark: SparkSession, path: str, form: str, options: Options, *,
             packed: bool) -> DataFrame:
    if form == "jsonl":
        return lines_results(spark.read.option("lineSep", "\n").text(path), options,
                             packed=packed)
    if form == "parquet":
        return rows_results(spark.read.parquet(path), options, packed=packed)
    raise InputError(f"--engine spark reads JSONL or Parquet, not {form}", origin=path)


def spark_eval(path: str, *, form: str, options: Options, master: str | None = None,
               out: Path | None = None, junit: IO[str] | None = None,
               progress: bool = False, worst: list[WorstRecord] | None = None) -> Aggregate:
    """Run the dataset at ``path`` (any path Spark reads) on Spark: results to ``out``, JUnit
    cases to ``junit``, and the worst records (when ``worst`` is a list) appended to it; the
    aggregate.

    The run is one pass over the data
    (:data:`~citeaudit.integrations.spark._engine.PACKED`), kept while its results are
    written, its aggregates collected and its JUnit cases read; typed columns are made only
    for a Parquet ``out``.
    """
    options = dataclasses.replace(options, run=run_of(options, path),
                                  junit=junit is not None)
    if out is not None:
        refuse_inputs(out, [path])
        if Path(path).resolve().is_relative_to(out.resolve()):
            raise OutputError("holds the dataset: writing the results there would destroy"
                              " it; choose another output", origin=str(out))
    typed = out is not None and out.suffix.lower() in (".parquet", ".pq")
    with session(master, progress=progress) as spark:
        kept: list[DataFrame] = []
        try:
            if typed:
                results = _results(spark, path, form, options, packed=False).persist()
                kept.append(results)
                results.write.mode("overwrite").parquet(str(out))
                total = aggregate(results)
            packed = _results(spark, path, form, options, packed=True)
            if not typed or junit is not None or worst is not None:
                packed = packed.persist()
                kept.append(packed)
                lines = packed.filter(functions.col("line").isNotNull())
                if not typed:
                    if out is not None:
                        lines.select("line").write.mode("overwrite").text(str(out))
                    parts = packed.filter(functions.col("aggregate").isNotNull()).select(
                        "index", "aggregate").collect()
                    total = merged_parts(blob for _, blob in sorted(tuple(p) for p in parts))
                if junit is not None:
                    for row in lines.select("testcase").toLocalIterator():
                        junit.write(row[0])
                if worst is not None:
                    worst.extend(_worst(lines, total))
        except Exception as error:
            if type(error).__module__.startswith(("pyspark", "py4j")):
                raise InputError(f"Spark could not run: {_cause(error)}", origin=path) from None
            raise
        finally:
            for frame in kept:
                with contextlib.suppress(Exception):
                    frame.unpersist()
    return total


# The last line of a Python traceback, as a failed worker's is quoted inside Spark's error.
_PYTHON_ERROR = re.compile(r"^(?!(?:org|java|javax|scala|py4j)\.)[A-Za-z_][\w.]*"
                           r"(?:Error|Exception|Exit|Interrupt)(?::.*)?$", re.MULTILINE)


def _cause(error: BaseException) -> str:
    """One line for a failed Spark job: a Python worker's own error where one failed, else
    the first line of Spark's message.
    """
    text = str(error).strip()
    if "Python worker" in text:
        found = _PYTHON_ERROR.search(text)
        if found is not None:
            return f"a Python worker failed: {found.group(0).strip()}"
    return text.splitlines()[0] if text else type(error).__name__


def _worst(lines: DataFrame, total: Aggregate) -> list[WorstRecord]:
    """The worst records from their result lines (their answers are in the dataset)."""
    wanted = [summary.ordinal for summary in total.worst_records()]
    if not wanted:
        return []
    found: dict[int, dict[str, Any]] = {}
    for row in lines.filter(functions.col("index").isin(wanted)).select("line").collect():
        result = orjson.loads(row[0])
        found[result["index"]] = {"id": result["id"], "place": result["place"],
                                  "status": result["status"],
                                  "findings": result.get("findings") or [],
                                  "metrics": result.get("metrics") or {},
                                  **total.explained(summary_of(result))}
    return [found[ordinal] for ordinal in wanted if ordinal in found]

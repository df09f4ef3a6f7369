"""The audit as Spark jobs: each partition audited in an Arrow-batched ``mapInArrow`` (one
engine call per row, the same as ``citeaudit eval`` makes), and the aggregate built from
partial aggregates, one per partition, merged on the driver in partition order.

Every row keeps its place in the dataset: a first, cheap job counts the rows of each
partition (in the JVM), so that each partition knows the index of its first row.
"""

from __future__ import annotations

import dataclasses
import pickle
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import orjson
import pyarrow as pa
from pyspark import TaskContext
from pyspark.sql import functions
from pyspark.sql.pandas.types import to_arrow_schema

from citeaudit.core import Config
from citeaudit.eval import (
    Aggregate,
    Options,
    line_item,
    load_evaluators,
    result_of,
    row_item,
    run_of,
    summary_of,
    testcase,
)
from citeaudit.integrations.spark._schema import RESULT, result_of_row

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["PACKED", "aggregate", "audit", "audit_lines", "lines_results", "merged_parts",
           "rows_results"]

_ARROW = to_arrow_schema(RESULT)
_BATCH = 1024  # rows per Arrow batch handed back
# A blank line is not a record: white space as bytes.strip() strips it, and (counted alike
# in the JVM and here, so that ordinals agree) a byte order mark before it.
_BLANK = r"^\x{FEFF}?[ \t\n\r\x0B\f]*$"
_BOM = b"\xef\xbb\xbf"


def _blank(line: bytes) -> bool:
    return not line.removeprefix(_BOM).strip()

# The options of a run in this (executor) process, built once: evaluators and model judges
# load once per process, not once per partition.
_LOADED: dict[str, Options] = {}


class _Shipped:
    """What the executors need of the run's options: the options without evaluators (those
    are loaded by name where they run) and the names.
    """

    def __init__(self, options: Options) -> None:
        self.options = dataclasses.replace(options, evaluators=())
        self.names = tuple(evaluator.name for evaluator in options.evaluators)
        # One key a run, made on the driver: an id() would be reused by a later run (whose
        # dataset name, in ``run``, may differ) once this one is collected.
        self.key = f"{options.digest}:{','.join(self.names)}:{uuid.uuid4().hex}"

    def loaded(self) -> Options:
        options = _LOADED.get(self.key)
        if options is None:
            evaluators = tuple(load_evaluators(self.names, self.options.config)) \
                if self.names else ()
            options = _LOADED[self.key] = dataclasses.replace(self.options,
                                                              evaluators=evaluators)
        return options


def _options(config: Config | None, evaluators: Sequence[str] | None,
             dataset: str) -> Options:
    config = config or Config()
    loaded = tuple(load_evaluators(evaluators, config))
    options = Options(config, loaded)
    return dataclasses.replace(options, run=run_of(options, dataset))


def _offsets(df: DataFrame, *counted: Any) -> dict[int, tuple[int, ...]]:
    """For each partition, the sums over the partitions before it of ``counted`` (columns:
    the rows, the non-blank lines): one small job, counted in the JVM.
    """
    partition = functions.spark_partition_id().alias("partition")
    sums = [functions.sum(column).alias(f"c{i}") for i, column in enumerate(counted)]
    rows = sorted(tuple(row) for row in df.groupBy(partition).agg(*sums).collect())
    offsets: dict[int, tuple[int, ...]] = {}
    running = [0] * len(counted)
    for number, *values in rows:
        offsets[number] = tuple(running)
        running = [total + (value or 0) for total, value in zip(running, values, strict=True)]
    return offsets


def _batches(results: Iterator[dict[str, Any]]) -> Iterator[pa.RecordBatch]:
    chunk: list[dict[str, Any]] = []
    for result in results:
        chunk.append(result)
        if len(chunk) == _BATCH:
            yield pa.RecordBatch.from_pylist(chunk, schema=_ARROW)
            chunk = []
    if chunk:
        yield pa.RecordBatch.from_pylist(chunk, schema=_ARROW)


PACKED = "index long, line string, testcase string, aggregate binary"
"""A whole run in one pass, for ``eval --engine spark``: each result as its index, its line
(the results file's) and its JUnit case (when asked), then one row per partition holding
the partition's aggregate (and its first index) alone.
"""
_PACKED = pa.schema([("index", pa.int64()), ("line", pa.string()), ("testcase", pa.string()),
                     ("aggregate", pa.binary())])


def _packed(results: Iterator[dict[str, Any]], cases: bool) -> Iterator[pa.RecordBatch]:
    part: Aggregate | None = None
    first = 0  # the partition's first index: its aggregate's row is sorted by it
    chunk: dict[str, list[Any]] = {"index": [], "line": [], "testcase": []}
    for result in results:
        if part is None:
            first = result["index"]
            run = result.get("run") or {}
            part = Aggregate(run.get("min_precision"), run.get("min_recall"))
        part.add(summary_of(result))
        chunk["index"].append(result["index"])
        chunk["line"].append(orjson.dumps(result).decode())
        chunk["testcase"].append(testcase(result) if cases else None)
        if len(chunk["index"]) == _BATCH:
            yield pa.RecordBatch.from_pydict({**chunk, "aggregate": [None] * _BATCH},
                                             schema=_PACKED)
            chunk = {"index": [], "line": [], "testcase": []}
    if chunk["index"]:
        yield pa.RecordBatch.from_pydict({**chunk, "aggregate": [None] * len(chunk["index"])},
                                         schema=_PACKED)
    if part is not None:
        yield pa.RecordBatch.from_pydict({"index": [first], "line": [None], "testcase": [None],
                                          "aggregate": [pickle.dumps(part)]}, schema=_PACKED)


def merged_parts(blobs: Iterator[bytes]) -> Aggregate:
    """One aggregate from partial ones, in the order given (the partitions')."""
    merged: Aggregate | None = None
    for blob in blobs:
        part = pickle.loads(blob)  # written by this module's executors, in this job
        if merged is None:
            merged = Aggregate(*part.thresholds)
        merged.merge(part)
    return merged if merged is not None else Aggregate()


def audit_lines(lines: DataFrame, *, config: Config | None = None,
                evaluators: Sequence[str] | None = None, dataset: str = "-") -> DataFrame:
    """Audit a JSONL dataset read as text (``spark.read.text(path, lineSep=...)`` with a
    line feed: one ``value`` per line): the results, line for line those of ``citeaudit
    eval`` on the file.
    """
    return lines_results(lines, _options(config, evaluators, dataset))


def lines_results(lines: DataFrame, options: Options, *, packed: bool = False) -> DataFrame:
    """:func:`audit_lines` with the run's options (``packed``: as :data:`PACKED`)."""
    limit = options.config.max_bytes
    value = lines.columns[0]
    offsets = _offsets(lines, functions.lit(1),
                       (~functions.col(value).rlike(_BLANK)).cast("long"))
    shipped = _Shipped(options)

    def audited(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        options = shipped.loaded()
        number, ordinal = offsets.get(TaskContext.get().partitionId(), (0, 0))  # type: ignore[union-attr]

        def results() -> Iterator[dict[str, Any]]:
            nonlocal number, ordinal
            for batch in batches:
                for text in batch.column(0).to_pylist():
                    number += 1
                    line = text.encode("utf-8") if text else b""
                    if number == 1 and line.startswith(_BOM):
                        line = line[len(_BOM):]
                    if _blank(line):
                        continue
                    yield result_of(line_item(ordinal, number, line, limit), options)
                    ordinal += 1

        yield from (_packed(results(), options.junit) if packed else _batches(results()))

    return lines.select(value).mapInArrow(audited, PACKED if packed else RESULT)


def audit(df: DataFrame, *, answer: str = "answer", sources: str = "sources", id: str = "id",
          tags: str | Sequence[str] | None = "tags", relevant: str | None = "relevant",
          answerable: str | None = "answerable", grammar: str | None = "grammar",
          request: str | None = "request", response: str | None = "response",
          config: Config | None = None, evaluators: Sequence[str] | None = None,
          dataset: str = "-") -> DataFrame:
    """Audit every row of ``df``: a DataFrame of results (:data:`RESULT`), one per row, in
    the rows' order, as ``citeaudit eval`` audits the rows of a Parquet dataset.

    The keyword arguments name the columns (those absent from ``df`` are not read); ``tags``
    is a map column, or a list of columns whose values become the tags. ``sources`` may be
    JSON text. ``config`` and ``evaluators`` (names; default: every one) are what the
    records are audited with; ``dataset`` names the data in every result's ``run``.
    """
    columns = {"id": id, "answer": answer, "sources": sources, "relevant": relevant,
               "answerable": answerable, "grammar": grammar, "request": request,
               "response": response, "tags": tags}
    return rows_results(df, _options(config, evaluators, dataset), columns)


def rows_results(df: DataFrame, options: Options, columns: dict[str, Any] | None = None,
                 *, packed: bool = False) -> DataFrame:
    """:func:`audit` with the run's options (``packed``: as :data:`PACKED`); ``columns``
    maps record fields to columns.
    """
    fields = dict(_COLUMNS, **(columns or {}))
    tags = fields.pop("tags")
    present = set(df.columns)
    wanted = {field: column for field, column in fields.items()
              if column is not None and column in present}
    tag_columns: list[str] = []
    if isinstance(tags, str) and tags in present:
        wanted["tags"] = tags
    elif tags is not None and not isinstance(tags, str):
        tag_columns = [column for column in tags if column in present]
    selected = df.select(*(functions.col(column).alias(field) for field, column in wanted.items()),
                         *(functions.col(column).cast("string").alias(f"tag:{column}")
                           for column in tag_columns))
    offsets = _offsets(selected, functions.lit(1))
    shipped = _Shipped(options)
    record: Callable[[dict[str, Any]], dict[str, Any]] = _record_maker(tag_columns)

    def audited(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        options = shipped.loaded()
        (ordinal,) = offsets.get(TaskContext.get().partitionId(), (0,))  # type: ignore[union-attr]

        def results() -> Iterator[dict[str, Any]]:
            nonlocal ordinal
            for batch in batches:
                for row in batch.to_pylist():
                    yield result_of(row_item(ordinal, record(row)), options)
                    ordinal += 1

        yield from (_packed(results(), options.junit) if packed else _batches(results()))

    return selected.mapInArrow(audited, PACKED if packed else RESULT)


_COLUMNS: dict[str, Any] = {field: field for field in (
    "id", "answer", "sources", "relevant", "answerable", "grammar", "request", "response",
    "tags")}


def _record_maker(tag_columns: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """How a selected row becomes a dataset record: maps (lists of pairs in Arrow) as dicts,
    tag columns as tags, nulls as absent fields.
    """

    def record(row: dict[str, Any]) -> dict[str, Any]:
        out = {key: value for key, value in row.items()
               if value is not None and not key.startswith("tag:")}
        if isinstance(out.get("tags"), list):
            out["tags"] = dict(out["tags"])
        if tag_columns:
            out["tags"] = {**out.get("tags", {}),
                           **{column: row[f"tag:{column}"] for column in tag_columns
                              if row[f"tag:{column}"] is not None}}
        return out

    return record


def aggregate(results: DataFrame) -> Aggregate:
    """The aggregate of a results DataFrame, as ``citeaudit eval`` builds it: one partial
    aggregate per partition (in the executors), merged here in partition order.
    """

    def partial(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        part: Aggregate | None = None
        for batch in batches:
            for row in batch.to_pylist():
                result = result_of_row(row)
                if part is None:
                    run = result.get("run") or {}
                    part = Aggregate(run.get("min_precision"), run.get("min_recall"))
                part.add(summary_of(result))
        if part is not None:
            number = TaskContext.get().partitionId()  # type: ignore[union-attr]
            yield pa.RecordBatch.from_pylist(
                [{"partition": number, "aggregate": pickle.dumps(part)}],
                schema=pa.schema([("partition", pa.int64()), ("aggregate", pa.binary())]))

    parts = sorted(tuple(row) for row in results.mapInArrow(
        partial, "partition long, aggregate binary").collect())
    return merged_parts(blob for _, blob in parts)

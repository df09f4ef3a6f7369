"""``citeaudit.evaluate()``: a dataset run from Python, its results as data.

It is :func:`citeaudit.eval.evaluate` (the runner ``citeaudit eval`` calls) with the options
the command line builds from its flags, writing its results to a temporary file that is read
back: the rows are the command's JSONL rows, byte for byte once written again. Records given
as an iterable are first written as a JSONL dataset (``records.jsonl``), so that they are read
exactly as the same lines in a file would be.
"""

from __future__ import annotations

import importlib
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from citeaudit._files import write_atomically
from citeaudit.core import Check, Config, load_config
from citeaudit.errors import InputError
from citeaudit.eval._evaluate import Dataset, evaluate
from citeaudit.eval._evaluators import load_evaluators
from citeaudit.eval._records import Record, detect_format
from citeaudit.eval._replay import stored_results
from citeaudit.eval._results import Options
from citeaudit.eval._runner import default_jobs
from citeaudit.eval._summary import Aggregate

__all__ = ["COLUMNS", "EvalResults", "evaluate_dataset"]

RECORDS_NAME = "records.jsonl"  # the dataset name of records given as an iterable
_EXTRA = "pip install 'citeaudit[dataframe]'"
_METRICS = ("precision", "recall", "f1", "claim_coverage", "weighted_coverage",
            "support_recall", "support_precision")
# The DataFrame columns, one row per record (docs/evaluate.md); tags follow as "tag.KEY".
COLUMNS = ("index", "id", "place", "status", "passed", "errors", "findings", "reasons",
           "error", *_METRICS)


class EvalResults:
    """The results of a dataset run: the aggregate and one row per record, in dataset order.

    Each row is the dict ``citeaudit eval --out`` writes as a JSON line (docs/json.md);
    iterating gives the rows, ``len()`` counts them.
    """

    def __init__(self, rows: list[dict[str, Any]], aggregate: Aggregate) -> None:
        self._rows = rows
        self.aggregate = aggregate

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self._rows)

    def __repr__(self) -> str:
        stats = self.aggregate.all
        return f"<EvalResults: {stats.records} records, {stats.passed} passed>"

    def rows(self) -> list[dict[str, Any]]:
        """The rows, exactly the decoded lines of the command's results file."""
        return list(self._rows)

    def failed(self) -> list[dict[str, Any]]:
        """The rows of the records that did not pass (unreadable ones too)."""
        return [row for row in self._rows if not row["passed"]]

    def summary(self) -> dict[str, Any]:
        """The aggregate in the JSON form ``citeaudit eval --format json`` prints (without
        gates).
        """
        return self.aggregate.to_dict()

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the rows as a results file (JSONL), as ``citeaudit eval --out`` writes it:
        ``merge``, ``replay`` and ``diff`` read it.
        """
        data = b"".join(orjson.dumps(row) + b"\n" for row in self._rows)
        write_atomically(path, data, what="the results")

    def columns(self) -> dict[str, list[Any]]:
        """The rows as columns (:data:`COLUMNS`, then ``tag.KEY`` for every tag key)."""
        keys = sorted({key for row in self._rows for key in row.get("tags") or {}})
        table: dict[str, list[Any]] = {name: [] for name in (*COLUMNS,
                                                              *(f"tag.{k}" for k in keys))}
        for row in self._rows:
            metrics = row.get("metrics") or {}
            tags = row.get("tags") or {}
            values = {"index": row["index"], "id": row["id"], "place": row["place"],
                      "status": row["status"], "passed": row["passed"],
                      "errors": row.get("errors"),
                      "findings": [f["code"] for f in row.get("findings", ())],
                      "reasons": list(row.get("reasons") or ()), "error": row.get("error"),
                      **{name: metrics.get(name) for name in _METRICS},
                      **{f"tag.{k}": tags.get(k) for k in keys}}
            for name, column in table.items():
                column.append(values[name])
        return table

    def to_pandas(self) -> Any:
        """A pandas DataFrame, one row per record (the ``dataframe`` extra)."""
        pd = _optional("pandas", "to_pandas")
        table = self.columns()
        kinds = {"index": "Int64", "errors": "Int64", "passed": "boolean",
                 **dict.fromkeys(("id", "place", "status", "error"), "string"),
                 **dict.fromkeys(_METRICS, "Float64"),
                 **{name: "string" for name in table if name.startswith("tag.")}}
        return pd.DataFrame({name: pd.Series(column, dtype=kinds.get(name, "object"))
                             for name, column in table.items()})

    def to_polars(self) -> Any:
        """A polars DataFrame, one row per record (the ``dataframe`` extra)."""
        pl = _optional("polars", "to_polars")
        table = self.columns()
        kinds = {"index": pl.Int64, "errors": pl.Int64, "passed": pl.Boolean,
                 "findings": pl.List(pl.String), "reasons": pl.List(pl.String),
                 **dict.fromkeys(_METRICS, pl.Float64)}
        return pl.DataFrame(table, schema={name: kinds.get(name, pl.String)
                                           for name in table})


def _optional(module: str, method: str) -> Any:
    """An optional library of the ``dataframe`` extra, imported when first asked for (untyped
    here: pandas ships no types of its own).
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"EvalResults.{method}() needs {module}: {_EXTRA}") from None


def _config(config: Config | str | os.PathLike[str] | None) -> Config:
    if isinstance(config, Config):
        return config
    return load_config(None if config is None else Path(config))


def _record_value(record: Record) -> dict[str, Any]:
    """A :class:`Record` as the dataset's JSON object (what :func:`parse_record` reads)."""
    value: dict[str, Any] = {"id": record.id, "sources": record.sources,
                             "answer": record.answer, "tags": dict(record.tags)}
    if record.relevant is not None:
        value["relevant"] = list(record.relevant)
    if record.grammar is not None:
        value["grammar"] = record.grammar
    if record.answerable is not None:
        value["answerable"] = record.answerable
    return value


def _write_records(records: Iterable[Any], path: Path) -> None:
    """Records given in Python as the JSONL lines a dataset file would hold."""
    with path.open("wb") as out:
        for position, record in enumerate(records):
            value = _record_value(record) if isinstance(record, Record) else record
            try:
                out.write(orjson.dumps(value) + b"\n")
            except TypeError as error:
                raise InputError(f"not JSON: {error}", origin="<records>",
                                 place=f"$[{position}]") from None


def evaluate_dataset(dataset: str | os.PathLike[str] | Iterable[Any], *,
                     min_precision: float | None = None, min_recall: float | None = None,
                     config: Config | str | os.PathLike[str] | None = None,
                     jobs: int | None = None, evaluators: Sequence[str] | None = None,
                     checks: Sequence[Check] = (), dataset_format: str | None = None,
                     max_bytes: int | None = None) -> EvalResults:
    """Audit every record of ``dataset`` as ``citeaudit eval`` does; its results as data.

    ``dataset`` is a path (JSONL, a JSON array or Parquet, by its extension or
    ``dataset_format``) or an iterable of records (dicts of the dataset format, or
    :class:`citeaudit.eval.Record`). ``config`` is a :class:`Config`, a configuration file, or
    ``None`` to discover one from the current folder as the command does (give ``Config()``
    for the defaults). ``min_precision`` and ``min_recall`` override the configuration's
    thresholds; ``jobs`` is the number of worker processes (default: all cores);
    ``evaluators`` names the evaluators to run (default: all; ``()`` none); ``checks`` adds
    custom checks. A record that cannot be audited is a row with status ``unreadable``.
    """
    base = _config(config)
    settings = base.replace(min_precision=min_precision, min_recall=min_recall,
                            max_bytes=max_bytes)
    chosen = tuple(load_evaluators(evaluators, settings)) if evaluators is None or evaluators \
        else ()
    options = Options(settings, chosen, checks=tuple(checks))
    with tempfile.TemporaryDirectory(prefix="citeaudit-") as folder:
        if isinstance(dataset, str | os.PathLike):
            path = os.fspath(dataset)
            form = detect_format(path, dataset_format)
        else:
            path = str(Path(folder) / RECORDS_NAME)
            _write_records(dataset, Path(path))
            form = "jsonl"
        out = Path(folder) / "results.jsonl"
        aggregate = evaluate(Dataset(path, format=form, max_bytes=settings.max_bytes),
                             options, jobs=jobs or default_jobs(), out=out)
        rows = list(stored_results(str(out)))
    return EvalResults(rows, aggregate)

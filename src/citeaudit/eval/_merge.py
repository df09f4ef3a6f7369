"""Merging results files into one run: the shards of a run (``eval --shard I/N``) from several
machines, a run and its resumed remainder, or (when told) runs of different days.

Results of one dataset are merged in dataset order (by ``index``), so the aggregate equals
what one run over the whole dataset gives, exactly. Merging refuses what would make a wrong
aggregate: results written with other settings or for another dataset (unless told), a
record twice, a record missing, a shard missing, the partial file of an unfinished run.
"""

from __future__ import annotations

import contextlib
import heapq
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, NamedTuple

import orjson

from citeaudit._files import refuse_inputs
from citeaudit.errors import InputError
from citeaudit.eval._evaluate import Dataset, WorstRecord
from citeaudit.eval._records import Record, digest_of, parse_record
from citeaudit.eval._replay import numbered_results
from citeaudit.eval._results import summary_of, testcase
from citeaudit.eval._store import ResultsFile
from citeaudit.eval._summary import Aggregate

__all__ = ["merge", "merged_worst"]

_TOLD = "; give --allow-mismatch to merge them anyway"


class _Result(NamedTuple):
    at: int  # the record's index in its dataset
    file: int  # which input (ties in a merge by index are then reported, not reordered)
    line: int
    result: dict[str, Any]


class _Input:
    """One results file, read in order, each result checked against the first input's."""

    def __init__(self, position: int, path: str) -> None:
        self.position = position
        self.path = path
        self._results = numbered_results(path)
        self.first = next(self._results, None)

    def run(self) -> dict[str, Any]:
        return (self.first[1].get("run") or {}) if self.first is not None else {}

    def results(self) -> Iterator[_Result]:
        if self.first is None:
            return
        last = -1
        for line, result in self._all():
            index = result.get("index")
            if type(index) is not int or index <= last:
                raise InputError("results are out of order or have no index (a results"
                                 " file of citeaudit eval has them in dataset order)",
                                 origin=self.path, place=f"line {line}")
            last = index
            yield _Result(index, self.position, line, result)

    def _all(self) -> Iterator[tuple[int, dict[str, Any]]]:
        assert self.first is not None
        yield self.first
        yield from self._results


def _inputs(paths: Sequence[str], allow_mismatch: bool) -> tuple[list[_Input], bool]:
    """The inputs, checked as wholes, and whether they are of one dataset (merged by index)."""
    for path in paths:
        if path.endswith(".partial") and not allow_mismatch:
            raise InputError("is the partial results file of an unfinished run: finish it"
                             " with citeaudit eval --resume first" + _TOLD, origin=path)
    inputs = [_Input(position, path) for position, path in enumerate(paths)]
    present = [i for i in inputs if i.first is not None]
    if not present:
        return inputs, True
    reference = present[0]
    one_dataset = all(i.run().get("dataset") == reference.run().get("dataset")
                      for i in present)
    if not one_dataset and not allow_mismatch:
        other = next(i for i in present if i.run().get("dataset") != reference.run().get(
            "dataset"))
        raise InputError(f"holds results of the dataset {other.run().get('dataset')!r}, not"
                         f" {reference.run().get('dataset')!r} as {reference.path} does"
                         + _TOLD, origin=other.path, place=f"line {other.first[0]}"
                         if other.first else None)
    if one_dataset and not allow_mismatch:
        _check_shards(present)
    return inputs, one_dataset


def _check_shards(inputs: list[_Input]) -> None:
    """Shards of one run: all of them, each once, of the same count."""
    shards: dict[tuple[int, int], str] = {}
    counts: set[int] = set()
    whole = [given.path for given in inputs if given.run().get("shard") is None]
    for given in inputs:
        shard = given.run().get("shard")
        if shard is None:
            continue
        number, count = shard
        if whole:
            raise InputError(f"holds shard {number}/{count} of a run, and {whole[0]} the"
                             " whole run: they overlap", origin=given.path)
        counts.add(count)
        if (number, count) in shards:
            again = "is given twice" if shards[number, count] == given.path else \
                f"is shard {number}/{count} again (so is {shards[number, count]})"
            raise InputError(again, origin=given.path)
        shards[number, count] = given.path
    if len(counts) > 1:
        splits = ", ".join(f"{n}/{c}" for n, c in sorted(shards))
        raise InputError(f"holds shards of different splits ({splits}): they cannot be"
                         " merged", origin=inputs[0].path)
    if counts:
        count = counts.pop()
        missing = [n for n in range(1, count + 1) if (n, count) not in shards]
        if missing:
            raise InputError(f"shard{'s' if len(missing) > 1 else ''}"
                             f" {', '.join(f'{n}/{count}' for n in missing)} of this run"
                             f" {'are' if len(missing) > 1 else 'is'} missing" + _TOLD,
                             origin=inputs[0].path)


def _merged(paths: Sequence[str], allow_mismatch: bool) -> Iterator[tuple[int, _Result]]:
    """Every result with its ordinal in the merged run, checked as it comes."""
    inputs, one_dataset = _inputs(paths, allow_mismatch)
    streams = [given.results() for given in inputs]
    if not one_dataset:  # runs of different datasets, told: one after the other
        ordinal = 0
        for stream in streams:
            for item in stream:
                yield ordinal, item
                ordinal += 1
        return
    digest: tuple[str | None, str] | None = None  # (options digest, where it was seen)
    previous: _Result | None = None
    for item in heapq.merge(*streams):
        where = f"line {item.line}"
        origin = paths[item.file]
        stored = item.result.get("options_digest")
        if digest is None:
            digest = (stored, origin)
        elif stored != digest[0] and not allow_mismatch:
            raise InputError(f"holds results written with other settings than {digest[1]}"
                             " (another configuration, evaluators or version of citeaudit)"
                             + _TOLD, origin=origin, place=where)
        if previous is not None and item.at == previous.at:
            raise InputError(f"holds the result for the record at index {item.at} again"
                             f" ({paths[previous.file]} line {previous.line} has it): these"
                             " results overlap", origin=origin, place=where)
        expected = 0 if previous is None else previous.at + 1
        if item.at != expected and not allow_mismatch:
            raise InputError(f"no input holds the result for the record at index {expected}:"
                             " a shard or part of the run is missing" + _TOLD,
                             origin=origin, place=where)
        previous = item
        yield item.at, item


def merge(paths: Sequence[str], *, allow_mismatch: bool = False, out: Path | None = None,
          junit: IO[str] | None = None) -> Aggregate:
    """Merge the results files at ``paths`` into one aggregate; the merged results go to
    ``out`` (in dataset order, written as ``OUT.partial`` and renamed when the merge is
    complete) and JUnit test cases to ``junit``.
    """
    aggregate: Aggregate | None = None
    with contextlib.ExitStack() as stack:
        store = None
        if out is not None:
            refuse_inputs(out, paths)
            store = stack.enter_context(ResultsFile(out, resume=False))
        try:
            for ordinal, item in _merged(paths, allow_mismatch):
                result = item.result
                if aggregate is None:
                    run = result.get("run") or {}
                    aggregate = Aggregate(run.get("min_precision"), run.get("min_recall"))
                aggregate.add(summary_of(result)._replace(ordinal=ordinal))
                if junit is not None:
                    junit.write(testcase(result))
                if store is not None:
                    store.write(_line(result))
        except BaseException:
            if store is not None and not store.direct:
                store.close()
                with contextlib.suppress(OSError):
                    store.partial.unlink()
            raise
        if store is not None:
            store.commit()
    return aggregate if aggregate is not None else Aggregate()


def _line(result: dict[str, Any]) -> bytes:
    """A merged result: one of the whole run, no longer of a shard."""
    run = result.get("run")
    if run is not None and run.get("shard") is not None:
        result = {**result, "run": {**run, "shard": None}}
    return orjson.dumps(result) + b"\n"


def merged_worst(paths: Sequence[str], aggregate: Aggregate, *, allow_mismatch: bool = False,
                 dataset: Dataset | None = None) -> list[WorstRecord]:
    """The worst records of a merge as the report shows them, from the stored results (and
    their answers from ``dataset`` when it is given: it must be the dataset they came from).
    """
    wanted = [summary.ordinal for summary in aggregate.worst_records()]
    found: dict[int, WorstRecord] = {}
    places: dict[int, tuple[str, str]] = {}  # index -> (record digest, where its result is)
    indexes: dict[int, int] = {}  # index -> ordinal
    for ordinal, item in _merged(paths, allow_mismatch):
        if ordinal in wanted:
            result = item.result
            found[ordinal] = {"id": result.get("id"), "place": result.get("place"),
                              "status": result["status"],
                              "findings": result.get("findings", []),
                              "metrics": result.get("metrics", {}),
                              **aggregate.explained(summary_of(result))}
            places[item.at] = (result.get("record_digest", ""), f"{paths[item.file]}"
                                  f" line {item.line}")
            indexes[item.at] = ordinal
    if dataset is not None and found:
        by_index = {index: found[ordinal] for index, ordinal in indexes.items()}
        for raw in dataset.items():
            record = by_index.get(raw.ordinal)
            if record is None:
                continue
            digest, where = places[raw.ordinal]
            if digest_of(raw) != digest:
                raise InputError(f"{raw.place} is not the record the result at {where} was"
                                 " written for: give the dataset these results came from",
                                 origin=dataset.path)
            parsed = parse_record(raw)
            if isinstance(parsed, Record):
                record["answer"] = parsed.answer
    return [found[ordinal] for ordinal in wanted if ordinal in found]

"""A whole dataset run: read, audit (in processes), write results in input order, aggregate,
and resume an interrupted run so that it ends with exactly what a clean run gives.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from citeaudit._files import refuse_inputs
from citeaudit.core import Snapshot
from citeaudit.core import run as run_audit
from citeaudit.errors import CiteauditError, InputError, RunError
from citeaudit.eval._ranges import LineRange, line_ranges
from citeaudit.eval._records import (
    DatasetFormat,
    RawItem,
    Record,
    digest_of,
    parse_record,
    read_items,
)
from citeaudit.eval._results import (
    Options,
    Summary,
    new_aggregate,
    run_of,
    summary_of,
    testcase,
)
from citeaudit.eval._runner import RANGE_BATCH, Batch, run, run_tasks
from citeaudit.eval._store import ResultsFile
from citeaudit.eval._summary import Aggregate

__all__ = ["Dataset", "WorstRecord", "evaluate", "shard_of", "worst_records"]

# id, place, status, findings, metrics, answer (text or JSON) and, with a support judge, support
WorstRecord = dict[str, Any]

class Dataset:
    """Where the records come from, and how to read them (again, for the report)."""

    def __init__(self, path: str, *, format: DatasetFormat, max_bytes: int,
                 stdin: IO[bytes] | None = None) -> None:
        self.path = path
        self.format = format
        self.max_bytes = max_bytes
        self.stdin = stdin

    def items(self) -> Iterator[RawItem]:
        return read_items(self.path, max_bytes=self.max_bytes, format=self.format,
                          stdin=self.stdin)


def evaluate(dataset: Dataset, options: Options, *, jobs: int = 1, out: Path | None = None,
             resume: bool = False, junit: IO[str] | None = None,
             on_unreadable: Callable[[Summary], None] | None = None,
             progress: Any = None, shard: tuple[int, int] | None = None) -> Aggregate:
    """Audit every record of ``dataset``; results go to ``out`` (JSONL, input order) and JUnit
    test cases to ``junit``; ``on_unreadable`` hears of every record that cannot be audited.
    With ``resume``, the complete results already written for ``out`` are kept (when they were
    written for these records with these options) and only the rest is audited.

    ``out`` is written as ``OUT.partial`` and renamed when the run is complete; it may not be
    the dataset itself. ``shard`` ``(I, N)`` audits every N-th record from the I-th (1-based),
    so that N machines split a run; ``citeaudit merge`` joins their results.
    """
    this_run = run_of(options, dataset.path, shard)
    options = dataclasses.replace(options, run=this_run)
    aggregate = new_aggregate(options)
    if dataset.path != "-":
        source = Path(dataset.path)
        if source.is_dir():
            raise InputError("cannot read: is a directory", origin=dataset.path)
        if not source.is_file():
            raise InputError("cannot read: no such file", origin=dataset.path)

    def count(summary: Summary, case: str | None) -> None:
        aggregate.add(summary)
        if junit is not None and case is not None:
            junit.write(case)
        if summary.status == "unreadable" and on_unreadable is not None:
            on_unreadable(summary)

    items = dataset.items()
    if shard is not None:
        items = shard_of(items, *shard)
    with contextlib.ExitStack() as stack:
        store = None
        if out is not None:
            store = ResultsFile(out, resume=resume)
            refuse_inputs(out, [dataset.path], stdin=dataset.stdin)
            refuse_inputs(store.partial, [dataset.path], stdin=dataset.stdin)
            stack.enter_context(store)
        done = 0
        if store is not None and resume:
            done = _resumed(store, items, options, dataset.path, count=count,
                            cases=junit is not None)
        batches: Iterator[Batch]
        if jobs > 1 and shard is None and dataset.format == "jsonl" and dataset.path != "-":
            # The workers read their own byte ranges: the main process copies no record.
            ranges = line_ranges(os.path.abspath(dataset.path), max_bytes=dataset.max_bytes,
                                 batch=RANGE_BATCH, skip=done)
            batches = run_tasks(ranges if progress is None else progress.track_ranges(ranges),
                                options, jobs)
        else:
            batches = run(items if progress is None else progress.track(items, done), options,
                          jobs)
        try:
            for done_batch in batches:
                if store is not None:
                    store.write(done_batch.lines)  # whole lines, batch by batch
                aggregate.merge(done_batch.aggregate)
                if junit is not None:
                    junit.write(done_batch.cases)
                if on_unreadable is not None:
                    for summary in done_batch.unreadable:
                        on_unreadable(summary)
        except RunError as error:
            if store is not None:
                raise RunError(f"{error}; the results written so far are complete in"
                               f" {store.partial}: run again with --resume to go on") from None
            raise
        if store is not None:
            store.commit()
    return aggregate


def _resumed(store: ResultsFile, items: Iterator[RawItem], options: Options, path: str, *,
             count: Callable[[Summary, str | None], None], cases: bool) -> int:
    """Take the complete results ``store`` holds, checked against the records they were
    written for (``items``, consumed as far as they go) and these ``options``; how many.
    """
    this_run = options.run or {}
    done = 0
    for result in store.kept():
        item = next(items, None)
        if item is None:
            raise store.mismatch(f"it holds more than the dataset's {done} records", path)
        if result.get("options_digest") != options.digest:
            raise store.mismatch("they were written with other options or by another"
                                 " version", path)
        written_for = result.get("run") or {}
        if written_for.get("dataset") != this_run["dataset"]:
            # Equal records under another name are another run: merge would refuse the two
            # names in one file.
            raise store.mismatch("they were written for the dataset"
                                 f" {written_for.get('dataset')!r}, not"
                                 f" {this_run['dataset']!r}", path)
        if written_for.get("shard") != this_run["shard"]:
            raise store.mismatch("they were written for another shard", path)
        if result.get("record_digest") != digest_of(item):
            raise store.mismatch(f"the result for {item.place} was written for another"
                                 " record", path)
        count(summary_of(result), testcase(result) if cases else None)
        done += 1
    return done


def shard_of(items: Iterator[RawItem], number: int, count: int) -> Iterator[RawItem]:
    """Every ``count``-th item from the ``number``-th (1-based); ordinals stay the dataset's."""
    if not 1 <= number <= count:
        raise ValueError(f"shard {number}/{count}: the shard is 1..{count}")
    for item in items:
        if item.ordinal % count == number - 1:
            yield item


def worst_records(dataset: Dataset, aggregate: Aggregate, options: Options) -> list[WorstRecord]:
    """The worst records with their answers and findings, read again from the dataset."""
    wanted = {summary.ordinal: summary for summary in aggregate.worst_records()}
    if not wanted:
        return []
    found: dict[int, WorstRecord] = {}
    for item in dataset.items():
        if item.ordinal in wanted:
            parsed = parse_record(item)
            if isinstance(parsed, Record):
                summary = wanted[item.ordinal]
                found[item.ordinal] = {**_detail(parsed, summary, options),
                                       **aggregate.explained(summary),
                                       **_cited(parsed, options)}
            if len(found) == len(wanted):
                break
    return [found[s.ordinal] for s in aggregate.worst_records() if s.ordinal in found]


def _detail(record: Record, summary: Summary, options: Options) -> WorstRecord:
    try:
        report = run_audit(record.answer, record.sources, grammar=record.grammar,
                           config=options.audit_config, relevant=record.relevant,
                           answerable=record.answerable, checks=options.checks).report
    except CiteauditError:
        return {"id": summary.id, "place": summary.place, "status": summary.status,
                "findings": [], "metrics": {}}
    detail: WorstRecord = {"id": record.id, "place": summary.place, "status": report.status,
                           "findings": [f.to_dict() for f in report.findings],
                           "metrics": report.metrics.to_dict(), "answer": record.answer}
    if report.exempt:
        detail["exempt"] = [unit.to_dict() for unit in report.exempt]
    if report.support is not None:
        detail["support"] = [_shown(judged.to_dict(), report.snapshot)
                             for judged in report.support]
    return detail


_AROUND = 200  # characters of passage shown on each side of a support span


def _shown(judged: dict[str, Any], snapshot: Snapshot) -> dict[str, Any]:
    """A claim's support as the report shows it: each span with the passage text around it."""
    for span in judged["evidence"]:
        source = snapshot.get(span["source_id"])
        text = source.text if source is not None else ""
        span["before"] = text[max(span["start"] - _AROUND, 0):span["start"]]
        span["after"] = text[span["end"]:span["end"] + _AROUND]
    return judged


def _cited(record: Record, options: Options) -> dict[str, Any]:
    """Each claim of a record with the passages it cites (their text, or ``None`` for an id
    the snapshot does not hold), and the retrieved passages no claim cites. A record the
    audit cannot read has none to show.
    """
    try:
        context = run_audit(record.answer, record.sources, grammar=record.grammar,
                            config=options.audit_config, relevant=record.relevant,
                            answerable=record.answerable, checks=options.checks).context
    except CiteauditError:
        return {}
    snapshot = context.snapshot
    by_claim: dict[int | None, dict[str, dict[str, Any]]] = {}
    for citation, resolved in zip(context.answer.citations, context.resolved, strict=True):
        source = snapshot.get(resolved) if resolved is not None else None
        source_id = resolved if resolved is not None else citation.source_id
        by_claim.setdefault(citation.claim, {}).setdefault(source_id, {
            "id": source_id, "marker": citation.marker,
            "text": source.text if source is not None else None})
    claims = [{"number": claim.number, "text": claim.text,
               "cited": list(by_claim.get(claim.number, {}).values())}
              for claim in context.answer.claims]
    if None in by_claim:  # cited by the answer, not by one claim (a citations list)
        claims.append({"number": None, "text": "", "cited": list(by_claim[None].values())})
    cited = {source_id for passages in by_claim.values() for source_id in passages}
    return {"claims": claims,
            "uncited": [source_id for source_id in snapshot.ids if source_id not in cited]}


class Progress:
    """A progress bar with rate and ETA on a terminal (``tqdm``); nothing elsewhere."""

    def __init__(self, stream: IO[str], total: int | None, unit_bytes: bool) -> None:
        from tqdm import tqdm  # noqa: PLC0415 - only runs on a terminal need it

        try:
            columns, lines = os.get_terminal_size(stream.fileno())
        except (OSError, ValueError):
            columns = lines = 0
        # A terminal that reports no size (0 x 0) would get no bar at all.
        self._bar = tqdm(total=total, file=stream, unit="B" if unit_bytes else "rec",
                         unit_scale=True, ncols=columns or 100, nrows=lines or 24,
                         mininterval=0.25, desc="auditing")
        self._unit_bytes = unit_bytes
        self._records = 0
        self._start = time.monotonic()

    def track(self, items: Iterator[RawItem], done: int) -> Iterator[RawItem]:
        bar = self._bar
        for item in items:
            self._records += 1
            bar.update(len(item.value) if self._unit_bytes and isinstance(item.value, bytes)
                       else (0 if self._unit_bytes else 1))
            if self._records % 512 == 0:
                rate = self._records / max(time.monotonic() - self._start, 1e-9)
                bar.set_postfix_str(f"{done + self._records} records, {rate:,.0f} rec/s",
                                    refresh=False)
            yield item

    def track_ranges(self, ranges: Iterator[LineRange]) -> Iterator[LineRange]:
        """The ranges as they are sent to the workers, counted as their records and bytes."""
        bar = self._bar
        for task in ranges:
            self._records += task.records
            bar.update(task.end - task.start if self._unit_bytes else task.records)
            if self._records % 512 < task.records:
                rate = self._records / max(time.monotonic() - self._start, 1e-9)
                bar.set_postfix_str(f"{task.ordinal + task.records} records, {rate:,.0f}"
                                    " rec/s", refresh=False)
            yield task

    def close(self) -> None:
        self._bar.close()


def progress_for(dataset: Dataset, stream: IO[str] | None = None) -> Progress | None:
    """A progress bar when ``stream`` (default: stderr) is a terminal, else ``None``."""
    stream = stream if stream is not None else sys.stderr
    if not stream.isatty():
        return None
    size = None
    if dataset.format == "jsonl" and dataset.path != "-":
        try:
            size = Path(dataset.path).stat().st_size
        except OSError:
            size = None
    return Progress(stream, size, unit_bytes=size is not None)

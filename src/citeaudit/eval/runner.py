"""The runner: audit dataset items in worker processes and hand back the results in input
order, with a bounded number of batches in flight (memory stays flat); and resume, which
reads back a results file, keeps its complete lines and cuts a torn one.

Results are written in input order, so an interrupted run has done exactly the first K items;
``--resume`` checks the K-th still matches the dataset, skips K items and appends.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from citeaudit.errors import CiteauditError, InputError
from citeaudit.eval.evaluators import load_evaluators
from citeaudit.eval.records import RawItem
from citeaudit.eval.results import Options, Summary, process
from citeaudit.eval.summary import Aggregate

__all__ = ["Batch", "default_jobs", "read_results", "run"]

BATCH = 64  # items per task: large enough to hide the process hop, small for steady progress


class Batch(NamedTuple):
    """What a worker hands back for a batch of items: their result lines (in order), their
    JUnit cases, their aggregate, and the unreadable ones. The main process only writes and
    merges, so that it keeps up with the workers.
    """

    lines: bytes
    cases: str
    aggregate: Aggregate
    unreadable: tuple[Summary, ...]


def audit_batch(items: list[RawItem], options: Options) -> Batch:
    """Audit a batch of items."""
    config = options.config
    aggregate = Aggregate(config.min_precision, config.min_recall)
    lines: list[bytes] = []
    cases: list[str] = []
    unreadable: list[Summary] = []
    for item in items:
        line, summary, case = process(item, options)
        lines.append(line)
        aggregate.add(summary)
        if case is not None:
            cases.append(case)
        if summary.status == "unreadable":
            unreadable.append(summary)
    return Batch(b"".join(lines), "".join(cases), aggregate, tuple(unreadable))

_worker_options: Options | None = None


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _start_worker(options: Options, evaluator_names: tuple[str, ...]) -> None:
    global _worker_options  # noqa: PLW0603 - one per worker process, set once at its start
    # Ctrl-C reaches the whole process group: the main process alone decides what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker whose run was killed (SIGKILL leaves no chance to stop it) must not live on.
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    evaluators = tuple(load_evaluators(evaluator_names)) if evaluator_names else ()
    _worker_options = Options(options.config, evaluators, options.junit)


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def _work(items: list[RawItem]) -> Batch:
    assert _worker_options is not None
    return audit_batch(items, _worker_options)


def run(items: Iterable[RawItem], options: Options, jobs: int = 1) -> Iterator[Batch]:
    """Every batch of items audited, in input order. ``jobs`` > 1 audits in that many
    processes.

    When reading fails part-way (a broken JSON array), every item read before is still
    audited and yielded, then the error is raised.
    """
    failure: list[CiteauditError] = []
    chunks = _batches(iter(items), failure)
    if jobs <= 1:
        for chunk in chunks:
            yield audit_batch(chunk, options)
    else:
        names = tuple(evaluator.name for evaluator in options.evaluators)
        bare = Options(options.config, (), options.junit)  # evaluators load in each worker
        with ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker,
                                 initargs=(bare, names)) as pool:
            pending: deque[Future[Batch]] = deque()
            for chunk in chunks:
                pending.append(pool.submit(_work, chunk))
                if len(pending) >= jobs * 4:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
    if failure:
        raise failure[0]


def _batches(items: Iterator[RawItem], failure: list[CiteauditError]) -> Iterator[list[RawItem]]:
    """Items in lists of :data:`BATCH`; a reading error ends them and is kept in ``failure``."""
    chunk: list[RawItem] = []
    try:
        for item in items:
            chunk.append(item)
            if len(chunk) == BATCH:
                yield chunk
                chunk = []
    except CiteauditError as error:
        failure.append(error)
    if chunk:
        yield chunk


def read_results(path: Path) -> Iterator[dict[str, Any]]:
    """The complete results of an earlier run, in order; the file is cut after the last one
    (a line torn by an interruption, or anything after it, goes).
    """
    try:
        handle = path.open("r+b")
    except FileNotFoundError:
        return
    except OSError as error:
        raise InputError(f"cannot read the results: {error.strerror}", origin=str(path)) \
            from None
    with handle:
        good = 0
        for expected, line in enumerate(handle):
            if not line.endswith(b"\n"):
                break
            try:
                result = orjson.loads(line)
            except orjson.JSONDecodeError:
                break
            if not isinstance(result, dict) or result.get("index") != expected:
                break
            yield result
            good += len(line)
        handle.truncate(good)

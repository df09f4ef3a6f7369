"""The runner: audit dataset items in worker processes and hand back the results in input
order, with a bounded number of batches in flight (memory stays flat); and resume, which
reads back a results file, keeps its complete lines and cuts a torn one.

Results are written in input order, so an interrupted run has done exactly the first K items;
``--resume`` checks the K-th still matches the dataset, skips K items and appends.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson

from citeaudit.errors import CiteauditError, InputError
from citeaudit.eval.evaluators import load_evaluators
from citeaudit.eval.records import RawItem
from citeaudit.eval.results import Options, Summary, batch

__all__ = ["Outcome", "default_jobs", "read_results", "run"]

Outcome = tuple[bytes, Summary, str | None]
BATCH = 64  # items per task: large enough to hide the process hop, small for steady progress

_worker_options: Options | None = None


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _start_worker(options: Options, evaluator_names: tuple[str, ...]) -> None:
    global _worker_options  # noqa: PLW0603 - one per worker process, set once at its start
    evaluators = tuple(load_evaluators(evaluator_names)) if evaluator_names else ()
    _worker_options = Options(options.config, evaluators, options.junit)


def _work(items: list[RawItem]) -> list[Outcome]:
    assert _worker_options is not None
    return batch(items, _worker_options)


def run(items: Iterable[RawItem], options: Options, jobs: int = 1) -> Iterator[Outcome]:
    """Every item's outcome, in input order. ``jobs`` > 1 audits in that many processes.

    When reading fails part-way (a broken JSON array), every item read before is still
    audited and yielded, then the error is raised.
    """
    failure: list[CiteauditError] = []
    chunks = _batches(iter(items), failure)
    if jobs <= 1:
        for chunk in chunks:
            yield from batch(chunk, options)
    else:
        names = tuple(evaluator.name for evaluator in options.evaluators)
        bare = Options(options.config, (), options.junit)  # evaluators load in each worker
        with ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker,
                                 initargs=(bare, names)) as pool:
            pending: deque[Future[list[Outcome]]] = deque()
            for chunk in chunks:
                pending.append(pool.submit(_work, chunk))
                if len(pending) >= jobs * 4:
                    yield from pending.popleft().result()
            while pending:
                yield from pending.popleft().result()
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

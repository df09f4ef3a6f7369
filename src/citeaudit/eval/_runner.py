"""The runner: audit dataset items in worker processes and hand back the results in input
order, with a bounded number of batches in flight (memory stays flat). A worker that dies
ends the run at once; what was written before is complete (see :mod:`.store` for resume).
Workers are sent batches of items, or the byte ranges of a JSONL file that they read
themselves (:mod:`._ranges`): then the main process only writes and merges.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import NamedTuple

from citeaudit.errors import CiteauditError, RunError
from citeaudit.eval._evaluators import load_evaluators
from citeaudit.eval._ranges import LineRange, range_items
from citeaudit.eval._records import RawItem
from citeaudit.eval._results import Options, Summary, new_aggregate, process
from citeaudit.eval._summary import Aggregate

__all__ = ["BATCH", "RANGE_BATCH", "Batch", "Task", "default_jobs", "run", "run_tasks"]

BATCH = 64  # items per task: large enough to hide the process hop, small for steady progress
# Records per byte range of a JSONL file (the workers read them): more, since the main process
# then spends on a record only its share of a batch received, merged and written (256: ~7 µs
# of a ~150 µs record, 64: ~12), and sends no record's bytes (a batch of items is pickled
# whole: larger ones raise the main process's peak memory).
RANGE_BATCH = 256


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
    aggregate = new_aggregate(options)
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
    evaluators = tuple(load_evaluators(evaluator_names, options.config)) \
        if evaluator_names else ()
    _worker_options = dataclasses.replace(options, evaluators=evaluators)


def _exit_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


Task = list[RawItem] | LineRange  # what a worker is sent: items, or where to read them


def _work(task: Task) -> Batch:
    assert _worker_options is not None
    return audit_batch(range_items(task) if isinstance(task, LineRange) else task,
                       _worker_options)


def run(items: Iterable[RawItem], options: Options, jobs: int = 1) -> Iterator[Batch]:
    """Every batch of items audited, in input order. ``jobs`` > 1 audits in that many
    processes.

    When reading fails part-way (a broken JSON array), every item read before is still
    audited and yielded, then the error is raised. A worker process that dies ends the run
    at once with :class:`~citeaudit.RunError`: every batch yielded before is complete.
    """
    failure: list[CiteauditError] = []
    chunks = _batches(iter(items), failure)
    if jobs <= 1:
        for chunk in chunks:
            yield audit_batch(chunk, options)
    else:
        yield from run_tasks(chunks, options, jobs)
    if failure:
        raise failure[0]


def run_tasks(tasks: Iterator[Task], options: Options, jobs: int) -> Iterator[Batch]:
    """Every task (a batch of items, or a range of a JSONL file, :func:`line_ranges`)
    audited in ``jobs`` processes, in input order (see :func:`run`).
    """
    names = tuple(evaluator.name for evaluator in options.evaluators)
    bare = dataclasses.replace(options, evaluators=())  # evaluators load in each worker
    with _Pool(jobs, bare, names) as pool:
        yield from pool.ordered(tasks)


class _Worker(NamedTuple):
    process: BaseProcess
    connection: Connection
    outbox: queue.SimpleQueue[Task | None]  # tasks its sender thread sends


_QUEUED = 2  # batches per worker at once: one being audited, the next ready in its pipe


class _Pool:
    """Worker processes, each sent batches over its own pipe by a sender thread and watched
    through its sentinel, so that a worker that dies (killed, out of memory) is noticed at once
    instead of leaving the run waiting for a result that never comes.

    The main thread only receives: a sender blocked on a busy worker's full pipe never stops
    it from reading that worker's results, so the two cannot wait on each other.
    """

    def __init__(self, jobs: int, options: Options, names: tuple[str, ...]) -> None:
        context = multiprocessing.get_context()
        self._workers: list[_Worker] = []
        for _ in range(jobs):
            mine, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs, options, names),
                                      daemon=True)
            process.start()
            theirs.close()
            worker = _Worker(process, mine, queue.SimpleQueue())
            threading.Thread(target=_send, args=(worker,), daemon=True).start()
            self._workers.append(worker)

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self._workers:
            worker.outbox.put(None)  # the sender sends the end, then stops
            if exc[0] is not None and worker.process.is_alive():  # failed or interrupted
                worker.process.terminate()
        for worker in self._workers:
            worker.process.join(5)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()

    def ordered(self, chunks: Iterator[Task]) -> Iterator[Batch]:
        """The batches of ``chunks`` audited, in input order, with at most ``4 * jobs``
        batches between the reader and the writer (memory stays flat).
        """
        # The numbers of the batches each worker holds, oldest first (it answers in order).
        waiting: list[deque[int]] = [deque() for _ in self._workers]
        done: dict[int, Batch] = {}
        sent = wanted = 0
        exhausted = False
        window = 4 * len(self._workers)
        by_connection = {w.connection: i for i, w in enumerate(self._workers)}
        while True:
            while not exhausted and sent - wanted < window:
                free = min(range(len(waiting)), key=lambda i: len(waiting[i]))
                if len(waiting[free]) >= _QUEUED:
                    break
                chunk = next(chunks, None)
                if chunk is None:
                    exhausted = True
                    break
                self._give(free, chunk)
                waiting[free].append(sent)
                sent += 1
            while wanted in done:
                yield done.pop(wanted)
                wanted += 1
            if exhausted and wanted == sent:
                return
            busy = [w.connection for w, held in zip(self._workers, waiting, strict=True) if held]
            for ready in wait([*busy, *(w.process.sentinel for w in self._workers)]):
                if isinstance(ready, int):
                    continue  # a sentinel: its pipe says more, below
                number = by_connection[ready]  # type: ignore[index]
                worker = self._workers[number]
                try:
                    outcome = worker.connection.recv()
                except (EOFError, OSError):
                    raise RunError(self._death(worker)) from None
                if isinstance(outcome, BaseException):
                    raise outcome
                done[waiting[number].popleft()] = outcome
            for worker in self._workers:
                if not worker.process.is_alive():
                    raise RunError(self._death(worker))

    def _give(self, number: int, task: Task) -> None:
        """Hand ``task`` to a worker: a range (a hundred bytes, never filling the pipe) is
        sent at once; a batch of items through the sender thread.
        """
        worker = self._workers[number]
        if not isinstance(task, LineRange):
            worker.outbox.put(task)
            return
        try:
            worker.connection.send(task)
        except (OSError, ValueError):
            raise RunError(self._death(worker)) from None

    @staticmethod
    def _death(worker: _Worker) -> str:
        worker.process.join(1)
        code = worker.process.exitcode
        how = (f"killed by signal {-code}" if code is not None and code < 0 else
               f"exit code {code}" if code is not None else "no longer answering")
        return f"a worker process died ({how})"


def _send(worker: _Worker) -> None:
    """A sender thread: batches from the outbox into the worker's pipe, then the end."""
    while True:
        chunk = worker.outbox.get()
        try:
            worker.connection.send(chunk)
        except (OSError, ValueError):  # the worker died (its sentinel says so) or the pool closed
            return
        if chunk is None:
            return


def _serve(connection: Connection, options: Options, names: tuple[str, ...]) -> None:
    """A worker's life: audit the batches it is sent until its pipe closes."""
    _start_worker(options, names)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            chunk = connection.recv()
        except (EOFError, OSError):
            return
        if chunk is None:  # the run is over
            return
        try:
            outcome: Batch | BaseException = _work(chunk)
        except Exception as error:  # a bug: handed to the main process, which raises it
            outcome = error
        try:
            connection.send(outcome)
        except (BrokenPipeError, OSError):
            return


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

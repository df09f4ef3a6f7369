"""Metrics that add up over the workers of one service: each worker's :class:`Tally` counts
in that worker's memory, so a scrape answered by one worker alone would show its counts
alone, a different set each time (counters that go backwards, totals too low).

Each worker writes a snapshot of its counts into a folder every worker of the run shares
(``Settings.metrics_dir``; ``citeaudit serve`` makes one for a run of several workers), at
most every ``period`` seconds from a thread and once more before it answers a scrape; a
scrape adds up the latest snapshot of every worker, its own included. A snapshot is written
whole to a temporary file and renamed over the last one, so a reader sees one or the other,
never a part. Every count in a snapshot only grows, so a sum of snapshots each at least as
new as the last scrape's can never be lower: no counter goes backwards, whichever worker
answers. A worker that has ended leaves its last snapshot, and its counts stay in the sums;
its work under way does not (the gauges count only workers still alive: each holds a lock
on a file of its own while it lives, which the system lets go of when it ends).

The counting itself is untouched: the thread reads the counts twice a second, under the
tally's lock, rather than anything being written for each request.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from prometheus_client.core import Metric

from citeaudit.service._tally import Counts, Tally, counter_families, in_progress_family

__all__ = ["Pooled", "pooled_counts"]

_LOG = logging.getLogger("citeaudit.service")
_SNAPSHOTS = "worker-*.json"


class Pooled:
    """A collector for one worker of several: the counts of every worker writing into
    ``folder``, and the work under way in those still alive. :meth:`start` it in the
    process that serves (a name of its own, the lock that shows it alive, the thread).
    """

    def __init__(self, folder: Path, tally: Tally, in_progress: Callable[[], Mapping[str, int]],
                 period: float = 0.5) -> None:
        self._folder = folder
        self._tally = tally
        self._in_progress = in_progress
        self._period = period
        self._writing = threading.Lock()  # the thread and a scrape: one snapshot at a time
        self._written = b""
        self._path: Path | None = None
        self._alive: int | None = None  # the descriptor holding the lock
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Take a name (the process, and a random part: a worker started again after one
        ended may get its process id), hold the lock that shows it alive, write a first
        snapshot, and start writing twice a second.
        """
        if self._path is not None:
            return
        name = f"worker-{os.getpid()}-{os.urandom(4).hex()}"
        self._alive = os.open(self._folder / f"{name}.lock",
                              os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self._alive, fcntl.LOCK_EX)
        self._path = self._folder / f"{name}.json"
        self.write()
        self._thread = threading.Thread(target=self._keep_writing, name="citeaudit-metrics",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread, write the last snapshot, and let go of the lock (the worker's
        work under way no longer counts).
        """
        if self._thread is not None:
            self._stopped.set()
            self._thread.join()
            self._thread = None
        if self._path is not None:
            self.write()
        if self._alive is not None:
            os.close(self._alive)
            self._alive = None

    def write(self) -> None:
        """Write this worker's counts now, unless they are what was written last."""
        path = self._path
        if path is None:
            return
        # The counts are read under the same lock as they are written: a snapshot read
        # earlier never replaces one read later.
        with self._writing:
            counts = self._tally.counts()
            counts.in_progress = dict(self._in_progress())
            data = counts.to_json()
            if data == self._written:
                return
            temporary = path.with_name(f".{path.stem}.tmp")
            temporary.write_bytes(data)
            os.replace(temporary, path)
            self._written = data

    def collect(self) -> Iterator[Metric]:
        """Every worker's counts added up, this one's as they are now."""
        self.start()  # a no-op once started (the app's lifespan starts it)
        self.write()
        counts = pooled_counts(self._folder)
        yield from counter_families(counts)
        yield in_progress_family(counts.in_progress)

    def _keep_writing(self) -> None:
        while not self._stopped.wait(self._period):
            try:
                self.write()
            except OSError as error:  # a full disk: the next write may go through
                _LOG.warning("metrics: cannot write %s: %s", self._path, error)


def pooled_counts(folder: Path) -> Counts:
    """The latest snapshots in ``folder`` added up, in the order of their names (so that
    float sums of the same snapshots are equal); the work under way of live workers only.
    """
    total = Counts()
    for path in sorted(folder.glob(_SNAPSHOTS)):
        total.add(Counts.from_json(path.read_bytes(), str(path)),
                  in_progress=_alive(path.with_suffix(".lock")))
    return total


def _alive(lock: Path) -> bool:
    """Whether the worker that holds ``lock`` is alive: the lock is held until it ends."""
    try:
        descriptor = os.open(lock, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)  # and with it the lock, when it was taken
    return False

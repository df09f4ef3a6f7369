"""``/metrics`` of a ``citeaudit serve`` of several workers: whichever worker answers a scrape
reports the totals over all of them, and no counter ever goes backwards between scrapes.

Real servers on loopback ports; every request on a connection of its own (so that either
worker may take it), every loop bounded in count and in time.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import json
import os
import select
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

import citeaudit
from citeaudit.service import Settings, create_app
from citeaudit.service._pooled import Pooled, _alive, pooled_counts
from citeaudit.service._tally import Counts, InProgress, Tally, _Latency
from test_service import ANSWER, SOURCES, Server, start  # noqa: F401 - the real server
from test_service_limits import FIRST, _chunk, _connect, _stream_head
from thorough import examples

AUDIT = {"answer": ANSWER, "sources": SOURCES}
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
# The samples of counters and histograms: what may never decrease.
_GROWING = ("_total", "_bucket", "_count", "_sum")


def _scrape(server: Server) -> Samples:
    """One scrape of ``/metrics``, on a connection of its own, as samples."""
    reply = httpx.get(server.url + "/metrics", timeout=30)
    assert reply.status_code == 200
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(reply.text)
            for s in family.samples}


def _total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples of ``name`` that have ``labels`` (among others)."""
    return sum(value for (found, pairs), value in samples.items()
               if found == name and labels.items() <= dict(pairs).items())


def _decreases(before: Samples, after: Samples) -> list[str]:
    """The counter samples lower (or gone) in ``after`` than in ``before``."""
    return [f"{name}{dict(labels)}: {value} -> {after.get((name, labels))}"
            for (name, labels), value in before.items()
            if name.endswith(_GROWING) and after.get((name, labels), -1.0) < value]


def _log(server: Server) -> list[dict[str, Any]]:
    return [json.loads(line) for line in server.log.read_text().splitlines()
            if line.startswith("{")]


def _logged_audits(server: Server, wanted: int) -> list[dict[str, Any]]:
    """The access log's lines for the audits, once all ``wanted`` are written (bounded)."""
    deadline = time.monotonic() + 10
    while True:
        lines = [e for e in _log(server) if e["path"] == "/v1/audit"]
        if len(lines) >= wanted or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def _audits_until_every_worker_served(server: Server, workers: int) -> int:
    """Send audits, each on a connection of its own and several at once, until the access
    log shows every worker answered some (at most 400); returns how many were sent.
    """
    sent = 0
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        while sent < 400:
            replies = list(pool.map(lambda _: server.post("/v1/audit", AUDIT), range(20)))
            assert [r.status_code for r in replies] == [200] * 20
            sent += 20
            if len({e["pid"] for e in _logged_audits(server, sent)}) >= workers:
                return sent
    pytest.fail(f"after {sent} audits, not every one of {workers} workers had answered one")


def _scrapes_until(server: Server, read: Callable[[Samples], float], wanted: float,
                   ) -> list[Samples]:
    """Scrapes, each on a connection of its own, until what ``read`` reads of one is
    ``wanted`` (within 10 s: the workers write their counts at least twice a second), then
    ten more.
    """
    scrapes = [_scrape(server)]
    deadline = time.monotonic() + 10
    while (found := read(scrapes[-1])) != wanted:
        assert time.monotonic() < deadline, f"{found} after {len(scrapes)} scrapes, not {wanted}"
        time.sleep(0.05)
        scrapes.append(_scrape(server))
    return scrapes + [_scrape(server) for _ in range(10)]


def _assert_never_decreasing(scrapes: list[Samples]) -> None:
    for at, (before, after) in enumerate(itertools.pairwise(scrapes)):
        assert not _decreases(before, after), (at, _decreases(before, after))


@pytest.mark.parametrize("workers", [2, 3])
def test_every_scrape_counts_every_workers_requests(start: Any,  # noqa: F811
                                                    workers: int) -> None:
    server = start("--workers", str(workers))
    sent = _audits_until_every_worker_served(server, workers)
    codes = [f.code for f in citeaudit.audit(ANSWER, SOURCES).findings]
    scrapes = _scrapes_until(server, lambda s: _total(
        s, "citeaudit_requests_total", endpoint="audit"), sent)
    for samples in scrapes[-10:]:  # settled: every scrape, whichever worker, has them all
        assert _total(samples, "citeaudit_requests_total", endpoint="audit") == sent
        assert _total(samples, "citeaudit_request_seconds_count", endpoint="audit") == sent
        assert _total(samples, "citeaudit_request_seconds_bucket", endpoint="audit",
                      le="+Inf") == sent
        assert _total(samples, "citeaudit_verdicts_total") == sent
        for code in set(codes):
            assert _total(samples, "citeaudit_findings_total", code=code) == \
                sent * codes.count(code)
    _assert_never_decreasing(scrapes)


def _metrics_folder(tmp: Path) -> Path:
    """The folder a ``serve`` started with ``TMPDIR=tmp`` keeps its workers' counts in."""
    folders = list(tmp.glob("citeaudit-metrics-*"))
    assert len(folders) == 1, folders
    return folders[0]


def _streams_by_worker(folder: Path) -> dict[int, int]:
    """Each worker's streams under way, as its latest snapshot has them, by process id."""
    return {int(path.name.split("-")[1]): json.loads(path.read_bytes())["in_progress"]["streams"]
            for path in folder.glob("worker-*.json")}


def _open_streams(server: Server, count: int) -> list[socket.socket]:
    """``count`` streams opened, each on a connection of its own, sent their first line and
    then nothing: under way until the idle timeout.
    """
    opened = []
    for _ in range(count):
        raw = _connect(server, _stream_head("/v1/stream") + _chunk(FIRST))
        opened.append(raw)
    return opened


def _closed(raw: socket.socket) -> bool:
    """Whether the server has closed ``raw`` (it sent nothing else: the streams are idle)."""
    if not select.select([raw], [], [], 0)[0]:
        return False
    try:
        return raw.recv(65536, socket.MSG_PEEK) == b""
    except ConnectionResetError:
        return True


def _streams(samples: Samples) -> float:
    return _total(samples, "citeaudit_in_progress", kind="streams")


def test_a_killed_worker_keeps_its_counts_and_drops_its_streams(
        start: Any, tmp_path: Path) -> None:  # noqa: F811
    server = start("--workers", "2", env={"TMPDIR": str(tmp_path)})
    folder = _metrics_folder(tmp_path)
    sent = _audits_until_every_worker_served(server, 2)
    opened = _open_streams(server, 8)
    try:
        scrapes = _scrapes_until(server, _streams, 8)  # every worker's streams, any scrape
        deadline = time.monotonic() + 10
        while sum((by_worker := _streams_by_worker(folder)).values()) != 8:
            assert time.monotonic() < deadline, by_worker
            time.sleep(0.05)
        victim, held = max(by_worker.items(), key=lambda item: item[1])
        os.kill(victim, signal.SIGKILL)
        # Its connections close with it; uvicorn starts another worker in its place. The
        # dead worker's counts stay in every sum, its streams in none.
        scrapes += _scrapes_until(server, _streams, 8 - held)
        for samples in scrapes[-10:]:
            assert _streams(samples) == 8 - held
            assert _total(samples, "citeaudit_requests_total", endpoint="audit") == sent
        _assert_never_decreasing(scrapes)
        assert sum(_closed(raw) for raw in opened) == held
    finally:
        for raw in opened:
            raw.close()
    _scrapes_until(server, _streams, 0)  # the others' streams end as their clients leave


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_restart_of_every_worker_loses_no_count(start: Any, tmp_path: Path,  # noqa: F811
                                                  ) -> None:
    server = start("--workers", "2", env={"TMPDIR": str(tmp_path)})
    folder = _metrics_folder(tmp_path)
    sent = _audits_until_every_worker_served(server, 2)
    audits = lambda s: _total(s, "citeaudit_requests_total", endpoint="audit")  # noqa: E731
    scrapes = _scrapes_until(server, audits, sent)
    old = set(_streams_by_worker(folder))
    server.process.send_signal(signal.SIGHUP)  # uvicorn starts new workers, stops the old
    deadline = time.monotonic() + 60
    while not (len(_streams_by_worker(folder)) == 4 and all(map(_gone, old))):
        assert time.monotonic() < deadline, (old, list(folder.iterdir()))
        scrapes.append(_scrape(server))
        time.sleep(0.1)
    scrapes += _scrapes_until(server, audits, sent)  # the old workers' counts are kept
    more = _audits_until_every_worker_served(server, 4)  # the new workers' pids too
    scrapes += _scrapes_until(server, audits, sent + more)
    _assert_never_decreasing(scrapes)


def test_the_folder_is_the_runs_own_and_one_worker_has_none(start: Any,  # noqa: F811
                                                            tmp_path: Path) -> None:
    several, one = tmp_path / "several", tmp_path / "one"
    several.mkdir()
    one.mkdir()
    server = start("--workers", "2", env={"TMPDIR": str(several)})
    single = start(env={"TMPDIR": str(one)})
    for each in (server, single):
        assert each.post("/v1/audit", AUDIT).status_code == 200
    folder = _metrics_folder(several)
    assert sorted(p.suffix for p in folder.iterdir()) == [".json", ".json", ".lock", ".lock"]
    assert list(one.iterdir()) == []
    server.process.terminate()  # as a service manager stops it
    assert server.process.wait(timeout=30) == 0
    assert list(several.iterdir()) == []


# The merge, in process ----------------------------------------------------------------------

def _text(*collectors: Any) -> str:
    registry = CollectorRegistry()
    for collector in collectors:
        registry.register(collector)
    return generate_latest(registry).decode()


def _parsed(text: str) -> Samples:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


# Requests as (endpoint, status, seconds): seconds a sum of which is exact, whatever the order
# (powers of two, 2 ** -11 under the first bucket's bound).
REQUESTS = [("audit", 200, 0.25), ("audit", 200, 2 ** -11), ("audit", 422, 2.0),
            ("guard", 200, 0.5), ("stream", 499, 30.0), ("audit", 200, 0.125)]


def _counted(tally: Tally, requests: list[tuple[str, int, float]],
             reports: list[dict[str, Any]]) -> Tally:
    for endpoint, status, seconds in requests:
        tally.request(endpoint, status, seconds)
    for report in reports:
        tally.report(report)
    return tally


def _pooled(folder: Path, tally: Tally, in_progress: dict[str, int],
            period: float = 3600.0) -> Pooled:
    """A worker's collector, started (its thread writes every ``period`` seconds)."""
    pooled = Pooled(folder, tally, lambda: in_progress, period)
    pooled.start()
    return pooled


@pytest.fixture
def workers() -> Iterator[list[Pooled]]:
    """The collectors a test starts, stopped at its end."""
    started: list[Pooled] = []
    yield started
    for pooled in started:
        pooled.stop()


def test_a_snapshot_reads_back_exactly(tmp_path: Path) -> None:
    reports = [citeaudit.audit(ANSWER, SOURCES).to_dict(),
               citeaudit.audit("Refunds take 14 days [1].", SOURCES).to_dict()]
    counts = _counted(Tally(), [*REQUESTS, ("audit", 200, 0.1), ("audit", 200, 0.2)],
                      reports).counts()
    counts.in_progress = {"audits": 3, "streams": 0}
    assert Counts.from_json(counts.to_json(), "x") == counts
    assert Counts.from_json(Counts().to_json(), "x") == Counts()


def test_every_workers_counts_are_added_up(tmp_path: Path, workers: list[Pooled]) -> None:
    report = citeaudit.audit(ANSWER, SOURCES).to_dict()
    clean = citeaudit.audit("Refunds take 14 days [1].", SOURCES).to_dict()
    shares = [(REQUESTS[:2], [report]), (REQUESTS[2:5], [clean, report, report]),
              (REQUESTS[5:], [])]
    workers += [_pooled(tmp_path, _counted(Tally(), requests, reports), {"audits": n})
                for n, (requests, reports) in enumerate(shares, start=1)]
    # What one worker would show had it counted everything itself.
    alone = _counted(Tally(), REQUESTS, [report, clean, report, report])
    expected = _text(alone, InProgress(lambda: {"audits": 6}))
    for pooled in workers:  # whichever worker is asked
        assert _text(pooled) == expected


def test_a_worker_that_ended_keeps_its_counts_not_its_work_under_way(
        tmp_path: Path, workers: list[Pooled]) -> None:
    workers += [_pooled(tmp_path, _counted(Tally(), REQUESTS[:3], []), {"streams": 2}),
                _pooled(tmp_path, _counted(Tally(), REQUESTS[3:], []), {"streams": 5})]
    # One killed long ago: its snapshot and a lock no one holds; one older: no lock at all.
    gone = _counted(Tally(), [("audit", 200, 1.0)], []).counts()
    gone.in_progress = {"streams": 7}
    (tmp_path / "worker-1-00000000.json").write_bytes(gone.to_json())
    (tmp_path / "worker-1-00000000.lock").touch()
    (tmp_path / "worker-2-00000000.json").write_bytes(gone.to_json())
    first = _parsed(_text(workers[0]))
    assert _total(first, "citeaudit_in_progress", kind="streams") == 7
    assert _total(first, "citeaudit_requests_total") == len(REQUESTS) + 2
    workers.pop().stop()
    after = _parsed(_text(workers[0]))
    assert _total(after, "citeaudit_in_progress", kind="streams") == 2
    assert {k: v for k, v in after.items() if k[0] != "citeaudit_in_progress"} == \
        {k: v for k, v in first.items() if k[0] != "citeaudit_in_progress"}


def test_a_worker_writes_as_it_counts_and_as_it_stops(tmp_path: Path,
                                                      workers: list[Pooled]) -> None:
    quick, slow = Tally(), Tally()
    (tmp_path / "quick").mkdir()
    workers.append(_pooled(tmp_path / "quick", quick, {}, period=0.05))
    stopping = _pooled(tmp_path, slow, {})
    quick.request("audit", 200, 0.001)
    deadline = time.monotonic() + 10  # written by its thread, with no scrape
    while _total(_counts(tmp_path / "quick"), "requests") != 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    slow.request("audit", 200, 0.001)
    assert _total(_counts(tmp_path), "requests") == 0  # not yet: an hour between writes
    stopping.stop()
    assert _total(_counts(tmp_path), "requests") == 1


def _counts(folder: Path) -> Samples:
    """The pooled requests of ``folder`` in the shape :func:`_total` reads."""
    return {("requests", (("endpoint", e), ("status", s))): float(n)
            for (e, s), n in pooled_counts(folder).requests.items()}


def test_what_is_not_a_snapshot(tmp_path: Path, workers: list[Pooled]) -> None:
    workers.append(_pooled(tmp_path, _counted(Tally(), REQUESTS, []), {}))
    (tmp_path / ".worker-9-00000000.tmp").write_bytes(b'{"requests": [[')  # being written
    assert _total(_parsed(_text(workers[0])), "citeaudit_requests_total") == len(REQUESTS)
    for broken in (b"{", b'{"requests": []}', b'{"requests": [["a", "200", "x"]], '
                   b'"latency": {}, "findings": {}, "verdicts": [], "in_progress": {}}',
                   Counts(latency={"audit": _Latency([1, 2], 0.1)}).to_json()):
        (tmp_path / "worker-8-00000000.json").write_bytes(broken)
        with pytest.raises(ValueError, match=r"worker-8-00000000\.json: not the service's"):
            pooled_counts(tmp_path)


def _writing() -> bool:
    return any(t.name == "citeaudit-metrics" for t in threading.enumerate())


@pytest.mark.parametrize("pooled", [False, True])
def test_the_app_writes_snapshots_only_for_one_of_several(tmp_path: Path, pooled: bool) -> None:
    app = create_app(Settings(metrics_dir=tmp_path if pooled else None))
    with TestClient(app) as client:  # the lifespan starts and stops the writing
        for _ in range(3):
            assert client.post("/v1/audit", json=AUDIT).status_code == 200
        samples = _parsed(client.get("/metrics").text)
        assert _total(samples, "citeaudit_requests_total", endpoint="audit") == 3
        assert _writing() is pooled
        files = sorted(p.suffix for p in tmp_path.iterdir())
        assert files == ([".json", ".lock"] if pooled else [])
    assert not _writing()
    if pooled:  # the last snapshot stays; the lock is let go (the app has stopped)
        assert pooled_counts(tmp_path).requests == {("audit", "200"): 3}
        assert not _alive(next(tmp_path.glob("*.lock")))


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["count", "scrape", "write"]),
                          st.integers(0, 2),
                          st.tuples(st.sampled_from(["audit", "guard"]),
                                    st.sampled_from([200, 422]),
                                    st.floats(0, 20, allow_nan=False))), max_size=40))
def test_no_scrape_is_lower_than_the_one_before(steps: list[tuple[str, int, Any]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        tallies = [Tally() for _ in range(3)]
        pooled = [_pooled(Path(folder), tally, {}) for tally in tallies]
        try:
            scrapes = [_parsed(_text(pooled[0]))]
            for action, worker, request in steps:
                if action == "count":
                    tallies[worker].request(*request)
                elif action == "scrape":  # with the scraping worker's counts as they are
                    scrapes.append(_parsed(_text(pooled[worker])))
                    own = _parsed(_text(tallies[worker]))
                    assert all(scrapes[-1][key] >= value for key, value in own.items())
                else:
                    pooled[worker].write()
            _assert_never_decreasing(scrapes)
            for each in pooled:  # once each has written, a scrape has everything
                each.write()
            truth = _parsed(_text(*tallies[:1]))
            for tally in tallies[1:]:
                for key, value in _parsed(_text(tally)).items():
                    truth[key] = truth.get(key, 0.0) + value
            # Latency sums are added in another order here: equal but for the last bits.
            assert {k: v for k, v in _parsed(_text(pooled[1])).items()
                    if k[0] != "citeaudit_in_progress"} == pytest.approx(truth, rel=1e-12)
        finally:
            for each in pooled:
                each.stop()

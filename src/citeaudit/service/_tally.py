"""The service's counts for Prometheus: requests by endpoint and status, their latency,
findings by rule code, audits by status and verdict; and the audits and streams under way.

They are plain integers in dictionaries, counted under one lock, and turned into metric
families only when ``/metrics`` is scraped (a custom collector). prometheus_client's own
counters take a lock and a method call or two for every increment, seven or more a request:
on a sub-millisecond audit that cost shows. With several workers, each writes its counts
for a scrape to add up (``service._pooled``); what is counted here is the same.
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import orjson
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

__all__ = ["LATENCY_BUCKETS", "Counts", "InProgress", "Tally", "counter_families",
           "in_progress_family"]

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                   5.0, 10.0)


@dataclasses.dataclass(slots=True)
class _Latency:
    """One endpoint's latency histogram: a count a bucket (the last one +Inf), and the sum."""

    counts: list[int] = dataclasses.field(
        default_factory=lambda: [0] * (len(LATENCY_BUCKETS) + 1))
    total: float = 0.0


@dataclasses.dataclass
class Counts:
    """The counts at one moment: one worker's, or several workers' added up, and the work
    under way (``in_progress``, by kind).

    Every count only grows, so a sum of counts each at least as new as before is at least
    as large as before. Floats (latency sums) are added in the order they are given: sums
    of the same numbers in the same order are equal to the last bit.
    """

    requests: dict[tuple[str, str], int] = dataclasses.field(default_factory=dict)
    latency: dict[str, _Latency] = dataclasses.field(default_factory=dict)
    findings: dict[str, int] = dataclasses.field(default_factory=dict)
    verdicts: dict[tuple[str, str], int] = dataclasses.field(default_factory=dict)
    in_progress: dict[str, int] = dataclasses.field(default_factory=dict)

    def add(self, other: Counts, *, in_progress: bool = True) -> None:
        """Add ``other``'s counts to these; its work under way too when ``in_progress``
        (not for a worker that has ended: its work is not under way any more).
        """
        _add(self.requests, other.requests)
        _add(self.findings, other.findings)
        _add(self.verdicts, other.verdicts)
        if in_progress:
            _add(self.in_progress, other.in_progress)
        for endpoint, theirs in other.latency.items():
            mine = self.latency.setdefault(endpoint, _Latency())
            mine.counts = [a + b for a, b in zip(mine.counts, theirs.counts, strict=True)]
            mine.total += theirs.total

    def to_json(self) -> bytes:
        return orjson.dumps({
            "requests": [[*key, n] for key, n in self.requests.items()],
            "latency": {e: [v.counts, v.total] for e, v in self.latency.items()},
            "findings": self.findings,
            "verdicts": [[*key, n] for key, n in self.verdicts.items()],
            "in_progress": self.in_progress})

    @classmethod
    def from_json(cls, data: bytes, origin: str) -> Counts:
        """The counts :meth:`to_json` wrote; ValueError naming ``origin`` for anything else."""
        try:
            given = orjson.loads(data)
            counts = cls(
                requests={(str(e), str(s)): int(n) for e, s, n in given["requests"]},
                latency={str(e): _Latency([int(c) for c in counts], float(total))
                         for e, (counts, total) in given["latency"].items()},
                findings={str(c): int(n) for c, n in given["findings"].items()},
                verdicts={(str(s), str(p)): int(n) for s, p, n in given["verdicts"]},
                in_progress={str(k): int(n) for k, n in given["in_progress"].items()})
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) \
                as error:
            raise ValueError(f"{origin}: not the service's metrics ({error})") from None
        if any(len(v.counts) != len(LATENCY_BUCKETS) + 1 for v in counts.latency.values()):
            raise ValueError(f"{origin}: not the service's metrics (latency buckets)")
        return counts


def _add(into: dict[Any, int], counts: Mapping[Any, int]) -> None:
    for key, n in counts.items():
        into[key] = into.get(key, 0) + n


class Tally:
    """What the service has done, counted as it goes; a collector for a registry."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: dict[tuple[str, str], int] = {}
        self._latency: dict[str, _Latency] = {}
        self._findings: dict[str, int] = {}
        self._verdicts: dict[tuple[str, str], int] = {}

    def request(self, endpoint: str, status: int, seconds: float) -> None:
        """Count one request and how long it took."""
        key = (endpoint, str(status))
        with self._lock:
            self._requests[key] = self._requests.get(key, 0) + 1
            latency = self._latency.get(endpoint)
            if latency is None:
                latency = self._latency[endpoint] = _Latency()
            latency.counts[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
            latency.total += seconds

    def report(self, report: Mapping[str, Any]) -> None:
        """Count one audit's findings (by code) and its verdict, from its JSON form."""
        verdict = (report["status"], "true" if report["passed"] else "false")
        with self._lock:
            findings = self._findings
            for finding in report["findings"]:
                code = finding["code"]
                findings[code] = findings.get(code, 0) + 1
            self._verdicts[verdict] = self._verdicts.get(verdict, 0) + 1

    def counts(self) -> Counts:
        """A copy of the counts so far."""
        with self._lock:
            return Counts(dict(self._requests),
                          {k: _Latency(list(v.counts), v.total)
                           for k, v in self._latency.items()},
                          dict(self._findings), dict(self._verdicts))

    def collect(self) -> Iterator[Metric]:
        """The counts as metric families (what a registry asks a collector for)."""
        return counter_families(self.counts())


def counter_families(counts: Counts) -> Iterator[Metric]:
    """The counts (not the work under way) as Prometheus metric families."""
    yield _counter("citeaudit_requests", "HTTP requests, by endpoint and status",
                   ("endpoint", "status"), counts.requests)
    histogram = HistogramMetricFamily("citeaudit_request_seconds",
                                      "Request latency, by endpoint", labels=["endpoint"])
    for endpoint, latency in sorted(counts.latency.items()):
        cumulative, buckets = 0, []
        for bound, count in zip((*map(_bound, LATENCY_BUCKETS), "+Inf"), latency.counts,
                                strict=True):
            cumulative += count
            buckets.append((bound, float(cumulative)))
        histogram.add_metric([endpoint], buckets, latency.total)
    yield histogram
    yield _counter("citeaudit_findings", "Findings reported, by rule code", ("code",),
                   {(code,): n for code, n in counts.findings.items()})
    yield _counter("citeaudit_verdicts", "Audits, by status and verdict",
                   ("status", "passed"), counts.verdicts)


def in_progress_family(counts: Mapping[str, int]) -> Metric:
    """Work under way, by kind, as a gauge family."""
    family = GaugeMetricFamily("citeaudit_in_progress", "Audits and streams under way,"
                               " by kind", labels=["kind"])
    for kind, count in sorted(counts.items()):
        family.add_metric([kind], count)
    return family


class InProgress:
    """Work under way, by kind (``audits``, ``streams``), read from ``counts`` when scraped:
    how full each budget is.
    """

    def __init__(self, counts: Callable[[], Mapping[str, int]]) -> None:
        self._counts = counts

    def collect(self) -> Iterator[Metric]:
        yield in_progress_family(self._counts())


def _bound(value: float) -> str:
    return repr(float(value))


def _counter(name: str, documentation: str, labels: Sequence[str],
             counts: Mapping[Any, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, documentation, labels=list(labels))
    for values, count in sorted(counts.items()):
        family.add_metric(list(values), count)
    return family

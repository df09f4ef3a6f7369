"""The service's counts for Prometheus: requests by endpoint and status, their latency,
findings by rule code, audits by status and verdict; and the audits and streams under way.

They are plain integers in dictionaries, counted under one lock, and turned into metric
families only when ``/metrics`` is scraped (a custom collector). prometheus_client's own
counters take a lock and a method call or two for every increment, seven or more a request:
on a sub-millisecond audit that cost shows.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

__all__ = ["LATENCY_BUCKETS", "InProgress", "Tally"]

LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
                   5.0, 10.0)


class _Latency:
    """One endpoint's latency histogram: a count a bucket (the last one +Inf), and the sum."""

    __slots__ = ("counts", "total")

    def __init__(self) -> None:
        self.counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.total = 0.0


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

    def collect(self) -> Iterator[Metric]:
        """The counts as metric families (what a registry asks a collector for)."""
        with self._lock:
            requests = dict(self._requests)
            latency = {k: (list(v.counts), v.total) for k, v in self._latency.items()}
            findings = dict(self._findings)
            verdicts = dict(self._verdicts)
        yield _counter("citeaudit_requests", "HTTP requests, by endpoint and status",
                       ("endpoint", "status"), requests)
        histogram = HistogramMetricFamily("citeaudit_request_seconds",
                                          "Request latency, by endpoint", labels=["endpoint"])
        for endpoint, (counts, total) in sorted(latency.items()):
            cumulative, buckets = 0, []
            for bound, count in zip((*map(_bound, LATENCY_BUCKETS), "+Inf"), counts,
                                    strict=True):
                cumulative += count
                buckets.append((bound, float(cumulative)))
            histogram.add_metric([endpoint], buckets, total)
        yield histogram
        yield _counter("citeaudit_findings", "Findings reported, by rule code", ("code",),
                       {(code,): n for code, n in findings.items()})
        yield _counter("citeaudit_verdicts", "Audits, by status and verdict",
                       ("status", "passed"), verdicts)


class InProgress:
    """Work under way, by kind (``audits``, ``streams``), read from ``counts`` when scraped:
    how full each budget is.
    """

    def __init__(self, counts: Callable[[], Mapping[str, int]]) -> None:
        self._counts = counts

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("citeaudit_in_progress", "Audits and streams under way,"
                                   " by kind", labels=["kind"])
        for kind, count in sorted(self._counts().items()):
            family.add_metric([kind], count)
        yield family


def _bound(value: float) -> str:
    return repr(float(value))


def _counter(name: str, documentation: str, labels: Sequence[str],
             counts: Mapping[Any, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, documentation, labels=list(labels))
    for values, count in sorted(counts.items()):
        family.add_metric(list(values), count)
    return family

"""The aggregate of a dataset run, built one summary at a time in flat memory: counts,
means and exact medians (ratios take few distinct values, so they are counted, not kept),
findings by code, the same per tag value, evaluator pass rates, histograms for the report,
the replay sweep grid and the worst records.
"""

from __future__ import annotations

import functools
import heapq
import math
from collections import Counter
from collections.abc import Iterable
from typing import Any

from citeaudit.core import reason_key
from citeaudit.eval._results import Summary

COVERAGE = "citation_coverage"

__all__ = ["METRICS", "PRECISION_GRID", "RECALL_GRID", "Aggregate", "Stats", "cell_of",
           "measured_of", "reason_keys", "sweep_cell", "sweep_rows"]

METRICS = ("precision", "recall", "f1", "claim_coverage", "support_recall", "support_precision")
PRECISION_GRID = tuple(round(0.5 + 0.05 * i, 2) for i in range(11))  # 0.50 .. 1.00
RECALL_GRID = tuple(round(0.1 * i, 1) for i in range(11))  # 0.0 .. 1.0
BINS = 10  # histogram bins over [0, 1]
WORST = 10


class Stats:
    """Counts, metric distributions and findings of a set of records."""

    __slots__ = ("codes", "failures", "no_evidence", "passed", "records", "refusals",
                 "unreadable", "values")

    def __init__(self) -> None:
        self.records = 0
        self.passed = 0
        self.no_evidence = 0
        self.unreadable = 0
        self.values: dict[str, Counter[float]] = {name: Counter() for name in METRICS}
        self.codes: Counter[str] = Counter()
        self.failures: Counter[str] = Counter()  # why records failed (one may have several)
        # Of the records labelled answerable or not: [refused, refused and unanswerable,
        # unanswerable], for refusal precision and recall.
        self.refusals = [0, 0, 0]

    def add(self, summary: Summary, reasons: tuple[str, ...] = (),
            measured: list[tuple[str, float]] | None = None) -> None:
        """Count one record in (``measured``: its :func:`measured_of` values, when the caller
        has them: an aggregate counts each record in several sets).
        """
        self.records += 1
        self.passed += summary.passed
        status = summary.status
        self.no_evidence += status == "no_evidence"
        self.unreadable += status == "unreadable"
        values = self.values
        for name, value in measured_of(summary) if measured is None else measured:
            counts = values[name]
            counts[value] = counts.get(value, 0) + 1
        if summary.codes:
            _count(self.codes, summary.codes)
        if reasons:
            _count(self.failures, reasons)
        if summary.answerable is not None:
            refused = summary.status == "no_evidence"
            self.refusals[0] += refused
            self.refusals[1] += refused and not summary.answerable
            self.refusals[2] += not summary.answerable

    def merge(self, other: Stats) -> None:
        """Count in everything ``other`` counted."""
        self.records += other.records
        self.passed += other.passed
        self.no_evidence += other.no_evidence
        self.unreadable += other.unreadable
        for name in METRICS:
            self.values[name].update(other.values[name])
        self.codes.update(other.codes)
        self.failures.update(other.failures)
        self.refusals = [mine + theirs for mine, theirs in zip(self.refusals, other.refusals,
                                                                strict=True)]

    def to_dict(self) -> dict[str, Any]:
        records = self.records
        data: dict[str, Any] = {
            "records": records, "passed": self.passed, "pass_rate": _share(self.passed, records),
            "no_evidence": self.no_evidence,
            "no_evidence_rate": _share(self.no_evidence, records),
            "unreadable": self.unreadable,
        }
        for name in METRICS:
            data[f"mean_{name}"] = _mean(self.values[name])
            data[f"median_{name}"] = _median(self.values[name])
        refused, right, unanswerable = self.refusals
        if refused or unanswerable:  # only when records are labelled
            data["refusal_precision"] = _share(right, refused)
            data["refusal_recall"] = _share(right, unanswerable)
        data["findings"] = dict(sorted(self.codes.items()))
        data["failures"] = dict(sorted(self.failures.items()))
        return data

    def histogram(self, name: str) -> list[int]:
        """Counts of ``name`` in :data:`BINS` equal bins over [0, 1] (1.0 in the last)."""
        bins = [0] * BINS
        for value, count in self.values[name].items():
            bins[min(int(value * BINS), BINS - 1)] += count
        return bins


def _count(counts: Counter[str], items: tuple[str, ...]) -> None:
    """``counts.update(items)`` for the few items a record has, without its type tests."""
    for item in items:
        counts[item] = counts.get(item, 0) + 1


def measured_of(summary: Summary) -> list[tuple[str, float]]:
    """The metrics a record has values of, each value rounded as the distributions count it
    (ratios of small counts take few distinct values).
    """
    return [(name, round(value, 9)) for name, value in zip(
        METRICS, (summary.precision, summary.recall, summary.f1, summary.claim_coverage,
                  summary.support_recall, summary.support_precision), strict=True)
            if value is not None]


class Aggregate:
    """Everything the run reports, fed one :class:`Summary` at a time."""

    def __init__(self, min_precision: float | None = None,
                 min_recall: float | None = None) -> None:
        # The citation_coverage thresholds the run used (shown; the verdicts are the records').
        self.thresholds = (min_precision, min_recall)
        self.all = Stats()
        self.tags: dict[str, dict[str, Stats]] = {}
        # name -> [records, passed, exact score sum]: sums are exact integers (in units of
        # the smallest float), so a resumed or merged run gives bit for bit the same mean.
        self.evaluators: dict[str, list[int]] = {}
        self.cells: Counter[tuple[int, int]] = Counter()  # for the sweep
        self.worst: list[tuple[tuple[float, ...], int, Summary]] = []  # a min-heap of -badness
        # The worst record for each finding code, so that every rule shows an example.
        self.worst_by_code: dict[str, tuple[tuple[float, ...], int, Summary]] = {}
        self.unreadable: list[tuple[str, str]] = []  # (place, reason), first 100

    def reasons(self, summary: Summary) -> tuple[str, ...]:
        """Why a record failed, in words that group records: every reason that applies."""
        if summary.passed:
            return ()
        if summary.status == "unreadable":
            return ("unreadable",)
        return _grouped(summary.reasons)

    def explained(self, summary: Summary) -> dict[str, Any]:
        """What the report's card of a failed record says of why: its reasons, their groups
        (what the report's rule filter matches) and its tags.
        """
        return {"reasons": list(summary.reasons), "reason_keys": list(self.reasons(summary)),
                "tags": dict(summary.tags)}

    def add(self, summary: Summary) -> None:
        """Count one record in."""
        reasons = self.reasons(summary)
        measured = measured_of(summary)
        self.all.add(summary, reasons, measured)
        for key, value in summary.tags:
            values = self.tags.get(key)
            if values is None:
                values = self.tags[key] = {}
            stats = values.get(value)
            if stats is None:  # (setdefault would build a Stats, six Counters, every time)
                stats = values[value] = Stats()
            stats.add(summary, reasons, measured)
        for name, passed, score in summary.evaluators:
            entry = self.evaluators.setdefault(name, [0, 0, 0])
            entry[0] += 1
            entry[1] += passed
            entry[2] += _exact(score)
        if summary.status == "unreadable":
            if len(self.unreadable) < 100:
                self.unreadable.append((summary.place, summary.reason or ""))
        else:
            cell = sweep_cell(summary.status, summary.audit_passed, summary.precision,
                              summary.recall, [(name, passed) for name, passed, _ in
                                               summary.evaluators])
            if cell is not None:
                self.cells[cell] += 1
        if not summary.passed and summary.status != "unreadable":
            badness = (float(summary.errors), -(summary.f1 if summary.f1 is not None else 0.0))
            self._keep_worst((badness, -summary.ordinal, summary))

    def _keep_worst(self, entry: tuple[tuple[float, ...], int, Summary]) -> None:
        for code in set(entry[2].codes):
            kept = self.worst_by_code.get(code)
            if kept is None or entry > kept:
                self.worst_by_code[code] = entry
        if len(self.worst) < WORST:
            heapq.heappush(self.worst, entry)
        elif entry > self.worst[0]:
            heapq.heapreplace(self.worst, entry)

    def merge(self, other: Aggregate) -> None:
        """Count in everything ``other`` counted (a worker's batch)."""
        self.all.merge(other.all)
        for key, values in other.tags.items():
            mine = self.tags.setdefault(key, {})
            for value, stats in values.items():
                if value in mine:
                    mine[value].merge(stats)
                else:
                    mine[value] = stats
        for name, counts in other.evaluators.items():
            entry = self.evaluators.setdefault(name, [0, 0, 0])
            for position, count in enumerate(counts):
                entry[position] += count
        self.cells.update(other.cells)
        for worst in other.worst:
            self._keep_worst(worst)
        for code, worst_one in other.worst_by_code.items():
            kept = self.worst_by_code.get(code)
            if kept is None or worst_one > kept:
                self.worst_by_code[code] = worst_one
        self.unreadable.extend(other.unreadable[:100 - len(self.unreadable)])

    def sweep(self) -> list[dict[str, float]]:
        """Pass rate over the grid of (min precision, min recall) pairs."""
        return sweep_rows(self.cells, self.all.records)

    def worst_records(self) -> list[Summary]:
        """The worst failing records: first the worst for each finding code (by code), then
        the worst of the rest, worst first; :data:`WORST` at most, or one per code when there
        are more codes.
        """
        chosen: dict[int, Summary] = {}
        for _, entry in sorted(self.worst_by_code.items()):
            chosen.setdefault(entry[2].ordinal, entry[2])
        for entry in sorted(self.worst, reverse=True):
            if len(chosen) >= WORST:
                break
            chosen.setdefault(entry[2].ordinal, entry[2])
        return list(chosen.values())

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of the aggregate."""
        data = self.all.to_dict()
        data["min_precision"], data["min_recall"] = self.thresholds
        data["evaluators"] = {
            name: {"records": n, "passed": passed, "pass_rate": _share(passed, n),
                   "mean_score": total / (n << _UNIT) if n else None}
            for name, (n, passed, total) in sorted(self.evaluators.items())}
        data["tags"] = {key: {value: stats.to_dict() for value, stats in sorted(values.items())}
                        for key, values in sorted(self.tags.items())}
        data["unreadable_records"] = [{"place": p, "reason": r} for p, r in self.unreadable]
        return data


def cell_of(precision: float, recall: float) -> tuple[int, int]:
    """Where a record that passes but for the thresholds falls in the sweep grid."""
    return _step(precision, PRECISION_GRID), _step(recall, RECALL_GRID)


def sweep_cell(status: str, audit_passed: bool, precision: float | None,
               recall: float | None, evaluators: Iterable[tuple[str, bool]],
               ) -> tuple[int, int] | None:
    """The sweep cell of a record that passes but for the citation_coverage thresholds
    (``None``: it fails whatever they are). A ``no_evidence`` record passes at every pair.
    """
    if not audit_passed or not all(passed for name, passed in evaluators
                                   if name != COVERAGE):
        return None
    if status == "no_evidence":
        return len(PRECISION_GRID) - 1, len(RECALL_GRID) - 1
    if precision is None or recall is None:
        return None
    return cell_of(precision, recall)


@functools.lru_cache(maxsize=4096)
def _grouped(reasons: tuple[str, ...]) -> tuple[str, ...]:
    """The groups of a failing record's reasons, each once (records repeat the same few
    reasons: cached).
    """
    return tuple(dict.fromkeys(key for reason in reasons
                               for key in reason_keys(reason))) or ("other",)


def reason_keys(reason: str) -> list[str]:
    """The groups one reason falls in: an evaluator's reason made of missed thresholds
    groups by them, any other evaluator reason by the evaluator's name.
    """
    name, colon, detail = reason.partition(": ")
    if not colon or " " in name:
        return [reason_key(reason)]
    parts = [reason_key(part) for part in detail.split("; ")]
    if all(" < min-" in part for part in parts):
        return parts
    return [f"evaluator {name}"]


def sweep_rows(cells: Counter[tuple[int, int]], records: int) -> list[dict[str, float]]:
    """Pass rate over the grid of (min precision, min recall) pairs, from grid cell counts:
    a record passes at every pair at or below its cell.
    """
    rows = []
    for i, precision in enumerate(PRECISION_GRID):
        for j, recall in enumerate(RECALL_GRID):
            passed = sum(count for (p, r), count in cells.items() if p >= i and r >= j)
            rows.append({"min_precision": precision, "min_recall": recall,
                         "passed": passed, "pass_rate": _share(passed, records) or 0.0})
    return rows


def _step(value: float, grid: tuple[float, ...]) -> int:
    """The highest grid index whose threshold ``value`` meets (-1: none)."""
    index = -1
    for position, threshold in enumerate(grid):
        if value + 1e-12 >= threshold:
            index = position
    return index


_UNIT = 1074  # every finite float is a whole multiple of 2 ** -1074


def _exact(value: float) -> int:
    """``value`` as a whole number of 2 ** -1074: sums of these are exact."""
    numerator, denominator = float(value).as_integer_ratio()
    return numerator << (_UNIT - denominator.bit_length() + 1)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _mean(values: Counter[float]) -> float | None:
    count = sum(values.values())
    return math.fsum(v * n for v, n in values.items()) / count if count else None


def _median(values: Counter[float]) -> float | None:
    count = sum(values.values())
    if not count:
        return None
    ordered = sorted(values.items())
    return (_nth(ordered, (count - 1) // 2) + _nth(ordered, count // 2)) / 2


def _nth(ordered: list[tuple[float, int]], k: int) -> float:
    """The k-th (0-based) value of a sorted list of (value, count)."""
    seen = 0
    for value, count in ordered:
        seen += count
        if seen > k:
            return value
    return ordered[-1][0]

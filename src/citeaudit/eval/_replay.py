"""Replay (seed 003's threshold tuning): re-apply thresholds to stored results without
auditing again, and sweep a grid of threshold pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from citeaudit.errors import InputError
from citeaudit.eval._evaluators import CitationCoverage
from citeaudit.eval._lines import parse_result
from citeaudit.eval._summary import sweep_cell, sweep_rows

__all__ = ["numbered_results", "replay", "stored_results"]


def stored_results(path: str, stdin: IO[bytes] | None = None) -> Iterable[dict[str, Any]]:
    """The results of an eval run, one by one; a line that is not a result is an input error
    naming its line.
    """
    for _, result in numbered_results(path, stdin):
        yield result


def numbered_results(path: str, stdin: IO[bytes] | None = None,
                     ) -> Iterator[tuple[int, dict[str, Any]]]:
    """The results of an eval run with their line numbers (1-based). A folder is the part
    files Spark wrote (``eval --engine spark``), read in the order of their names.
    """
    folder = Path(path)
    if path != "-" and folder.is_dir():
        parts = sorted(p for p in folder.iterdir() if p.name.startswith("part-"))
        if not parts:
            raise InputError("cannot read: a folder without results (no part- files)",
                             origin=path)
        for part in parts:
            yield from numbered_results(str(part))
        return
    try:
        handle = stdin if path == "-" and stdin is not None else \
            Path(path).open("rb")  # noqa: SIM115 - closed by the with below
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", origin=path) from None
    with handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                yield number, parse_result(line, origin=path, line=number)


def _verdict(result: dict[str, Any], coverage: CitationCoverage) -> tuple[bool, bool]:
    """(passes at these thresholds, passes whatever the thresholds): the stored audit verdict
    and evaluators, with ``citation_coverage`` judged again.
    """
    if result["status"] == "unreadable":
        return False, False
    metrics = result["metrics"]
    audit_passed = bool(result.get("audit_passed", int(result.get("errors", 0)) == 0))
    others = True
    rejudged = True
    for name, stored in (result.get("evaluators") or {}).items():
        if name == coverage.name:
            rejudged = coverage.judge(result["status"], metrics.get("precision"),
                                      metrics.get("recall"), metrics.get("f1")).passed
        else:
            others = others and bool(stored.get("passed", False))
    return audit_passed and others and rejudged, audit_passed and others


def replay(results: Iterable[dict[str, Any]], min_precision: float | None = None,
           min_recall: float | None = None, *, sweep: bool = False) -> dict[str, Any]:
    """Pass counts with ``citation_coverage`` at the given thresholds (default: its own), the
    ids whose verdict changes against the stored one, and (``sweep``) the pass rate over the
    grid of threshold pairs.
    """
    coverage = CitationCoverage(min_precision, min_recall)
    records = passed = 0
    flipped: list[str] = []
    to_pass = to_fail = 0
    cells: Counter[tuple[int, int]] = Counter()
    for result in results:
        records += 1
        verdict, but_for_thresholds = _verdict(result, coverage)
        passed += verdict
        if verdict != bool(result.get("passed")):
            flipped.append(str(result.get("id") if result.get("id") is not None
                               else result.get("place")))
            to_pass += verdict
            to_fail += not verdict
        if sweep and but_for_thresholds:
            metrics = result["metrics"]
            cell = sweep_cell(result["status"], True, metrics.get("precision"),
                              metrics.get("recall"), ())
            if cell is not None:
                cells[cell] += 1
    data: dict[str, Any] = {
        "records": records, "passed": passed,
        "pass_rate": passed / records if records else None,
        "min_precision": coverage.min_precision, "min_recall": coverage.min_recall,
        "flipped": flipped, "flipped_to_pass": to_pass, "flipped_to_fail": to_fail,
    }
    if sweep:
        data["sweep"] = sweep_rows(cells, records)
    return data

"""Replay (seed 003's threshold tuning): re-apply thresholds to stored results without
auditing again, and sweep a grid of threshold pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

import orjson

from citeaudit.errors import InputError
from citeaudit.eval._results import passes
from citeaudit.eval._summary import cell_of, sweep_rows

__all__ = ["replay", "stored_results"]


def stored_results(path: str, stdin: IO[bytes] | None = None) -> Iterable[dict[str, Any]]:
    """The results of an eval run, one by one; a line that is not a result is an input error
    naming its line.
    """
    try:
        handle = stdin if path == "-" and stdin is not None else \
            Path(path).open("rb")  # noqa: SIM115 - closed by the with below
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", origin=path) from None
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                result = orjson.loads(line)
            except orjson.JSONDecodeError as error:
                raise InputError(f"not a result line: {str(error).split(': line ')[0]}",
                                 origin=path, place=f"line {number}") from None
            if not isinstance(result, dict) or "status" not in result or (
                    result["status"] != "unreadable" and not isinstance(result.get("metrics"),
                                                                        dict)):
                raise InputError("not a result of citeaudit eval", origin=path,
                                 place=f"line {number}")
            yield result


def _verdict(result: dict[str, Any], min_precision: float, min_recall: float) -> bool:
    if result["status"] == "unreadable":
        return False
    metrics = result["metrics"]
    return passes(result["status"], int(result.get("errors", 0)), metrics.get("precision"),
                  metrics.get("recall"), min_precision=min_precision, min_recall=min_recall,
                  evaluators_passed=_evaluators_passed(result))


def _evaluators_passed(result: dict[str, Any]) -> bool:
    return all(v.get("passed", False) for v in (result.get("evaluators") or {}).values())


def replay(results: Iterable[dict[str, Any]], min_precision: float, min_recall: float, *,
           sweep: bool = False) -> dict[str, Any]:
    """Pass counts at the given thresholds, the ids whose verdict changes against the stored
    one, and (``sweep``) the pass rate over the grid of threshold pairs.
    """
    records = passed = 0
    flipped: list[str] = []
    to_pass = to_fail = 0
    cells: Counter[tuple[int, int]] = Counter()
    for result in results:
        records += 1
        verdict = _verdict(result, min_precision, min_recall)
        passed += verdict
        if verdict != bool(result.get("passed")):
            flipped.append(str(result.get("id") if result.get("id") is not None
                               else result.get("place")))
            to_pass += verdict
            to_fail += not verdict
        if sweep and _verdict(result, 0.0, 0.0):  # passes but for the thresholds
            metrics = result["metrics"]
            cells[cell_of(metrics["precision"], metrics["recall"])] += 1
    data: dict[str, Any] = {
        "records": records, "passed": passed,
        "pass_rate": passed / records if records else None,
        "min_precision": min_precision, "min_recall": min_recall,
        "flipped": flipped, "flipped_to_pass": to_pass, "flipped_to_fail": to_fail,
    }
    if sweep:
        data["sweep"] = sweep_rows(cells, records)
    return data

"""Two runs compared record by record (``citeaudit diff A B``): which records regressed (passed
in A, fail in B) and which were fixed, the findings each gained and lost by rule code, the
aggregate's metrics of both runs overall and per tag, and the records only one run holds.

Records are matched by their ``id``. A record without one (unreadable before it named itself)
is matched by its position in the dataset (``index``); an id that a run holds more than once
is matched occurrence by occurrence. Either is said in the diff's ``notes``, since a match by
position is only right when both runs read the same dataset.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from citeaudit.errors import InputError
from citeaudit.eval._merge import _merged
from citeaudit.eval._replay import numbered_results
from citeaudit.eval._results import summary_of
from citeaudit.eval._summary import Aggregate

__all__ = ["FAIL_ON", "DiffRun", "FailOn", "diff_runs", "read_run"]

FailOn = Literal["regressed", "changed", "never"]
FAIL_ON: tuple[FailOn, ...] = ("regressed", "changed", "never")
VERSION = 1  # of the JSON form (docs/diff.md)

# The aggregate's fields that are no metric of the records (compared elsewhere, or settings).
_NOT_METRICS = frozenset({"findings", "failures", "min_precision", "min_recall", "evaluators",
                          "tags", "unreadable_records"})


@dataclass(frozen=True)
class _Record:
    """What the diff keeps of one result."""

    id: str | None
    index: int
    place: str
    status: str
    passed: bool
    codes: tuple[str, ...]
    metrics: dict[str, Any]
    reasons: tuple[str, ...]

    def side(self) -> dict[str, Any]:
        return {"index": self.index, "place": self.place, "status": self.status,
                "passed": self.passed, "findings": list(self.codes),
                "reasons": list(self.reasons)}

    def alone(self) -> dict[str, Any]:
        return {"id": self.id, "index": self.index, "place": self.place,
                "status": self.status, "passed": self.passed}


@dataclass
class DiffRun:
    """One side of a diff: its records in order and its aggregate."""

    path: str
    records: list[_Record]
    aggregate: Aggregate


def _results(path: str) -> Iterator[dict[str, Any]]:
    """The results of a run: a results file, or a folder of them (Spark's part files, or the
    shards of ``eval --shard``, joined as ``citeaudit merge`` joins them).
    """
    folder = Path(path)
    if not folder.is_dir() or any(p.name.startswith("part-") for p in folder.iterdir()):
        for _, result in numbered_results(path):
            yield result
        return
    files = sorted(str(p) for p in folder.iterdir()
                   if p.is_file() and p.suffix in (".jsonl", ".ndjson"))
    if not files:
        raise InputError("cannot read: a folder without results (no .jsonl or part- files)",
                         origin=path)
    for _, item in _merged(files, allow_mismatch=False):
        yield item.result


def read_run(path: str) -> DiffRun:
    """The results of the run at ``path``, each checked as ``merge`` and ``replay`` check
    them (a line that is not a result is an error naming the file, line and field).
    """
    records: list[_Record] = []
    aggregate: Aggregate | None = None
    for ordinal, result in enumerate(_results(path)):
        if aggregate is None:
            run = result.get("run") or {}
            aggregate = Aggregate(run.get("min_precision"), run.get("min_recall"))
        aggregate.add(summary_of(result)._replace(ordinal=ordinal))
        records.append(_Record(
            result["id"], result["index"], result["place"], result["status"],
            result["passed"], tuple(f["code"] for f in result.get("findings", ())),
            result.get("metrics") or {}, tuple(result.get("reasons") or
                                               ((result["error"],) if "error" in result
                                                else ()))))
    return DiffRun(path, records, aggregate if aggregate is not None else Aggregate())


def _keyed(run: DiffRun, name: str, notes: list[str]) -> dict[tuple[str, Any, int], _Record]:
    """The records of ``run`` by their match key: (``id``, the id, its occurrence) or
    (``index``, the position, 0).
    """
    keyed: dict[tuple[str, Any, int], _Record] = {}
    seen: Counter[str] = Counter()
    no_id = 0
    for record in run.records:
        if record.id is None:
            no_id += 1
            keyed["index", record.index, 0] = record
        else:
            keyed["id", record.id, seen[record.id]] = record
            seen[record.id] += 1
    # eval names a record without an id by its place ("line-3"): a match by it is by position.
    if run.records and all(record.id == record.place.replace(" ", "-")
                           for record in run.records):
        notes.append(f"the records of {name} ({run.path}) have no ids (each is named by its"
                     " place in the dataset): matched by position")
    if no_id:
        notes.append(f"{no_id} record{'s' if no_id != 1 else ''} of {name} ({run.path}) have"
                     " no id: matched by position in the dataset")
    twice = sorted(record_id for record_id, count in seen.items() if count > 1)
    if twice:
        shown = ", ".join(repr(record_id) for record_id in twice[:5])
        notes.append(f"{name} ({run.path}) holds {len(twice)} id{'s' if len(twice) != 1 else ''}"
                     f" more than once ({shown}{', ...' if len(twice) > 5 else ''}): matched"
                     " occurrence by occurrence")
    return keyed


def _numbers(stats: dict[str, Any] | None) -> dict[str, Any]:
    """The metrics of one set of records (the aggregate's counts, rates, means, medians)."""
    if stats is None:
        return {}
    return {name: value for name, value in stats.items() if name not in _NOT_METRICS
            and (value is None or type(value) in (int, float))}


def _deltas(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Each metric in A and B and its change (``null`` where either has no value)."""
    mine, theirs = _numbers(a), _numbers(b)
    names = list(dict.fromkeys([*mine, *theirs]))
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        old, new = mine.get(name), theirs.get(name)
        out[name] = {"a": old, "b": new,
                     "delta": None if old is None or new is None else new - old}
    return out


def _by_tag(a: dict[str, Any], b: dict[str, Any]) -> dict[str, dict[str, Any]]:
    keys = sorted({*a, *b})
    return {key: {value: _deltas(a.get(key, {}).get(value), b.get(key, {}).get(value))
                  for value in sorted({*a.get(key, {}), *b.get(key, {})})}
            for key in keys}


def _changed_metrics(a: _Record, b: _Record) -> dict[str, dict[str, Any]]:
    names = dict.fromkeys([*a.metrics, *b.metrics])
    return {name: {"a": a.metrics.get(name), "b": b.metrics.get(name)} for name in names
            if a.metrics.get(name) != b.metrics.get(name)}


def _compared(a: _Record, b: _Record) -> dict[str, Any] | None:
    """One matched record's changes, or ``None`` when it is the same in both runs."""
    before, after = Counter(a.codes), Counter(b.codes)
    gained, lost = after - before, before - after
    metrics = _changed_metrics(a, b)
    if a.passed == b.passed and a.status == b.status and not gained and not lost \
            and not metrics:
        return None
    return {"id": b.id if b.id is not None else a.id, "a": a.side(), "b": b.side(),
            "gained": dict(sorted(gained.items())), "lost": dict(sorted(lost.items())),
            "metrics": metrics}


def diff_runs(a: DiffRun, b: DiffRun, *, fail_on: FailOn = "never") -> dict[str, Any]:
    """The diff of run ``a`` to run ``b`` in its JSON form (docs/diff.md); ``failed`` says
    whether it holds what ``fail_on`` fails on.
    """
    notes: list[str] = []
    keyed_a, keyed_b = _keyed(a, "A", notes), _keyed(b, "B", notes)
    regressed: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    gained: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    for key, old in keyed_a.items():
        new = keyed_b.get(key)
        if new is None:
            continue
        entry = _compared(old, new)
        if entry is None:
            continue
        gained.update(entry["gained"])
        lost.update(entry["lost"])
        if old.passed and not new.passed:
            regressed.append(entry)
        elif new.passed and not old.passed:
            fixed.append(entry)
        else:
            changed.append(entry)
    only_a = [record.alone() for key, record in keyed_a.items() if key not in keyed_b]
    only_b = [record.alone() for key, record in keyed_b.items() if key not in keyed_a]
    data_a, data_b = a.aggregate.to_dict(), b.aggregate.to_dict()
    counts = {"regressed": len(regressed), "fixed": len(fixed), "changed": len(changed),
              "only_in_a": len(only_a), "only_in_b": len(only_b),
              "findings_gained": sum(gained.values()), "findings_lost": sum(lost.values())}
    differs = any(counts.values())
    failed = (fail_on == "regressed" and bool(regressed)) or (fail_on == "changed" and differs)
    return {
        "version": VERSION,
        "a": {"path": a.path, "records": len(a.records)},
        "b": {"path": b.path, "records": len(b.records)},
        "matched": len(keyed_a.keys() & keyed_b.keys()), "notes": notes,
        "same": not differs, "counts": counts,
        "regressed": regressed, "fixed": fixed, "changed": changed,
        "only_in_a": only_a, "only_in_b": only_b,
        "findings": {"gained": dict(sorted(gained.items())),
                     "lost": dict(sorted(lost.items()))},
        "metrics": _deltas(data_a, data_b),
        "tags": _by_tag(data_a["tags"], data_b["tags"]),
        "fail_on": fail_on, "failed": failed,
    }

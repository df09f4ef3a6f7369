"""The results of a Spark run as typed columns: the fields of a results file's line, each a
column (findings an array of structs, metrics a struct, tags and evaluators maps), and the
conversion of a row back into the result ``citeaudit eval`` writes.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
)

from citeaudit.core import Metrics

__all__ = ["RESULT", "result_of_row"]


def _struct(fields: dict[str, DataType]) -> StructType:
    return StructType([StructField(name, kind) for name, kind in fields.items()])


_TEXT, _LONG, _RATIO, _FLAG = StringType(), LongType(), DoubleType(), BooleanType()

FINDING = _struct({"code": _TEXT, "severity": _TEXT, "message": _TEXT, "claim": _LONG,
                   "span": ArrayType(_LONG), "marker": _TEXT, "source_id": _TEXT,
                   "path": _TEXT})
# Ratios are doubles (null for no_evidence), counts longs: as the Metrics tuple declares them.
METRICS = _struct({name: _RATIO if "float" in str(kind) else _LONG
                   for name, kind in Metrics.__annotations__.items()})
EVALUATOR = _struct({"passed": _FLAG, "score": _RATIO, "reason": _TEXT})
EXEMPT = _struct({"span": ArrayType(_LONG), "kind": _TEXT, "score": _RATIO})
RUN = _struct({"dataset": _TEXT, "shard": ArrayType(_LONG), "min_precision": _RATIO,
               "min_recall": _RATIO})

RESULT = _struct({
    "index": _LONG, "place": _TEXT, "id": _TEXT, "status": _TEXT, "passed": _FLAG,
    "reasons": ArrayType(_TEXT), "audit_passed": _FLAG, "errors": _LONG,
    "findings": ArrayType(FINDING), "metrics": METRICS, "fingerprint": _TEXT,
    "tags": MapType(_TEXT, _TEXT), "evaluators": MapType(_TEXT, EVALUATOR),
    "record_digest": _TEXT, "options_digest": _TEXT, "run": RUN, "answerable": _FLAG,
    "exempt": ArrayType(EXEMPT),  # only where the claim policy exempted a unit
    "error": _TEXT,  # why an unreadable record could not be audited
})
"""The schema of the results DataFrame."""

# The fields of a result line, by status, in the order citeaudit eval writes them.
_AUDITED = ("index", "place", "id", "status", "passed", "reasons", "audit_passed", "errors",
            "findings", "metrics", "fingerprint", "tags", "evaluators", "record_digest",
            "options_digest", "run")
_UNREADABLE = ("index", "place", "id", "status", "passed", "error", "record_digest",
               "options_digest", "run")


def result_of_row(row: dict[str, Any]) -> dict[str, Any]:
    """A results row (as Arrow's ``to_pylist`` gives it: maps as lists of pairs) as the
    result line ``citeaudit eval`` writes, field for field.
    """
    names = _UNREADABLE if row["status"] == "unreadable" else _AUDITED
    result = {name: row[name] for name in names}
    if result.get("run") is None:
        del result["run"]
    if "tags" in result:
        result["tags"] = _mapping(result["tags"])
        result["evaluators"] = _mapping(result["evaluators"])
    if row["status"] != "unreadable" and row.get("answerable") is not None:
        result["answerable"] = row["answerable"]
    if row["status"] != "unreadable" and row.get("exempt"):
        result["exempt"] = [dict(unit) for unit in row["exempt"]]
    return result


def _mapping(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    return dict(value) if not isinstance(value, dict) else value

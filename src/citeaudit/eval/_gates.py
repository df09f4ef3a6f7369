"""Gates: conditions on the aggregate of a run (``pass_rate>=0.95``) that decide its exit
code. Without any, a run holds every record to its verdict: ``pass_rate>=1``.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from citeaudit.errors import ConfigError
from citeaudit.eval._summary import METRICS

__all__ = ["DEFAULT_GATES", "GATE_METRICS", "Gate", "gate_results", "parse_gate"]


class Gate(NamedTuple):
    """A condition on one aggregate number, e.g. ``pass_rate>=0.95``."""

    metric: str
    op: str
    value: float

    def holds(self, data: dict[str, Any]) -> bool:
        found = data.get(self.metric)
        return found is not None and _OPS[self.op](found, self.value)

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.value:g}"


_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_GATE = re.compile(r"\s*([a-z_]+)\s*(>=|<=|>|<)\s*([0-9]*\.?[0-9]+)\s*")
GATE_METRICS = ("pass_rate", "no_evidence_rate", "unreadable", "records",
                *(f"{kind}_{m}" for m in METRICS for kind in ("mean", "median")))


def parse_gate(text: str) -> Gate:
    """``METRIC>=VALUE`` (or ``<=``, ``>``, ``<``) on an aggregate number."""
    match = _GATE.fullmatch(text)
    if match is None or match[1] not in GATE_METRICS:
        raise ConfigError(f"--gate {text!r}: write METRIC>=VALUE with METRIC one of"
                          f" {', '.join(GATE_METRICS)}")
    return Gate(match[1], match[2], float(match[3]))


DEFAULT_GATES = (Gate("pass_rate", ">=", 1.0),)


def gate_results(data: dict[str, Any], gates: Sequence[Gate] = ()) -> list[dict[str, Any]]:
    """Whether each gate (default: :data:`DEFAULT_GATES`) holds on an aggregate's data."""
    return [{"gate": str(g), "holds": g.holds(data)} for g in gates or DEFAULT_GATES]

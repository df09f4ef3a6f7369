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

__all__ = ["DEFAULT_GATES", "GATE_METRICS", "Gate", "gate_line", "gate_results", "parse_gate"]


class Gate(NamedTuple):
    """A condition on one aggregate number, e.g. ``pass_rate>=0.95``, over the whole run or
    over the records of one tag value (``pass_rate[topic=billing]>=0.9``).
    """

    metric: str
    op: str
    value: float
    tag: tuple[str, str] | None = None  # (tag, value): the records it is measured on

    def measured(self, data: dict[str, Any]) -> tuple[float | None, str]:
        """The number the gate reads in an aggregate's data, or ``None`` and why there is
        none.
        """
        if self.tag is not None:
            name, value = self.tag
            data = data.get("tags", {}).get(name, {}).get(value)
            if data is None:
                return None, f"no record has the tag {name}={value}"
        if self.metric not in data:
            return None, f"{self.metric} is not measured here"
        found = data[self.metric]
        if found is not None:
            return float(found), ""
        if "support" in self.metric:
            return None, f"{self.metric} was not computed: it needs a support judge (--support)"
        return None, f"{self.metric} was not computed: no record was audited with evidence"

    def holds(self, data: dict[str, Any]) -> bool:
        found, _ = self.measured(data)
        return found is not None and _OPS[self.op](found, self.value)

    def __str__(self) -> str:
        where = f"[{self.tag[0]}={self.tag[1]}]" if self.tag is not None else ""
        return f"{self.metric}{where}{self.op}{self.value:g}"


_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}
_GATE = re.compile(r"\s*([a-z_]+)(?:\[([^\]=\s]+)=([^\]]*)\])?\s*(>=|<=|>|<)\s*"
                   r"([0-9]*\.?[0-9]+)\s*")
GATE_METRICS = ("pass_rate", "no_evidence_rate", "unreadable", "records",
                *(f"{kind}_{m}" for m in METRICS for kind in ("mean", "median")))


def parse_gate(text: str) -> Gate:
    """``METRIC>=VALUE`` (or ``<=``, ``>``, ``<``) on an aggregate number; ``METRIC[TAG=VALUE]``
    measures it on the records with that tag value.
    """
    match = _GATE.fullmatch(text)
    if match is None or match[1] not in GATE_METRICS:
        raise ConfigError(f"--gate {text!r}: write METRIC>=VALUE (or METRIC[TAG=VALUE]>=VALUE)"
                          f" with METRIC one of {', '.join(GATE_METRICS)}")
    tag = (match[2], match[3]) if match[2] is not None else None
    return Gate(match[1], match[4], float(match[5]), tag)


DEFAULT_GATES = (Gate("pass_rate", ">=", 1.0),)


def gate_results(data: dict[str, Any], gates: Sequence[Gate] = ()) -> list[dict[str, Any]]:
    """Each gate (default: :data:`DEFAULT_GATES`) on an aggregate's data: whether it holds,
    the value it read (``None``: not computed) and, when it fails, why in words.
    """
    results = []
    for gate in gates or DEFAULT_GATES:
        found, missing = gate.measured(data)
        holds = found is not None and _OPS[gate.op](found, gate.value)
        reason = "" if holds else missing or (
            f"{gate.metric} is {found:.4g}, not {gate.op} {gate.value:g}")
        results.append({"gate": str(gate), "holds": holds, "value": found, "reason": reason})
    return results


def gate_line(result: dict[str, Any]) -> str:
    """A gate's result on one line, as the command line prints it."""
    if result["holds"]:
        return f"gate {result['gate']}: holds"
    return f"gate {result['gate']}: FAILS ({result['reason']})"

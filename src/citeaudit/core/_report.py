"""The report: findings, metrics and verdict for one answer, and what was and was not checked.

A report is a value (immutable, compared and hashed by what it says), but its metrics are
worked out when first read: a caller in the request path that reads only ``status`` or
``passed`` never pays for them. The engine measures at once when the verdict needs the
figures (thresholds set) or a support judge is configured (its failures belong to the audit).

A report may even be *settled*: its verdict known before its findings were made (a free-text
answer's status follows from where its markers and claims are, see
:func:`citeaudit.core._engine.audit`). Its findings, reasons and metrics are then made by the
whole audit when one of them is first read, and equal what that audit would have said.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError
from typing import Any, Literal

from citeaudit.core._claims import Exempt
from citeaudit.core._findings import Finding
from citeaudit.core._judging import ClaimSupport
from citeaudit.core._metrics import Metrics
from citeaudit.core._native import slotted
from citeaudit.core._rules import Severity
from citeaudit.core._sources import Snapshot

__all__ = ["Report", "Status"]

Status = Literal["ok", "unverified", "no_evidence"]

_FIELDS = ("findings", "metrics", "status", "passed", "checked", "not_checked", "grammar",
           "snapshot", "reasons", "shape", "grammar_reason", "support", "exempt")


class Report:
    """Findings, metrics and verdict for one answer, and what was and was not checked.

    ``metrics`` may be given as a function of no arguments, called once, when the metrics are
    first read (by the attribute, ``to_dict()``, equality, hashing or pickling). ``complete``
    likewise makes the whole report, whose findings, metrics and reasons this one then takes
    (``findings`` and ``reasons`` are then not read).
    """

    __slots__ = ("_complete", "_exempt", "_findings", "_measure", "_metrics", "_reasons", "checked",
                 "grammar", "grammar_reason", "not_checked", "passed", "shape", "snapshot",
                 "status", "support")

    status: Status
    passed: bool
    checked: tuple[str, ...]
    not_checked: tuple[str, ...]
    grammar: str
    snapshot: Snapshot
    shape: str
    grammar_reason: str  # why this grammar: asked for, or what inferred it
    # Each judged claim's judgement, with the passage spans it rests on; None: no judge ran.
    support: tuple[ClaimSupport, ...] | None
    _findings: tuple[Finding, ...]
    _exempt: tuple[Exempt, ...]
    _reasons: tuple[str, ...]
    _metrics: Metrics
    _measure: Callable[[], Metrics] | None
    _complete: Callable[[], Report] | None

    def __init__(  # noqa: PLR0917 -- the frozen dataclass it replaced took its fields in order
            self, findings: tuple[Finding, ...], metrics: Metrics | Callable[[], Metrics],
            status: Status, passed: bool, checked: tuple[str, ...],
            not_checked: tuple[str, ...], grammar: str, snapshot: Snapshot,
            reasons: tuple[str, ...] = (), shape: str = "text", grammar_reason: str = "",
            complete: Callable[[], Report] | None = None,
            support: tuple[ClaimSupport, ...] | None = None, exempt: tuple[Exempt, ...] = (),
    ) -> None:
        put = object.__setattr__
        if isinstance(metrics, Metrics):
            put(self, "_metrics", metrics)
            put(self, "_measure", None)
        else:
            put(self, "_measure", metrics)
        put(self, "_findings", findings)
        put(self, "status", status)
        put(self, "passed", passed)
        put(self, "checked", checked)
        put(self, "not_checked", not_checked)
        put(self, "grammar", grammar)
        put(self, "snapshot", snapshot)
        put(self, "_reasons", reasons)
        put(self, "shape", shape)
        put(self, "grammar_reason", grammar_reason)
        put(self, "_complete", complete)
        put(self, "support", support)
        put(self, "_exempt", exempt)

    def _settled(self) -> Report:
        """The report itself, its findings, reasons and metrics taken from the whole report
        its ``complete`` makes (once: then ``complete`` is dropped).
        """
        complete = self._complete
        if complete is not None:
            whole = complete()
            put = object.__setattr__
            put(self, "_findings", whole._findings)
            put(self, "_reasons", whole._reasons)
            put(self, "_exempt", whole._exempt)
            if whole._measure is not None:
                put(self, "_measure", whole._measure)
            else:
                put(self, "_metrics", whole._metrics)
            put(self, "_complete", None)  # what it read can go
        return self

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings, in deterministic order."""
        return self._settled()._findings

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the answer fails (nothing: it passes)."""
        return self._settled()._reasons

    @property
    def exempt(self) -> tuple[Exempt, ...]:
        """The uncited units the claim policy exempted (free text), each with its kind and
        score: what was not asked to carry a citation, and why.
        """
        return self._settled()._exempt

    @property
    def metrics(self) -> Metrics:
        """The answer's citation metrics (worked out on first read)."""
        measure = self._settled()._measure
        if measure is not None:
            object.__setattr__(self, "_metrics", measure())
            object.__setattr__(self, "_measure", None)  # what it read can go
        return self._metrics

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Report:
            return NotImplemented
        assert isinstance(other, Report)
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}"
                           for name, value in zip(_FIELDS, self._values(), strict=True))
        return f"Report({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        *values, support, exempt = self._values()
        return Report, (*values, None, support, exempt)

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the snapshot this answer was checked against."""
        return self.snapshot.fingerprint

    @property
    def errors(self) -> int:
        """How many findings are errors."""
        return sum(1 for f in self.findings if f.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        """How many findings are warnings."""
        return sum(1 for f in self.findings if f.severity is Severity.WARNING)

    def to_dict(self) -> dict[str, Any]:
        """The versioned JSON form (see ``docs/json.md``)."""
        return {
            "version": 1,
            "status": self.status,
            "passed": self.passed,
            "reasons": list(self.reasons),
            "findings": [f.to_dict() for f in self.findings],
            "metrics": self.metrics.to_dict(),
            "checked": list(self.checked),
            "not_checked": list(self.not_checked),
            "grammar": self.grammar,
            "grammar_reason": self.grammar_reason,
            "answer_shape": self.shape,
            "fingerprint": self.fingerprint,
            # Where the ids came from: "ids" as the sources gave them, "positions" 1..N.
            "snapshot": {"numbering": self.snapshot.ids_from, "sources": len(self.snapshot)},
            # Every judged claim's outcome and the passage spans it rests on (null: no judge).
            "support": None if self.support is None
            else [judged.to_dict() for judged in self.support],
            # The uncited units that need no citation: span, kind, score (null: a rule's).
            "exempt": [unit.to_dict() for unit in self.exempt],
        }


# A Report whose metrics are measured when first read, from Report's arguments in order (the
# metrics given as the function that measures them): the class itself, or compiled, the same
# instance with its fields set in place (its __init__ sets eleven through object.__setattr__).
lazy_report = slotted(Report, ("_findings", "_measure", "status", "passed", "checked",
                                "not_checked", "grammar", "snapshot", "_reasons", "shape",
                                "grammar_reason", "_complete", "support", "_exempt"))

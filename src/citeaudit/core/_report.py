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
from dataclasses import dataclass, fields
from typing import Any, Literal

from citeaudit.core._claims import Exempt
from citeaudit.core._findings import Finding
from citeaudit.core._judging import ClaimSupport
from citeaudit.core._metrics import Metrics
from citeaudit.core._rules import Severity
from citeaudit.core._sources import Snapshot

__all__ = ["Later", "Report", "Status", "new_report"]

Status = Literal["ok", "unverified", "no_evidence"]

_FIELDS = ("findings", "metrics", "status", "passed", "checked", "not_checked", "grammar",
           "snapshot", "reasons", "shape", "grammar_reason", "support", "exempt")


class Later:
    """What a report works out when first read: its metrics (given as the function that
    measures them), and, where its verdict was settled first, its findings, reasons and
    exempt units (``complete`` makes the whole report they are taken from). Each is made
    once; what made it is then dropped.
    """

    __slots__ = ("_complete", "_exempt", "_findings", "_measure", "_metrics", "_reasons")

    def __init__(self, findings: tuple[Finding, ...], reasons: tuple[str, ...],
                 exempt: tuple[Exempt, ...], metrics: Metrics | Callable[[], Metrics],
                 complete: Callable[[], Report] | None = None) -> None:
        self._findings = findings
        self._reasons = reasons
        self._exempt = exempt
        self._metrics: Metrics | None = metrics if isinstance(metrics, Metrics) else None
        self._measure = None if isinstance(metrics, Metrics) else metrics
        self._complete = complete

    def settled(self) -> Later:
        """Itself, its findings, reasons and exempt units those of the whole report."""
        complete = self._complete
        if complete is not None:
            whole = complete().later.settled()
            self._findings, self._reasons = whole._findings, whole._reasons
            self._exempt = whole._exempt
            if whole._metrics is None:
                self._measure = whole._measure
            else:
                self._metrics, self._measure = whole._metrics, None
            self._complete = None
        return self

    def metrics(self) -> Metrics:
        """The metrics, measured on first read."""
        settled = self.settled()
        if settled._metrics is None:
            assert settled._measure is not None
            settled._metrics = settled._measure()
            settled._measure = None
        return settled._metrics


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class Report:
    """Findings, metrics and verdict for one answer, and what was and was not checked.

    The verdict and its scope are fields; the findings, reasons, exempt units and metrics
    come from ``later`` (see :class:`Later`), worked out when first read (by the attribute,
    ``to_dict()``, equality, hashing or pickling). Make one with :func:`new_report`.
    """

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
    later: Later

    def __init__(self, status: Status, passed: bool,  # noqa: PLR0917 -- the fields in order
                 checked: tuple[str, ...], not_checked: tuple[str, ...], grammar: str,
                 snapshot: Snapshot, shape: str, grammar_reason: str,
                 support: tuple[ClaimSupport, ...] | None, later: Later) -> None:
        # What the dataclass would write for a frozen class (object.__setattr__ for each
        # field), written here so that the compiled build compiles it (the generated one is
        # Python, made at import); each field written by its slot's descriptor, looked up once
        # (_SETTERS), where object.__setattr__ would look it up again on every call.
        (set_status, set_passed, set_checked, set_not_checked, set_grammar, set_snapshot,
         set_shape, set_grammar_reason, set_support, set_later) = _SETTERS
        set_status(self, status)
        set_passed(self, passed)
        set_checked(self, checked)
        set_not_checked(self, not_checked)
        set_grammar(self, grammar)
        set_snapshot(self, snapshot)
        set_shape(self, shape)
        set_grammar_reason(self, grammar_reason)
        set_support(self, support)
        set_later(self, later)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings, in deterministic order."""
        return self.later.settled()._findings

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the answer fails (nothing: it passes)."""
        return self.later.settled()._reasons

    @property
    def exempt(self) -> tuple[Exempt, ...]:
        """The uncited units the claim policy exempted (free text), each with its kind and
        score: what was not asked to carry a citation, and why.
        """
        return self.later.settled()._exempt

    @property
    def metrics(self) -> Metrics:
        """The answer's citation metrics (worked out on first read)."""
        return self.later.metrics()

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
        return _rebuilt, self._values()

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


# Each field's writer, in the order of the fields: the __set__ of its slot's descriptor.
_SETTERS: tuple[Callable[[Report, Any], None], ...] = tuple(
    vars(Report)[field.name].__set__ for field in fields(Report))


def new_report(  # noqa: PLR0917 -- a report's fields in the order _FIELDS gives them
        findings: tuple[Finding, ...], metrics: Metrics | Callable[[], Metrics],
        status: Status, passed: bool, checked: tuple[str, ...], not_checked: tuple[str, ...],
        grammar: str, snapshot: Snapshot, reasons: tuple[str, ...] = (), shape: str = "text",
        grammar_reason: str = "", support: tuple[ClaimSupport, ...] | None = None,
        exempt: tuple[Exempt, ...] = (), complete: Callable[[], Report] | None = None,
) -> Report:
    """A report; ``metrics`` may be the function that measures them, and ``complete`` the
    function that makes the whole report whose findings, reasons, exempt units and metrics
    this one then takes (its own ``findings``, ``reasons`` and ``exempt`` are not read).
    """
    return Report(status, passed, checked, not_checked, grammar, snapshot, shape,
                  grammar_reason, support, Later(findings, reasons, exempt, metrics, complete))


def _rebuilt(findings: tuple[Finding, ...], metrics: Metrics, *values: Any) -> Report:
    """A report back from a pickle (its values in the order of _FIELDS)."""
    (status, passed, checked, not_checked, grammar, snapshot, reasons, shape, grammar_reason,
     support, exempt) = values
    return new_report(findings, metrics, status, passed, checked, not_checked, grammar,
                      snapshot, reasons, shape, grammar_reason, support, exempt)

"""Formatters: how a report is written for people (text) and programs (json)."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from typing import Any, Protocol, TextIO, cast, runtime_checkable

import orjson

from citeaudit.core import Finding, Registry, Report, instance_of, quoted

__all__ = [
    "FORMATTERS", "Formatter", "JsonFormatter", "LineIndex", "TextFormatter", "json_text",
    "line_column", "one_line", "verdict_line",
]


@runtime_checkable
class Formatter(Protocol):
    """Writes one report for the answer read from ``origin``."""

    def write(self, report: Report, answer_text: str, origin: str, stream: TextIO) -> None: ...


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset (for one offset: for many, a
    :class:`LineIndex`).
    """
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


class LineIndex:
    """Lines and columns of many offsets in one text: its line breaks are found once and each
    offset is placed among them by bisection (counting the breaks before every offset afresh
    takes time in the product of the text's length and the number of offsets).
    """

    __slots__ = ("_breaks",)

    def __init__(self, text: str) -> None:
        self._breaks = [match.start() for match in _LINE_BREAK.finditer(text)]

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        before = bisect.bisect_left(self._breaks, offset)  # the breaks before the offset
        line_start = self._breaks[before - 1] + 1 if before else 0
        return before + 1, offset - line_start + 1


_LINE_BREAK = re.compile("\n")


def _place(finding: Finding, report: Report, lines: Callable[[], LineIndex]) -> str:
    if finding.path is not None:
        return finding.path
    if finding.span is not None:
        if report.shape != "text" and finding.claim is not None:  # no file text to count in
            return f"claim {finding.claim}, chars {finding.span[0]}-{finding.span[1]}"
        line, column = lines().line_column(finding.span[0])
        where = f"{line}:{column}"
        return f"{where} (claim {finding.claim})" if finding.claim is not None else where
    if finding.claim is not None:
        return f"claim {finding.claim}"
    return "answer"


# What a terminal must not be sent raw: C0 controls but tab, DEL and the C1 controls (U+009B
# alone starts an escape sequence on many terminals), line and paragraph separators, and the
# bidirectional controls that reorder what is shown (Trojan Source).
_ONE_LINE = {
    **{code: f"\\x{code:02x}" for code in (*range(0x20), *range(0x7F, 0xA0)) if code != 0x09},
    0x0A: "\\n", 0x0D: "\\r",
    **{code: f"\\u{code:04x}" for code in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
                                           *range(0x202A, 0x202F), *range(0x2066, 0x206A))}}
_TO_ESCAPE = re.compile("[" + "".join(re.escape(chr(code)) for code in _ONE_LINE) + "]")


def one_line(text: str) -> str:
    r"""``text`` safe to write on a terminal as (part of) one line: line breaks, control
    characters and bidirectional controls escaped as ``\n``, ``\x9b``, ``\u202e``. Every
    line the command line writes for people goes through it, whatever an answer, a dataset, a
    results file or a file name put into it.
    """
    return text.translate(_ONE_LINE) if _TO_ESCAPE.search(text) else text


# What one_line escapes that JSON text can hold raw (JSON escapes the C0 controls itself).
_JSON_UNSAFE = re.compile("[" + "".join(re.escape(chr(code)) for code in _ONE_LINE
                                        if code >= 0x7F) + "]")


def json_text(data: Any) -> str:
    r"""``data`` as indented JSON, safe on a terminal: the characters :func:`one_line`
    escapes are written as JSON escapes (``\u009b``), which parse to the same text.
    """
    text = orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()
    if _JSON_UNSAFE.search(text) is None:
        return text
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match[0]):04x}", text)


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


class TextFormatter:
    """One line per finding (place, code, severity, message), then one verdict line;
    with ``show_exempt``, one line per uncited unit the claim policy exempted before it
    (place, ``exempt``, kind, score, the unit).
    """

    def __init__(self, show_exempt: bool = False) -> None:
        self.show_exempt = show_exempt

    def write(self, report: Report, answer_text: str, origin: str, stream: TextIO) -> None:
        lines = functools.cache(lambda: LineIndex(answer_text))  # only when a span is placed
        for finding in report.findings:
            stream.write(one_line(f"{origin}:{_place(finding, report, lines)}: {finding.code}"
                                  f" {finding.severity.value}: {finding.message}") + "\n")
        if self.show_exempt:
            for unit in report.exempt:
                line, column = lines().line_column(unit.span[0])
                score = "a rule" if unit.score is None else f"score {unit.score:.2f}"
                stream.write(one_line(
                    f"{origin}:{line}:{column}: exempt {unit.kind} ({score}): "
                    f"{quoted(answer_text[unit.span[0]:unit.span[1]])}") + "\n")
        stream.write(verdict_line(report))


def verdict_line(report: Report) -> str:
    """The one line that sums up a report: verdict, counts, status, metrics, what was and
    was not checked.
    """
    metrics = report.metrics
    verdict = "PASS" if report.passed else "FAIL"
    counts = f"{report.errors} error{'s' * (report.errors != 1)}, " \
             f"{report.warnings} warning{'s' * (report.warnings != 1)}"
    why = f" ({'; '.join(report.reasons)})" if report.reasons else ""
    return one_line(
        f"{verdict}{why}: {counts}; status {report.status}; precision"
        f" {_ratio(metrics.precision)}, recall {_ratio(metrics.recall)}, F1"
        f" {_ratio(metrics.f1)}, claim coverage {_ratio(metrics.claim_coverage)};"
        f" checked: {', '.join(report.checked) or 'nothing'}; not checked:"
        f" {', '.join(report.not_checked) or 'nothing'}") + "\n"


class JsonFormatter:
    """The versioned JSON report (``docs/json.md``), one object."""

    def write(self, report: Report, answer_text: str, origin: str, stream: TextIO) -> None:  # noqa: ARG002 - the Formatter protocol
        stream.write(json_text(report.to_dict()) + "\n")


def _formatter(loaded: object) -> Formatter:
    return cast(Formatter, instance_of(loaded, Formatter, (
        "a formatter has write(report, answer_text, origin, stream)")))


FORMATTERS: Registry[Formatter] = Registry("formatters", {
    "text": f"{__name__}:TextFormatter", "json": f"{__name__}:JsonFormatter"},
    what="formatter", validate=_formatter)
"""How ``check`` prints a report (``--format NAME``): built-ins and ``citeaudit.formatters``."""

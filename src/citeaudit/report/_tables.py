"""The aggregate as a text table, Markdown or JUnit XML; replay as a table; gates."""

from __future__ import annotations

from typing import IO, Any

from citeaudit.eval import METRICS, CitationCoverage
from citeaudit.report._formatters import one_line
from citeaudit.request import escape_markdown

__all__ = ["junit", "markdown", "replay_table", "table", "thresholds_note"]


def _metrics(data: dict[str, Any]) -> list[str]:
    """The metrics to show: support metrics only when a support judge ran."""
    return [m for m in METRICS if not m.startswith("support_") or data[f"mean_{m}"] is not None]


def _columns(data: dict[str, Any]) -> list[str]:
    return ["records", "pass rate", "no evidence", "unreadable",
            *(f"{m.replace('_', ' ')} mean/median" for m in _metrics(data))]


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _row(name: str, stats: dict[str, Any], metrics: list[str]) -> list[str]:
    return [name, str(stats["records"]), _ratio(stats["pass_rate"]),
            _ratio(stats["no_evidence_rate"]), str(stats["unreadable"]),
            *(f"{_ratio(stats[f'mean_{m}'])}/{_ratio(stats[f'median_{m}'])}" for m in metrics)]


def _rows(data: dict[str, Any]) -> list[list[str]]:
    """Rows of the aggregate; tag names and values come from the dataset: every format
    escapes them for where it is shown.
    """
    metrics = _metrics(data)
    rows = [_row("all", data, metrics)]
    for key, values in data["tags"].items():
        rows.extend(_row(f"{key}={value}", stats, metrics) for value, stats in values.items())
    return rows


def _markdown_cell(text: str) -> str:
    return escape_markdown(one_line(text)).replace("|", "\\|")


def table(data: dict[str, Any]) -> str:
    """The aggregate as an aligned text table, then findings by code and evaluators."""
    rows = [["", *_columns(data)], *([one_line(row[0]), *row[1:]] for row in _rows(data))]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
             for row in rows]
    # Codes, reasons and evaluator names come from the records or a results file too.
    notes = ["findings: " + (", ".join(f"{code} {n}" for code, n in data["findings"].items())
                             or "none")]
    if data["failures"]:
        notes.append("failed records by reason: " + ", ".join(
            f"{reason} {n}" for reason, n in _by_count(data["failures"])))
        if any(" < min-" in reason for reason in data["failures"]):
            notes.append(thresholds_note(data["min_precision"], data["min_recall"]))
    if "refusal_precision" in data:
        notes.append(f"refusals (labelled records): precision {_ratio(data['refusal_precision'])},"
                     f" recall {_ratio(data['refusal_recall'])}")
    for name, e in data["evaluators"].items():
        notes.append(f"evaluator {name}: pass rate {_ratio(e['pass_rate'])}, mean score"
                     f" {_ratio(e['mean_score'])}")
    return "\n".join([*lines, *map(one_line, notes)]) + "\n"


def thresholds_note(min_precision: float | None, min_recall: float | None) -> str:
    """The citation_coverage thresholds records failed, and how to change them."""
    shown = [(option, value, value == default) for option, value, default in (
        ("min-precision", min_precision, CitationCoverage.DEFAULTS[0]),
        ("min-recall", min_recall, CitationCoverage.DEFAULTS[1])) if value is not None]
    if not shown:
        return "thresholds: set by --min-precision, --min-recall or the configuration"
    if all(default for _, _, default in shown):
        return ("thresholds: " + ", ".join(f"{option} {value:.2f}" for option, value, _ in shown)
                + " (the defaults: change them with "
                + ", ".join(f"--{option}" for option, _, _ in shown) + " or the configuration)")
    return "thresholds: " + ", ".join(
        f"{option} {value:.2f} (" + ("the default: change it with" if default else "set by")
        + f" --{option} or the configuration)" for option, value, default in shown)


def _by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    """Most frequent first, then by name."""
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def markdown(data: dict[str, Any]) -> str:
    """The aggregate as Markdown tables."""
    columns = _columns(data)
    lines = ["| " + " | ".join(["", *columns]) + " |",
             "|---" * (len(columns) + 1) + "|"]
    lines += ["| " + " | ".join([_markdown_cell(row[0]), *row[1:]]) + " |"
              for row in _rows(data)]
    lines += ["", "| code | findings |", "|---|---|"]
    lines += [f"| {_markdown_cell(code)} | {n} |" for code, n in data["findings"].items()]
    if data["failures"]:
        lines += ["", "| reason | failed records |", "|---|---|"]
        lines += [f"| {_markdown_cell(reason)} | {n} |"
                  for reason, n in _by_count(data["failures"])]
    if data["evaluators"]:
        lines += ["", "| evaluator | pass rate | mean score |", "|---|---|---|"]
        lines += [f"| {_markdown_cell(name)} | {_ratio(e['pass_rate'])} |"
                  f" {_ratio(e['mean_score'])} |"
                  for name, e in data["evaluators"].items()]
    return "\n".join(lines) + "\n"


def junit(data: dict[str, Any], cases: IO[str], out: IO[str]) -> None:
    """A JUnit XML document: one test case per record (read back from ``cases``)."""
    failures = data["records"] - data["passed"] - data["unreadable"]
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n'
              f'<testsuites tests="{data["records"]}" failures="{failures}"'
              f' errors="{data["unreadable"]}">\n'
              f'<testsuite name="citeaudit" tests="{data["records"]}" failures="{failures}"'
              f' errors="{data["unreadable"]}">\n')
    cases.seek(0)
    while block := cases.read(1 << 16):
        out.write(block)
    out.write("</testsuite>\n</testsuites>\n")


def replay_table(data: dict[str, Any]) -> str:
    """Replay as text: the verdict at the thresholds, flips, and the sweep grid."""
    lines = [f"{data['passed']} of {data['records']} records pass at precision >="
             f" {data['min_precision']:.2f}, recall >= {data['min_recall']:.2f}"
             f" (pass rate {_ratio(data['pass_rate'])})",
             f"{len(data['flipped'])} verdicts change against the stored ones"
             f" ({data['flipped_to_pass']} now pass, {data['flipped_to_fail']} now fail)"]
    lines += [f"  {one_line(str(record_id))}" for record_id in data["flipped"][:50]]
    if len(data["flipped"]) > 50:
        lines.append(f"  ... and {len(data['flipped']) - 50} more (--format json lists all)")
    if "sweep" in data:
        recalls = sorted({row["min_recall"] for row in data["sweep"]})
        lines.append("pass rate by min precision (rows) and min recall (columns):")
        lines.append("        " + "".join(f"{r:>7.1f}" for r in recalls))
        for precision in sorted({row["min_precision"] for row in data["sweep"]}):
            cells = [row["pass_rate"] for row in data["sweep"]
                     if row["min_precision"] == precision]
            lines.append(f"  {precision:4.2f}  " + "".join(f"{c:7.3f}" for c in cells))
    return "\n".join(lines) + "\n"

"""A diff of two runs for people: as text for a terminal (every line through
:func:`one_line`) and as one self-contained HTML page in the style of the run report (every
text from the data escaped by MarkupSafe).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from citeaudit.report._formatters import one_line
from citeaudit.report._html import _STYLE, _e, _rule

__all__ = ["diff_html", "diff_text"]

# The metrics the text shows first, when they changed (every one is in the JSON form).
_HEADLINE = ("records", "passed", "pass_rate", "unreadable", "mean_precision", "mean_recall",
             "mean_f1", "mean_claim_coverage")
_SHOWN = 20  # records listed per section in the text (the JSON form has all)


def _value(value: Any) -> str:
    if value is None:
        return "\u2014"
    return str(value) if isinstance(value, int) else f"{value:.3f}"


def _delta(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:+d}" if isinstance(value, int) else f"{value:+.3f}"


def _codes(counts: Mapping[str, int], sign: str) -> list[str]:
    return [f"{sign}{code}" + (f"\u00d7{count}" if count > 1 else "")
            for code, count in counts.items()]


def _record_line(entry: Mapping[str, Any]) -> str:
    a, b = entry["a"], entry["b"]
    place = a["place"] if a["place"] == b["place"] else f"{a['place']} -> {b['place']}"
    status = a["status"] if a["status"] == b["status"] else f"{a['status']} -> {b['status']}"
    parts = [f"{entry['id'] if entry['id'] is not None else '(no id)'} ({place}): {status}"]
    codes = _codes(entry["gained"], "+") + _codes(entry["lost"], "-")
    if codes:
        parts.append(" ".join(codes))
    if not b["passed"] and b["reasons"]:
        parts.append("; ".join(b["reasons"]))
    return "  " + "; ".join(parts)


def _alone_line(entry: Mapping[str, Any]) -> str:
    verdict = "passed" if entry["passed"] else "failed"
    return (f"  {entry['id'] if entry['id'] is not None else '(no id)'} ({entry['place']}):"
            f" {entry['status']}, {verdict}")


def _section(title: str, lines: list[str]) -> list[str]:
    if not lines:
        return []
    more = len(lines) - _SHOWN
    return [f"{title}: {len(lines)}", *lines[:_SHOWN],
            *([f"  ... and {more} more (--format json lists all)"] if more > 0 else [])]


def _metric_lines(metrics: Mapping[str, Mapping[str, Any]], indent: str) -> list[str]:
    changed = [name for name, m in metrics.items() if m["a"] != m["b"]]
    ordered = [n for n in _HEADLINE if n in changed] + [n for n in changed if n not in _HEADLINE]
    return [f"{indent}{name}: {_value(metrics[name]['a'])} -> {_value(metrics[name]['b'])}"
            f" ({_delta(metrics[name]['delta'])})" for name in ordered]


def diff_text(data: Mapping[str, Any]) -> str:
    """The diff as lines for a terminal: what changed, and nothing when nothing did."""
    a, b = data["a"], data["b"]
    lines = [f"A: {a['path']} ({a['records']} records)",
             f"B: {b['path']} ({b['records']} records)",
             f"matched: {data['matched']} records"]
    lines += [f"note: {note}" for note in data["notes"]]
    if data["same"]:
        lines.append("no differences: every record has the same verdict, status, findings"
                     " and metrics in both runs")
    lines += _section("regressed (passed in A, fails in B)",
                      [_record_line(e) for e in data["regressed"]])
    lines += _section("fixed (failed in A, passes in B)", [_record_line(e) for e in data["fixed"]])
    lines += _section("changed (same verdict)", [_record_line(e) for e in data["changed"]])
    lines += _section("only in A", [_alone_line(e) for e in data["only_in_a"]])
    lines += _section("only in B", [_alone_line(e) for e in data["only_in_b"]])
    findings = data["findings"]
    codes = _codes(findings["gained"], "+") + _codes(findings["lost"], "-")
    if codes:
        lines.append("findings of the matched records: " + " ".join(codes))
    metric_lines = _metric_lines(data["metrics"], "  ")
    if metric_lines:
        lines += ["metrics (A -> B):", *metric_lines]
    for key, values in data["tags"].items():
        for value, metrics in values.items():
            tag_lines = _metric_lines(metrics, "    ")
            if tag_lines:
                lines += [f"  {key}={value}:", *tag_lines]
    if data["fail_on"] != "never":
        lines.append(f"--fail-on {data['fail_on']}: "
                     + ("FAILS" if data["failed"] else "holds"))
    return "".join(one_line(line) + "\n" for line in lines)


def _cells(values: Iterable[Any], tag: str = "td") -> str:
    return "".join(f"<{tag}>{_e(value)}</{tag}>" for value in values)


def _codes_html(counts: Mapping[str, int], sign: str) -> str:
    return " ".join(f'<span title="{_e(_rule(code))}">{_e(sign + code)}'
                    f"{_e(f' ×{count}') if count > 1 else ''}</span>"
                    for code, count in counts.items())


def _records_table(title: str, entries: list[Mapping[str, Any]], css: str) -> str:
    if not entries:
        return ""
    rows = [f'<h2 class="{css}">{_e(title)}: {len(entries)}</h2><table><tr><th>id</th>'
            "<th>place</th><th>status A \u2192 B</th><th>findings gained</th>"
            "<th>findings lost</th><th>why B fails</th></tr>"]
    for entry in entries:
        a, b = entry["a"], entry["b"]
        rows.append(
            f"<tr><td>{_e(entry['id'] if entry['id'] is not None else '(no id)')}</td>"
            f"<td>{_e(b['place'])}</td><td>{_e(a['status'])} \u2192 {_e(b['status'])}</td>"
            f"<td>{_codes_html(entry['gained'], '+')}</td>"
            f"<td>{_codes_html(entry['lost'], '-')}</td>"
            f"<td>{_e('; '.join(b['reasons']) if not b['passed'] else '')}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _alone_table(title: str, entries: list[Mapping[str, Any]]) -> str:
    if not entries:
        return ""
    rows = [f"<h2>{_e(title)}: {len(entries)}</h2><table><tr>"
            + _cells(("id", "place", "status", "passed"), "th") + "</tr>"]
    rows += ["<tr>" + _cells((e["id"] if e["id"] is not None else "(no id)", e["place"],
                              e["status"], "yes" if e["passed"] else "no")) + "</tr>"
             for e in entries]
    rows.append("</table>")
    return "".join(rows)


def _metrics_table(metrics: Mapping[str, Mapping[str, Any]]) -> str:
    rows = ["<table><tr><th>metric</th><th>A</th><th>B</th><th>change</th></tr>"]
    for name, m in metrics.items():
        css = "" if not m["delta"] else ' class="changed"'
        rows.append(f"<tr{css}><td>{_e(name.replace('_', ' '))}</td><td>{_e(_value(m['a']))}"
                    f"</td><td>{_e(_value(m['b']))}</td><td>{_e(_delta(m['delta']))}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def diff_html(data: Mapping[str, Any], *, title: str) -> str:
    """The diff as one self-contained HTML document (inline CSS, no script)."""
    a, b = data["a"], data["b"]
    counts = data["counts"]
    out = ['<!doctype html><html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title)}</title><style>{_STYLE}tr.changed td{{background:#fff6d5}}"
           "</style></head><body>", f"<h1>{_e(title)}</h1>",
           '<table class="run">',
           f"<tr><th>A</th><td>{_e(a['path'])} ({a['records']} records)</td></tr>",
           f"<tr><th>B</th><td>{_e(b['path'])} ({b['records']} records)</td></tr>",
           f"<tr><th>matched</th><td>{data['matched']} records</td></tr>"]
    out += [f"<tr><th>note</th><td>{_e(note)}</td></tr>" for note in data["notes"]]
    if data["fail_on"] != "never":
        outcome = ("fail", "FAILS") if data["failed"] else ("ok", "holds")
        out.append(f'<tr><th>--fail-on {_e(data["fail_on"])}</th>'
                   f'<td class="{outcome[0]}">{outcome[1]}</td></tr>')
    out.append("</table>")
    if data["same"]:
        out.append('<p class="ok"><strong>No differences: every record has the same verdict,'
                   " status, findings and metrics in both runs.</strong></p>")
    else:
        out.append("<table><tr>" + _cells((name.replace("_", " ") for name in counts), "th")
                   + "</tr><tr>" + _cells(counts.values()) + "</tr></table>")
    out.append(_records_table("Regressed (passed in A, fails in B)", data["regressed"],
                              "fail"))
    out.append(_records_table("Fixed (failed in A, passes in B)", data["fixed"], "ok"))
    out.append(_records_table("Changed (same verdict)", data["changed"], ""))
    out.append(_alone_table("Only in A", data["only_in_a"]))
    out.append(_alone_table("Only in B", data["only_in_b"]))
    findings = data["findings"]
    if findings["gained"] or findings["lost"]:
        codes = sorted({*findings["gained"], *findings["lost"]})
        out.append("<h2>Findings of the matched records</h2><table><tr><th>rule</th>"
                   "<th>gained</th><th>lost</th></tr>")
        out += [f"<tr><td>{_e(_rule(code))}</td><td>{findings['gained'].get(code, 0)}</td>"
                f"<td>{findings['lost'].get(code, 0)}</td></tr>" for code in codes]
        out.append("</table>")
    out.append("<h2>Metrics</h2>" + _metrics_table(data["metrics"]))
    if data["tags"]:
        out.append("<h2>By tag</h2>")
        for key, values in data["tags"].items():
            for value, metrics in values.items():
                out.append(f"<h3>{_e(key)}={_e(value)}</h3>" + _metrics_table(metrics))
    out.append("</body></html>\n")
    return "".join(out)

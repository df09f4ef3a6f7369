"""The HTML report of a dataset run: one self-contained file (inline CSS and SVG, one small
inline script for the filters, nothing loaded from the network) with the aggregate, charts and
the failed records, each saying why it failed, its findings highlighted in the answer text and
its claims beside the passages they cite. Every text from the data is escaped (MarkupSafe).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from citeaudit.core import RULES
from citeaudit.eval import BINS, METRICS, PRECISION_GRID, RECALL_GRID, Aggregate, WorstRecord
from citeaudit.report import _cards
from citeaudit.report._charts import hbar_chart, text_width
from citeaudit.request import neutralise

__all__ = ["html_report"]

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:3px 8px;
text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
.charts{display:flex;flex-wrap:wrap;gap:1.5em}figure{margin:0}figcaption{font-weight:600}
svg text{font:11px system-ui,sans-serif;fill:#333}.bar{fill:#4a7bd0}.bar2{fill:#e08a3c}
.bar3{fill:#5aa469}pre{white-space:pre-wrap;background:#fafafa;border:1px solid #eee;
padding:.6em}mark{background:#ffd5d5;border-bottom:2px solid #d33}.ok{color:#2a7}
.fail{color:#c33}.record{border:1px solid #ddd;padding:.5em 1em;margin:1em 0}
mark.evidence{background:#d5f0dc;border-bottom:2px solid #2a7}blockquote{margin:.3em 1em;
white-space:pre-wrap}
"""


def _e(text: Any) -> Markup:
    return escape(neutralise(str(text)))


def _ratio(value: float | None) -> str:
    return "\u2014" if value is None else f"{value:.3f}"  # no value is not zero


def _bin_labels() -> list[str]:
    """Histogram bins by their ranges; the last holds 1.0."""
    return [f"{i / BINS:.1f}\u2013{(i + 1) / BINS:.1f}" + ("]" if i == BINS - 1 else ")")
            for i in range(BINS)]


def _rule(code: str) -> str:
    rule = RULES.get(code)
    return f"{code} {rule.name}" if rule is not None else code


def bar_chart(title: str, labels: Sequence[str], series: Sequence[Sequence[float | None]],
              *, names: Sequence[str] = (), top: float | None = None) -> str:
    """A vertical bar chart as inline SVG; several series are grouped per label. A missing
    value (``None``) draws no bar and says so, which a bar of height 0 would not.
    """
    # Each label's column at least as wide as the longest label: none overlaps the next.
    column = max(46 * max(len(series), 1) ** 0.6,
                 max((text_width(label) for label in labels), default=0) + 8)
    width, height, left, bottom = 40 + column * max(len(labels), 1), 190, 34, 40
    width = max(width, left + 90 * len(names) + 70)
    top_value = top if top is not None else max(
        [v for s in series for v in s if v is not None] + [1])
    group = (width - left - 10) / max(len(labels), 1)
    bar = max(group * 0.8 / max(len(series), 1), 2)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width:.0f}"'
             f' height="{height}" aria-label="{_e(title)}">']
    plot = height - bottom - 10
    parts.append(f'<line x1="{left}" y1="{10 + plot}" x2="{width - 5:.0f}" y2="{10 + plot}"'
                 ' stroke="#999"/>')
    parts.append(f'<text x="2" y="16">{_e(_number(top_value))}</text>'
                 f'<text x="2" y="{10 + plot}">0</text>')
    for i, label in enumerate(labels):
        for k, values in enumerate(series):
            value = values[i]
            x = left + i * group + group * 0.1 + k * bar
            if value is None:
                parts.append(f'<text x="{x:.1f}" y="{10 + plot - 3}">\u2014<title>{_e(label)}'
                             f'{": " + _e(names[k]) if names else ""}: no value</title></text>')
                continue
            h = plot * (value / top_value if top_value else 0)
            parts.append(f'<rect class="bar{"" if k == 0 else k + 1}" x="{x:.1f}"'
                         f' y="{10 + plot - h:.1f}" width="{bar - 1:.1f}" height="{h:.1f}">'
                         f'<title>{_e(label)}{": " + _e(names[k]) if names else ""}:'
                         f' {_e(_number(value))}</title></rect>')
        parts.append(f'<text class="label" x="{left + i * group + group / 2:.1f}"'
                     f' y="{height - bottom + 16}" text-anchor="middle">{_e(label)}</text>')
    if names:
        for k, name in enumerate(names):
            parts.append(f'<rect class="bar{"" if k == 0 else k + 1}" x="{left + 90 * k}"'
                         f' y="{height - 12}" width="10" height="10"/><text'
                         f' x="{left + 90 * k + 14}" y="{height - 3}">{_e(name)}</text>')
    parts.append("</svg>")
    return (f'<figure class="chart"><figcaption>{_e(title)}</figcaption>{"".join(parts)}'
            "</figure>")


def heatmap(title: str, rows: list[dict[str, float]]) -> str:
    """The replay sweep: pass rate for each (min precision, min recall) pair."""
    cell, left, topm = 40, 48, 24
    width, height = left + cell * len(RECALL_GRID), topm + cell * len(PRECISION_GRID) + 20
    rate = {(r["min_precision"], r["min_recall"]): r["pass_rate"] for r in rows}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width}"'
             f' height="{height}" aria-label="{_e(title)}">']
    for j, recall in enumerate(RECALL_GRID):
        parts.append(f'<text x="{left + j * cell + cell / 2}" y="16" text-anchor="middle">'
                     f"{recall:.1f}</text>")
    for i, precision in enumerate(PRECISION_GRID):
        y = topm + i * cell
        parts.append(f'<text x="4" y="{y + cell / 2 + 4}">{precision:.2f}</text>')
        for j, recall in enumerate(RECALL_GRID):
            value = rate.get((precision, recall), 0.0)
            shade = int(255 - 150 * value)
            parts.append(f'<rect x="{left + j * cell}" y="{y}" width="{cell - 1}"'
                         f' height="{cell - 1}" fill="rgb({shade},{shade},255)"><title>'
                         f"precision ≥ {precision:.2f}, recall ≥ {recall:.1f}:"
                         f" {value:.1%}</title></rect><text x=\"{left + j * cell + cell / 2}\""
                         f' y="{y + cell / 2 + 4}" text-anchor="middle">{value * 100:.0f}</text>')
    parts.append(f'<text x="{left}" y="{height - 4}">columns: min recall; rows: min precision;'
                 " cells: pass rate %</text></svg>")
    return (f'<figure class="chart"><figcaption>{_e(title)}</figcaption>{"".join(parts)}'
            "</figure>")


def reliability_chart(bins: list[dict[str, Any]]) -> str:
    """Judge score (x) against the share of pairs that are supported (y), per score bin, with
    the diagonal a calibrated judge would follow.
    """
    size, pad = 260, 36
    scale = size - 2 * pad
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{size}"'
             f' height="{size}" aria-label="reliability curve">',
             f'<rect x="{pad}" y="{pad}" width="{scale}" height="{scale}" fill="none"'
             ' stroke="#bbb"/>',
             f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{pad}" stroke="#bbb"'
             ' stroke-dasharray="4 3"/>']
    points = [(pad + scale * b["mean_score"], size - pad - scale * b["supported"], b)
              for b in bins]
    if len(points) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="#4a7bd0"'
                     ' stroke-width="2"/>')
    for x, y, b in points:
        parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="#4a7bd0"><title>scores'
                     f' {b["bin"][0]:.1f}-{b["bin"][1]:.1f}: {b["pairs"]} pairs,'
                     f' {b["supported"]:.0%} supported</title></circle>')
    parts.append(f'<text x="{pad}" y="{size - 8}">judge score</text>'
                 f'<text x="2" y="{pad - 10}">share supported</text></svg>')
    return ('<figure class="chart"><figcaption>reliability curve</figcaption>'
            f'{"".join(parts)}</figure>')


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def _stats_row(name: str, stats: dict[str, Any], metrics: Sequence[str]) -> str:
    cells = [stats["records"], _ratio(stats["pass_rate"]), _ratio(stats["no_evidence_rate"]),
             stats["unreadable"]]
    cells += [f"{_ratio(stats[f'mean_{m}'])} / {_ratio(stats[f'median_{m}'])}" for m in metrics]
    return f"<tr><td>{_e(name)}</td>" + "".join(f"<td>{_e(c)}</td>" for c in cells) + "</tr>"


def _head(metrics: Sequence[str]) -> str:
    return ("<tr><th></th><th>records</th><th>pass rate</th><th>no evidence</th>"
            "<th>unreadable</th>" + "".join(f"<th>{m.replace('_', ' ')}<br>mean / median</th>"
                                            for m in metrics) + "</tr>")


def _highlighted(answer: Any, findings: list[dict[str, Any]]) -> str:
    """The answer, escaped, with each finding's span marked (free text only)."""
    if not isinstance(answer, str):
        return f"<pre>{_e(answer)}</pre>"
    spans = sorted({(f["span"][0], f["span"][1], f["code"], f["message"])
                    for f in findings if f.get("span")})
    pieces: list[str] = []
    position = 0
    for start, end, code, message in spans:
        if start < position or end > len(answer):
            continue
        pieces.append(str(_e(answer[position:start])))
        pieces.append(f'<mark title="{_e(code)}: {_e(message)}">{_e(answer[start:end])}</mark>')
        position = end
    pieces.append(str(_e(answer[position:])))
    return f"<pre>{''.join(pieces)}</pre>"


def _support(judged: list[dict[str, Any]]) -> str:
    """Each judged claim's outcome and the passage span it rests on, marked in its passage."""
    items = []
    for claim in judged:
        head = (f'<span class="{_OUTCOME_CLASS.get(claim["outcome"], "")}">claim'
                f' {_e(claim["claim"])}: {_e(claim["outcome"])}</span>'
                f' (score {_ratio(claim["score"])})')
        spans = [f'<blockquote>source {_e(span["source_id"])} [{span["start"]}:{span["end"]}]:'
                 f' {_CUT if span.get("before") else ""}{_e(span.get("before", ""))}'
                 f'<mark class="evidence">{_e(span["quote"])}</mark>'
                 f'{_e(span.get("after", ""))}{_CUT if span.get("after") else ""}'
                 "</blockquote>" for span in claim["evidence"]]
        why = f"{_DASH}no span: {_e(claim['note'])}" if claim.get("note") else ""
        items.append(f"<li>{head}{why}{''.join(spans)}</li>")
    return f'<h4>Support</h4><ul class="support">{"".join(items)}</ul>'


_OUTCOME_CLASS = {"supported": "ok", "unsupported": "fail", "contradicted": "fail"}
_CUT, _DASH = "\u2026", " \u2014 "  # the passage goes on; what follows says why


def _run_header(run: Mapping[str, Any]) -> str:
    """What was run: version, date, dataset, options and the gates with their outcome."""
    rows = [("citeaudit", run.get("version")), ("date", run.get("date")),
            ("dataset", run.get("dataset"))]
    rows += [(name, value) for name, value in (run.get("options") or {}).items()]
    gates = run.get("gates") or []
    out = ['<table class="run">'] + [f"<tr><th>{_e(name)}</th><td>{_e(value)}</td></tr>"
                                     for name, value in rows if value not in (None, "", [])]
    for gate in gates:
        outcome = ("ok", "holds") if gate.get("holds") else (
            "fail", f"FAILS: {gate['reason']}" if gate.get("reason") else "FAILS")
        out.append(f'<tr><th>gate {_e(gate.get("gate"))}</th><td class="{outcome[0]}">'
                   f"{_e(outcome[1])}</td></tr>")
    out.append("</table>")
    if gates:
        passed = all(gate.get("holds") for gate in gates)
        out.append(f'<p class="{"ok" if passed else "fail"}"><strong>Run'
                   f' {"passes" if passed else "fails"} its gates.</strong></p>')
    return "".join(out)


def _failures(rows: Sequence[tuple[str, dict[str, Any]]]) -> str:
    """Failed records by reason (a record may fail for several), one row per group."""
    reasons = sorted({reason for _, stats in rows for reason in stats.get("failures", {})})
    if not reasons:
        return "<p>No record failed.</p>"
    out = ["<table><tr><th></th><th>records</th><th>failed</th>"
           + "".join(f"<th>{_e(reason)}</th>" for reason in reasons) + "</tr>"]
    for name, stats in rows:
        failures = stats.get("failures", {})
        out.append(f"<tr><td>{_e(name)}</td><td>{stats['records']}</td>"
                   f"<td>{stats['records'] - stats['passed']}</td>"
                   + "".join(f"<td>{failures.get(reason, 0)}</td>" for reason in reasons)
                   + "</tr>")
    out.append("</table>")
    return "".join(out)


def html_report(aggregate: Aggregate, worst: list[WorstRecord], *, title: str,
                run: Mapping[str, Any] | None = None) -> str:
    """The whole report as one HTML document; ``run`` describes the run for its header
    (``version``, ``date``, ``dataset``, ``options``, ``gates``).
    """
    data = aggregate.to_dict()
    shown = [m for m in METRICS  # support metrics only when a support judge ran
             if not m.startswith("support_") or data[f"mean_{m}"] is not None]
    out = ['<!doctype html><html lang="en"><head><meta charset="utf-8">',
           f"<title>{_e(title)}</title><style>{_STYLE}{_cards.STYLE}</style></head><body>",
           f"<h1>{_e(title)}</h1>", _run_header(run or {}),
           f"<p>Thresholds per record: precision ≥ {data['min_precision']:.2f}, recall ≥"
           f" {data['min_recall']:.2f}. A record passes when it has no error finding, is not"
           " no_evidence, meets both and passes every evaluator.</p>",
           "<h2>Aggregate</h2><table>", _head(shown), _stats_row("all records", data, shown),
           "</table>"]
    groups = [("all records", data)] + [(f"{key}={value}", stats)
                                         for key, values in data["tags"].items()
                                         for value, stats in values.items()]
    out.append("<h2>Failures by reason</h2>" + _failures(groups))
    stats = aggregate.all
    labels = _bin_labels()
    out.append('<h2>Distributions</h2><div class="charts">')
    for metric in ("precision", "recall", "f1"):
        out.append(bar_chart(f"{metric} (records per bin)", labels,
                             [stats.histogram(metric)]))
    out.append("</div>")
    codes = data["findings"]
    out.append('<h2>Findings by code</h2><div class="charts">')
    out.append(hbar_chart("findings by code", [_rule(code) for code in codes],
                          [list(codes.values())]) if codes else "<p>No findings.</p>")
    out.append("</div>")
    if data["tags"]:
        out.append("<h2>By tag</h2>")
        for key, values in data["tags"].items():
            out.append(f"<h3>{_e(key)}</h3><table>{_head(shown)}")
            out.extend(_stats_row(value, s, shown) for value, s in values.items())
            out.append('</table><div class="charts">')
            out.append(hbar_chart(
                f"{key}: pass rate, mean precision, mean recall", list(values),
                [[s["pass_rate"] for s in values.values()],
                 [s["mean_precision"] for s in values.values()],
                 [s["mean_recall"] for s in values.values()]],
                names=("pass rate", "precision", "recall"), top=1.0))
            out.append("</div>")
    if data["evaluators"]:
        out.append("<h2>Evaluators</h2><table><tr><th>evaluator</th><th>records</th>"
                   "<th>pass rate</th><th>mean score</th></tr>")
        for name, e in data["evaluators"].items():
            out.append(f"<tr><td>{_e(name)}</td><td>{e['records']}</td>"
                       f"<td>{_ratio(e['pass_rate'])}</td><td>{_ratio(e['mean_score'])}</td>"
                       "</tr>")
        out.append("</table>")
    out.append('<h2>Threshold sweep (replay)</h2><div class="charts">')
    out.append(heatmap("pass rate by thresholds", aggregate.sweep()))
    out.append("</div>")
    out.append(_failed(data, worst))
    if data["unreadable_records"]:
        out.append("<h2>Unreadable records</h2><ul>" + "".join(
            f"<li>{_e(u['place'])}: {_e(u['reason'])}</li>" for u in data["unreadable_records"])
            + "</ul>")
    out.append(f"<script>{_cards.FILTER_SCRIPT}</script></body></html>\n")
    return "".join(out)


def _failed(data: dict[str, Any], worst: list[WorstRecord]) -> str:
    """The failed records shown, each saying why, and the filters over them."""
    if not worst:
        return "<h2>Failed records</h2><p>Every record passed.</p>"
    failed = data["records"] - data["passed"] - data["unreadable"]
    return ("<h2>Failed records</h2>"
            f"<p>{len(worst)} of the {failed} failed records: the worst for each rule, then the"
            " worst of the rest.</p>" + _cards.filters(worst, _rule)
            + _cards.cards(worst, name=_rule,
                           answer=lambda record: _highlighted(record["answer"],
                                                              record["findings"]),
                           extra=lambda record: _support(record["support"])
                           if record.get("support") else ""))

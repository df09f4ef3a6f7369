"""Charts of the HTML report whose labels cannot overlap: horizontal bars, each label in a
column as wide as the longest (labels are dataset text: rule names, tag values), and the
width of text estimated without a browser to lay them out.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from citeaudit.request import neutralise

__all__ = ["LABEL_CHARS", "hbar_chart", "text_width"]

LABEL_CHARS = 48  # longer labels are cut (the whole one is the element's tooltip)
_ROW = 14  # height of one bar
_BARS = 320  # width of the bars' area


def _e(text: Any) -> Markup:
    return escape(neutralise(str(text)))


def text_width(text: str, size: float = 11) -> float:
    """An upper estimate of ``text``'s width in pixels at ``size`` in a proportional sans
    font (DejaVu Sans, among the widest): wide (East Asian) characters and the widest
    letters a full em, capitals 0.8 em, the rest 0.65 em.
    """
    return size * sum(1.0 if c in _WIDEST or unicodedata.east_asian_width(c) in "WF"
                      else 0.8 if c.isupper() else 0.65 for c in text)


_WIDEST = frozenset("MWmw@%—")


def _cut(label: str) -> str:
    return label if len(label) <= LABEL_CHARS else label[:LABEL_CHARS - 1] + "\u2026"


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def hbar_chart(title: str, labels: Sequence[str], series: Sequence[Sequence[float | None]],
               *, names: Sequence[str] = (), top: float | None = None) -> str:
    """Horizontal bars, one row per label (several series: one bar each in the row), the
    labels right-aligned in a column sized to the longest; a missing value (``None``) draws
    no bar and says so.
    """
    count = max(len(series), 1)
    row = _ROW * count + 10
    column = max((text_width(_cut(label)) for label in labels), default=0) + 14
    top_value = top if top is not None else max(
        [v for s in series for v in s if v is not None] + [1])
    legend = 22 if names else 0
    width = column + _BARS + 50
    height = row * len(labels) + 8 + legend
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{width:.0f}"'
             f' height="{height}" aria-label="{_e(title)}">',
             f'<line x1="{column:.0f}" y1="4" x2="{column:.0f}" y2="{height - legend - 4}"'
             ' stroke="#999"/>']
    for i, label in enumerate(labels):
        y = 4 + i * row
        parts.append(f'<text class="label" x="{column - 6:.0f}" y="{y + row / 2 + 4:.1f}"'
                     f' text-anchor="end">{_e(_cut(label))}<title>{_e(label)}</title></text>')
        for k, values in enumerate(series):
            value = values[i]
            bar_y = y + 5 + k * _ROW
            what = f'{_e(label)}{": " + _e(names[k]) if names else ""}'
            if value is None:
                parts.append(f'<text class="value" x="{column + 4:.0f}" y="{bar_y + 11}">'
                             f"\u2014<title>{what}: no value</title></text>")
                continue
            length = _BARS * (value / top_value if top_value else 0)
            parts.append(f'<rect class="bar{"" if k == 0 else k + 1}" x="{column:.0f}"'
                         f' y="{bar_y}" width="{length:.1f}" height="{_ROW - 2}"><title>'
                         f"{what}: {_e(_number(value))}</title></rect>"
                         f'<text class="value" x="{column + length + 4:.1f}"'
                         f' y="{bar_y + 10}">{_e(_number(value))}</text>')
    for k, name in enumerate(names):
        x = column + 100 * k
        parts.append(f'<rect class="bar{"" if k == 0 else k + 1}" x="{x:.0f}"'
                     f' y="{height - 14}" width="10" height="10"/><text class="legend"'
                     f' x="{x + 14:.0f}" y="{height - 5}">{_e(name)}</text>')
    parts.append("</svg>")
    return (f'<figure class="chart"><figcaption>{_e(title)}</figcaption>{"".join(parts)}'
            "</figure>")

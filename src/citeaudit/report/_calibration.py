"""The calibration of a support judge, as text and as a self-contained page with the
reliability curve.
"""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from citeaudit.report._html import reliability_chart

__all__ = ["calibration_html", "calibration_text"]


def calibration_text(data: dict[str, Any]) -> str:
    """The calibration as text, with the confusion matrix."""
    c = data["confusion"]
    width = max(len(str(v)) for v in c.values()) + 2
    return (f"judge {data['judge']}: {data['n']} pairs\n"
            f"balanced accuracy {data['balanced_accuracy']:.3f} at its threshold"
            f" {data['threshold']:.2f}; ROC AUC {data['roc_auc']:.3f}\n"
            f"best threshold on these pairs {data['best_threshold']:.3f}: balanced accuracy"
            f" {data['best_balanced_accuracy']:.3f}\n"
            f"{data['pairs_per_second']:,.0f} pairs per second\n"
            f"{'':>18}{'label 1':>{width + 6}}{'label 0':>{width + 6}}\n"
            f"{'judged supported':>18}{c['true_positive']:>{width + 6}}"
            f"{c['false_positive']:>{width + 6}}\n"
            f"{'judged not':>18}{c['false_negative']:>{width + 6}}"
            f"{c['true_negative']:>{width + 6}}\n")


def calibration_html(data: dict[str, Any]) -> str:
    """A self-contained page: the numbers, the confusion matrix and the reliability curve."""
    c = data["confusion"]
    rows = "".join(f"<tr><td>{escape(k.replace('_', ' '))}</td><td>{v}</td></tr>"
                   for k, v in c.items())
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>citeaudit"
            f" calibration: {escape(data['judge'])}</title><style>body{{font:14px system-ui,"
            "sans-serif;margin:2em auto;max-width:900px}td,th{border:1px solid #ddd;"
            "padding:3px 8px}table{border-collapse:collapse}svg text{font:11px system-ui}"
            "</style></head><body>"
            f"<h1>Calibration of the {escape(data['judge'])} judge</h1>"
            f"<p>{data['n']} labelled pairs. Balanced accuracy"
            f" {data['balanced_accuracy']:.3f} at its threshold {data['threshold']:.2f};"
            f" ROC AUC {data['roc_auc']:.3f}; best threshold {data['best_threshold']:.3f}"
            f" (balanced accuracy {data['best_balanced_accuracy']:.3f}).</p>"
            f"<h2>Confusion matrix</h2><table>{rows}</table>"
            f"<h2>Reliability</h2>{reliability_chart(data['reliability'])}"
            "</body></html>\n")

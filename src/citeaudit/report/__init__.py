"""What a run looks like to people: the aggregate as a table, Markdown or JUnit, the HTML
report of an evaluation run and the calibration page of a support judge.
"""

from citeaudit.report._calibration import calibration_html, calibration_text
from citeaudit.report._diff import diff_html, diff_text
from citeaudit.report._formatters import (
    FORMATTERS,
    TextFormatter,
    json_text,
    one_line,
    verdict_line,
)
from citeaudit.report._html import html_report
from citeaudit.report._tables import junit, markdown, replay_table, table

__all__ = [
    "FORMATTERS",
    "TextFormatter",
    "calibration_html",
    "calibration_text",
    "diff_html",
    "diff_text",
    "html_report",
    "json_text",
    "junit",
    "markdown",
    "one_line",
    "replay_table",
    "table",
    "verdict_line",
]

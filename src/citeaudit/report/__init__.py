"""What a run looks like to people: the aggregate as a table, Markdown or JUnit, the HTML
report of an evaluation run and the calibration page of a support judge.
"""

from citeaudit.report._calibration import calibration_html, calibration_text
from citeaudit.report._html import html_report
from citeaudit.report._tables import junit, markdown, replay_table, table

__all__ = ["calibration_html", "calibration_text", "html_report", "junit", "markdown",
           "replay_table", "table"]

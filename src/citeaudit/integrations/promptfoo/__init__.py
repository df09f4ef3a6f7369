"""citeaudit as a promptfoo assertion: ``get_assert(output, context)`` audits the model's
output against the passages of the test case, and returns promptfoo's grading result (pass,
score, reason, named scores, one component result per finding), deterministically, in
microseconds and without tokens.

In ``promptfooconfig.yaml``::

    assert:
      - type: python
        value: file://citeaudit_assert.py:get_assert

where ``citeaudit_assert.py`` holds ``from citeaudit.integrations.promptfoo import get_assert``. The
passages are the test's ``sources`` var (JSON text or a list; another var with the
assertion's ``config: {sources_var: NAME}``); ``config`` may also give ``min_precision``,
``min_recall``, ``grammar``, ``refusal`` and ``answerable``.
"""

from citeaudit.integrations.promptfoo._assert import get_assert

__all__ = ["get_assert"]

"""The promptfoo assertion of promptfooconfig.yaml: citeaudit's."""

from citeaudit.promptfoo import get_assert

__all__ = ["get_assert"]

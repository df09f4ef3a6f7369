"""The promptfoo assertion of promptfooconfig.yaml: citeaudit's."""

from citeaudit.integrations.promptfoo import get_assert

__all__ = ["get_assert"]

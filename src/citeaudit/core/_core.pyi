# The compiled core's types (see _core.pyx); mypy reads these, Python the extension.
from collections.abc import Sequence
from typing import Any

from citeaudit.core._policy import Exemptions
from citeaudit.core._segment import Span

def assemble(text: str, spans: Sequence[Span], markers: tuple[Any, ...],
             malformed: Sequence[Any], claim_type: type, exemptions: Exemptions,
             ) -> tuple[list[Any], list[int | None], list[int | None]]: ...
def segment_claimed(text: str, marks: Sequence[tuple[int, int]], start_list: list[int],
                    bad_start_list: list[int], exemptions: Exemptions) -> int: ...
def claimed(spans: Sequence[Span], start_list: list[int], bad_start_list: list[int],
            exemptions: Exemptions) -> int: ...
def marks(markers: Sequence[Any], malformed: Sequence[Any], span: type[Span]) -> list[Span]: ...


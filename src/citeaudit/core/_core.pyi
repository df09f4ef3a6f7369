# The compiled core's types (see _core.pyx); mypy reads these, Python the extension.
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from citeaudit.core._policy import Exemptions
from citeaudit.core._segment import Span

def scan_brackets(text: str, pattern: Any, parse: Callable[[str], Any], digits: bool,
                  prefix: str, ordinal: bool, marker: type, malformed_type: type,
                  fullwidth: dict[int, int]) -> tuple[list[Any], list[Any]]: ...
def sight_brackets(text: str, pattern: Any, parse: Callable[[str], Any], digits: bool,
                   prefix: str, fullwidth: dict[int, int], index: Mapping[str, object],
                   resolve: Callable[[str, str, Any], str | None], snapshot: Any,
                   span: type, numbered: int,
                   ) -> tuple[int, list[Any], list[int], list[int]] | None: ...
def assemble(text: str, spans: Sequence[Span], markers: tuple[Any, ...],
             malformed: Sequence[Any], claim_type: type, exemptions: Exemptions,
             ) -> tuple[list[Any], list[int | None], list[int | None]]: ...
def sighting(markers: Sequence[Any], malformed: Sequence[Any], known: Mapping[str, Any],
             resolve_id: Callable[[str, str, Any], str | None], snapshot: Any, span: type,
             ) -> tuple[int, list[Any], list[int], list[int]] | None: ...
def segment_claimed(text: str, marks: Sequence[Span], start_list: list[int],
                    bad_start_list: list[int], exemptions: Exemptions) -> int: ...
def claimed(spans: Sequence[Span], start_list: list[int], bad_start_list: list[int],
            exemptions: Exemptions) -> int: ...
def marks(markers: Sequence[Any], malformed: Sequence[Any], span: type[Span]) -> list[Span]: ...


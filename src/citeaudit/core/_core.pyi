# The compiled core's types (see _core.pyx); mypy reads these, Python the extension.
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from citeaudit.core._segment import Span

def masked(text: str, marks: Sequence[Span]) -> str: ...
def segment(text: str, marks: Sequence[Span] = ()) -> list[Span]: ...
def scan_brackets(text: str, pattern: Any, parse: Callable[[str], Any], digits: bool,
                  prefix: str, ordinal: bool, marker: type, malformed_type: type,
                  fullwidth: dict[int, int]) -> tuple[list[Any], list[Any]]: ...
def assemble(text: str, spans: Sequence[Span], markers: tuple[Any, ...],
             malformed: Sequence[Any],
             rules: frozenset[str], listing: bool, claim_type: type,
             list_items: Callable[[str], frozenset[int]], under_cited_lead: Callable[..., bool],
             exempt: Callable[..., bool],
             ) -> tuple[list[Any], list[int | None], list[int | None]]: ...
def citations(markers: Sequence[Any], owners: Iterable[int | None], citation: type,
              ) -> list[Any]: ...
def resolve(citations: Sequence[Any], known: Mapping[str, Any],
            resolve_id: Callable[[str, str, Any], str | None], snapshot: Any,
            ) -> tuple[str | None, ...]: ...

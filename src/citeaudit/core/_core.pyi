# The compiled core's types (see _core.pyx); mypy reads these, Python the extension.
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

def scan_brackets(text: str, pattern: Any, parse: Callable[[str], Any], digits: bool,
                  prefix: str, ordinal: bool, marker: type, malformed_type: type,
                  fullwidth: dict[int, int]) -> tuple[list[Any], list[Any]]: ...
def sight_brackets(text: str, pattern: Any, parse: Callable[[str], Any], digits: bool,
                   prefix: str, fullwidth: dict[int, int], index: Mapping[str, object],
                   resolve: Callable[[str, str, Any], str | None], snapshot: Any,
                   span: type, numbered: int,
                   ) -> tuple[int, list[Any], list[int], list[int]] | None: ...
def sighting(markers: Sequence[Any], malformed: Sequence[Any], known: Mapping[str, Any],
             resolve_id: Callable[[str, str, Any], str | None], snapshot: Any, span: type,
             ) -> tuple[int, list[Any], list[int], list[int]] | None: ...
def citations(markers: Sequence[Any], owners: Iterable[int | None], citation: type,
              ) -> list[Any]: ...
def ranged(text: str, spans: Sequence[Any], cited: list[tuple[int, int, list[Any]]],
           rules: frozenset[str], exempt: Callable[..., bool], claim_type: type,
           citation_type: type) -> tuple[list[Any], list[Any]]: ...
def openings(data: bytes) -> int: ...


"""The structured answer contract: ``{"status": "answered" | "unknown", "text": str,
"citations": [ids]}``. The citations list is authoritative; the text is not scraped for
markers. Breaking the contract is CA404, with the JSON path.
"""

from __future__ import annotations

from typing import Any

from citeaudit.core import Answer, Citation, Claim, Problem, Reading, Refusal, SourcesAsGiven

__all__ = ["StructuredFormat"]

_STATUSES = ("answered", "unknown")
_KEYS = ("status", "text", "citations")


class StructuredFormat(SourcesAsGiven):
    """The structured answer contract (an object with status, text and citations)."""

    name = "structured"
    expects = "an object with status, text and citations"
    needs = (("status", str), ("text", str), ("citations", list))

    def recognises(self, answer: object) -> bool:
        # An object with none of the contract's keys is some other shape, not a broken one.
        return isinstance(answer, dict) and (not answer or any(k in answer for k in _KEYS))

    def parse(self, answer: object, reading: Reading) -> Answer:
        assert isinstance(answer, dict)
        return _parse_structured(answer, reading.refusal)


def _parse_structured(value: dict[str, Any], refusal: Refusal) -> Answer:
    problems: list[Problem] = []
    status = value.get("status")
    if status not in _STATUSES:
        problems.append(Problem("CA404", "status must be \"answered\" or \"unknown\", not"
                                f" {_show(status)}", path="$.status"))
    text = value.get("text")
    if not isinstance(text, str) or not text.strip():
        problems.append(Problem("CA404", f"text must be a non-empty string, not {_show(text)}",
                                path="$.text"))
        text = text if isinstance(text, str) else ""
    refused = status == "unknown" or (status != "answered" and refusal.matches(text))
    claim = None if refused or not text.strip() else 1
    citations: list[Citation] = []
    raw = value.get("citations")
    if not isinstance(raw, list):
        problems.append(Problem("CA404", f"citations must be a list, not {_show(raw)}",
                                path="$.citations"))
    else:
        for position, item in enumerate(raw):
            path = f"$.citations[{position}]"
            if not isinstance(item, str) or not item.strip():
                problems.append(Problem("CA404", "a citation must be a non-empty string id, not"
                                        f" {_show(item)}", path=path))
            else:
                citations.append(Citation(item, claim, None, None, path))
    claims = () if claim is None else (Claim(1, text, (0, len(text)), (), ()),)
    return Answer("structured", text, claims, tuple(citations), (), refused, tuple(problems))


def _show(value: Any) -> str:
    if value is None:
        return "missing"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    return type(value).__name__

"""Audit a provider's streamed events as they arrive (Anthropic ``citations_delta``, OpenAI
Responses ``response.output_text.annotation.added``, Cohere ``citation-start``, Gemini
Interactions ``text_annotation_delta``).

A provider's streamed text carries no markers (its citations come as events of their own), so
the text is safe to display as it arrives; what can only be judged at the end is whether the
citations hold. :meth:`EventStream.finish` audits the response the events assemble into,
exactly as :func:`~citeaudit.audit` audits that response::

    events = citeaudit.EventStream(request)
    for event in client.messages.stream(**request):   # or the raw SSE events' JSON
        show(events.feed(event))
    report = events.finish()
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from citeaudit.core import Config, GrammarSpec, Report, audit
from citeaudit.errors import InputError
from citeaudit.formats import EventAssembler

__all__ = ["EventStream", "read_events"]


class EventStream:
    """Feed a provider's events in order; display what :meth:`feed` returns; call
    :meth:`finish` at the end for the report. ``request`` is what the response's format is
    audited against: the request (Anthropic, Cohere) or the sources (OpenAI).
    """

    def __init__(self, request: Any = None, *, grammar: GrammarSpec = None,
                 refusal: str | Sequence[str] | None = None,
                 config: Config | None = None) -> None:
        self._request = request
        self._options: dict[str, Any] = {"grammar": grammar, "refusal": refusal,
                                         "config": config}
        self._assembler = EventAssembler()
        self.text = ""  # everything displayed so far

    @property
    def response(self) -> dict[str, Any]:
        """The response the events so far assemble into."""
        return self._assembler.response

    def feed(self, event: Any) -> str:
        """Take the next event (a JSON object, its text, or the SDK's event object); return
        the answer text it adds.
        """
        if isinstance(event, str | bytes):
            event = json.loads(event)
        shown = self._assembler.add(event)
        self.text += shown
        return shown

    def finish(self) -> Report:
        """The audit of the assembled response (an :class:`~citeaudit.InputError` if no
        event came).
        """
        if self._assembler.format is None:
            raise InputError("the stream holds no event", origin="<events>")
        grammar, refusal, config = (self._options[k] for k in ("grammar", "refusal", "config"))
        return audit(self._assembler.response, self._request, grammar=grammar, refusal=refusal,
                     config=config, answer_format=self._assembler.format)


def read_events(lines: Iterable[tuple[int, Any]], origin: str) -> tuple[str, dict[str, Any]]:
    """The answer format and response a recorded stream (numbered JSON lines, decoded)
    assembles into; a bad event names its line.
    """
    assembler = EventAssembler()
    for number, event in lines:
        try:
            assembler.add(event)
        except InputError as error:
            raise InputError(error.reason, origin=origin, place=f"line {number}") from None
    if assembler.format is None:
        raise InputError("the stream holds no event", origin=origin)
    return assembler.format, assembler.response

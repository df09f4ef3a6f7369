"""Providers' streamed events assembled into the response they stream, one event at a time.

Three streams carry citations (event names and fields as the providers' SDK types define
them):

* **Anthropic** Messages (``message_start``, ``content_block_start``, ``content_block_delta``
  with a ``text_delta`` or a ``citations_delta`` adding one citation to the block,
  ``message_delta``): the ``anthropic`` response;
* **OpenAI** Responses (``response.created``, ``response.output_item.added``,
  ``response.content_part.added``, ``response.output_text.delta``,
  ``response.output_text.annotation.added``, ``response.output_item.done``,
  ``response.completed``): the ``openai-responses`` response (``response.completed`` carries
  the whole response, which then stands);
* **Cohere** Chat v2 (``message-start``, ``content-start``, ``content-delta``,
  ``citation-start`` with one citation, ``citation-end``, ``message-end``): the ``cohere``
  response;
* **Gemini** Interactions (named by ``event_type``: ``interaction.created``, ``step.start``,
  ``step.delta`` with a ``text`` delta or a ``text_annotation_delta`` adding annotations to
  the step's text, ``step.stop``, ``interaction.completed``): the ``gemini-interactions``
  interaction (``interaction.completed`` carries no steps unless asked to: the streamed steps
  stand).

Events are JSON objects or the SDK's event objects. The kind of stream follows from the first
event; an event of another stream, or one that is not an object with a ``type``, is an
:class:`~citeaudit.InputError` naming it.
"""

from __future__ import annotations

import copy
from typing import Any

from citeaudit.errors import InputError
from citeaudit.formats._ranges import plain

__all__ = ["EVENT_FORMATS", "EventAssembler"]

# The first event of each stream, and the answer format of what it assembles into.
EVENT_FORMATS = {"message_start": "anthropic", "response.created": "openai-responses",
                 "message-start": "cohere", "interaction.created": "gemini-interactions"}
_KINDS = {"anthropic": ("message_", "content_block_", "ping", "error"),
          "openai-responses": ("response.", "error"),
          "cohere": ("message-", "content-", "citation-", "tool-", "debug"),
          "gemini-interactions": ("interaction.", "step.", "error")}


def _put(items: list[Any], index: Any, value: Any) -> None:
    at = index if isinstance(index, int) and index >= 0 else len(items)
    items.extend([None] * (at + 1 - len(items)))
    items[at] = value


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _kind(data: Any) -> Any:
    """An event's name: its ``type`` (Gemini Interactions name it ``event_type``)."""
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    return data.get("event_type") if kind is None else kind


def _text_item(step: dict[str, Any]) -> dict[str, Any]:
    """The text content a streamed text or annotation delta adds to: the step's last content
    item when it is text, else a new one (after an image, say).
    """
    content = step.get("content")
    if not isinstance(content, list):
        content = step["content"] = []
    last = content[-1] if content else None
    if isinstance(last, dict) and last.get("type") == "text":
        return last
    item: dict[str, Any] = {"type": "text", "text": ""}
    content.append(item)
    return item


def _at(items: Any, index: Any) -> Any:
    found = items[index] if isinstance(items, list) and isinstance(index, int) and \
        0 <= index < len(items) else None
    return found if isinstance(found, dict) else {}


class EventAssembler:
    """One provider stream's response, built up from its events."""

    def __init__(self) -> None:
        self.format: str | None = None  # the answer format of what is assembled
        self.response: dict[str, Any] = {}
        self._count = 0

    def add(self, event: Any) -> str:
        """Take the next event; return the answer text it adds (often ``""``)."""
        data = plain(event)
        where = f"event {self._count + 1}"
        self._count += 1
        kind = _kind(data)
        if not isinstance(kind, str):
            raise InputError("an event must be an object with a string \"type\" (or"
                             " \"event_type\")",
                             origin="<events>", place=where)
        if self.format is None:
            if kind not in EVENT_FORMATS:
                raise InputError(f"a stream must start with {', '.join(EVENT_FORMATS)}, not"
                                 f" {kind!r}", origin="<events>", place=where)
            self.format = EVENT_FORMATS[kind]
        elif not kind.startswith(_KINDS[self.format]):
            raise InputError(f"{kind!r} is not an event of the {self.format} stream",
                             origin="<events>", place=where)
        if self.format == "anthropic":
            return self._anthropic(kind, data)
        if self.format == "openai-responses":
            return self._openai(kind, data)
        if self.format == "gemini-interactions":
            return self._interactions(kind, data)
        return self._cohere(kind, data)

    def _anthropic(self, kind: str, data: dict[str, Any]) -> str:
        if kind == "message_start":
            message = data.get("message")
            self.response = copy.deepcopy(message) if isinstance(message, dict) else {}
            self.response["content"] = []
        elif kind == "content_block_start":
            block = data.get("content_block")
            _put(self.response.setdefault("content", []), data.get("index"),
                 copy.deepcopy(block) if isinstance(block, dict) else {})
        elif kind == "content_block_delta":
            block = _at(self.response.get("content"), data.get("index"))
            delta = _obj(data.get("delta"))
            if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
                block["text"] = block.get("text", "") + delta["text"]
                return str(delta["text"])
            if delta.get("type") == "citations_delta":
                if not isinstance(block.get("citations"), list):
                    block["citations"] = []
                block["citations"].append(delta.get("citation"))
        elif kind == "message_delta":
            self.response.update(_obj(data.get("delta")))
        return ""

    def _openai(self, kind: str, data: dict[str, Any]) -> str:
        if kind in ("response.created", "response.completed"):
            response = data.get("response")
            if isinstance(response, dict):
                self.response = copy.deepcopy(response)
                self.response.setdefault("output", [])
            return ""
        output = self.response.setdefault("output", [])
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = data.get("item")
            _put(output, data.get("output_index"), copy.deepcopy(item)
                 if isinstance(item, dict) else {})
            return ""
        item = _at(output, data.get("output_index"))
        if kind == "response.content_part.added":
            part = data.get("part")
            _put(item.setdefault("content", []), data.get("content_index"),
                 copy.deepcopy(part) if isinstance(part, dict) else {})
            return ""
        part = _at(item.get("content"), data.get("content_index"))
        if kind == "response.output_text.delta" and isinstance(data.get("delta"), str):
            part["text"] = part.get("text", "") + data["delta"]
            return str(data["delta"])
        if kind == "response.output_text.annotation.added":
            _put(part.setdefault("annotations", []), data.get("annotation_index"),
                 data.get("annotation"))
        return ""

    def _cohere(self, kind: str, data: dict[str, Any]) -> str:
        delta = _obj(data.get("delta"))
        inner = _obj(delta.get("message"))
        if kind == "message-start":
            self.response = {"id": data.get("id"), "finish_reason": None,
                             "message": {"role": "assistant", "content": [], "citations": []}}
            return ""
        message = self.response.setdefault("message", {"role": "assistant"})
        if kind == "content-start":
            content = _obj(inner.get("content"))
            item = {k: v for k, v in content.items() if v is not None}
            item.setdefault("type", "text")
            item.setdefault(item["type"] if item["type"] == "thinking" else "text", "")
            _put(message.setdefault("content", []), data.get("index"), item)
        elif kind == "content-delta":
            item = _at(message.get("content"), data.get("index"))
            content = _obj(inner.get("content"))
            text = content.get("text")
            if isinstance(text, str) and item.get("type", "text") == "text":
                item["text"] = item.get("text", "") + text
                return text
            if isinstance(content.get("thinking"), str):
                item["thinking"] = item.get("thinking", "") + content["thinking"]
        elif kind == "citation-start":
            citation = inner.get("citations")
            _put(message.setdefault("citations", []), data.get("index"),
                 copy.deepcopy(citation) if isinstance(citation, dict) else citation)
        elif kind == "message-end":
            self.response["finish_reason"] = delta.get("finish_reason")
        return ""

    def _interactions(self, kind: str, data: dict[str, Any]) -> str:
        if kind in ("interaction.created", "interaction.completed"):
            interaction = data.get("interaction")
            if isinstance(interaction, dict):
                steps = self.response.get("steps")
                self.response = copy.deepcopy(interaction)
                if not isinstance(self.response.get("steps"), list):
                    self.response["steps"] = steps if isinstance(steps, list) else []
            return ""
        steps = self.response.setdefault("steps", [])
        if kind == "step.start":
            step = data.get("step")
            _put(steps, data.get("index"), copy.deepcopy(step) if isinstance(step, dict)
                 else {})
            return ""
        if kind != "step.delta":
            return ""  # step.stop, status updates, errors: nothing to add
        step = _at(steps, data.get("index"))
        delta = _obj(data.get("delta"))
        if delta.get("type") == "text" and isinstance(delta.get("text"), str):
            item = _text_item(step)
            item["text"] = str(item.get("text", "")) + delta["text"]
            return str(delta["text"])
        if delta.get("type") == "text_annotation_delta":
            item = _text_item(step)
            if not isinstance(item.get("annotations"), list):
                item["annotations"] = []
            notes = copy.deepcopy(delta.get("annotations"))
            if notes is not None:  # of another type: kept, for the reader's CA404
                item["annotations"].extend(notes if isinstance(notes, list) else [notes])
        return ""

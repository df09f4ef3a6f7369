"""LlamaIndex objects as the engine's inputs: a response's ``source_nodes`` (scores kept, so
that weighted coverage uses them) as a snapshot, its text as the answer, and the
``Source N:`` re-chunks of ``CitationQueryEngine`` resolved to the nodes they came from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeWithScore

from citeaudit.core import Report, audit
from citeaudit.errors import InputError
from citeaudit.request import Guarded, guard

__all__ = ["audit_response", "guard_response", "snapshot_from"]

_ORIGIN = "<llamaindex>"
_LABEL = re.compile(r"\ASource (\d+):\n")  # CitationQueryEngine's prefix of each chunk
_TITLE_KEYS = ("title", "file_name", "document_title")
_URL_KEYS = ("url", "source_url", "link")


def _node_id(node: Any) -> str | None:
    return getattr(node, "node_id", None) or getattr(node, "id_", None)


def snapshot_from(nodes: Sequence[Any], *, ids: str = "position",
                  originals: Sequence[NodeWithScore] = ()) -> list[dict[str, Any]]:
    """The ``source_nodes`` of a response (``NodeWithScore``) as a snapshot: each node's
    content is the text, its ``score`` is kept, ``metadata`` titles and URLs are kept.

    The chunks ``CitationQueryEngine`` makes (``Source N:`` before each) are read as the
    sources ``[N]`` cites, their label removed; each names in its metadata (``node_id``) the
    node it came from: the one of ``originals`` (the retrieved nodes) that holds its text,
    else its document. ``ids``: ``"position"`` (``[1]`` is the first), or ``"id"`` (the
    node ids).
    """
    if isinstance(nodes, (str, bytes)) or not isinstance(nodes, Sequence):
        raise InputError(f"source nodes must be a list of NodeWithScore, not"
                         f" {type(nodes).__name__}", origin=_ORIGIN, place="$")
    sources: list[dict[str, Any]] = []
    for position, item in enumerate(nodes):
        where = f"$[{position}]"
        if not isinstance(item, NodeWithScore):
            raise InputError(f"not a LlamaIndex NodeWithScore but {type(item).__name__}",
                             origin=_ORIGIN, place=where)
        text = item.node.get_content()
        source: dict[str, Any] = {}
        label = _LABEL.match(text)
        if label is not None:
            if int(label[1]) != position + 1:
                raise InputError(f"the chunk is labelled Source {label[1]}, not Source"
                                 f" {position + 1}: the nodes are not in the order the"
                                 " engine numbered them", origin=_ORIGIN, place=f"{where}.text")
            text = text[label.end():].removesuffix("\n")
            origin = next((_node_id(o.node) for o in originals
                           if text and text in o.node.get_content()), None) \
                or item.node.ref_doc_id
            source["metadata"] = {"node_id": origin} if origin else {}
        elif ids == "id":
            source["id"] = _node_id(item.node)
        elif ids != "position":
            raise InputError(f"ids must be 'position' or 'id', not {ids!r}", origin=_ORIGIN)
        source["text"] = text
        if item.score is not None and item.score >= 0:
            source["score"] = float(item.score)
        metadata = item.node.metadata or {}
        title = next((metadata[k] for k in _TITLE_KEYS if isinstance(metadata.get(k), str)),
                     None)
        if title:
            source["title"] = title
        url = next((metadata[k] for k in _URL_KEYS if isinstance(metadata.get(k), str)), None)
        if url:
            source["url"] = url
        sources.append(source)
    return sources


def _answer(response: Any) -> tuple[str, Sequence[Any]]:
    if not isinstance(response, Response):
        raise InputError(f"not a LlamaIndex Response but {type(response).__name__}",
                         origin=_ORIGIN, place="$")
    if not isinstance(response.response, str):
        raise InputError("the response has no text", origin=_ORIGIN, place="$.response")
    return response.response, response.source_nodes


def audit_response(response: Any, *, ids: str = "position",
                   originals: Sequence[NodeWithScore] = (), **options: Any) -> Report:
    """Audit a query engine's ``Response`` against its own ``source_nodes``; ``options`` are
    :func:`citeaudit.audit`'s.
    """
    text, nodes = _answer(response)
    return audit(text, snapshot_from(nodes, ids=ids, originals=originals), **options)


def guard_response(response: Any, *, ids: str = "position", **options: Any) -> Guarded:
    """Guard a query engine's ``Response``: the :class:`~citeaudit.Guarded` answer (``options``
    are :func:`citeaudit.guard`'s).
    """
    text, nodes = _answer(response)
    return guard(text, snapshot_from(nodes, ids=ids), **options)

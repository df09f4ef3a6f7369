"""``citeaudit mcp``: the audit, the guard and the prompt context as the tools of a Model
Context Protocol server, so that an agent can check its own citations before it answers.

Each tool is the service's endpoint of the same name (``/v1/audit``, ``/v1/guard``,
``/v1/context``) with the tool's arguments as the request body: the same work, the same
checks, the same limits (:class:`~citeaudit.service.Settings`: the largest arguments, audits
at once, the time one may take) and the same messages. A call that fails is a tool error
(``isError``) whose text is what the service's ``{"error"}`` would say, JSON path included
(``body: $.sources[0].text: ...``): never a traceback, and the server goes on.

It needs ``pip install 'citeaudit[mcp]'`` (the official MCP SDK, and the service's extra),
so :mod:`citeaudit.service` imports it only when :func:`~citeaudit.service.run_mcp` runs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import anyio
import mcp_types as types
import orjson
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from citeaudit._version import __version__
from citeaudit.core import audit
from citeaudit.errors import ConfigError
from citeaudit.service._app import (
    _error_body,
    _refusal,
    _request_id,
    _RequestError,
    _send_json,
    _Service,
    _too_large,
)
from citeaudit.service._openapi import OPENAPI
from citeaudit.service._settings import Settings

__all__ = ["MCP_PATH", "TOOLS", "create_server", "http_app", "run", "run_http", "run_stdio"]

MCP_PATH = "/mcp"
# What the HTTP transport reads of a request beyond the arguments themselves: the JSON-RPC
# envelope and its _meta. Arguments over --max-bytes are refused by the tool, with the
# service's message; a request far larger is refused by the transport before it is read whole.
_ENVELOPE = 65_536
_INVALID_PARAMS = -32602  # JSON-RPC's code for a request naming something that is not there

_INSTRUCTIONS = (
    "Check your own citations before you answer. Call `context` with the passages you were"
    " given to get them numbered (a prompt block and a snapshot); write your answer citing"
    " them as [1], [2]...; call `audit` with your answer and the same sources (or the snapshot)"
    " and fix every finding of severity error (CA201/CA202: a cited id that is not among the"
    " sources; CA301/CA302: a claim with no citation) until `passed` is true; call `guard` for"
    " the text to serve, with the unverifiable citations taken out and a chip per cited source.")


def _body_schema(path: str, tool: str) -> dict[str, Any]:
    """The service's request body for ``path`` (its OpenAPI description): the tool's input."""
    schema = OPENAPI["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    return {**schema["schema"], "title": f"{tool} arguments"}


_NULLABLE_STRING = {"type": ["string", "null"]}
_FINDING = {
    "type": "object",
    "required": ["code", "severity", "message"],
    "properties": {
        "code": {"type": "string", "description": "the rule, as CA201 (docs/rules.md)"},
        "severity": {"enum": ["error", "warning"],
                     "description": "only errors fail the audit"},
        "message": {"type": "string"},
        "claim": {"type": ["integer", "null"], "description": "1-based claim number; null for"
                                                              " the answer as a whole"},
        "span": {"type": ["array", "null"], "items": {"type": "integer"},
                 "description": "[start, end) characters in the answer text (or the claim)"},
        "marker": _NULLABLE_STRING, "source_id": _NULLABLE_STRING,
        "path": {"type": ["string", "null"], "description": "JSON path into a structured or"
                                                            " claim-list answer"},
    },
}
_REPORT: dict[str, Any] = {
    "type": "object",
    "description": "The audit's report (docs/json.md): Report.to_dict().",
    "required": ["version", "status", "passed", "reasons", "findings", "metrics"],
    "properties": {
        "version": {"type": "integer"},
        "status": {"enum": ["ok", "unverified", "no_evidence"]},
        "passed": {"type": "boolean"},
        "reasons": {"type": "array", "items": {"type": "string"},
                    "description": "why it failed: one entry per error rule and missed"
                                   " threshold"},
        "findings": {"type": "array", "items": _FINDING},
        "metrics": {"type": "object", "description": "ratios in [0, 1] (null for"
                                                     " no_evidence) and counts",
                    "additionalProperties": {"type": ["number", "null"]}},
        "checked": {"type": "array", "items": {"type": "string"}},
        "not_checked": {"type": "array", "items": {"type": "string"}},
        "grammar": {"type": "string"}, "grammar_reason": {"type": "string"},
        "answer_shape": {"type": "string"}, "fingerprint": {"type": "string"},
        "snapshot": {"type": "object"},
        "support": {"type": ["array", "null"], "items": {"type": "object"},
                    "description": "null without a support judge; else one judgement a judged"
                                   " claim: outcome (supported, unsupported, contradicted),"
                                   " score, the spans of the passage that decide it (start,"
                                   " end: characters of the passage text; the quote), a note"},
    },
}
_CHIP = {
    "type": "object",
    "required": ["number", "url", "label", "quote", "source_ids", "claims"],
    "properties": {
        "number": {"type": "integer"}, "url": _NULLABLE_STRING, "label": {"type": "string"},
        "quote": {"type": "string"},
        "source_ids": {"type": "array", "items": {"type": "string"}},
        "claims": {"type": "array", "items": {"type": "integer"}},
        "evidence": {"type": "array", "items": {"type": "object"},
                     "description": "with a support judge: each claim's outcome and the"
                                    " passage span (offsets, quote) that decides it"},
    },
}
_GUARDED: dict[str, Any] = {
    "type": "object",
    "description": "The answer to serve (docs/json.md): Guarded.to_dict(), and rendered.",
    "required": ["version", "status", "policy", "text", "withheld", "review", "chips",
                 "removed", "dropped", "report"],
    "properties": {
        "version": {"type": "integer"},
        "status": {"enum": ["ok", "unverified", "no_evidence"]},
        "policy": {"enum": ["strip", "drop", "withhold"]},
        "text": {"type": "string", "description": "the answer to serve, unverifiable markers"
                                                  " taken out (the fallback when withheld)"},
        "withheld": {"type": "boolean"},
        "review": {"type": "boolean", "description": "it did not verify: send it to review"},
        "chips": {"type": "array", "items": _CHIP,
                  "description": "one per cited source, numbered in first-citation order"},
        "removed": {"type": "array", "items": {"type": "string"}},
        "dropped": {"type": "array", "items": {"type": "integer"}},
        "report": _REPORT,
        "snapshot": {"type": "object", "description": "for an answer sent to review"},
        "rendered": {"type": "string", "description": "as render asked for"},
    },
}
_CONTEXT: dict[str, Any] = {
    "type": "object",
    "required": ["prompt", "snapshot", "fingerprint"],
    "properties": {
        "prompt": {"type": "string", "description": "the citation contract, then the"
                                                    " numbered passages"},
        "snapshot": {"type": "object", "description": "what to audit the answer against:"
                                                      " pass it as audit's sources"},
        "fingerprint": {"type": "string"},
    },
}

TOOLS: tuple[types.Tool, ...] = (
    types.Tool(
        name="audit",
        title="Audit an answer's citations",
        description=(
            "Check the citations in an answer against the sources it was written from,"
            " deterministically (no model). `answer`: text citing as [1] or [S2], a list of"
            " claims, the structured {answer, citations} contract, or a provider's whole"
            " response (Anthropic, OpenAI, Cohere, Gemini, Bedrock...; set"
            " options.answer-format when it cannot be told). `sources`: the passages (strings,"
            " or objects with id, text, url, title), a snapshot from `context`, or the"
            " provider request. Returns the report: status ok | unverified | no_evidence,"
            " passed, reasons, findings (rule code, severity, message, claim, span, marker,"
            " source_id) and metrics. Fix each error finding and audit again."),
        input_schema=_body_schema("/v1/audit", "audit"),
        output_schema=_REPORT,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
    types.Tool(
        name="guard",
        title="Guard an answer for serving",
        description=(
            "Audit an answer (as `audit` does) and return what to serve: `text` with the"
            " citations that do not verify taken out (policy strip), their claims dropped"
            " (drop), or the fallback instead of an answer that does not verify (withhold);"
            " `chips`, one per cited source with its url, label and a quote; `review`, true"
            " when it did not verify; and the report. `render`: html or markdown for a"
            " rendered answer too."),
        input_schema=_body_schema("/v1/guard", "guard"),
        output_schema=_GUARDED,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
    types.Tool(
        name="context",
        title="Number passages for a prompt",
        description=(
            "Number the passages chosen for one request (1..N, after max_passages and"
            " max_chars trim them) and return `prompt`, the citation contract followed by the"
            " numbered passages, to put in the model's prompt, and `snapshot`, the same"
            " numbering, to pass as `sources` when the answer is audited or guarded."),
        input_schema=_body_schema("/v1/context", "context"),
        output_schema=_CONTEXT,
        annotations=types.ToolAnnotations(read_only_hint=True, idempotent_hint=True,
                                          open_world_hint=False),
    ),
)


class _Tools:
    """The tools' calls, each the service's work under the service's limits."""

    def __init__(self, settings: Settings) -> None:
        self.service = _Service(settings)
        self._work: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "audit": self.service.audit, "guard": self.service.guard,
            "context": self.service.context}

    async def list(self, _: ServerRequestContext[Any, Any],
                   __: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=list(TOOLS))

    async def call(self, _: ServerRequestContext[Any, Any],
                   params: types.CallToolRequestParams) -> types.CallToolResult:
        work = self._work.get(params.name)
        if work is None:  # a protocol error (the spec's), not a tool's: nothing was called
            raise MCPError(_INVALID_PARAMS, f"unknown tool {params.name!r}: one of"
                                            f" {', '.join(self._work)}")
        arguments = params.arguments or {}
        try:
            limit = self.service.settings.max_bytes
            if _size(arguments) > limit:
                raise _too_large(limit)
            # In a thread, under the service's timeout and its bound on audits at once.
            data = await self.service._run(work, arguments)
        except Exception as error:  # told in the service's words, never as a traceback
            return _failed(_refusal(error, _request_id()))
        return types.CallToolResult(
            # The JSON as text too, for clients that read no structured content.
            content=[types.TextContent(type="text", text=orjson.dumps(data).decode())],
            structured_content=data)


def _size(arguments: dict[str, Any]) -> int:
    """The arguments' size as a request body would have it: compact JSON, in bytes."""
    try:
        return len(orjson.dumps(arguments))
    except orjson.JSONEncodeError:  # an integer past 64 bits, which only json writes
        return len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":"),
                              default=str).encode())


def _failed(refused: _RequestError) -> types.CallToolResult:
    """A tool error: the service's message, and its HTTP status for what kind it is."""
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=refused.message)],
        structured_content={"error": refused.message, "status": refused.status},
        is_error=True)


def create_server(settings: Settings | None = None) -> Server[Any]:
    """The MCP server: the tools ``audit``, ``guard`` and ``context``."""
    return _server(_Tools(settings or Settings()))


def _server(tools: _Tools) -> Server[Any]:
    return Server("citeaudit", version=__version__, title="citeaudit",
                  instructions=_INSTRUCTIONS, on_list_tools=tools.list, on_call_tool=tools.call)


async def run_stdio(settings: Settings) -> None:
    """Serve one client on standard input and output until it closes them."""
    _warm()
    server = create_server(settings)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def http_app(settings: Settings, host: str = "127.0.0.1") -> Any:
    """The streamable-HTTP transport's ASGI app: the server at ``/mcp``, stateless (each
    request stands alone, so any worker can answer it) with plain JSON answers; ``GET
    /healthz``; bearer tokens as ``citeaudit serve`` checks them, where any are set.
    """
    tools = _Tools(settings)
    server = _server(tools)

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    app: Starlette = server.streamable_http_app(
        streamable_http_path=MCP_PATH, json_response=True, stateless_http=True, host=host,
        max_request_body_size=settings.max_bytes + _ENVELOPE,
        custom_starlette_routes=[Route("/healthz", healthz)])
    return _Authorised(app, tools.service)


class _Authorised:
    """An app behind the service's bearer tokens (none set: open), the probe excepted."""

    def __init__(self, app: Any, service: _Service) -> None:
        self._app = app
        self._service = service

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] != "/healthz":
            try:
                self._service._authorise(HTTPConnection(scope))
            except _RequestError as refused:
                request_id = _request_id()
                await _send_json(send, _error_body(refused, request_id), refused.status,
                                 request_id, refused.headers)
                return
        await self._app(scope, receive, send)


def run_http(settings: Settings, host: str, port: int) -> None:
    """Serve the streamable-HTTP transport on ``host:port`` until interrupted."""
    import uvicorn  # noqa: PLC0415 - the service extra

    _warm()
    uvicorn.run(http_app(settings, host), host=host, port=port, access_log=False,
                log_level="warning", lifespan="on", server_header=False)


def _warm() -> None:
    """One audit before the first call: imports, registries and regexes are ready."""
    audit("Ready [1].", ["Ready."])


def run(settings: Settings, transport: str, host: str, port: int) -> None:
    """Run the server on ``transport`` (``stdio`` or ``http``) until its client or a signal
    ends it. Errors the server logs (a bug's traceback) go to standard error, never into the
    protocol's standard output.
    """
    if transport not in ("stdio", "http"):
        raise ConfigError(f"the MCP transport must be stdio or http, not {transport!r}")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if transport == "http":
        run_http(settings, host, port)
    else:
        anyio.run(run_stdio, settings)

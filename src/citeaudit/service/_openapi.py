"""The service's OpenAPI description and its human-readable page."""

from __future__ import annotations

import html
from typing import Any

__all__ = ["OPENAPI", "docs_page"]

_ANY: dict[str, Any] = {}
_ERROR = {"type": "object", "required": ["error"],
          "properties": {"error": {"type": "string"}, "request_id": {"type": "string"}}}
_OPTIONS = {
    "type": "object",
    "description": "Settings as in citeaudit.toml ([tool.citeaudit] keys), over the"
                   " service's own, plus answer-format.",
    "properties": {
        "grammar": {"type": ["string", "array"]}, "refusal": {"type": ["string", "array"]},
        "refusal-regex": {"type": "string"}, "select": {"type": ["string", "array"]},
        "extend-select": {"type": ["string", "array"]}, "ignore": {"type": ["string", "array"]},
        "severity": {"type": "object"}, "min-precision": {"type": "number"},
        "min-recall": {"type": "number"}, "claim-policy": {"enum": ["all", "quantities"]},
        "support": {"type": "string"}, "support-threshold": {"type": "number"},
        "not-citable": {"type": "array", "items": {"type": "string"}},
        "claims": {"enum": ["strict", "balanced", "lenient"]},
        "require": {"type": ["string", "array"]},
        "answer-format": {"type": "string"}},
}
_AUDITED = {"answer": {"description": "the answer: text, a list of claims, the structured"
                                      " contract, or a provider's response"},
            "sources": {"description": "the snapshot (any shape the library reads), or the"
                                       " provider request the response answers"},
            "options": _OPTIONS}
# The guard's and the context's fields, described for whoever fills them in (a person reading
# /docs, or an agent calling the MCP tools, which take these same schemas).
_POLICY = {"enum": ["strip", "drop", "withhold"],
           "description": "what to do with what does not verify: strip (default) removes the"
                          " unverifiable markers, drop removes the claims that carry one,"
                          " withhold serves the fallback instead of an answer that does not"
                          " verify"}
_FALLBACK = {"type": "string", "description": "the text served when the answer is withheld"}
_RENDER = {"enum": ["html", "markdown"],
           "description": "also render the served answer with its citation chips"}
_PASSAGES = {"type": "array", "description": "the passages chosen for one request, in order:"
                                            " strings, or objects with text and optional"
                                            " url/source_url, title/label/section"}
_CONTRACT = {"type": "string", "description": "the citation contract put before the"
                                              " passages ({refusal} is replaced by the refusal"
                                              " string; default: the built-in contract)"}
_REFUSAL = {"type": "string", "description": "the exact refusal string the contract asks for"}
_MAX_PASSAGES = {"type": "integer", "minimum": 1,
                 "description": "keep at most this many passages (before numbering)"}
_MAX_CHARS = {"type": "integer", "minimum": 1, "description": "keep passages while their text"
                                                           " totals at most this many"
                                                           " characters"}


_ERRORS = {code: {"description": what, "content": {"application/json": {"schema": _ERROR}}}
           for code, what in (("400", "the body is not JSON"),
                              ("401", "a bearer token is required or not accepted"),
                              ("408", "the body, or a stream's next piece, came too"
                                      " slowly"),
                              ("413", "the body is too large"),
                              ("422", "a field is wrong: the message names it"),
                              ("429", "this client has as many streams open as one may"),
                              ("500", "a bug: the log has it"),
                              ("503", "at capacity: retry after Retry-After seconds"),
                              ("504", "the request took too long"))}


def _post(summary: str, body: dict[str, Any], required: list[str], result: str) -> Any:
    errors = _ERRORS
    return {"post": {
        "summary": summary,
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": required, "properties": body}}}},
        "responses": {"200": {"description": result, "content": {
            "application/json": {"schema": {"type": "object"}}}}, **errors}}}


def _get(summary: str, media: str = "application/json") -> Any:
    return {"get": {"summary": summary, "responses": {"200": {
        "description": summary, "content": {media: {"schema": _ANY}}}}}}


OPENAPI: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "citeaudit", "version": "1",
             "description": "Audit the citations in RAG answers: the library's audit, guard"
                            " and prompt context over HTTP."},
    "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    "security": [{"bearer": []}, {}],
    "paths": {
        "/v1/audit": _post("Audit one answer: the report (Report.to_dict())", _AUDITED,
                           ["answer"], "the report"),
        "/v1/guard": _post("Guard one answer: the served answer (Guarded.to_dict())", {
            **_AUDITED, "policy": _POLICY, "fallback": _FALLBACK, "render": _RENDER},
            ["answer"], "the served answer, its chips and its report"),
        "/v1/context": _post("Number passages: the prompt block and the snapshot", {
            "passages": _PASSAGES, "contract": _CONTRACT, "refusal": _REFUSAL,
            "max_passages": _MAX_PASSAGES, "max_chars": _MAX_CHARS}, ["passages"],
            "the prompt, the snapshot and its fingerprint"),
        "/v1/eval": {"post": {
            "summary": "Audit dataset records (NDJSON, streamed; or a JSON array): the result"
                       " lines in input order, then {\"aggregate\": ...}",
            "parameters": [{"name": "options", "in": "query", "required": False,
                            "schema": {"type": "string"},
                            "description": "settings as JSON (see /v1/audit's options)"}],
            "requestBody": {"required": True, "content": {
                "application/x-ndjson": {"schema": {"type": "string"}},
                "application/json": {"schema": {"type": "array"}}}},
            "responses": {"200": {"description": "NDJSON results, then the aggregate",
                                  "content": {"application/x-ndjson": {"schema": _ANY}}},
                          **_ERRORS}}},
        "/v1/stream": {"post": {
            "summary": "Audit an answer as it is written: NDJSON in ({\"sources\"}, then"
                       " {\"chunk\"} lines), NDJSON out ({\"text\"} as settled, then"
                       " {\"rest\", \"report\"}); also a WebSocket at the same path",
            "requestBody": {"required": True, "content": {
                "application/x-ndjson": {"schema": {"type": "string"}}}},
            "responses": {"200": {"description": "NDJSON: settled text, then the report",
                                  "content": {"application/x-ndjson": {"schema": _ANY}}},
                          **_ERRORS}}},
        "/healthz": _get("Alive"),
        "/readyz": {"get": {"summary": "Ready to audit", "responses": {
            "200": {"description": "ready", "content": {"application/json": {"schema": _ANY}}},
            "503": {"description": "starting", "content": {
                "application/json": {"schema": _ANY}}}}}},
        "/metrics": _get("Prometheus metrics", "text/plain"),
        "/openapi.json": _get("This description"),
        "/docs": _get("The human-readable page", "text/html"),
    },
}

_EXAMPLES = {
    "/v1/audit": '{"answer": "Refunds take 14 days [1].", "sources": ["Refunds take 14 days."]}',
    "/v1/guard": '{"answer": "Refunds take 14 days [1][7].", "sources": ["Refunds take 14'
                 ' days."], "render": "html"}',
    "/v1/context": '{"passages": ["Refunds take 14 days.", "Shipping is free."]}',
}


def docs_page() -> str:
    """The page ``GET /docs`` serves: each endpoint, what it takes, and a curl example."""
    rows = []
    for path, item in OPENAPI["paths"].items():
        method, operation = next(iter(item.items()))
        example = _EXAMPLES.get(path)
        curl = (f"curl -s localhost:8000{path} -H 'content-type: application/json'"
                f" -d '{example}'") if example else f"curl -s localhost:8000{path}"
        rows.append(f"<h2>{method.upper()} {html.escape(path)}</h2>"
                    f"<p>{html.escape(operation['summary'])}</p>"
                    f"<pre>{html.escape(curl)}</pre>")
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>citeaudit service</title></head><body><h1>citeaudit service</h1>"
            "<p>JSON in, JSON out. The description: <a href=\"/openapi.json\">/openapi.json"
            "</a>.</p>" + "".join(rows) + "</body></html>")

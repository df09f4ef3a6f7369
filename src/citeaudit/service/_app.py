"""The HTTP service: the audit, the guard and the prompt context as JSON endpoints under
``/v1``, with health, readiness, Prometheus metrics and an OpenAPI description.

Every endpoint answers what the library answers for the same input (``Report.to_dict()``,
``Guarded.to_dict()``, the context's prompt and snapshot). Requests are checked before any
work: the bearer token (when tokens are set; compared in constant time), the body size (413,
from ``Content-Length`` and while reading), JSON that decodes (400) and fields that make
sense (422, with the message the command line prints and the JSON path of the field). At most
``max_concurrency`` audits run at once per worker; one more is turned away at once with 503
and ``Retry-After`` rather than queued. A request that takes longer than ``timeout`` is 504.

Streams (``/v1/stream``, ``/v1/eval``, the WebSocket) have a budget of their own
(``stream_concurrency``, and ``streams_per_client`` from one address), so that streams held
open cannot leave no room for one-shot audits; each waits at most ``stream_idle_timeout`` for
its client, lasts at most ``stream_duration``, and a ``/v1/stream`` sends at most
``stream_max_bytes`` in all. A one-shot body must arrive within ``read_timeout`` (408).
Whatever goes wrong, the client is told in one shape, ``{"error", "request_id"}`` (see
:func:`_refusal`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import os
import sys
import threading
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import anyio
import orjson
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, HTTPConnection, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from citeaudit.core import DEFAULT_REFUSAL, audit, config_with, decode_json, run
from citeaudit.errors import CiteauditError, ConfigError, InputError
from citeaudit.eval import Options, RawItem, audit_batch, load_evaluators, new_aggregate, run_of
from citeaudit.request import (
    DEFAULT_CONTRACT,
    DEFAULT_FALLBACK,
    POLICIES,
    StreamAuditor,
    build_context,
    guard,
    render_html,
    render_markdown,
)
from citeaudit.service._openapi import OPENAPI, docs_page
from citeaudit.service._pooled import Pooled
from citeaudit.service._settings import Settings
from citeaudit.service._tally import InProgress, Tally

__all__ = ["create_app"]

_LOG = logging.getLogger("citeaudit.service")
_RENDERERS = {"html": render_html, "markdown": render_markdown}
_T = TypeVar("_T")
_INLINE = 16_384  # bytes: a body this small is audited in well under a millisecond


class _RequestError(Exception):
    """A request turned away before or instead of its work: status, message, headers."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def _request_id() -> str:
    return os.urandom(16).hex()


async def _send_json(send: Any, data: Any, status: int, request_id: str,
                     headers: dict[str, str] | None = None) -> None:
    """A whole JSON response, written as ASGI messages."""
    start, body = _json_messages(data, status, request_id, headers)
    await send(start)
    await send(body)


def _json_messages(data: Any, status: int, request_id: str,
                   headers: dict[str, str] | None = None) -> tuple[Any, Any]:
    content = orjson.dumps(data)
    raw = [(b"content-type", b"application/json"),
           (b"content-length", str(len(content)).encode()),
           (b"x-request-id", request_id.encode())]
    raw += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    return ({"type": "http.response.start", "status": status, "headers": raw},
            {"type": "http.response.body", "body": content})


class _StalledError(Exception):
    """The client has read nothing of its answer for longer than the idle timeout."""


class _Writer:
    """A stream's answer as NDJSON, each write within ``idle`` seconds (a client that stops
    reading holds its stream's slot no longer than that).
    """

    def __init__(self, send: Any, request_id: str, idle: float) -> None:
        self._send = send
        self._request_id = request_id
        self._idle = idle
        self._begun = False

    async def piece(self, piece: bytes) -> None:
        await self._start()
        await self._write({"type": "http.response.body", "body": piece, "more_body": True})

    async def end(self) -> None:
        await self._start()
        await self._write({"type": "http.response.body", "body": b"", "more_body": False})

    async def fail(self, refused: _RequestError) -> None:
        """The error as the whole answer or, once the answer has begun, its last line."""
        if self._begun:
            line = orjson.dumps(_error_body(refused, self._request_id)) + b"\n"
            await self._write({"type": "http.response.body", "body": line,
                               "more_body": False})
            return
        self._begun = True
        for message in _json_messages(_error_body(refused, self._request_id),
                                      refused.status, self._request_id, refused.headers):
            await self._write(message)

    async def _start(self) -> None:
        if not self._begun:
            self._begun = True
            await self._write({"type": "http.response.start", "status": 200, "headers": [
                (b"content-type", b"application/x-ndjson"),
                (b"x-request-id", self._request_id.encode())]})

    async def _write(self, message: Any) -> None:
        with anyio.move_on_after(self._idle):
            await self._send(message)
            return
        raise _StalledError


# A WebSocket's close code for what an HTTP request would be answered with.
_CLOSE_CODES = {400: 1007, 422: 1007, 413: 1009, 500: 1011, 503: 1013}


async def _deny(socket: WebSocket, refused: _RequestError, request_id: str) -> None:
    """Refuse a WebSocket before it is opened: with the response a POST would get, where the
    server can send one (ASGI's denial response), else with a close code alone.
    """
    if "websocket.http.response" in socket.scope.get("extensions", {}):
        await socket.send_denial_response(_json(
            _error_body(refused, request_id), refused.status,
            {"x-request-id": request_id, **refused.headers}))
    else:
        await socket.close(code=_CLOSE_CODES.get(refused.status, 1008))


async def _close_with(socket: WebSocket, refused: _RequestError, request_id: str) -> None:
    """Tell a WebSocket's client what went wrong, then close it (1008 for what breaks a
    limit: a policy, in WebSocket's terms).
    """
    with anyio.move_on_after(5):  # a client that reads nothing is not waited for long
        await socket.send_text(orjson.dumps(_error_body(refused, request_id)).decode())
        await socket.close(code=_CLOSE_CODES.get(refused.status, 1008))


def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(data), status_code=status, headers=headers,
                    media_type="application/json")


def _field(body: dict[str, Any], name: str, kind: type | tuple[type, ...], default: Any = None,
           ) -> Any:
    value = body.get(name, default)
    if value is not default and not isinstance(value, kind):
        names = kind if isinstance(kind, tuple) else (kind,)
        wanted = " or ".join({dict: "an object", str: "a string", list: "a list",
                              int: "an integer"}.get(k, k.__name__) for k in names)
        raise _RequestError(422, f"body: $.{name}: must be {wanted}")
    return value


def _located(error: InputError) -> str:
    """An input error about a field of the body, as the command line would name it."""
    place = error.place or "$"
    field = {"<snapshot>": "sources", "<answer>": "answer",
             "<passages>": "passages"}.get(error.origin)
    if field is not None and place.startswith("$"):
        place = f"$.{field}{place[1:]}"
    return f"body: {place}: {error.reason}"


def _message(line: bytes) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        raise _RequestError(422, "body: a line that is not JSON") from None


async def _chunks(receive: Any, first: Any = None, idle: float | None = None,
                  total: int | None = None) -> AsyncIterator[bytes]:
    """A request's body as it arrives, from the message ``first`` when it was received
    already (ClientDisconnect if the client goes away first): each piece within ``idle``
    seconds (408 beyond), ``total`` bytes in all (413 beyond).
    """
    message = first
    size = 0
    while True:
        if message is None:
            message = await _received(receive, idle)
        if message["type"] == "http.disconnect":
            raise ClientDisconnect
        if chunk := message.get("body"):
            size += len(chunk)
            if total is not None and size > total:
                raise _RequestError(413, f"the stream is larger than {total} bytes in all")
            yield chunk
        if not message.get("more_body", False):
            return
        message = None


async def _received(receive: Any, idle: float | None) -> Any:
    """The next message from the client, within ``idle`` seconds (408 beyond)."""
    if idle is None:
        return await receive()
    with anyio.move_on_after(idle):
        return await receive()
    raise _idle(idle)


def _idle(seconds: float) -> _RequestError:
    return _RequestError(408, f"the client sent nothing for {seconds:g} seconds",
                         {"connection": "close"})


async def _read_json(chunks: AsyncIterator[bytes], limit: int, hint: str = "",
                     ) -> tuple[Any, int]:
    """A whole body of at most ``limit`` bytes (413 as soon as it grows past it) as JSON (400
    when it is not), and its size.
    """
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise _too_large(limit, hint)
        parts.append(chunk)
    return _decoded(b"".join(parts)), size


def _too_large(limit: int, hint: str = "") -> _RequestError:
    return _RequestError(413, f"the body is larger than {limit} bytes{hint}")


def _decoded(data: bytes) -> Any:
    """A body as JSON; 400 when it is not."""
    try:
        return decode_json(data, origin="body")
    except InputError as error:
        raise _RequestError(400, str(error)) from None


def _require_answer(body: dict[str, Any]) -> None:
    if "answer" not in body:
        raise _RequestError(422, "body: $.answer: required (the answer, or a provider's"
                                 " response)")


def _refusal(error: Exception, request_id: str) -> _RequestError:
    """What the client is told when a request fails, at any endpoint: the refusal; an input
    error with its field (422); Starlette's own (404, 405); anything else, a bug, a bare 500
    (the log has the traceback).
    """
    if isinstance(error, _RequestError):
        return error
    if isinstance(error, InputError):
        return _RequestError(422, _located(error))
    if isinstance(error, CiteauditError):
        return _RequestError(422, f"body: {error}")
    if isinstance(error, HTTPException):
        return _RequestError(error.status_code, error.detail, dict(error.headers or {}))
    _LOG.error("request %s failed", request_id, exc_info=error)
    return _RequestError(500, "internal error")


def _error_body(refused: _RequestError, request_id: str) -> dict[str, str]:
    return {"error": refused.message, "request_id": request_id}


def _client(scope: Any) -> str:
    """The client's address, which a per-client cap counts by (behind a proxy: the proxy's)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


class _Slots:
    """A bound on work at once: at most ``size`` holders, and at most ``each`` from one
    client (no such cap when 0). Full: 503 with ``Retry-After``, never a queue; a client at
    its own cap: 429.
    """

    def __init__(self, what: str, size: int, each: int = 0) -> None:
        self._what = what
        self._size = size
        self._each = each
        self._lock = threading.Lock()  # audits give their slot back from a worker thread
        self._held = 0
        self._by_client: dict[str, int] = {}

    @property
    def held(self) -> int:
        return self._held

    def take(self, client: str = "") -> None:
        with self._lock:
            if self._held >= self._size:
                raise _RequestError(503, f"the service is at capacity ({self._size}"
                                         f" {self._what} at once); retry shortly",
                                    {"retry-after": "1"})
            if self._each:
                mine = self._by_client.get(client, 0)
                if mine >= self._each:
                    raise _RequestError(429, f"this client has {mine} {self._what} open, the"
                                             " most one client may", {"retry-after": "1"})
                self._by_client[client] = mine + 1
            self._held += 1

    def give(self, client: str = "") -> None:
        with self._lock:
            self._held -= 1
            if self._each:
                left = self._by_client.pop(client) - 1
                if left:
                    self._by_client[client] = left


async def _lines(chunks: AsyncIterator[bytes], limit: int) -> AsyncIterator[list[bytes]]:
    """Complete lines as they arrive (the last one too, newline or not); a line longer than
    ``limit`` bytes is a 413.
    """
    pending = b""
    async for chunk in chunks:
        pending += chunk
        *lines, pending = pending.split(b"\n")
        if len(pending) > limit:
            raise _RequestError(413, f"a line is larger than {limit} bytes")
        if lines:
            yield lines
    if pending.strip():
        yield [pending]


def _chunk_of(message: Any) -> str:
    chunk = message.get("chunk") if isinstance(message, dict) else None
    if not isinstance(chunk, str):
        raise _RequestError(422, "body: each line after the first must be {\"chunk\": text}")
    return chunk


class _Deadlines:
    """A deadline for each one-shot body's read, kept by one sweep every ``period`` seconds
    that cancels the reads past theirs, rather than by a timer a request: in process, a
    cancel scope (``anyio.move_on_after``) around the read added 25 µs to a request and
    ``asyncio.timeout`` 14, a quarter of what the app adds to an audit; this costs about 1.
    A read is late by at most ``period``.
    """

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._period = min(1.0, seconds / 4)
        self._due: dict[asyncio.Task[Any], float] = {}
        self._expired: set[asyncio.Task[Any]] = set()
        self._sweeping: asyncio.AbstractEventLoop | None = None  # the loop swept, if any

    async def keep(self, reading: Awaitable[_T]) -> _T:
        """``reading`` awaited, or 408 when it has not ended within the deadline."""
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always a task under an ASGI server
            return await reading
        loop = asyncio.get_running_loop()
        self._due[task] = loop.time() + self._seconds
        if self._sweeping is not loop:
            self._sweeping = loop
            loop.call_later(self._period, self._sweep, loop)
        try:
            return await reading
        except asyncio.CancelledError:
            if task not in self._expired:
                raise
            self._expired.discard(task)
            if task.uncancel():  # cancelled for another reason too: that one goes on
                raise
            raise _RequestError(408, f"the body did not arrive within {self._seconds:g}"
                                     " seconds", {"connection": "close"}) from None
        finally:
            self._due.pop(task, None)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        # A task in the table is suspended in its read (each leaves the table as the read
        # ends, and this runs on the same loop): a cancellation lands in the read.
        now = loop.time()
        for task, due in list(self._due.items()):
            if due <= now and task.get_loop() is loop:
                del self._due[task]
                self._expired.add(task)
                task.cancel()
        if self._due:
            loop.call_later(self._period, self._sweep, loop)
        else:
            self._sweeping = None


class _Asgi:
    """An ASGI app a route calls as it is (a plain function would be read as an endpoint
    taking a request).
    """

    def __init__(self, app: Callable[[Any, Any, Any], Awaitable[None]]) -> None:
        self._app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self._app(scope, receive, send)


class _App(Starlette):
    """Starlette with a way round it: when the app has no middleware, a POST to one of the
    ``direct`` paths goes straight to its endpoint, past Starlette's layers of middleware,
    router and route (each wraps ``send`` again). Everything else (other methods and paths,
    WebSockets, the lifespan, a ``root_path``) goes through Starlette as usual.
    """

    direct: dict[str, _Asgi]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and not scope.get("root_path"):
            endpoint = self.direct.get(scope["path"])
            if endpoint is not None:
                await endpoint(scope, receive, send)
                return
        await super().__call__(scope, receive, send)


class _Service:
    """The endpoints and what they share: settings, the work bound, the metrics."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._audits = _Slots("audits", settings.max_concurrency)
        self._streams = _Slots("streams", settings.stream_concurrency,
                               settings.streams_per_client)
        self._limiter = anyio.CapacityLimiter(settings.max_concurrency)
        self._deadlines = _Deadlines(settings.read_timeout)
        # The threads /v1/eval audits its batches in: streams' own, so that they cannot
        # take the threads one-shot audits wait for.
        self._stream_limiter = anyio.CapacityLimiter(settings.stream_concurrency)
        self.tally = Tally()
        self.registry = CollectorRegistry()
        self.pooled: Pooled | None = None
        if settings.metrics_dir is None:
            self.registry.register(self.tally)
            self.registry.register(InProgress(self._in_progress))
        else:  # one worker of several: a scrape adds up every worker's counts
            self.pooled = Pooled(settings.metrics_dir, self.tally, self._in_progress)
            self.registry.register(self.pooled)
        self.ready = False

    def _in_progress(self) -> dict[str, int]:
        return {"audits": self._audits.held, "streams": self._streams.held}

    # The work endpoints ------------------------------------------------------------------

    def audit(self, body: dict[str, Any]) -> dict[str, Any]:
        _require_answer(body)
        config, answer_format = self._options(body)
        data = run(body["answer"], body.get("sources"), config=config,  # the whole report
                   answer_format=answer_format).report.to_dict()
        self.tally.report(data)
        return data

    def guard(self, body: dict[str, Any]) -> dict[str, Any]:
        _require_answer(body)
        config, answer_format = self._options(body)
        policy = _field(body, "policy", str, "strip")
        if policy not in POLICIES:
            raise _RequestError(422, f"body: $.policy: must be one of {', '.join(POLICIES)}")
        render = _field(body, "render", str)
        if render is not None and render not in _RENDERERS:
            raise _RequestError(422, "body: $.render: must be \"html\" or \"markdown\"")
        guarded = guard(body["answer"], body.get("sources"), policy=policy,
                        fallback=_field(body, "fallback", str, DEFAULT_FALLBACK),
                        config=config, answer_format=answer_format)
        data = guarded.to_dict()
        self.tally.report(data["report"])
        if render is not None:
            data["rendered"] = _RENDERERS[render](guarded)
        return data

    def context(self, body: dict[str, Any]) -> dict[str, Any]:
        passages = _field(body, "passages", list)
        if passages is None:
            raise _RequestError(422, "body: $.passages: required (a list of passages)")
        options = {k: _field(body, k, int) for k in ("max_passages", "max_chars")}
        try:
            built = build_context(passages, contract=_field(body, "contract", str,
                                                            DEFAULT_CONTRACT),
                                  refusal=_field(body, "refusal", str, DEFAULT_REFUSAL),
                                  **options)
        except InputError as error:  # a passage's place in the list, in the body
            raise InputError(error.reason, origin="<passages>", place=error.place) from None
        return {"prompt": built.prompt, "snapshot": built.snapshot.to_dict(),
                "fingerprint": built.snapshot.fingerprint}

    def eval(self, chunks: AsyncIterator[bytes], request: Request,
             ) -> AsyncGenerator[bytes, None]:
        """``POST /v1/eval``: dataset records as NDJSON (one record a line, read as it
        arrives: memory stays bounded whatever the body's size) or a JSON array (up to the
        body limit); the result lines in input order, then ``{"aggregate": ...}``. Options
        come as the query parameter ``options`` (JSON).
        """
        options = self._eval_options(request.query_params.get("options"))
        array = request.headers.get("content-type", "").startswith("application/json")
        return self._results(self._array_items(chunks) if array else self._line_items(chunks),
                             options)

    async def _results(self, items: AsyncIterator[list[RawItem]], options: Options,
                       ) -> AsyncGenerator[bytes, None]:
        aggregate = new_aggregate(options)
        async for batch in items:
            done = await anyio.to_thread.run_sync(audit_batch, batch, options,
                                                  limiter=self._stream_limiter)
            aggregate.merge(done.aggregate)
            yield done.lines
        yield orjson.dumps({"aggregate": aggregate.to_dict()}) + b"\n"

    def _eval_options(self, given: str | None) -> Options:
        data: Any = {}
        if given:
            try:
                data = orjson.loads(given)
            except orjson.JSONDecodeError:
                raise _RequestError(422, "query: options: not JSON") from None
        if not isinstance(data, dict):
            raise _RequestError(422, "query: options: must be a JSON object")
        config, _ = self._options({"options": data})
        options = Options(config, tuple(load_evaluators(None, config)))
        return dataclasses.replace(options, run=run_of(options, "-"))  # the body: no file

    async def _line_items(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[list[RawItem]]:
        """The body's lines as dataset items, a batch at a time as they arrive."""
        number = ordinal = 0
        async for lines in _lines(chunks, self.settings.max_bytes):
            batch = []
            for line in lines:
                number += 1
                if line.strip():
                    batch.append(RawItem(ordinal, f"line {number}", line))
                    ordinal += 1
            if batch:
                yield batch

    async def _array_items(self, chunks: AsyncIterator[bytes]) -> AsyncIterator[list[RawItem]]:
        body, _ = await _read_json(chunks, self.settings.max_bytes,
                                   " (send NDJSON for larger batches)")
        if not isinstance(body, list):
            raise _RequestError(422, "body: $: must be a JSON array of records (or NDJSON)")
        for start in range(0, len(body), 64):
            yield [RawItem(at, f"$[{at}]", record)
                   for at, record in enumerate(body[start:start + 64], start=start)]

    async def stream(self, chunks: AsyncIterator[bytes], _: Request) -> AsyncGenerator[bytes, None]:
        """``POST /v1/stream``: NDJSON in (a first line ``{"sources", "options"}``, then
        ``{"chunk": text}`` lines as the model writes them), NDJSON out: ``{"text": settled}``
        as it is settled, then ``{"rest", "report"}``, as :class:`~citeaudit.StreamAuditor`.
        """
        auditor: StreamAuditor | None = None
        async for lines in _lines(chunks, self.settings.max_bytes):
            for line in lines:
                if not line.strip():
                    continue
                if auditor is None:
                    auditor = self._auditor(_message(line))
                elif shown := auditor.feed(_chunk_of(_message(line))):
                    yield orjson.dumps({"text": shown}) + b"\n"
        if auditor is None:
            raise _RequestError(422, "body: line 1: the first line must be {\"sources\": ...}")
        report = auditor.finish()
        self.tally.report(report.to_dict())
        yield orjson.dumps({"rest": auditor.rest, "report": report.to_dict()}) + b"\n"

    def streaming(self, name: str, work: Callable[[AsyncIterator[bytes], Request],
                                                  AsyncGenerator[bytes, None]],
                  total: int | None = None) -> Any:
        """An ASGI app for an endpoint that reads its body while it writes its answer
        (NDJSON both ways): what a request/response endpoint cannot do. It holds a stream's
        slot, not an audit's, while it lasts; ``total`` bounds the bytes of its body.
        """
        async def app(scope: Any, receive: Any, send: Any) -> None:
            request = Request(scope, receive)
            started = time.perf_counter()
            request_id = request.headers.get("x-request-id") or _request_id()
            client = _client(scope)
            try:
                self._authorise(request)
                self._streams.take(client)
            except _RequestError as refused:
                await _send_json(send, _error_body(refused, request_id), refused.status,
                                 request_id, refused.headers)
                self.tally.request(name, refused.status, time.perf_counter() - started)
                return
            status = 499
            try:
                chunks = _chunks(receive, idle=self.settings.stream_idle_timeout, total=total)
                status = await self._answer(work(chunks, request), send, request_id)
            finally:
                self._streams.give(client)
                elapsed = time.perf_counter() - started
                self.tally.request(name, status, elapsed)
                self._log(request, request_id, status, elapsed, None)
        return _Asgi(app)

    async def _answer(self, pieces: AsyncGenerator[bytes, None], send: Any, request_id: str) -> int:
        """Write a stream's answer as its pieces come, within the stream's limits; when it
        fails, the error is the answer (not begun yet) or its last line. Returns the status.
        """
        settings = self.settings
        writer = _Writer(send, request_id, settings.stream_idle_timeout)
        failure: Exception | None = None
        try:
            with anyio.move_on_after(settings.stream_duration) as lasted:
                async with contextlib.aclosing(pieces):
                    try:
                        async for piece in pieces:
                            await writer.piece(piece)
                    except (ClientDisconnect, OSError, _StalledError):
                        return 499
                    except Exception as error:  # each is told in its shape
                        failure = error
            if lasted.cancelled_caught:
                failure = _RequestError(408, "the stream lasted longer than"
                                             f" {settings.stream_duration:g} seconds",
                                        {"connection": "close"})
            if failure is None:
                await writer.end()
                return 200
            refused = _refusal(failure, request_id)
            await writer.fail(refused)
            return refused.status
        except (ClientDisconnect, OSError, _StalledError):
            return 499

    async def websocket(self, socket: WebSocket) -> None:
        """``/v1/stream`` as a WebSocket: the same messages, one JSON frame each, under the
        same limits as the NDJSON stream (a stream's slot; idle, duration and total bounds;
        each message at most ``max_bytes``, as uvicorn's ``ws_max_size`` is set too).
        """
        request_id = socket.headers.get("x-request-id") or _request_id()
        client = _client(socket.scope)
        try:
            self._authorise(socket)
            self._streams.take(client)
        except _RequestError as refused:
            await _deny(socket, refused, request_id)
            return
        try:
            await socket.accept()
            with anyio.move_on_after(self.settings.stream_duration) as lasted:
                failure = await self._converse(socket)
            if lasted.cancelled_caught:
                failure = _RequestError(408, "the stream lasted longer than"
                                             f" {self.settings.stream_duration:g} seconds")
            if failure is not None:
                await _close_with(socket, _refusal(failure, request_id), request_id)
        except (WebSocketDisconnect, OSError, RuntimeError):  # gone while it was told
            return
        finally:
            self._streams.give(client)

    async def _converse(self, socket: WebSocket) -> Exception | None:
        """Read a WebSocket stream's messages and answer each; the error that ended it,
        or None when it ended well or the client went away.
        """
        auditor: StreamAuditor | None = None
        size = 0
        try:
            while True:
                data = await self._frame(socket)
                if data is None:
                    return None
                size += len(data)
                if size > self.settings.stream_max_bytes:
                    raise _RequestError(413, "the stream is larger than"
                                             f" {self.settings.stream_max_bytes} bytes in all")
                message = _message(data)
                if auditor is None:
                    auditor = self._auditor(message)
                elif isinstance(message, dict) and message.get("end"):
                    report = auditor.finish()
                    self.tally.report(report.to_dict())
                    await socket.send_text(orjson.dumps(
                        {"rest": auditor.rest, "report": report.to_dict()}).decode())
                    await socket.close()
                    return None
                elif shown := auditor.feed(_chunk_of(message)):
                    await socket.send_text(orjson.dumps({"text": shown}).decode())
        except WebSocketDisconnect:
            return None
        except Exception as error:  # told to the client in its shape
            return error

    async def _frame(self, socket: WebSocket) -> bytes | None:
        """The next message's bytes (text frames as UTF-8), within the idle timeout; None
        when the client has closed.
        """
        message = await _received(socket.receive, self.settings.stream_idle_timeout)
        if message["type"] == "websocket.disconnect":
            return None
        text = message.get("text")
        data: bytes = text.encode() if text is not None else message.get("bytes") or b""
        if len(data) > self.settings.max_bytes:
            raise _RequestError(413, f"a message is larger than {self.settings.max_bytes}"
                                     " bytes")
        return data

    def _auditor(self, first: Any) -> StreamAuditor:
        if not isinstance(first, dict) or "sources" not in first:
            raise _RequestError(422, "body: line 1: the first line must be {\"sources\": ...}")
        config, _ = self._options(first)
        return StreamAuditor(first["sources"], config=config)

    def _options(self, body: dict[str, Any]) -> tuple[Any, str | None]:
        options = dict(_field(body, "options", dict, {}))
        answer_format = options.pop("answer-format", None)
        if answer_format is not None and not isinstance(answer_format, str):
            raise _RequestError(422, "body: $.options.answer-format: must be a string")
        try:
            config = config_with(self.settings.config, options, "$.options") if options \
                else self.settings.config
        except ConfigError as error:
            raise _RequestError(422, f"body: $.options: {error}") from None
        return config, answer_format

    # What every request goes through -----------------------------------------------------

    def endpoint(self, name: str, work: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
        """An ASGI app for a JSON request/response endpoint. It speaks ASGI itself, with no
        request or response objects: on a sub-millisecond audit their cost shows.
        """
        async def app(scope: Any, receive: Any, send: Any) -> None:
            started = time.perf_counter()
            connection = HTTPConnection(scope)
            request_id = connection.headers.get("x-request-id") or _request_id()
            status = 500
            body: dict[str, Any] | None = None
            try:
                try:
                    self._authorise(connection)
                    body, size = await self._body(connection, receive)
                    # Small requests are audited on the event loop (a thread hop costs more
                    # than their audit); larger ones in a thread, under the timeout.
                    data = self._inline(work, body) if size <= _INLINE else \
                        await self._run(work, body)
                    status = 200
                    await _send_json(send, data, 200, request_id)
                except (ClientDisconnect, OSError):
                    raise
                except Exception as error:  # never a traceback to the client
                    refused = _refusal(error, request_id)
                    status = refused.status
                    await _send_json(send, _error_body(refused, request_id), status,
                                     request_id, refused.headers)
            except (ClientDisconnect, OSError):  # gone, maybe while the answer was written
                status = 499
            finally:
                elapsed = time.perf_counter() - started
                self.tally.request(name, status, elapsed)
                self._log(connection, request_id, status, elapsed, body)
        return _Asgi(app)

    def _authorise(self, request: HTTPConnection) -> None:
        tokens = self.settings.tokens
        if not tokens:
            return
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not given:
            raise _RequestError(401, "a bearer token is required (Authorization: Bearer TOKEN)",
                            {"www-authenticate": "Bearer"})
        matched = False
        for token in tokens:  # every token compared, in constant time each
            matched |= hmac.compare_digest(token.encode(), given.encode())
        if not matched:
            raise _RequestError(401, "the bearer token is not accepted",
                            {"www-authenticate": "Bearer error=\"invalid_token\""})

    def _inline(self, work: Callable[[dict[str, Any]], dict[str, Any]],
                body: dict[str, Any]) -> dict[str, Any]:
        self._audits.take()
        try:
            return work(body)
        finally:
            self._audits.give()

    async def _body(self, connection: HTTPConnection, receive: Any,
                    ) -> tuple[dict[str, Any], int]:
        """The request's body as a JSON object, read whole within the read timeout (408
        beyond: a client that sends its body slowly, or stops, holds nothing for long).
        """
        return await self._deadlines.keep(self._read_body(connection, receive))

    async def _read_body(self, connection: HTTPConnection, receive: Any,
                         ) -> tuple[dict[str, Any], int]:
        limit = self.settings.max_bytes
        declared = connection.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise _too_large(limit)
        message = await receive()
        if message["type"] == "http.request" and not message.get("more_body", False):
            # The whole body in one message, as a small request comes: no reading loop.
            data = message.get("body", b"")
            if len(data) > limit:
                raise _too_large(limit)
            body, size = _decoded(data), len(data)
        else:
            body, size = await _read_json(_chunks(receive, message), limit)
        if not isinstance(body, dict):
            raise _RequestError(422, "body: $: must be a JSON object")
        return body, size

    async def _run(self, work: Callable[[dict[str, Any]], dict[str, Any]],
                   body: dict[str, Any]) -> dict[str, Any]:
        self._audits.take()

        def bounded() -> dict[str, Any]:
            try:
                return work(body)
            finally:  # released when the work ends, even after its request timed out
                self._audits.give()

        try:
            with anyio.fail_after(self.settings.timeout):
                return await anyio.to_thread.run_sync(bounded, abandon_on_cancel=True,
                                                      limiter=self._limiter)
        except TimeoutError:
            raise _RequestError(504, f"the request took longer than {self.settings.timeout:g}"
                                 " seconds") from None

    def _log(self, request: HTTPConnection, request_id: str, status: int, elapsed: float,
             body: dict[str, Any] | None) -> None:
        """One JSON line on standard error, written straight to it (the logging module's
        records and handlers cost more than the line).
        """
        if not self.settings.access_log:
            return
        # The process, so that a line names the worker that answered when there are several.
        entry: dict[str, Any] = {"request_id": request_id, "method": request.scope["method"],
                                 "path": request.scope["path"], "status": status,
                                 "ms": round(elapsed * 1000, 3), "pid": os.getpid()}
        if self.settings.log_bodies and body is not None:
            entry["body"] = body
        sys.stderr.write(orjson.dumps(entry, default=str).decode() + "\n")


def create_app(settings: Settings | None = None) -> Starlette:
    """The service's ASGI application (run it with any ASGI server; ``citeaudit serve`` uses
    uvicorn).
    """
    service = _Service(settings or Settings())

    async def healthz(_: Request) -> Response:
        return _json({"status": "ok"})

    async def readyz(_: Request) -> Response:
        return _json({"status": "ready"} if service.ready else {"status": "starting"},
                     200 if service.ready else 503)

    async def metrics(_: Request) -> Response:
        return Response(generate_latest(service.registry), media_type=CONTENT_TYPE_LATEST)

    async def openapi(_: Request) -> Response:
        return _json(OPENAPI)

    async def docs(_: Request) -> Response:
        return HTMLResponse(docs_page())

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # One audit before the first request: imports, registries and regexes are ready.
        audit("Ready [1].", ["Ready."])
        if service.pooled is not None:
            service.pooled.start()
        service.ready = True
        try:
            yield
        finally:
            if service.pooled is not None:
                service.pooled.stop()

    middleware = [Middleware(CORSMiddleware, allow_origins=list(service.settings.cors),
                             allow_methods=["GET", "POST"],
                             allow_headers=["authorization", "content-type", "x-request-id"])
                  ] if service.settings.cors else []
    audit_endpoint = service.endpoint("audit", service.audit)
    guard_endpoint = service.endpoint("guard", service.guard)
    context_endpoint = service.endpoint("context", service.context)
    routes = [Route("/v1/audit", audit_endpoint, methods=["POST"]),
              Route("/v1/guard", guard_endpoint, methods=["POST"]),
              Route("/v1/context", context_endpoint, methods=["POST"]),
              Route("/v1/eval", service.streaming("eval", service.eval), methods=["POST"]),
              Route("/v1/stream", service.streaming("stream", service.stream,
                                                    service.settings.stream_max_bytes),
                    methods=["POST"]),
              WebSocketRoute("/v1/stream", service.websocket),
              Route("/healthz", healthz), Route("/readyz", readyz), Route("/metrics", metrics),
              Route("/openapi.json", openapi), Route("/docs", docs)]
    async def refused(request: Request, error: Exception) -> Response:
        request_id = request.headers.get("x-request-id") or _request_id()
        told = _refusal(error, request_id)
        return _json(_error_body(told, request_id), told.status,
                     {"x-request-id": request_id, **told.headers})

    app = _App(routes=routes, middleware=middleware, lifespan=lifespan,
               exception_handlers={HTTPException: refused, Exception: refused})
    app.direct = {} if middleware else {"/v1/audit": audit_endpoint,
                                        "/v1/guard": guard_endpoint,
                                        "/v1/context": context_endpoint}
    app.state.service = service
    return app


def app_from_environment() -> Starlette:
    """The app each ``citeaudit serve`` worker runs, from the settings it was started with."""
    from citeaudit.service._settings import from_environment  # noqa: PLC0415 - workers only

    return create_app(from_environment())

"""What ``citeaudit serve`` adds to uvicorn's HTTP protocol (httptools): a deadline for a
request's headers, a bound on their size, and a cap on open connections.

uvicorn closes a connection idle between two requests (``timeout_keep_alive``), but one that
opens and sends nothing, or trickles its headers a byte at a time, it holds for ever; and it
accepts connections until the process runs out of file descriptors, when nothing, health
checks included, is answered any more. ``limit_concurrency`` does not help: it answers 503
to every request, probes too, once that many connections are open.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import os
import resource
from typing import Any

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from citeaudit.service._settings import Settings, numbers_from_environment

__all__ = ["HttpProtocol"]

MAX_HEADER_BYTES = 65_536  # a request line and headers together (431 beyond)
# File descriptors kept for what is not a connection: the listening socket, log and
# configuration files, the event loop's own, and a burst of connections accepted at once
# before any is seen (asyncio accepts up to 100 in one go).
_RESERVED_FDS = 128


class _Limits:
    """The worker's limits: how long headers may take, how many connections may be open."""

    def __init__(self, read_timeout: float, max_connections: int) -> None:
        self.read_timeout = read_timeout
        self.max_connections = max_connections


@functools.cache
def _limits() -> _Limits:
    settings = dataclasses.replace(Settings(), **{
        name: value for name, value in numbers_from_environment().items()
        if name in ("read_timeout", "max_connections")})
    return _Limits(settings.read_timeout, _within_descriptors(settings.max_connections))


def _within_descriptors(wanted: int) -> int:
    """``wanted``, or fewer when the process may not open that many files: a connection
    closed to make room is better than a listener that can accept nothing.
    """
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    room = soft - _RESERVED_FDS if soft >= 2 * _RESERVED_FDS else soft // 2
    return max(1, min(wanted, room))


def _refusal(status: int, reason: bytes, message: str) -> bytes:
    """A whole response in the service's error shape, for a connection about to close (the
    request never reached the app: its id is made here).
    """
    request_id = os.urandom(16).hex().encode()
    body = orjson.dumps({"error": message, "request_id": request_id.decode()})
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"x-request-id: %s\r\nconnection: close\r\n\r\n%s"
            % (status, reason, len(body), request_id, body))


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request's headers (from the
    connection's opening, or from the first byte of a later request: the time between
    requests is uvicorn's keep-alive timeout), a bound on their size, and a cap on open
    connections: past it, the connection that has waited longest for its client, while its
    request's headers or body are still to come, is closed to make room (a new one is, when
    none is waiting).
    """

    _deadline: asyncio.TimerHandle | None = None
    _heard: float = 0.0  # when the client last sent something
    _header_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._heard = self.loop.time()
        if len(self.connections) > _limits().max_connections and self._crowded() \
                and not self._make_room():
            transport.abort()
            return
        self._arm()

    def data_received(self, data: bytes) -> None:
        self._heard = self.loop.time()
        waiting = self._awaiting_headers()
        super().data_received(data)
        if not waiting or not self._awaiting_headers() or self.transport.is_closing() \
                or self.transport.get_protocol() is not self:  # closed, or a WebSocket now
            return
        # A request whose headers are not all here yet: they have a deadline (when this
        # is its first byte) and a size bound.
        self._arm()
        self._header_bytes += len(data)
        if self._header_bytes > MAX_HEADER_BYTES:
            self._close_with(_refusal(431, b"Request Header Fields Too Large",
                                      f"the request's headers are larger than"
                                      f" {MAX_HEADER_BYTES} bytes"))

    def on_headers_complete(self) -> None:
        self._disarm()
        self._header_bytes = 0
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._draining() and not self.transport.is_closing():
            # Answered before its body was read whole (413, 408, a stream ended): the rest
            # is read and dropped, as uvicorn does, but for no longer than headers may take.
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        self._close_with(_refusal(400, b"Bad Request", msg))

    def _awaiting_headers(self) -> bool:
        cycle: RequestResponseCycle | None = self.cycle
        return cycle is None or (cycle.response_complete and not cycle.more_body
                                 and not self.pipeline)

    def _draining(self) -> bool:
        """Whether the request was answered and the rest of its body is still to come."""
        cycle: RequestResponseCycle | None = self.cycle
        return cycle is not None and cycle.response_complete and cycle.more_body

    def _reading(self) -> bool:
        """Whether the client still owes something: headers, or the rest of a body."""
        cycle: RequestResponseCycle | None = self.cycle
        return cycle is None or cycle.more_body or self._awaiting_headers()

    def _crowded(self) -> bool:
        """Whether more connections are open than allowed, not counting those closing (a
        burst of new ones must not each close another for the same room).
        """
        open_now = sum(not c.transport.is_closing() for c in self.connections
                       if isinstance(c, HttpProtocol))
        return open_now > _limits().max_connections

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(_limits().read_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if (self._awaiting_headers() or self._draining()) and not self.transport.is_closing() \
                and self.transport.get_protocol() is self:
            self.transport.abort()

    def _close_with(self, response: bytes) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(response)
            self.transport.close()

    def _make_room(self) -> bool:
        """Close the connection silent longest whose client still owes its request; False
        when there is none.
        """
        waiting = [c for c in self.connections
                   if c is not self and isinstance(c, HttpProtocol) and c._reading()
                   and not c.transport.is_closing()]
        if not waiting:
            return False
        oldest: Any = min(waiting, key=lambda c: c._heard)
        oldest.transport.abort()
        return True

"""``citeaudit serve`` cannot be locked out: a real server on a loopback port, held by raw
sockets that open streams and send nothing, stall their bodies or trickle their headers,
keeps answering its audits and health checks; idle streams, stalled bodies and trickled
headers are closed within their timeouts; a stream is bounded in bytes and in time; a
WebSocket message in size; and whatever fails is told in the service's JSON error shape.

Every socket here is on 127.0.0.1, every loop bounded in count and in time.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from citeaudit.errors import ConfigError
from citeaudit.service import Settings
from test_service import ANSWER, SOURCES, Server, start  # noqa: F401 - the real server

AUDIT = {"answer": ANSWER, "sources": SOURCES}
FIRST = json.dumps({"sources": SOURCES}).encode() + b"\n"


def _connect(server: Server, head: bytes = b"") -> socket.socket:
    port = int(server.url.rsplit(":", 1)[1])
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    if head:
        raw.sendall(head)
    return raw


def _chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def _stream_head(path: str) -> bytes:
    return (f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            "Content-Type: application/x-ndjson\r\n\r\n").encode()


def _until_closed(raw: socket.socket, seconds: float) -> bytes:
    """Everything the server sends until it closes the connection, within ``seconds``."""
    raw.settimeout(seconds)
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            data = raw.recv(65536)
        except ConnectionResetError:
            return received
        except TimeoutError:
            break
        if not data:
            return received
        received += data
    pytest.fail(f"the connection is still open after {seconds} s: {received[:200]!r}")


def _response(raw: socket.socket, seconds: float) -> tuple[bytes, bytes]:
    """One whole response's head and body (a chunked body decoded), within ``seconds``."""
    raw.settimeout(seconds)
    received = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        head, _, rest = received.partition(b"\r\n\r\n")
        if b"transfer-encoding: chunked" in head.lower() and rest.endswith(b"0\r\n\r\n"):
            return head, _dechunked(rest)
        if data := raw.recv(65536):
            received += data
        else:
            break
    pytest.fail(f"no whole response within {seconds} s: {received[:300]!r}")


def _dechunked(data: bytes) -> bytes:
    body = b""
    while True:
        size, _, data = data.partition(b"\r\n")
        if not int(size, 16):
            return body
        body, data = body + data[:int(size, 16)], data[int(size, 16) + 2:]


def _json_error(response: bytes) -> tuple[int, dict[str, Any]]:
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"content-type: application/json" in head.lower(), head
    return int(head.split()[1]), json.loads(body)


def _silent(sockets: list[socket.socket]) -> bool:
    """Whether none of ``sockets`` has been answered or closed yet."""
    readable, _, _ = select.select(sockets, [], [], 0)
    return not readable


def _eventually(check: Callable[[], bool], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    pytest.fail("never happened")


def _in_progress(server: Server, kind: str) -> int:
    for line in httpx.get(server.url + "/metrics", timeout=10).text.splitlines():
        if line.startswith(f'citeaudit_in_progress{{kind="{kind}"}}'):
            return int(float(line.split()[-1]))
    pytest.fail("no citeaudit_in_progress in /metrics")


def _answers(server: Server) -> None:
    """The audits and the health check are answered, at once."""
    for _ in range(3):
        reply = httpx.post(server.url + "/v1/audit", json=AUDIT, timeout=5)
        assert reply.status_code == 200, reply.text
    assert httpx.get(server.url + "/healthz", timeout=5).status_code == 200


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    yield opened
    for raw in opened:
        raw.close()


IDLE = 3.0  # the servers' idle and read timeouts in these tests, in seconds


def test_idle_streams_stalled_bodies_and_trickled_headers_lock_nothing_out(
        start: Any, sockets: list[socket.socket]) -> None:  # noqa: F811
    server = start("--concurrency", "4", "--stream-concurrency", "4",
                   "--stream-idle-timeout", str(IDLE), "--read-timeout", str(IDLE))
    opened = time.monotonic()
    idle = [_connect(server, _stream_head(path))
            for path in ("/v1/stream", "/v1/eval", "/v1/stream", "/v1/eval")]
    stalled = [_connect(server, head) for head in (
        b"POST /v1/audit HTTP/1.1\r\nHost: x\r\nContent-Length: 300\r\n\r\n{",
        b"POST /v1/guard HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
        b"POST /v1/context HTTP/1.1\r\nHost: x\r\nContent-Length: 90\r\n\r\n")]
    trickled = [_connect(server, head) for head in (  # each goes on with "X"s, a byte a time
        b"GET /", b"POST /v1/audit HTTP/1.1\r\nHo", b"GET /healthz HTTP/1.1\r\nX-Slow: ")]
    quiet = _connect(server)  # opens, and says nothing at all
    sockets += [*idle, *stalled, *trickled, quiet]
    # The idle streams hold every stream slot: one more is turned away, audits are not.
    _eventually(lambda: _in_progress(server, "streams") == 4)
    extra = httpx.post(server.url + "/v1/stream", content=FIRST, timeout=5)
    assert extra.status_code == 503
    assert extra.json()["error"].startswith("the service is at capacity (4 streams")
    assert _silent(idle), "an idle stream was answered before its idle timeout"
    while time.monotonic() - opened < IDLE - 0.5:  # the trickle goes on; all the while...
        for raw in trickled:
            raw.sendall(b"X")
        _answers(server)
        time.sleep(0.2)
    # ...and then each is closed: the idle streams and the stalled bodies with a 408 in the
    # service's error shape, the headers that never ended without a word.
    for raw in [*idle, *stalled]:
        status, error = _json_error(_until_closed(raw, IDLE + 2))
        assert status == 408, error
        assert set(error) == {"error", "request_id"}
    for raw in [*trickled, quiet]:
        assert _until_closed(raw, IDLE + 2) == b""
    assert time.monotonic() - opened < IDLE + 2  # each closed at its timeout, give or take
    _eventually(lambda: _in_progress(server, "streams") == 0)  # every slot given back
    reply = httpx.post(server.url + "/v1/stream", content=FIRST + b'{"chunk": "Hi [1]."}\n',
                       timeout=5)
    assert reply.status_code == 200
    assert "report" in reply.text.splitlines()[-1]


def test_a_stream_that_stops_midway_is_ended_with_an_error_line(
        start: Any, sockets: list[socket.socket]) -> None:  # noqa: F811
    server = start("--stream-idle-timeout", "1")
    line = json.dumps({"chunk": "Refunds take 14 days [1]. And more"}).encode() + b"\n"
    for path, body in (("/v1/stream", FIRST + line),
                       ("/v1/eval", json.dumps({"id": "a", **AUDIT}).encode() + b"\n")):
        raw = _connect(server, _stream_head(path) + _chunk(body))
        sockets.append(raw)
        started = time.monotonic()
        head, answer = _response(raw, 5)
        assert time.monotonic() - started < 3
        assert head.startswith(b"HTTP/1.1 200"), head  # begun: the error is its last line
        *shown, last = [json.loads(line) for line in answer.splitlines()]
        assert shown, answer
        assert last == {"error": "the client sent nothing for 1 seconds",
                        "request_id": last["request_id"]}
    _eventually(lambda: _in_progress(server, "streams") == 0)


def test_streams_from_one_client_are_capped_when_asked(
        start: Any, sockets: list[socket.socket]) -> None:  # noqa: F811
    server = start("--streams-per-client", "2", "--stream-idle-timeout", "20")
    sockets += [_connect(server, _stream_head(p)) for p in ("/v1/stream", "/v1/eval")]
    _eventually(lambda: _in_progress(server, "streams") == 2)
    for path in ("/v1/stream", "/v1/eval"):
        refused = httpx.post(server.url + path, content=FIRST, timeout=5)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "1"
        assert refused.json()["error"] == ("this client has 2 streams open, the most one"
                                           " client may")
    from websockets.exceptions import InvalidStatus  # noqa: PLC0415 - only here
    from websockets.sync.client import connect  # noqa: PLC0415

    with pytest.raises(InvalidStatus) as denied:  # the same answer, before it is opened
        connect(server.url.replace("http", "ws") + "/v1/stream")
    assert denied.value.response.status_code == 429
    assert json.loads(denied.value.response.body or b"")["error"].startswith("this client")
    _answers(server)
    for raw in sockets:
        raw.close()
    _eventually(lambda: _in_progress(server, "streams") == 0)
    assert httpx.post(server.url + "/v1/stream", content=FIRST, timeout=5).status_code == 200


def _lines_of(reply: httpx.Response) -> list[dict[str, Any]]:
    return [json.loads(line) for line in reply.text.splitlines()]


def test_a_stream_over_its_total_or_its_duration_is_ended_with_an_error(
        start: Any) -> None:  # noqa: F811
    server = start("--max-bytes", "20000", "--stream-max-bytes", "30000",
                   "--stream-duration", "1")
    settled = json.dumps({"chunk": "Refunds take 14 days [1]. " * 20}).encode() + b"\n"

    def lines(count: int, every: float = 0.0) -> Iterator[bytes]:
        yield FIRST
        for _ in range(count):
            yield settled
            time.sleep(every)

    # Every line under --max-bytes, their total over --stream-max-bytes.
    reply = httpx.post(server.url + "/v1/stream", content=lines(100), timeout=10)
    *shown, last = _lines_of(reply)
    assert reply.status_code == 200
    assert shown
    assert all("text" in line for line in shown)
    assert last["error"] == "the stream is larger than 30000 bytes in all"
    # Over the total before anything is settled: the error is the whole answer.
    unsettled = json.dumps({"chunk": "x" * 15000}).encode() + b"\n"
    reply = httpx.post(server.url + "/v1/stream", content=FIRST + unsettled * 3, timeout=10)
    assert reply.status_code == 413
    assert reply.json()["error"] == "the stream is larger than 30000 bytes in all"
    # Never idle, but on for longer than --stream-duration: /v1/stream, and /v1/eval.
    reply = httpx.post(server.url + "/v1/stream", content=lines(20, 0.1), timeout=10)
    assert _lines_of(reply)[-1]["error"] == "the stream lasted longer than 1 seconds"
    record = json.dumps({"id": "a", **AUDIT}).encode() + b"\n"

    def records() -> Iterator[bytes]:
        for _ in range(20):
            yield record
            time.sleep(0.1)

    reply = httpx.post(server.url + "/v1/eval", content=records(), timeout=10)
    rows = _lines_of(reply)
    assert rows[0]["id"] == "a"
    assert rows[-1]["error"] == "the stream lasted longer than 1 seconds"
    _eventually(lambda: _in_progress(server, "streams") == 0)


def test_websocket_messages_are_bounded_by_max_bytes_and_streams_by_their_limits(
        start: Any) -> None:  # noqa: F811
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415 - only this test
    from websockets.sync.client import connect  # noqa: PLC0415

    server = start("--max-bytes", "20000", "--stream-max-bytes", "50000",
                   "--stream-idle-timeout", "1")
    url = server.url.replace("http", "ws") + "/v1/stream"
    for message in (json.dumps({"sources": SOURCES, "pad": "x" * 20000}),
                    json.dumps({"sources": SOURCES}).encode() + b" " * 30000):
        with connect(url, max_size=None) as ws:
            ws.send(message)
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 1009  # message too big, refused unread
    chunk = json.dumps({"chunk": "Refunds take 14 days [1]. " * 500})  # 13 kB a message
    with connect(url) as ws:
        ws.send(json.dumps({"sources": SOURCES}))
        told: dict[str, Any] = {}
        for _ in range(10):  # 13 kB each: the fourth goes over
            ws.send(chunk)
            told = json.loads(ws.recv(timeout=10))
            if "error" in told:
                break
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert told["error"] == "the stream is larger than 50000 bytes in all"
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009
    with connect(url) as ws:
        ws.send(json.dumps({"sources": SOURCES}))
        started = time.monotonic()
        assert json.loads(ws.recv(timeout=5))["error"] == ("the client sent nothing for 1"
                                                           " seconds")
        assert time.monotonic() - started < 3
    _eventually(lambda: _in_progress(server, "streams") == 0)


def test_open_connections_are_capped_and_the_stalled_make_room(
        start: Any, sockets: list[socket.socket]) -> None:  # noqa: F811
    server = start("--max-connections", "16", "--read-timeout", "60")
    for n in range(40):
        head = (b"GET /healthz HTTP/1.1\r\n" if n % 2 else
                b"POST /v1/audit HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{")
        sockets.append(_connect(server, head))
    for _ in range(5):  # each new connection closes the one silent longest
        _answers(server)
    assert not _silent(sockets[:20]), "the oldest stalled connections are still open"
    at_once = _connect(server, b"GET /healthz HTTP/1.1\r\nX-Big: " + b"x" * 70_000)
    in_parts = _connect(server, b"GET /healthz HTTP/1.1\r\n")
    sockets += [at_once, in_parts]
    for _ in range(7):  # 70 kB of headers, 10 kB at a time
        in_parts.sendall(b"X-More: " + b"y" * 10_000 + b"\r\n")
    for big in (at_once, in_parts):
        status, error = _json_error(_until_closed(big, 5))
        assert status == 431
        assert error == {"error": "the request's headers are larger than 65536 bytes",
                         "request_id": error["request_id"]}


def test_under_a_low_file_limit_stalled_connections_leave_health_checks_answered(
        start: Any, sockets: list[socket.socket]) -> None:  # noqa: F811
    server = start("--read-timeout", "60", nofile=256)
    for n in range(300):
        try:
            sockets.append(_connect(server, b"POST /v1/audit HTTP/1.1\r\nHo" if n % 2
                                    else b"POST /v1/audit HTTP/1.1\r\nContent-Length: 9\r\n"
                                         b"\r\n{"))
        except OSError:  # closed by the server to make room before it was written to
            continue
    started = time.monotonic()
    _answers(server)
    assert time.monotonic() - started < 5
    assert not _silent(sockets), "no connection was closed to make room"


CRASHING_CHECK = '''
def crash(context):
    raise RuntimeError("a bug in a check")
'''


def test_an_unexpected_error_is_a_json_500_at_every_endpoint(
        start: Any, plugins: Any) -> None:  # noqa: F811
    from websockets.exceptions import ConnectionClosed  # noqa: PLC0415 - only this test
    from websockets.sync.client import connect  # noqa: PLC0415

    plugins({"crashing_check": CRASHING_CHECK},
            {"citeaudit.checks": {"crash": "crashing_check:crash"}})
    server = start()
    options = {"checks": ["crash"]}
    first = json.dumps({"sources": SOURCES, "options": options}).encode() + b"\n"
    replies = [
        httpx.post(server.url + "/v1/audit", json={**AUDIT, "options": options}, timeout=10),
        httpx.post(server.url + "/v1/guard", json={**AUDIT, "options": options}, timeout=10),
        httpx.post(server.url + "/v1/stream", content=first, timeout=10)]
    for reply in replies:
        assert reply.status_code == 500, reply.text
        assert reply.headers["content-type"] == "application/json"
        assert reply.json() == {"error": "internal error",
                                "request_id": reply.headers["x-request-id"]}
    # A dataset run goes on: the record whose audit breaks is unreadable, as in citeaudit eval.
    evaluated = httpx.post(server.url + "/v1/eval", params={"options": json.dumps(options)},
                           content=json.dumps({"id": "a", **AUDIT}).encode() + b"\n",
                           timeout=10)
    assert evaluated.status_code == 200
    (row, total) = _lines_of(evaluated)
    assert (row["status"], row["error"]) == ("unreadable", "the audit failed (RuntimeError: a"
                                             " bug in a check): a bug in citeaudit or in a"
                                             " check it ran")
    assert total["aggregate"]["unreadable"] == 1
    # Once the answer has begun, the error is its last line, in the same shape.
    begun = httpx.post(server.url + "/v1/stream", content=first + b'{"chunk": "Hi [1]."}\n',
                       timeout=10)
    assert begun.status_code == 200
    assert _lines_of(begun) == [{"text": "Hi [1]."}, {
        "error": "internal error", "request_id": begun.headers["x-request-id"]}]
    with connect(server.url.replace("http", "ws") + "/v1/stream") as ws:
        ws.send(json.dumps({"sources": SOURCES, "options": options}))
        ws.send(json.dumps({"end": True}))
        assert set(json.loads(ws.recv(timeout=10))) == {"error", "request_id"}
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1011
    for method, path, status in (("GET", "/nothing", 404), ("GET", "/v1/audit", 405),
                                 ("POST", "/healthz", 405)):
        reply = httpx.request(method, server.url + path, timeout=10)
        assert reply.status_code == status
        assert set(reply.json()) == {"error", "request_id"}
    garbled = _connect(server, b"NOT HTTP AT ALL\r\n\r\n")
    with garbled:
        status, error = _json_error(_until_closed(garbled, 5))
    assert status == 400
    assert error == {"error": "Invalid HTTP request received.",
                     "request_id": error["request_id"]}
    assert "RuntimeError: a bug in a check" in server.log.read_text()


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--read-timeout", "0", "argument --read-timeout: must be more than 0 seconds, not 0"),
    ("--stream-idle-timeout", "-1", "must be more than 0 seconds, not -1"),
    ("--stream-duration", "nan", "must be more than 0 seconds, not nan"),
    ("--timeout", "inf", "argument --timeout: must be more than 0 seconds, not inf"),
    ("--timeout", "soon", "argument --timeout: not a number of seconds: 'soon'"),
    ("--stream-concurrency", "0", "argument --stream-concurrency: must be at least 1, not 0"),
    ("--streams-per-client", "-2", "argument --streams-per-client: must be at least 0, not -2"),
    ("--stream-max-bytes", "1.5", "argument --stream-max-bytes: not a whole number: '1.5'"),
    ("--max-connections", "0", "argument --max-connections: must be at least 1, not 0"),
])
def test_bad_limits_are_refused_before_the_server_starts(option: str, value: str,
                                                         message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "citeaudit", "serve", "--port", "1", option,
                           value], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2, done.stderr  # usage and the error


def test_the_limits_are_in_serve_help_and_the_service_page() -> None:
    done = subprocess.run([sys.executable, "-m", "citeaudit", "serve", "--help"],
                          capture_output=True, text=True, timeout=60, check=True)
    help_text = " ".join(done.stdout.split())
    service = (Path(__file__).parents[1] / "docs" / "service.md").read_text()
    for option in ("--read-timeout", "--max-connections", "--stream-concurrency",
                   "--streams-per-client", "--stream-idle-timeout", "--stream-duration",
                   "--stream-max-bytes"):
        assert option in help_text
        assert f"| `{option} " in service, option


@pytest.mark.parametrize(("name", "value", "least"), [
    ("stream_idle_timeout", 0.0, "more than 0"), ("read_timeout", float("nan"), "more than 0"),
    ("stream_duration", float("inf"), "more than 0"), ("max_connections", 0, "more than 0"),
    ("streams_per_client", -1, "at least 0")])
def test_settings_refuse_limits_that_make_no_sense(name: str, value: float,
                                                   least: str) -> None:
    with pytest.raises(ConfigError, match=f"^service setting {name}: must be a finite number"
                                          f" {least}, not "):
        Settings(**{name: value})
    assert getattr(Settings(**{name: 5}), name) == 5

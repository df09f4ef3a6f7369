"""``citeaudit serve`` beside the in-process call it wraps, measured in one run.

    python3 benchmarks/bench_service.py [--requests N] [--workers W] [--parsers]

Starts the real service (one worker unless ``--workers``) on a free loopback port and sends
``/v1/audit`` and ``/v1/guard`` requests for the ``bench_audit.py`` corpus from 1, 8 and 64
concurrent clients (each a keep-alive connection), then measures the same calls in process.
Prints requests/s and p50/p99 latency. Targets: p50 overhead over the in-process call <= 1 ms
at 1 client; >= 80% of the in-process throughput per worker at 8 clients.

The clients write prebuilt HTTP/1.1 requests on raw sockets and read each reply by its
``Content-Length`` (what a load generator such as wrk does): a client library's own parsing
would be measured as the service's overhead. On a machine whose cores the clients share with
the server, throughput per worker is also given per CPU-second (the server process's against
the in-process loop's: each side's capacity, whatever the clients take), beside the
wall-clock rate.

It also drives the ASGI app in process, with no server and no sockets, interleaved with the
library's call: what the app itself adds, and how much of it decoding the body is.
``--parsers`` runs uvicorn with h11 on asyncio and with httptools on uvloop side by side,
interleaved rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import orjson

sys.path.insert(0, str(Path(__file__).parent))

from corpus import corpus

import citeaudit
from citeaudit.core._engine import run


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


_FLOOR_REPLY = json.dumps({"report": "x" * 3000}).encode()


async def floor_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The least any JSON service does a request: read the body, parse it, answer a reply
    of a report's size (served by uvicorn as ``citeaudit serve`` runs it: the HTTP floor).
    """
    if scope["type"] == "lifespan":
        await receive()  # lifespan.startup
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
        await send({"type": "lifespan.shutdown.complete"})
        return
    if scope["path"] == "/readyz":
        reply = b"{}"
    else:
        parts = []
        while True:
            message = await receive()
            parts.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        orjson.loads(b"".join(parts))
        reply = _FLOOR_REPLY
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(reply)).encode())]})
    await send({"type": "http.response.body", "body": reply})


def _start(workers: int, parser: tuple[str, str] | None = None, floor: bool = False,
           cpus: set[int] | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``citeaudit serve``, or (``parser``: uvicorn's ``--http`` and ``--loop``) uvicorn
    serving the same app, or (``floor``) uvicorn as ``citeaudit serve`` runs it serving
    :func:`floor_app`; on the CPUs ``cpus`` when given.
    """
    port = _free_port()
    command = [sys.executable, "-m", "citeaudit", "serve", "--port", str(port), "--workers",
               str(workers), "--concurrency", "256"]
    if parser is not None:
        command = [sys.executable, "-m", "uvicorn", "--factory",
                   "citeaudit.service._app:app_from_environment", "--port", str(port),
                   "--http", parser[0], "--loop", parser[1], "--no-access-log",
                   "--log-level", "warning"]
    if floor:
        command = [sys.executable, "-m", "uvicorn", "bench_service:floor_app", "--port",
                   str(port), "--http", "httptools", "--loop", "uvloop", "--no-access-log",
                   "--log-level", "warning", "--no-proxy-headers", "--no-server-header"]
    environment = {**os.environ, "CITEAUDIT_SERVE_CONCURRENCY": "256",
                   "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent),
                                                  os.environ.get("PYTHONPATH", "")])}
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env=environment)
    if cpus:  # before it starts its workers (they inherit it): Python takes longer to start
        os.sched_setaffinity(process.pid, cpus)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not become ready")


class _Connection:
    """One keep-alive HTTP/1.1 connection: a request written whole, the reply read by its
    ``Content-Length``.
    """

    def __init__(self, host: str, port: int) -> None:
        self._socket = socket.create_connection((host, port), timeout=60)
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._pending = b""

    def exchange(self, request: bytes) -> tuple[int, bytes]:
        self._socket.sendall(request)
        data = self._pending
        while b"\r\n\r\n" not in data:
            data += self._recv()
        head, _, body = data.partition(b"\r\n\r\n")
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(body) < length:
            body += self._recv()
        self._pending = body[length:]
        return status, body[:length]

    def _recv(self) -> bytes:
        chunk = self._socket.recv(1 << 16)
        if not chunk:
            raise SystemExit("the service closed the connection")
        return chunk

    def close(self) -> None:
        self._socket.close()


def _request(host: str, path: str, body: dict[str, Any]) -> bytes:
    payload = json.dumps(body).encode()
    return (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n").encode() + payload


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of a process and its children (the workers), on Linux."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # a process that ended meanwhile
        if stat.parent.name == str(pid) or fields[1] == str(pid):
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _over_http(url: str, path: str, bodies: list[dict[str, Any]], clients: int,
               pid: int) -> tuple[float, float, list[float]]:
    """Requests/s (wall), requests per CPU-second of the server, and each request's
    latency (seconds), ``clients`` at a time, each on its own keep-alive connection.
    """
    host, port = url.removeprefix("http://").split(":")
    local = threading.local()
    opened: list[_Connection] = []
    requests = [_request(host, path, body) for body in bodies]

    def one(request: bytes) -> float:
        if not hasattr(local, "connection"):
            local.connection = _Connection(host, int(port))
            opened.append(local.connection)
        start = time.perf_counter()
        status, data = local.connection.exchange(request)
        elapsed = time.perf_counter() - start
        if status != 200:
            raise SystemExit(f"{path}: {status} {data[:200]!r}")
        return elapsed

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, requests[:clients * 4]))  # warm the connections
        cpu = _cpu_seconds(pid)
        start = time.perf_counter()
        latencies = list(pool.map(one, requests))
        wall = time.perf_counter() - start
        cpu = _cpu_seconds(pid) - cpu
    for connection in opened:
        connection.close()
    return len(bodies) / wall, len(bodies) / cpu if cpu else float("inf"), latencies


def _whole(answer: Any, sources: Any) -> citeaudit.Report:
    """The report ``/v1/audit`` sends: the whole audit at once (its findings are sent)."""
    return run(answer, sources).report


def _in_process(path: str, bodies: list[dict[str, Any]]) -> tuple[float, float, list[float]]:
    """Calls/s (wall), calls per CPU-second, and each call's latency (seconds)."""
    call = _whole if path == "/v1/audit" else citeaudit.guard
    latencies = []
    cpu = time.process_time()
    start = time.perf_counter()
    for body in bodies:
        began = time.perf_counter()
        result = call(body["answer"], body["sources"])
        result.to_dict()  # the service sends this
        latencies.append(time.perf_counter() - began)
    wall = time.perf_counter() - start
    return len(bodies) / wall, len(bodies) / (time.process_time() - cpu), latencies


def _asgi_overhead(bodies: list[dict[str, Any]], rounds: int = 3) -> None:
    """The app's ``/v1/audit`` driven in process beside ``audit()``, interleaved per
    request: medians of each and of their paired difference, and of decoding the body.
    """
    from citeaudit.core._loading import decode_json
    from citeaudit.service._app import create_app

    app = create_app()
    payloads = [json.dumps(body).encode() for body in bodies]

    async def drive(payload: bytes) -> None:
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/v1/audit",
                 "raw_path": b"/v1/audit", "query_string": b"", "root_path": "",
                 "headers": [(b"content-type", b"application/json"),
                             (b"content-length", str(len(payload)).encode())],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 8000), "state": {}}
        messages = iter([{"type": "http.request", "body": payload, "more_body": False}])

        async def receive() -> dict[str, Any]:
            return next(messages, {"type": "http.disconnect"})

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start" and message["status"] != 200:
                raise SystemExit(f"the app answered {message['status']}")

        await app(scope, receive, send)

    async def measure() -> tuple[list[float], list[float], list[float]]:
        served, called, decoded = [], [], []
        for payload in payloads[:100]:
            await drive(payload)  # warm
        for _ in range(rounds):
            for payload, body in zip(payloads, bodies, strict=True):
                began = time.perf_counter()
                await drive(payload)
                served.append(time.perf_counter() - began)
                began = time.perf_counter()
                _whole(body["answer"], body["sources"]).to_dict()
                called.append(time.perf_counter() - began)
                began = time.perf_counter()
                decode_json(payload, origin="body")
                decoded.append(time.perf_counter() - began)
        return served, called, decoded

    served, called, decoded = asyncio.run(measure())
    paired = [a - b for a, b in zip(served, called, strict=True)]
    print(f"  ASGI app in process: p50 {_p(served, 0.5):.3f} ms, audit() {_p(called, 0.5):.3f}"
          f" ms; the app adds {_p(paired, 0.5) * 1000:.0f} µs (paired median), of which"
          f" decoding the body {_p(decoded, 0.5) * 1000:.0f} µs")


def _parsers(bodies: list[dict[str, Any]], rounds: int = 3) -> None:
    """uvicorn with h11 on asyncio beside httptools on uvloop, interleaved rounds."""
    servers = {parser: _start(1, parser) for parser in (("h11", "asyncio"),
                                                         ("httptools", "uvloop"))}
    try:
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {p: [] for p in servers}
        for _ in range(rounds):
            for parser, (process, url) in servers.items():
                _, _, one = _over_http(url, "/v1/audit", bodies, 1, process.pid)
                rate, _, _ = _over_http(url, "/v1/audit", bodies, 8, process.pid)
                figures[parser].append((_p(one, 0.5), rate))
        for (http, loop), runs in figures.items():
            print(f"  {http} on {loop}: 1 client p50"
                  f" {' / '.join(f'{p50:.2f}' for p50, _ in runs)} ms; 8 clients"
                  f" {' / '.join(f'{rate:,.0f}' for _, rate in runs)} requests/s")
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(timeout=30)


def _p(latencies: list[float], q: float) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def _placement(workers: int, pin: bool) -> tuple[set[int] | None, set[int] | None]:
    """The CPUs of the server and of the clients: apart when there are enough (a load
    generator on its own machine, as in production), else shared (None).
    """
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) <= workers:
        return None, None
    return set(cpus[-workers:]), set(cpus[:-workers])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--parsers", action="store_true",
                        help="compare uvicorn's h11/asyncio with httptools/uvloop")
    parser.add_argument("--no-pin", action="store_true",
                        help="let the server and the clients share every CPU")
    args = parser.parse_args()
    bodies = [{"answer": a, "sources": p} for a, p in corpus(args.requests)]
    if args.parsers:
        print(f"requests: {len(bodies)} per run, uvicorn's parsers side by side")
        _parsers(bodies)
        return
    _asgi_overhead(bodies)
    server_cpus, client_cpus = _placement(args.workers, not args.no_pin)
    floor, floor_url = _start(1, floor=True, cpus=server_cpus)
    process, url = _start(args.workers, cpus=server_cpus)
    placed = (f"the server on CPU {sorted(server_cpus)}, the clients on CPU"
              f" {sorted(client_cpus)}" if server_cpus and client_cpus
              else "the server and the clients on the same CPUs")
    try:
        print(f"requests: {len(bodies)} per run, {args.workers} worker(s); {placed}")
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)
        floor_rates = [_over_http(floor_url, "/", bodies, 8, floor.pid)[1] for _ in range(3)]
        floor_cost = 1 / statistics.median(floor_rates)
        print(f"  HTTP floor (uvicorn as serve runs it; the body parsed, a fixed reply):"
              f" {floor_cost * 1e6:.0f} µs of the server's CPU a request at 8 clients")
        for path in ("/v1/audit", "/v1/guard"):
            if server_cpus:  # the call in process on the CPU the server has
                os.sched_setaffinity(0, {min(server_cpus)})
            _in_process(path, bodies[:200])  # warm
            local_rate, local_capacity, local = _in_process(path, bodies)
            if client_cpus:
                os.sched_setaffinity(0, client_cpus)
            print(f"  {path} in process: {local_rate:8,.0f}/s  p50 {_p(local, 0.5):.3f} ms"
                  f"  ({local_capacity:,.0f} per CPU-second)")
            for clients in (1, 8, 64):
                rate, capacity, latencies = _over_http(url, path, bodies, clients,
                                                       process.pid)
                share = rate / (local_rate * args.workers)
                print(f"  {path} {clients:>2} clients: {rate:8,.0f}/s  p50"
                      f" {_p(latencies, 0.5):.3f} ms  p99 {_p(latencies, 0.99):.3f} ms"
                      f"  overhead p50 {_p(latencies, 0.5) - _p(local, 0.5):+.3f} ms"
                      f"  throughput {share:.0%} of in-process per worker (wall),"
                      f" {capacity / local_capacity:.0%} per CPU-second")
            call = 1 / local_capacity
            print(f"  {path}: the HTTP floor alone allows at most {call / (call + floor_cost):.0%}"
                  f" per CPU-second ({call * 1e6:.0f} µs a call + {floor_cost * 1e6:.0f} µs)")
    finally:
        for server in (process, floor):
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()

"""``citeaudit serve`` beside the in-process call it wraps, measured in one run.

    python3 benchmarks/bench_service.py [--requests N] [--workers W]

Starts the real service (one worker unless ``--workers``) on a free loopback port and sends
``/v1/audit`` and ``/v1/guard`` requests for the ``bench_audit.py`` corpus from 1, 8 and 64
concurrent clients (each a keep-alive connection), then measures the same calls in process.
Prints requests/s and p50/p99 latency. Targets: p50 overhead over the in-process call <= 1 ms
at 1 client; >= 80% of the in-process throughput per worker at 8 clients.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))

from corpus import corpus

import citeaudit


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "citeaudit", "serve", "--port", str(port), "--workers",
         str(workers), "--concurrency", "256"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env={**os.environ})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("citeaudit serve did not become ready")


def _over_http(url: str, path: str, bodies: list[dict[str, Any]], clients: int,
               ) -> tuple[float, list[float]]:
    """Requests/s and each request's latency (seconds), ``clients`` at a time, each on its
    own keep-alive connection (the standard library's client: a heavier one would measure
    itself on a 2-core machine).
    """
    host, port = url.removeprefix("http://").split(":")
    local = threading.local()
    opened: list[http.client.HTTPConnection] = []
    payloads = [json.dumps(body).encode() for body in bodies]
    headers = {"content-type": "application/json"}

    def one(payload: bytes) -> float:
        if not hasattr(local, "connection"):
            local.connection = http.client.HTTPConnection(host, int(port), timeout=60)
            opened.append(local.connection)
        start = time.perf_counter()
        local.connection.request("POST", path, body=payload, headers=headers)
        reply = local.connection.getresponse()
        data = reply.read()
        elapsed = time.perf_counter() - start
        if reply.status != 200:
            raise SystemExit(f"{path}: {reply.status} {data[:200]!r}")
        return elapsed

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, payloads[:clients * 4]))  # warm the connections
        start = time.perf_counter()
        latencies = list(pool.map(one, payloads))
        wall = time.perf_counter() - start
    for connection in opened:
        connection.close()
    return len(bodies) / wall, latencies


def _in_process(path: str, bodies: list[dict[str, Any]]) -> tuple[float, list[float]]:
    call = citeaudit.audit if path == "/v1/audit" else citeaudit.guard
    latencies = []
    start = time.perf_counter()
    for body in bodies:
        began = time.perf_counter()
        result = call(body["answer"], body["sources"])
        result.to_dict()  # the service sends this
        latencies.append(time.perf_counter() - began)
    return len(bodies) / (time.perf_counter() - start), latencies


def _p(latencies: list[float], q: float) -> float:
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    bodies = [{"answer": a, "sources": p} for a, p in corpus(args.requests)]
    process, url = _start(args.workers)
    try:
        print(f"requests: {len(bodies)} per run, {args.workers} worker(s)")
        for path in ("/v1/audit", "/v1/guard"):
            _in_process(path, bodies[:200])  # warm
            local_rate, local = _in_process(path, bodies)
            print(f"  {path} in process: {local_rate:8,.0f}/s  p50 {_p(local, 0.5):.3f} ms")
            for clients in (1, 8, 64):
                rate, latencies = _over_http(url, path, bodies, clients)
                share = rate / (local_rate * args.workers)
                print(f"  {path} {clients:>2} clients: {rate:8,.0f}/s  p50"
                      f" {_p(latencies, 0.5):.3f} ms  p99 {_p(latencies, 0.99):.3f} ms"
                      f"  overhead p50 {_p(latencies, 0.5) - _p(local, 0.5):+.3f} ms"
                      f"  throughput {share:.0%} of in-process per worker")
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()

"""``citeaudit serve``, started as a real subprocess on a free loopback port and talked to
over HTTP: every endpoint answers what the library answers, and bad requests are refused
with the command line's messages, never a 500.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import citeaudit
import test_anthropic as anthropic_cases

SOURCES = ["Refunds take 14 days.", "Express shipping takes 1 business day."]
ANSWER = "Refunds take 14 days [1]. Express shipping takes 1 business day [2][7]."


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    def __init__(self, url: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.url = url
        self.process = process
        self.log = log

    def post(self, path: str, body: Any, **options: Any) -> httpx.Response:
        return httpx.post(self.url + path, json=body, timeout=30, **options)


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    started: list[tuple[subprocess.Popen[bytes], Any]] = []

    def launch(*options: str, env: dict[str, str] | None = None) -> Server:
        port = _free_port()
        log = tmp_path_factory.mktemp("serve") / "log.jsonl"
        handle = log.open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "citeaudit", "serve", "--port", str(port), *options],
            stdout=subprocess.DEVNULL, stderr=handle, env={**os.environ, **(env or {})})
        started.append((process, handle))
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                    return Server(url, process, log)
            except httpx.TransportError:
                pass
            if process.poll() is not None:
                pytest.fail(f"citeaudit serve exited: {log.read_text()}")
            time.sleep(0.1)
        pytest.fail("citeaudit serve did not become ready")

    yield launch
    for process, handle in started:
        process.terminate()
        process.wait(timeout=30)
        handle.close()


@pytest.fixture(scope="module")
def server(start: Any) -> Server:
    return start("--max-bytes", "200000")


def test_audit_answers_what_the_library_answers(server: Server) -> None:
    reply = server.post("/v1/audit", {"answer": ANSWER, "sources": SOURCES})
    assert reply.status_code == 200
    assert reply.json() == citeaudit.audit(ANSWER, SOURCES).to_dict()
    assert len(reply.headers["x-request-id"]) == 32
    response = anthropic_cases.CLEAN.model_dump(mode="json")
    reply = server.post("/v1/audit", {"answer": response, "sources": anthropic_cases.REQUEST,
                                      "options": {"select": ["CA2"]}})
    expected = citeaudit.audit(response, anthropic_cases.REQUEST,
                               config=citeaudit.Config(select=("CA2",)))
    assert reply.json() == expected.to_dict()
    assert reply.json()["answer_shape"] == "anthropic"


def test_guard_and_context_answer_what_the_library_answers(server: Server) -> None:
    reply = server.post("/v1/guard", {"answer": ANSWER, "sources": SOURCES, "policy": "drop",
                                      "render": "html"})
    guarded = citeaudit.guard(ANSWER, SOURCES, policy="drop")
    assert reply.json() == {**guarded.to_dict(), "rendered": citeaudit.render_html(guarded)}
    reply = server.post("/v1/context", {"passages": SOURCES, "max_passages": 1})
    built = citeaudit.build_context(SOURCES, max_passages=1)
    assert reply.json() == {"prompt": built.prompt, "snapshot": built.snapshot.to_dict(),
                            "fingerprint": built.snapshot.fingerprint}


@pytest.mark.parametrize(("body", "status", "message"), [
    (b"{bad", 400, "body: line 1, column 2: invalid JSON"),
    (b"[]", 422, "body: $: must be a JSON object"),
    (b'{"sources": []}', 422, "body: $.answer: required"),
    (b'{"answer": "x", "sources": [{"id": 3}]}', 422,
     'body: $.sources[0].text: a passage needs a string "text", not null'),
    (b'{"answer": "x", "sources": ["a"], "options": {"nope": 1}}', 422,
     "body: $.options: unknown key 'nope' in $.options"),
    (b'{"answer": "x", "sources": ["a"], "options": {"answer-format": "gemini"}}', 422,
     "body: $.answer: not a Gemini response"),
    (b'{"passages": "a"}', 422, "body: $.passages: must be a list"),
])
def test_bad_requests_get_the_command_lines_message(server: Server, body: bytes, status: int,
                                                    message: str) -> None:
    path = "/v1/context" if b"passages" in body else "/v1/audit"
    reply = httpx.post(server.url + path, content=body, timeout=30,
                       headers={"content-type": "application/json"})
    assert reply.status_code == status
    assert reply.json()["error"].startswith(message), reply.json()


def test_a_body_over_the_limit_is_413_before_it_is_read_whole(server: Server) -> None:
    big = json.dumps({"answer": "x" * 300_000, "sources": SOURCES}).encode()
    assert httpx.post(server.url + "/v1/audit", content=big, timeout=30).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while it is read
        for _ in range(30):
            yield b" " * 10_000

    reply = httpx.post(server.url + "/v1/audit", content=chunks(), timeout=30)
    assert reply.status_code == 413
    assert reply.json()["error"] == "the body is larger than 200000 bytes"


def test_bearer_tokens_are_required_when_set(start: Any) -> None:
    secured = start(env={"CITEAUDIT_TOKENS": "alpha, beta"})
    body = {"answer": ANSWER, "sources": SOURCES}
    missing = secured.post("/v1/audit", body)
    assert (missing.status_code, missing.headers["www-authenticate"]) == (401, "Bearer")
    assert secured.post("/v1/audit", body, headers={"authorization": "Bearer gamma"}
                        ).status_code == 401
    assert secured.post("/v1/audit", body, headers={"authorization": "Bearer beta"}
                        ).status_code == 200
    assert httpx.get(secured.url + "/healthz").status_code == 200  # probes need no token


def test_health_metrics_and_the_description(server: Server) -> None:
    server.post("/v1/audit", {"answer": ANSWER, "sources": SOURCES})
    assert httpx.get(server.url + "/healthz").json() == {"status": "ok"}
    metrics = httpx.get(server.url + "/metrics").text
    assert 'citeaudit_requests_total{endpoint="audit",status="200"}' in metrics
    assert 'citeaudit_findings_total{code="CA202"}' in metrics
    assert 'citeaudit_verdicts_total{passed="false",status="unverified"}' in metrics
    assert "citeaudit_request_seconds_bucket" in metrics
    description = httpx.get(server.url + "/openapi.json").json()
    assert set(description["paths"]) >= {"/v1/audit", "/v1/guard", "/v1/context"}
    assert "curl -s localhost:8000/v1/audit" in httpx.get(server.url + "/docs").text


def test_access_logs_are_json_lines_without_bodies(server: Server) -> None:
    server.post("/v1/audit", {"answer": "A secret answer [1].", "sources": SOURCES},
                headers={"x-request-id": "req-42"})
    time.sleep(0.2)
    lines = [json.loads(line) for line in server.log.read_text().splitlines()
             if line.startswith("{")]
    mine = [entry for entry in lines if entry["request_id"] == "req-42"]
    assert mine
    assert mine[0]["status"] == 200
    assert mine[0]["path"] == "/v1/audit"
    assert "secret" not in server.log.read_text()


def test_saturation_is_503_with_retry_after_and_a_slow_request_is_504(start: Any) -> None:
    busy = start("--concurrency", "1", "--timeout", "0.05")
    slow = {"answer": " ".join(f"Claim {n} holds [1]." for n in range(8000)),
            "sources": SOURCES}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda _: busy.post("/v1/audit", slow), range(8)))
    codes = sorted(r.status_code for r in replies)
    assert set(codes) <= {503, 504}
    assert 504 in codes
    refused = [r for r in replies if r.status_code == 503]
    assert refused
    assert refused[0].headers["retry-after"] == "1"


def test_many_concurrent_clients_each_get_their_own_answer(server: Server) -> None:
    def one(n: int) -> tuple[int, dict[str, Any]]:
        answer = f"Refunds take {n} days [1]."
        reply = server.post("/v1/audit", {"answer": answer, "sources": SOURCES},
                            headers={"x-request-id": f"r{n}"})
        return n, reply.json() | {"request_id": reply.headers["x-request-id"]}

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        results = list(pool.map(one, range(400)))
    for n, data in results:
        assert data["request_id"] == f"r{n}"
        assert data["findings"] == []
        assert citeaudit.audit(f"Refunds take {n} days [1].", SOURCES).to_dict() == \
            {k: v for k, v in data.items() if k != "request_id"}

"""``citeaudit serve``, started as a real subprocess on a free loopback port and talked to
over HTTP: every endpoint answers what the library answers, and bad requests are refused
with the command line's messages, never a 500.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import citeaudit
import test_anthropic as anthropic_cases
from citeaudit.service._tally import Tally
from requires import absent

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

    def launch(*options: str, env: dict[str, str] | None = None,
               nofile: int | None = None) -> Server:
        port = _free_port()
        log = tmp_path_factory.mktemp("serve") / "log.jsonl"
        handle = log.open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "citeaudit", "serve", "--port", str(port), *options],
            stdout=subprocess.DEVNULL, stderr=handle, env={**os.environ, **(env or {})})
        if nofile is not None:  # as `ulimit -n` would: long before it accepts a connection
            resource.prlimit(process.pid, resource.RLIMIT_NOFILE,
                             (nofile, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
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
    from websockets.exceptions import InvalidStatus  # noqa: PLC0415 - only here
    from websockets.sync.client import connect  # noqa: PLC0415

    with pytest.raises(InvalidStatus) as denied:  # a WebSocket is refused before it opens
        connect(secured.url.replace("http", "ws") + "/v1/stream")
    assert denied.value.response.status_code == 401
    assert json.loads(denied.value.response.body or b"")["error"].startswith("a bearer token")
    with connect(secured.url.replace("http", "ws") + "/v1/stream",
                 additional_headers={"authorization": "Bearer alpha"}) as ws:
        ws.send(json.dumps({"sources": SOURCES}))
        ws.send(json.dumps({"end": True}))
        assert "report" in json.loads(ws.recv(timeout=30))


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
    assert mine[0]["pid"] == server.process.pid  # one worker: serve's own process
    assert "secret" not in server.log.read_text()


def test_saturation_is_503_with_retry_after_and_a_slow_request_is_504(start: Any) -> None:
    busy = start("--concurrency", "1", "--timeout", "0.05")
    slow = {"answer": " ".join(f"Claim {n} holds [1]." for n in range(20000)),
            "sources": SOURCES}
    together = threading.Barrier(8)

    def send(_: int) -> httpx.Response:
        together.wait()  # all at once: one takes the only slot, the others find it taken
        return busy.post("/v1/audit", slow)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(send, range(8)))
    codes = sorted(r.status_code for r in replies)
    assert set(codes) <= {503, 504}, codes
    assert 504 in codes, codes
    refused = [r for r in replies if r.status_code == 503]
    assert refused, codes
    assert refused[0].headers["retry-after"] == "1"


def test_many_concurrent_clients_each_get_their_own_answer(server: Server) -> None:
    # 2,000 requests from 32 clients, each with its own keep-alive connection.
    local = threading.local()
    clients: list[httpx.Client] = []

    def one(n: int) -> tuple[int, dict[str, Any], str]:
        if not hasattr(local, "client"):
            local.client = httpx.Client(base_url=server.url, timeout=30)
            clients.append(local.client)
        reply = local.client.post("/v1/audit", json={
            "answer": f"Refunds take {n} days [1][{n % 3 + 1}].", "sources": SOURCES},
            headers={"x-request-id": f"r{n}"})
        return n, reply.json(), reply.headers["x-request-id"]

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        results = list(pool.map(one, range(2000)))
    for client in clients:
        client.close()
    for n, data, request_id in results:
        assert request_id == f"r{n}"
        answer = f"Refunds take {n} days [1][{n % 3 + 1}]."
        assert data == citeaudit.audit(answer, SOURCES).to_dict()


RECORDS = [{"id": "a", "sources": SOURCES, "answer": ANSWER, "tags": {"team": "x"}},
           {"id": "b", "sources": SOURCES, "answer": "Refunds take 14 days [1]."},
           {"id": "c", "request": anthropic_cases.REQUEST,
            "response": anthropic_cases.CLEAN.model_dump(mode="json")}]


def test_eval_streams_the_results_a_dataset_run_writes(server: Server, tmp_path: Path,
                                                       run: Any) -> None:
    dataset = tmp_path / "records.jsonl"
    lines = [json.dumps(r) for r in RECORDS]
    dataset.write_text("\n".join(lines[:2]) + "\nnot json\n" + lines[2] + "\n")
    out = tmp_path / "results.jsonl"
    assert run("eval", str(dataset), "-o", str(out), "-j", "1").code == 2  # one unreadable
    expected = [json.loads(line) for line in out.read_text().splitlines()]
    for result in expected:  # a request body, not a file, is the service's dataset
        result["run"]["dataset"] = "-"
    for body, kind in ((dataset.read_bytes(), "application/x-ndjson"),
                       (json.dumps([*RECORDS[:2], "not a record", RECORDS[2]]).encode(),
                        "application/json")):
        reply = httpx.post(server.url + "/v1/eval", content=body, timeout=30,
                           headers={"content-type": kind})
        assert reply.status_code == 200
        rows = [json.loads(line) for line in reply.text.splitlines()]
        *results, last = rows
        assert [(r["id"], r["status"]) for r in results] == [
            (r["id"], r["status"]) for r in expected]
        if kind == "application/x-ndjson":
            assert results == expected
        assert last["aggregate"]["records"] == 4
        assert last["aggregate"]["passed"] == sum(r["passed"] for r in expected)


def test_stream_returns_the_settled_text_then_the_report(server: Server) -> None:
    pieces = ["Refunds take ", "14 days [1]", " and shipping [", "9] is fast."]
    auditor = citeaudit.stream(SOURCES)
    expected_text = "".join(auditor.feed(p) for p in pieces)
    expected_report = auditor.finish().to_dict()
    body = "\n".join(json.dumps(m) for m in [{"sources": SOURCES},
                                            *({"chunk": p} for p in pieces)]).encode()
    reply = httpx.post(server.url + "/v1/stream", content=body, timeout=30)
    rows = [json.loads(line) for line in reply.text.splitlines()]
    assert "".join(r.get("text", "") for r in rows[:-1]) == expected_text
    assert rows[-1] == {"rest": auditor.rest, "report": expected_report}
    broken = httpx.post(server.url + "/v1/stream", content=b'{"chunk": "x"}\n', timeout=30)
    assert broken.status_code == 422
    assert broken.json()["error"].startswith("body: line 1: the first line must be")


def test_stream_over_a_websocket(server: Server) -> None:
    from websockets.sync.client import connect  # noqa: PLC0415 - only this test

    pieces = ["Refunds take 14 ", "days [1]. Shipping [", "2] is fast."]
    auditor = citeaudit.stream(SOURCES)
    expected = "".join(auditor.feed(p) for p in pieces)
    report = auditor.finish().to_dict()
    with connect(server.url.replace("http", "ws") + "/v1/stream") as socket:
        socket.send(json.dumps({"sources": SOURCES}))
        shown = ""
        for piece in pieces:
            socket.send(json.dumps({"chunk": piece}))
        socket.send(json.dumps({"end": True}))
        while True:
            message = json.loads(socket.recv(timeout=30))
            if "report" in message:
                break
            shown += message["text"]
    assert shown == expected
    assert message == {"rest": auditor.rest, "report": report}


def test_a_client_that_disconnects_mid_stream_leaves_the_service_well(server: Server) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(b"POST /v1/stream HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    b"Content-Type: application/x-ndjson\r\n\r\n")
        first = json.dumps({"sources": SOURCES}).encode() + b"\n"
        raw.sendall(f"{len(first):x}\r\n".encode() + first + b"\r\n")
        time.sleep(0.2)
    for _ in range(3):  # every slot it held is free again
        assert server.post("/v1/audit", {"answer": ANSWER, "sources": SOURCES}
                           ).status_code == 200
    metrics = httpx.get(server.url + "/metrics").text
    assert 'citeaudit_requests_total{endpoint="stream",status="499"}' in metrics


def test_the_curl_examples_run_against_the_service(server: Server) -> None:
    script = Path(__file__).parents[1] / "examples" / "service" / "curl.sh"
    done = subprocess.run(["bash", str(script), server.url], capture_output=True, text=True,
                          timeout=120, check=True)
    lines = done.stdout.splitlines()
    assert json.loads(lines[0])["findings"][0]["code"] == "CA202"
    assert json.loads(lines[1])["text"] == "Refunds take 14 days [1]."
    assert json.loads(lines[2])["fingerprint"].startswith("sha256:")
    assert [json.loads(line).get("status") for line in lines[3:5]] == ["ok", "unverified"]
    assert "aggregate" in json.loads(lines[5])
    streamed = [json.loads(line) for line in lines[6:]
                if line.startswith(('{"text"', '{"rest"'))]
    assert "".join(m.get("text", "") for m in streamed) == "Refunds take 14 days [1]."
    assert streamed[-1]["report"]["findings"][0]["code"] == "CA202"
    assert '{"status":"ok"}' in lines
    assert '{"status":"ready"}' in lines
    assert any(line.startswith("citeaudit_requests_total{") for line in lines)
    assert lines[-1].startswith('{"openapi":"3.1.0"')


def test_the_typescript_client_talks_to_the_service(server: Server, tmp_path: Path) -> None:
    """The example client, compiled by the example's own TypeScript (the typescript part:
    npm ci --prefix examples/service) into a folder of its own, run by Node.
    """
    example = Path(__file__).parents[1] / "examples" / "service"
    compiler = example / "node_modules" / ".bin" / "tsc"
    if not compiler.exists():
        absent("typescript", "the example's TypeScript compiler")
    subprocess.run([str(compiler), "-p", str(example / "tsconfig.json"), "--outDir", str(tmp_path)],
                   check=True, timeout=300, capture_output=True)
    done = subprocess.run(["node", str(tmp_path / "client.js"), server.url], cwd=tmp_path,
                          check=True, capture_output=True, text=True, timeout=60)
    printed = json.loads(done.stdout)
    expected = citeaudit.audit(ANSWER, SOURCES)
    assert printed == {
        "status": expected.status, "passed": expected.passed,
        "codes": [f.code for f in expected.findings],
        "served": citeaudit.guard(ANSWER, SOURCES).text, "rendered": True,
        "fingerprint": citeaudit.build_context(SOURCES).snapshot.fingerprint,
        "refused": "422: body: $.answer: required (the answer, or a provider's response)"}


def test_the_tally_counts_exactly_and_scrapes_as_prometheus_text() -> None:
    tally = Tally()
    registry = CollectorRegistry()
    registry.register(tally)
    for seconds in (0.0004, 0.0005, 0.003, 20.0):  # on a bound counts in its bucket
        tally.request("audit", 200, seconds)
    tally.request("guard", 422, 0.01)
    report = citeaudit.audit(ANSWER, SOURCES).to_dict()
    tally.report(report)
    tally.report(report)
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(generate_latest(registry).decode())
               for s in family.samples}
    assert samples["citeaudit_requests_total", (("endpoint", "audit"), ("status", "200"))] == 4
    assert samples["citeaudit_requests_total", (("endpoint", "guard"), ("status", "422"))] == 1
    buckets = {dict(labels)["le"]: value for (name, labels), value in samples.items()
               if name == "citeaudit_request_seconds_bucket"
               and dict(labels)["endpoint"] == "audit"}
    assert (buckets["0.0005"], buckets["0.001"], buckets["0.005"], buckets["10.0"],
            buckets["+Inf"]) == (2, 2, 3, 3, 4)
    assert samples["citeaudit_request_seconds_count", (("endpoint", "audit"),)] == 4
    assert samples["citeaudit_request_seconds_sum", (("endpoint", "audit"),)] == \
        pytest.approx(20.0039)
    assert samples["citeaudit_findings_total", (("code", "CA202"),)] == 2
    assert samples["citeaudit_verdicts_total", (("passed", "false"),
                                                ("status", "unverified"))] == 2


def test_every_worker_writes_the_access_log_and_it_can_be_turned_off(start: Any) -> None:
    for options, logged in ((("--workers", "2"), True), (("--no-access-log",), False)):
        server = start(*options)
        for n in range(6):
            reply = server.post("/v1/audit", {"answer": ANSWER, "sources": SOURCES},
                                headers={"x-request-id": f"w{n}"})
            assert reply.status_code == 200
        time.sleep(0.3)
        entries = [json.loads(line) for line in server.log.read_text().splitlines()
                   if line.startswith("{")]
        assert {e["request_id"] for e in entries} == (
            {f"w{n}" for n in range(6)} if logged else set()), options
        # Each line names the worker that answered: one of serve's own child processes.
        assert all(_parent_of(e["pid"]) == server.process.pid for e in entries), entries


def _parent_of(pid: int) -> int:
    """A live process's parent, from /proc (the fields after the command's parenthesis)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rpartition(")")[2].split()[1])


def test_a_body_in_pieces_and_the_routes_past_starlette(server: Server) -> None:
    body = json.dumps({"answer": ANSWER, "sources": SOURCES}).encode()

    def pieces() -> Iterator[bytes]:  # chunked: the body comes in several messages
        for at in range(0, len(body), 7):
            yield body[at:at + 7]

    reply = httpx.post(server.url + "/v1/audit", content=pieces(), timeout=30)
    assert reply.status_code == 200
    assert reply.json() == citeaudit.audit(ANSWER, SOURCES).to_dict()
    # Only a POST goes straight to an endpoint; other methods get Starlette's answer.
    assert httpx.get(server.url + "/v1/audit", timeout=30).status_code == 405
    assert httpx.post(server.url + "/v1/nothing", json={}, timeout=30).status_code == 404

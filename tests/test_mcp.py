"""``citeaudit mcp``, started as a real subprocess and driven by the MCP SDK's own client
(``stdio_client`` or ``streamable_http_client``, then ``ClientSession``): the three tools are
listed with their schemas, each answers what the library answers (the client checks every
result against the tool's output schema), and bad calls are tool errors carrying the
service's message and JSON path, after which the server still answers.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

import citeaudit
import test_anthropic as anthropic_cases
from citeaudit.service import run_mcp
from citeaudit.service._openapi import OPENAPI

DOCS = Path(__file__).parents[1] / "docs" / "mcp.md"

MAX_BYTES = 20_000
SOURCES = ["Refunds take 14 days.", "Express shipping takes 1 business day."]
CLEAN = "Refunds take 14 days [1]. Express shipping takes 1 business day [2]."
OUT_OF_RANGE = "Refunds take 14 days [1]. Express shipping takes 1 business day [2][7]."
UNCITED = "Refunds take 14 days. Express shipping takes 1 business day [2]."
BY_ID = {"sources": [{"id": "S1", "text": SOURCES[0]}, {"id": "S2", "text": SOURCES[1]}]}
UNKNOWN_ID = "Refunds take 14 days [S1]. Express shipping takes 1 business day [S9]."
ANTHROPIC = anthropic_cases.CLEAN.model_dump(mode="json")

# Every call one session makes, in order: the failing ones between clean ones, so that the
# last shows the server still answering after each kind of failure.
CALLS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "audit clean": ("audit", {"answer": CLEAN, "sources": SOURCES}),
    "audit out of range": ("audit", {"answer": OUT_OF_RANGE, "sources": SOURCES}),
    "audit uncited claim": ("audit", {"answer": UNCITED, "sources": SOURCES}),
    "audit unknown id": ("audit", {"answer": UNKNOWN_ID, "sources": BY_ID}),
    "audit provider response": ("audit", {"answer": ANTHROPIC,
                                          "sources": anthropic_cases.REQUEST,
                                          "options": {"select": ["CA2"]}}),
    "guard html": ("guard", {"answer": OUT_OF_RANGE, "sources": SOURCES, "policy": "drop",
                             "render": "html"}),
    "guard withhold": ("guard", {"answer": UNCITED, "sources": SOURCES, "policy": "withhold",
                                 "fallback": "No answer."}),
    "context": ("context", {"passages": SOURCES, "max_passages": 1}),
    "no arguments": ("audit", None),
    "passage without text": ("audit", {"answer": CLEAN, "sources": [{"id": 3}]}),
    "options not an object": ("guard", {"answer": CLEAN, "options": [1]}),
    "unknown option": ("audit", {"answer": CLEAN, "options": {"nope": 1}}),
    "unknown policy": ("guard", {"answer": CLEAN, "sources": SOURCES, "policy": "hide"}),
    "passages not a list": ("context", {"passages": "Refunds take 14 days."}),
    "passage of null text": ("context", {"passages": ["a", {"text": None}]}),
    "integer past 64 bits": ("audit", {"answer": CLEAN, "sources": [2**70]}),
    "oversized": ("audit", {"answer": "x " * MAX_BYTES, "sources": SOURCES}),
    "far oversized": ("guard", {"answer": "x " * (10 * MAX_BYTES), "sources": SOURCES}),
    "unknown tool": ("verify", {"answer": CLEAN}),
    "clean after failures": ("audit", {"answer": OUT_OF_RANGE, "sources": SOURCES}),
}
# The failures, told as the service tells them (test_service.py: the same bodies' errors).
FAILURES = {
    "no arguments": "body: $.answer: required (the answer, or a provider's response)",
    "passage without text": 'body: $.sources[0].text: a passage needs a string "text", not'
                            " null",
    "options not an object": "body: $.options: must be an object",
    "unknown option": "body: $.options: unknown key 'nope' in $.options; known keys:",
    "unknown policy": "body: $.policy: must be one of strip, drop, withhold",
    "passages not a list": "body: $.passages: must be a list",
    "passage of null text": 'body: $.passages[1].text: a passage needs a string "text", not'
                            " null",
    "integer past 64 bits": "body: $.sources[0]: a passage must be a string or an object, not"
                            " a number",
    "oversized": f"the body is larger than {MAX_BYTES} bytes",
}


@dataclass
class Session:
    """What one client session saw: the handshake, the tools, each call's result (or the
    protocol error it raised), and the server's standard error.
    """

    initialized: types.InitializeResult
    tools: list[types.Tool]
    results: dict[str, types.CallToolResult | MCPError]
    transport: str
    log: Path


async def _drive(client: ClientSession) -> tuple[types.InitializeResult, list[types.Tool],
                                                   dict[str, types.CallToolResult | MCPError]]:
    initialized = await client.initialize()
    tools = (await client.list_tools()).tools
    results: dict[str, types.CallToolResult | MCPError] = {}
    for name, (tool, arguments) in CALLS.items():
        try:
            results[name] = await client.call_tool(tool, arguments)
        except MCPError as error:
            results[name] = error
    return initialized, tools, results


def _command(*options: str) -> list[str]:
    return [sys.executable, "-m", "citeaudit", "mcp", "--max-bytes", str(MAX_BYTES), *options]


def _over_stdio(log: Path, *options: str) -> Any:
    async def session() -> Any:
        parameters = StdioServerParameters(command=_command(*options)[0],
                                           args=_command(*options)[1:], env=dict(os.environ))
        with log.open("w") as errors:
            async with stdio_client(parameters, errlog=errors) as (read, write), \
                    ClientSession(read, write) as client:
                return await _drive(client)
    return anyio.run(session)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class HttpServer:
    def __init__(self, *options: str, log: Path, env: dict[str, str] | None = None) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._errors = log.open("wb")
        self.process = subprocess.Popen(
            _command("--transport", "http", "--port", str(self.port), *options),
            stdout=subprocess.DEVNULL, stderr=self._errors, env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if self.process.poll() is not None:
                pytest.fail(f"citeaudit mcp exited: {log.read_text()}")
            time.sleep(0.1)
        pytest.fail("citeaudit mcp did not start listening")

    def session(self, headers: dict[str, str] | None = None) -> Any:
        async def session() -> Any:
            async with create_mcp_http_client(headers=headers) as http, \
                    streamable_http_client(self.url + "/mcp", http_client=http) as (read, write), \
                    ClientSession(read, write) as client:
                return await _drive(client)
        return anyio.run(session)

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self._errors.close()


@pytest.fixture(scope="module", params=["stdio", "http"])
def session(request: pytest.FixtureRequest,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[Session]:
    log = tmp_path_factory.mktemp("mcp") / "stderr.log"
    if request.param == "stdio":
        yield Session(*_over_stdio(log), transport="stdio", log=log)
        return
    server = HttpServer(log=log)
    try:
        yield Session(*server.session(), transport="http", log=log)
    finally:
        server.stop()


def _result(session: Session, name: str) -> types.CallToolResult:
    result = session.results[name]
    assert isinstance(result, types.CallToolResult), result
    return result


def _answered(session: Session, name: str) -> Any:
    """A call's structured result, which is also its text, as JSON."""
    result = _result(session, name)
    assert not result.is_error, result.content
    assert len(result.content) == 1
    assert isinstance(result.content[0], types.TextContent)
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_the_handshake_names_the_server_and_tells_the_agent_what_to_do(session: Session,
                                                                       ) -> None:
    assert session.initialized.server_info.name == "citeaudit"
    assert session.initialized.server_info.version == citeaudit.__version__
    assert session.initialized.capabilities.tools is not None
    instructions = session.initialized.instructions or ""
    assert all(f"`{tool}`" in instructions for tool in ("context", "audit", "guard"))


def test_the_three_tools_are_listed_with_the_services_schemas(session: Session) -> None:
    tools = {tool.name: tool for tool in session.tools}
    assert list(tools) == ["audit", "guard", "context"]
    for name, required in (("audit", "answer"), ("guard", "answer"), ("context", "passages")):
        tool = tools[name]
        body = OPENAPI["paths"][f"/v1/{name}"]["post"]["requestBody"]["content"][
            "application/json"]["schema"]
        assert tool.input_schema == {**body, "title": f"{name} arguments"}
        assert tool.input_schema["required"] == [required]
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
        assert len(tool.description or "") > 200  # enough for an agent to act on
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint
    assert tools["audit"].output_schema is not None
    assert {"status", "passed", "findings", "metrics"} <= set(
        tools["audit"].output_schema["required"])
    assert tools["guard"].output_schema is not None
    assert {"text", "chips", "report"} <= set(tools["guard"].output_schema["required"])
    assert tools["context"].output_schema is not None
    assert tools["context"].output_schema["required"] == ["prompt", "snapshot", "fingerprint"]
    guard_properties = tools["guard"].input_schema["properties"]
    assert guard_properties["policy"]["enum"] == ["strip", "drop", "withhold"]
    assert "withhold" in guard_properties["policy"]["description"]


@pytest.mark.parametrize(("name", "answer", "sources"), [
    ("audit clean", CLEAN, SOURCES),
    ("audit out of range", OUT_OF_RANGE, SOURCES),
    ("audit uncited claim", UNCITED, SOURCES),
    ("audit unknown id", UNKNOWN_ID, BY_ID),
    ("clean after failures", OUT_OF_RANGE, SOURCES),
])
def test_audit_answers_what_the_library_answers(session: Session, name: str, answer: str,
                                                sources: Any) -> None:
    assert _answered(session, name) == citeaudit.audit(answer, sources).to_dict()


def test_audit_of_a_clean_answer_passes(session: Session) -> None:
    report = _answered(session, "audit clean")
    assert (report["status"], report["passed"], report["findings"]) == ("ok", True, [])


@pytest.mark.parametrize(("name", "code", "marker"), [
    ("audit out of range", "CA202", "[7]"),
    ("audit uncited claim", "CA302", None),
    ("audit unknown id", "CA201", "[S9]"),
])
def test_audit_names_what_is_wrong(session: Session, name: str, code: str,
                                   marker: str | None) -> None:
    report = _answered(session, name)
    assert report["status"] == "unverified"
    assert report["passed"] is False
    [finding] = report["findings"]
    assert (finding["code"], finding["severity"], finding["marker"]) == (code, "error", marker)
    assert report["reasons"][0].startswith(code)


def test_audit_reads_a_providers_response(session: Session) -> None:
    expected = citeaudit.audit(ANTHROPIC, anthropic_cases.REQUEST,
                               config=citeaudit.Config(select=("CA2",)))
    report = _answered(session, "audit provider response")
    assert report == expected.to_dict()
    assert report["answer_shape"] == "anthropic"


def test_guard_answers_what_the_library_answers(session: Session) -> None:
    guarded = citeaudit.guard(OUT_OF_RANGE, SOURCES, policy="drop")
    served = _answered(session, "guard html")
    assert served == {**guarded.to_dict(), "rendered": citeaudit.render_html(guarded)}
    assert served["dropped"] == [2]  # the claim citing [7]
    assert [chip["source_ids"] for chip in served["chips"]] == [["1"]]
    withheld = _answered(session, "guard withhold")
    assert withheld == citeaudit.guard(UNCITED, SOURCES, policy="withhold",
                                       fallback="No answer.").to_dict()
    assert (withheld["text"], withheld["withheld"], withheld["review"]) == \
        ("No answer.", True, True)
    assert "snapshot" in withheld  # for review: in the output schema too


def test_context_answers_what_the_library_answers(session: Session) -> None:
    built = citeaudit.build_context(SOURCES, max_passages=1)
    assert _answered(session, "context") == {"prompt": built.prompt,
                                             "snapshot": built.snapshot.to_dict(),
                                             "fingerprint": built.snapshot.fingerprint}


@pytest.mark.parametrize("name", list(FAILURES))
def test_a_bad_call_is_a_tool_error_in_the_services_words(session: Session,
                                                           name: str) -> None:
    result = _result(session, name)
    assert result.is_error
    [content] = result.content
    assert isinstance(content, types.TextContent)
    assert content.text.startswith(FAILURES[name])
    assert "Traceback" not in content.text
    assert result.structured_content == {"error": content.text,
                                         "status": 413 if name == "oversized" else 422}


def test_a_far_oversized_call_is_refused_before_it_is_read(session: Session) -> None:
    """Over stdio the line is read, and refused as an oversized one; over HTTP the transport
    refuses a body far past --max-bytes before reading it whole.
    """
    result = session.results["far oversized"]
    if session.transport == "stdio":
        assert isinstance(result, types.CallToolResult)
        assert result.is_error
        assert result.structured_content == {
            "error": f"the body is larger than {MAX_BYTES} bytes", "status": 413}
    else:
        assert isinstance(result, MCPError)


def test_an_unknown_tool_is_a_protocol_error(session: Session) -> None:
    error = session.results["unknown tool"]
    assert isinstance(error, MCPError)
    assert error.error.code == -32602
    assert error.error.message == "unknown tool 'verify': one of audit, guard, context"


def test_no_failure_left_a_traceback(session: Session) -> None:
    assert "Traceback" not in session.log.read_text()


def test_the_timeout_is_the_services(tmp_path: Path) -> None:
    _, _, results = _over_stdio(tmp_path / "stderr.log", "--timeout", "0.000001")
    result = results["audit clean"]
    assert isinstance(result, types.CallToolResult)
    assert result.is_error
    assert result.structured_content == {
        "error": "the request took longer than 1e-06 seconds", "status": 504}


def test_http_needs_a_token_when_tokens_are_set(tmp_path: Path) -> None:
    server = HttpServer(log=tmp_path / "stderr.log", env={"CITEAUDIT_TOKENS": "secret,other"})
    try:
        refused = httpx.post(server.url + "/mcp", json={}, timeout=30)
        assert refused.status_code == 401
        assert refused.json()["error"] == ("a bearer token is required (Authorization:"
                                           " Bearer TOKEN)")
        wrong = httpx.post(server.url + "/mcp", json={}, timeout=30,
                           headers={"authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert wrong.json()["error"] == "the bearer token is not accepted"
        assert httpx.get(server.url + "/healthz", timeout=30).status_code == 200
        _, tools, results = server.session({"authorization": "Bearer other"})
        assert [tool.name for tool in tools] == ["audit", "guard", "context"]
        assert _answered(Session(None, tools, results, "http", server.log),  # type: ignore[arg-type]
                         "audit clean")["passed"] is True
    finally:
        server.stop()


@pytest.mark.parametrize(("options", "message"), [
    (["--config", "missing.toml"], "citeaudit: error: missing.toml"),
    (["--transport", "http", "--token-file", "missing.txt"], "citeaudit: error: missing.txt"),
    (["--max-bytes", "0"], "argument --max-bytes: must be at least 1, not 0"),
    (["--timeout", "-1"], "argument --timeout: must be more than 0 seconds, not -1"),
    (["--transport", "sse"], "argument --transport: invalid choice: 'sse'"),
])
def test_bad_options_stop_it_with_exit_2(tmp_path: Path, options: list[str],
                                         message: str) -> None:
    done = subprocess.run([sys.executable, "-m", "citeaudit", "mcp", *options], cwd=tmp_path,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2  # argparse's usage line, then the error
    assert done.stdout == ""


def _docs_servers() -> list[dict[str, Any]]:
    """Every server docs/mcp.md registers in its JSON snippets."""
    snippets = re.findall(r"^```json\n(.*?)^```", DOCS.read_text(encoding="utf-8"),
                          re.DOTALL | re.MULTILINE)
    servers: list[dict[str, Any]] = []
    for snippet in snippets:
        data = json.loads(snippet)
        servers += list(data.get("mcpServers", data).values())
    return servers


def test_the_docs_registrations_start_the_server(tmp_path: Path) -> None:
    """Each command the docs register starts a server whose tools are listed; each URL is
    the HTTP transport's.
    """
    servers = _docs_servers()
    commands = [s for s in servers if "command" in s]
    assert len(commands) >= 2
    assert {s["url"] for s in servers if "url" in s} == {"http://127.0.0.1:8000/mcp"}
    assert all(s.get("transport", "streamable_http") == "streamable_http"
               for s in servers if "url" in s)
    installed = Path(sys.executable).parent / "citeaudit"  # the script the docs run
    for server in commands:
        assert server["command"] == "citeaudit"
        assert _listed(str(installed), server["args"], tmp_path / "stderr.log") == \
            ["audit", "guard", "context"]


def _listed(command: str, arguments: list[str], log: Path) -> list[str]:
    async def listed() -> list[str]:
        parameters = StdioServerParameters(command=command, args=arguments,
                                           env=dict(os.environ))
        with log.open("w") as errors:
            async with stdio_client(parameters, errlog=errors) as (read, write), \
                    ClientSession(read, write) as client:
                await client.initialize()
                return [tool.name for tool in (await client.list_tools()).tools]
    return anyio.run(listed)


def test_the_docs_name_every_argument_and_limit() -> None:
    from citeaudit.cli._app import _parser  # noqa: PLC0415

    page = DOCS.read_text(encoding="utf-8")
    for tool in ("audit", "guard", "context"):
        body = OPENAPI["paths"][f"/v1/{tool}"]["post"]["requestBody"]["content"][
            "application/json"]["schema"]
        for argument in body["properties"]:
            assert f"`{argument}`" in page, (tool, argument)
    commands = next(a for a in _parser()._actions if a.dest == "command")
    assert isinstance(commands.choices, dict)
    for action in commands.choices["mcp"]._actions:
        for flag in action.option_strings:
            if flag.startswith("--") and flag not in ("--help", "--transport", "--host",
                                                      "--port"):
                assert f"`{flag}" in page, flag


def test_the_service_imports_the_sdk_only_to_run_the_server() -> None:
    """citeaudit serve needs no MCP SDK: citeaudit.service imports it only in run_mcp."""
    done = subprocess.run([sys.executable, "-c", "import sys, citeaudit.service; print("
                           "sorted(m for m in sys.modules if m.split('.')[0] in"
                           " ('mcp', 'mcp_types')))"],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_run_mcp_refuses_an_unknown_transport() -> None:
    with pytest.raises(citeaudit.ConfigError, match="must be stdio or http, not 'sse'"):
        run_mcp(transport="sse")

"""The provider examples: each file is what its provider's SDK types accept, and every
``citeaudit check`` command docs/providers.md shows prints what it
shows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from anthropic.types import Message as AnthropicMessage
from botocore.validate import ParamValidator
from cohere.v2.types.v2chat_response import V2ChatResponse
from google.genai.interactions import Interaction
from google.genai.types import GenerateContentResponse
from mistralai.client.models import ChatCompletionResponse as MistralResponse
from openai.types.beta.threads import Message as AssistantsMessage
from openai.types.beta.threads.runs import RunStep
from openai.types.chat import ChatCompletion
from openai.types.responses import Response
from perplexity.types.response_create_response import (
    ResponseCreateResponse as PerplexityResponse,
)

ROOT = Path(__file__).parents[1]
EXAMPLES = ROOT / "examples" / "providers"


def _bedrock(data: Any) -> None:
    shape = botocore.session.get_session().get_service_model("bedrock-agent-runtime") \
        .operation_model("RetrieveAndGenerate").output_shape
    report = ParamValidator().validate(data, shape)
    assert not report.has_errors(), report.generate_report()


def _converse(part: str) -> Any:
    operation = botocore.session.get_session().get_service_model("bedrock-runtime") \
        .operation_model("Converse")
    shape = operation.input_shape if part == "request" else operation.output_shape

    def validate(data: Any) -> None:
        report = ParamValidator().validate(data, shape)
        assert not report.has_errors(), report.generate_report()
    return validate


SDK_TYPES: dict[str, Any] = {
    "anthropic/response.json": AnthropicMessage.model_validate,
    "openai-responses/response.json": Response.model_validate,
    "openai-chat/response.json": ChatCompletion.model_validate,
    "openai-assistants/message.json": AssistantsMessage.model_validate,
    "openai-assistants/steps.json": lambda steps: [RunStep.model_validate(s) for s in steps],
    "cohere/response.json": V2ChatResponse.model_validate,
    "gemini/response.json": GenerateContentResponse.model_validate,
    "bedrock/response.json": _bedrock,
    "azure-on-your-data/response.json": ChatCompletion.model_validate,
    "perplexity/response.json": ChatCompletion.model_validate,
    "mistral/response.json": MistralResponse.model_validate,
    "gemini-interactions/response.json": Interaction.model_validate,
    "bedrock-converse/request.json": _converse("request"),
    "bedrock-converse/response.json": _converse("response"),
    "perplexity-responses/response.json": PerplexityResponse.model_validate,
    # xai/response.json: the xai-sdk's protobuf messages as JSON; the SDK is not installed
    # (it pins packaging<26), so no type checks it here.
}


@pytest.mark.parametrize("name", sorted(SDK_TYPES))
def test_each_example_is_what_its_providers_types_accept(name: str) -> None:
    SDK_TYPES[name](json.loads((EXAMPLES / name).read_text()))


def _commands() -> list[tuple[str, list[str]]]:
    section = (ROOT / "docs" / "providers.md").read_text()
    found: list[tuple[str, list[str]]] = []
    for block in section.split("```console\n")[1:]:
        for line in block.split("```", 1)[0].splitlines():
            if line.startswith("$ citeaudit "):
                found.append((line[len("$ citeaudit "):], []))
            elif not line.startswith("FAIL"):  # the verdict line, checked below
                found[-1][1].append(line)
    return found


def test_the_page_shows_a_command_for_every_provider_example() -> None:
    shown = {arg.split("/")[2] for command, _ in _commands() for arg in command.split()[1:]}
    assert shown == {p.name for p in EXAMPLES.iterdir() if p.is_dir()}


@pytest.mark.parametrize(("command", "shown"), _commands(), ids=lambda v: str(v)[:60])
def test_every_command_on_the_page_prints_what_it_shows(command: str, shown: list[str],
                                                           run: Any) -> None:
    verb, *paths = command.split()
    result = run(verb, *(str(ROOT / p) for p in paths))
    assert result.code == 1  # each example holds one mistake
    printed = [line.replace(str(ROOT) + "/", "") for line in result.out.splitlines()]
    assert printed[:len(shown)] == shown
    assert printed[len(shown)].startswith("FAIL")


@pytest.mark.parametrize(("files", "extra", "expected"), [
    # Truncated JSON: the file, line and column.
    (["gemini/response.json"], (), ("line 1, column 20", "invalid JSON")),
    # Another provider's response forced with the wrong --answer-format: the field it lacks.
    (["bedrock/response.json"], ("--answer-format", "cohere"), (
        "$.finish_reason", "not a Cohere Chat v2 response (a message with content and"
        " citations), as the cohere format expects: \"finish_reason\" is missing (it should be"
        " a string)")),
    # A request without what its format audits against.
    (["gemini/response.json", "cohere/response.json"], (), (
        "$.documents", "a Cohere response is audited against its request")),
])
def test_bad_provider_input_is_one_line_naming_the_file_and_place(
        tmp_path: Path, run: Any, files: list[str], extra: tuple[str, ...],
        expected: tuple[str, str]) -> None:
    place, reason = expected
    paths = [str(EXAMPLES / f) for f in files]
    if place.startswith("line"):
        truncated = tmp_path / "response.json"
        truncated.write_text((EXAMPLES / files[0]).read_text().replace("\n", "")[:19])
        paths = [str(truncated)]
    result = run("check", *paths, *extra)
    assert result.code == 2
    named = paths[0] if len(paths) == 1 or place.startswith("$.documents") else paths[-1]
    assert result.err.startswith(f"citeaudit: error: {named}: {place}: {reason}"), result.err
    assert result.err.count("\n") == 1

"""The answer-format seam: built-in formats, named formats, installed formats, and what an
answer no format reads gets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit.cli import ExitCode
from citeaudit.core import FORMATS, AnswerFormat

S002 = str(Path(__file__).parent / "data/seeds/002/passages.json")
PASSAGES = ["Expense reports must be filed within 60 days.", "Refunds settle in 30 days."]


def test_the_built_in_formats_are_registered_like_any_other() -> None:
    assert FORMATS.builtins() == (
        "text", "claims", "structured", "anthropic", "openai-responses", "openai-chat",
        "openai-assistants", "cohere", "gemini", "gemini-interactions", "bedrock",
        "bedrock-converse", "perplexity", "perplexity-responses", "azure-on-your-data",
        "mistral", "xai")
    for name in FORMATS.builtins():
        form = FORMATS[name]
        assert isinstance(form, AnswerFormat)
        assert form.name == name
    with pytest.raises(TypeError):
        FORMATS["text"] = FORMATS["claims"]  # type: ignore[index]  # read-only


@pytest.mark.parametrize(("answer", "shape"), [
    ("Filed within 60 days [1].", "text"),
    (["Filed within 60 days [1]."], "claims"),
    ({"status": "answered", "text": "Sixty days.", "citations": ["1"]}, "structured"),
    ({}, "structured"),  # an empty object is a broken contract, not another shape
])
def test_each_shape_is_read_by_its_format(answer: Any, shape: str) -> None:
    assert citeaudit.audit(answer, PASSAGES).shape == shape
    assert citeaudit.audit(answer, PASSAGES, answer_format=shape).shape == shape


@pytest.mark.parametrize(("answer", "described"), [
    (42, "a number"), (None, "null"), (True, "a boolean"), ({"x": 1}, "an object with keys x"),
])
def test_an_answer_no_format_reads_says_what_answers_may_be(answer: Any, described: str) -> None:
    report = citeaudit.audit(answer, PASSAGES)
    assert [(f.code, f.path) for f in report.findings] == [("CA404", "$")]
    assert report.findings[0].message == (
        "an answer must be free text (a string), a list of claim strings, an object with status,"
        " text and citations, or a provider's response (anthropic, openai-responses,"
        " openai-chat, openai-assistants, cohere, gemini, gemini-interactions, bedrock,"
        " bedrock-converse, perplexity, perplexity-responses, azure-on-your-data, mistral,"
        f" xai); not {described}")
    assert report.shape == "invalid"


@pytest.mark.parametrize(("answer", "path", "closest", "problem"), [
    ({"role": "assistant", "content": []}, "$.type", "an Anthropic Messages response",
     '"type" is missing (it should be "message")'),
    ({"type": "msg", "content": []}, "$.type", "an Anthropic Messages response",
     '"type" is "msg", not "message"'),
    ({"output": {"text": "Refunds take 14 days."}}, "$.citations",
     "an AWS Bedrock RetrieveAndGenerate response", '"citations" is missing (it should be a'
     " list)"),
    ({"object": "chat.completion", "choices": {}}, "$.choices",
     "an OpenAI Chat Completions response", '"choices" is an empty object, not a list'),
    ({"message": {"role": "assistant", "content": []}}, "$.finish_reason",
     "a Cohere Chat v2 response", '"finish_reason" is missing (it should be a string)'),
])
def test_an_object_no_format_reads_names_the_closest_and_what_it_lacks(
        answer: Any, path: str, closest: str, problem: str) -> None:
    report = citeaudit.audit(answer, PASSAGES)
    assert [(f.code, f.path) for f in report.findings] == [("CA404", path)]
    message = report.findings[0].message
    assert message.startswith(f"no answer format reads this object: it looks most like {closest}")
    assert message.endswith(f", but {problem}")


def test_a_named_format_that_does_not_recognise_its_input_says_so(run: Any,
                                                                  tmp_path: Path) -> None:
    with pytest.raises(citeaudit.InputError, match="not an object with status, text and"
                                                   " citations, as the structured format"
                                                   " expects, but a string"):
        citeaudit.audit("Filed within 60 days [1].", PASSAGES, answer_format="structured")
    with pytest.raises(citeaudit.ConfigError, match="unknown answer format 'nope'"
                                                    r" \(installed: text, claims, structured"):
        citeaudit.audit("Filed [1].", PASSAGES, answer_format="nope")
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"role": "assistant"}))
    result = run("check", S002, str(answer), "--answer-format", "structured")
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err == (f"citeaudit: error: {answer}: $.status: not an object with status,"
                          " text and citations, as the structured format expects: \"status\" is"
                          " missing (it should be a string)\n")
    claims = tmp_path / "claims.txt"  # a format name reads the file as JSON
    claims.write_text(json.dumps(["Expense reports must be filed within 60 days [1]."]))
    read = run("check", S002, str(claims), "--answer-format", "claims", "--format", "json")
    assert json.loads(read.out)["answer_shape"] == "claims"


# A format whose documents travel with the answer, as a provider's response carries them:
# the seam provider formats are built on.
PAIRS = '''
from citeaudit.core import Answer, Citation, Claim, load_snapshot


class Pairs:
    name = "pairs"
    expects = "an object with answer and documents"

    def recognises(self, answer):
        return isinstance(answer, dict) and "answer" in answer and "documents" in answer

    def snapshot(self, answer, sources):
        return load_snapshot(answer["documents"])

    def parse(self, answer, reading):
        text = answer["answer"]
        citations = tuple(Citation(str(i), 1, None, None, f"$.cites[{n}]", "", True)
                          for n, i in enumerate(answer.get("cites", [])))
        return Answer("pairs", text, (Claim(1, text, (0, len(text)), (), ()),), citations, (),
                      False, ())
'''


def test_an_installed_format_reads_its_shape_first(run: Any, tmp_path: Path,
                                                   plugins: Any) -> None:
    plugins({"pairs_format": PAIRS}, {"citeaudit.formats": {"pairs": "pairs_format:Pairs"}})
    answer = {"answer": "Reports are filed within 60 days.", "cites": [1, 3],
              "documents": PASSAGES}
    report = citeaudit.audit(answer, None)  # the snapshot comes with the answer
    assert report.shape == "pairs"
    assert [(f.code, f.source_id) for f in report.findings] == [("CA202", "3")]
    assert len(report.snapshot) == 2
    assert "pairs" in FORMATS
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer))
    result = run("check", S002, str(path), "--format", "json")
    assert json.loads(result.out)["answer_shape"] == "pairs"
    assert json.loads(result.out)["snapshot"]["sources"] == 2
    help_text = run("check", "--help").out
    assert "pairs" in help_text.split("--answer-format", 1)[1]


def test_a_broken_installed_format_is_a_configuration_error(plugins: Any) -> None:
    plugins({"broken_format": "class Broken:\n    name = 'broken'\n"},
            {"citeaudit.formats": {"broken": "broken_format:Broken"}})
    with pytest.raises(citeaudit.ConfigError, match="answer format 'broken'"
                                                    r" \(broken_format:Broken\): an answer"
                                                    " format has name, expects"):
        citeaudit.audit("Filed [1].", PASSAGES)

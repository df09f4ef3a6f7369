"""AWS Bedrock ``RetrieveAndGenerate`` responses. boto3 returns plain dicts, so every fixture
here is validated against botocore's own service model first: a renamed field breaks a test,
not a user.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import botocore.session
import pytest
from botocore.validate import ParamValidator

import citeaudit

FIRST = "Refunds are paid within 14 days of approval."
SECOND = "Cards abroad cost 2 euros per withdrawal."
TEXT = f"{FIRST} {SECOND}"
_OUTPUT = botocore.session.get_session().get_service_model("bedrock-agent-runtime") \
    .operation_model("RetrieveAndGenerate").output_shape


def reference(text: str, uri: str, chunk: str | None) -> dict[str, Any]:
    metadata = {"x-amz-bedrock-kb-source-uri": uri, "x-amz-bedrock-kb-data-source-id": "DS1"}
    if chunk:
        metadata["x-amz-bedrock-kb-chunk-id"] = chunk
    return {"content": {"text": text, "type": "TEXT"},
            "location": {"type": "S3", "s3Location": {"uri": uri}}, "metadata": metadata}


REFUNDS = reference("Refunds are paid within 14 days of approval by the finance team.",
                    "s3://kb/refunds.md", "1%3A0%3Aabc")
FEES = reference("Withdrawals abroad cost 2 euros each.", "s3://kb/fees.md", None)


def part(start: int, end: int, text: str, *references: dict[str, Any]) -> dict[str, Any]:
    return {"generatedResponsePart": {"textResponsePart": {"span": {"start": start, "end": end},
                                                           "text": text}},
            "retrievedReferences": list(references)}


def response(*citations: dict[str, Any], text: str = TEXT) -> dict[str, Any]:
    made = {"sessionId": "9f1c", "output": {"text": text}, "citations": list(citations)}
    checked = ParamValidator().validate(made, _OUTPUT)
    assert not checked.has_errors(), checked.generate_report()
    return made


# Spans end at their last character: recorded responses have text == output[start:end + 1].
CLEAN = response(part(0, len(FIRST) - 1, FIRST, REFUNDS),
                 part(len(FIRST) + 1, len(TEXT) - 1, SECOND, FEES, REFUNDS))


def found(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


def test_a_clean_response_passes_alone_with_its_references_as_the_snapshot() -> None:
    report = citeaudit.audit(CLEAN, None)
    assert (report.shape, report.status, found(report)) == ("bedrock", "ok", [])
    assert [(s.id, s.text[:20]) for s in report.snapshot] == [
        ("1%3A0%3Aabc", "Refunds are paid wit"), ("s3://kb/fees.md", "Withdrawals abroad c")]
    assert report.metrics.claim_coverage == 1.0
    cited = citeaudit.core.prepare(CLEAN, None).answer.citations
    assert [(c.source_id, c.claim) for c in cited] == [
        ("1%3A0%3Aabc", 1), ("s3://kb/fees.md", 2), ("1%3A0%3Aabc", 2)]


def test_the_sources_given_come_first_and_a_response_of_none_is_an_error() -> None:
    given = [{"id": "1%3A0%3Aabc", "text": "Refunds are paid within 14 days."}]
    report = citeaudit.audit(CLEAN, given)
    assert [s.id for s in report.snapshot] == ["1%3A0%3Aabc", "s3://kb/fees.md"]
    assert report.snapshot.sources[0].text == "Refunds are paid within 14 days."


@pytest.mark.parametrize(("made", "code", "path", "message"), [
    # The end read as exclusive, as a reader that assumed Python slices would write it.
    (part(len(FIRST) + 1, len(TEXT), SECOND, FEES), "CA206",
     "$.citations[1].generatedResponsePart.textResponsePart.span",
     "span 45..86 lies outside the answer text (86 characters; the end is its last"
     " character)"),
    (part(len(FIRST), len(TEXT) - 1, SECOND, FEES), "CA206",
     "$.citations[1].generatedResponsePart.textResponsePart.text",
     "span 44..85 holds ' Cards abroad cost 2 euros per withdrawa', not the part's text"
     " 'Cards abroad cost 2 euros per withdrawal'"),
    ({"retrievedReferences": [FEES]}, "CA404",
     "$.citations[1].generatedResponsePart.textResponsePart.span",
     "a citation needs generatedResponsePart.textResponsePart.span"),
])
def test_each_broken_span_is_found_with_its_json_path(made: dict[str, Any], code: str,
                                                     path: str, message: str) -> None:
    report = citeaudit.audit(response(CLEAN["citations"][0], made), None)
    broken = [f for f in report.findings if f.code == code]
    assert [(f.path, f.message) for f in broken] == [(path, message)]
    assert not report.passed


def test_a_span_without_references_leaves_its_sentence_uncited() -> None:
    report = citeaudit.audit(response(CLEAN["citations"][0],
                                      part(len(FIRST) + 1, len(TEXT) - 1, SECOND)), None)
    assert found(report) == [("CA302", None)]  # "2 euros": an amount, uncited


def test_a_reference_without_chunk_id_or_location_gets_a_stable_name() -> None:
    bare = {"content": {"text": "Withdrawals abroad cost 2 euros each.", "type": "TEXT"}}
    answer = response(part(len(FIRST) + 1, len(TEXT) - 1, SECOND, bare), text=TEXT)
    report = citeaudit.audit(answer, None)
    assert report.snapshot.sources[0].id.startswith("reference:")
    assert found(report) == [("CA302", None)]  # only the first sentence lacks a citation


def test_the_command_line_reads_the_response_alone(tmp_path: Path, run: Any) -> None:
    path = tmp_path / "response.json"
    path.write_text(json.dumps(CLEAN))
    assert run("check", str(path)).code == 0
    broken = copy.deepcopy(CLEAN)
    broken["citations"][1]["generatedResponsePart"]["textResponsePart"]["span"]["end"] += 1
    path.write_text(json.dumps(broken))
    result = run("check", str(path))
    assert result.code == 1
    # The span is dropped, so its sentence is left uncited as well.
    assert result.out.splitlines()[:2] == [
        f"{path}:claim 2, chars 45-86: CA302 error: claim states a number or quantity but"
        ' cites no source: "Cards abroad cost 2 euros per withdrawal."',
        f"{path}:$.citations[1].generatedResponsePart.textResponsePart.span: CA206 error: span"
        " 45..86 lies outside the answer text (86 characters; the end is its last character)"]

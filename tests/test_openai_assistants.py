"""OpenAI Assistants thread messages with ``【4:0†source】`` markers and their ``file_citation``
annotations, built through the ``openai`` SDK's types, audited against the run steps' file
search results or the sources given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openai.types.beta.threads import (
    FileCitationAnnotation,
    FilePathAnnotation,
    Message,
    Text,
    TextContentBlock,
)
from openai.types.beta.threads.file_citation_annotation import FileCitation
from openai.types.beta.threads.file_path_annotation import FilePath
from openai.types.beta.threads.runs import FileSearchToolCall, RunStep, ToolCallsStepDetails
from openai.types.beta.threads.runs.file_search_tool_call import (
    FileSearch,
    FileSearchResult,
    FileSearchResultContent,
)

import citeaudit

FIRST, SECOND = "【4:0†source】", "【4:1†refunds.md】"
VALUE = f"Refunds are paid within 14 days{FIRST}. Cards abroad cost 2 euros.{SECOND}"


def at(marker: str, value: str = VALUE) -> tuple[int, int]:
    start = value.index(marker)
    return start, start + len(marker)


def note(marker: str, file_id: str, span: tuple[int, int] | None = None
         ) -> FileCitationAnnotation:
    start, end = span or at(marker)
    return FileCitationAnnotation(type="file_citation", text=marker, start_index=start,
                                  end_index=end, file_citation=FileCitation(file_id=file_id))


def message(*annotations: Any, value: str = VALUE) -> Message:
    return Message(id="msg_1", object="thread.message", created_at=1, thread_id="thread_1",
                   role="assistant", status="completed", content=[TextContentBlock(
                       type="text", text=Text(value=value, annotations=list(annotations)))])


def step(*results: tuple[str, str, str]) -> RunStep:
    return RunStep(id="step_1", object="thread.run.step", assistant_id="asst_1", created_at=1,
                   run_id="run_1", status="completed", thread_id="thread_1", type="tool_calls",
                   step_details=ToolCallsStepDetails(type="tool_calls", tool_calls=[
                       FileSearchToolCall(id="call_1", type="file_search", file_search=FileSearch(
                           results=[FileSearchResult(file_id=f, file_name=n, score=0.8, content=[
                               FileSearchResultContent(type="text", text=t)])
                               for f, n, t in results]))]))


STEP = step(("file-fees", "fees.md", "Cards abroad cost 2 euros per withdrawal."),
            ("file-refunds", "refunds.md", "Refunds are paid within 14 days."))
CLEAN = message(note(FIRST, "file-refunds"), note(SECOND, "file-fees"))


def found(report: citeaudit.Report) -> list[tuple[str, str | None]]:
    return [(f.code, f.path) for f in report.findings]


@pytest.mark.parametrize("shape", ["sdk", "json"])
def test_a_clean_message_passes_against_its_run_steps(shape: str) -> None:
    answer, steps = (CLEAN, [STEP]) if shape == "sdk" else (
        CLEAN.model_dump(mode="json"), [STEP.model_dump(mode="json")])
    report = citeaudit.audit(answer, steps)
    assert (report.shape, report.status, found(report)) == ("openai-assistants", "ok", [])
    assert [(s.id, s.label) for s in report.snapshot] == [
        ("file-fees", "fees.md"), ("file-refunds", "refunds.md")]
    prepared = citeaudit.core.prepare(answer, steps).answer
    # The markers are cut out of the answer; each cites the sentence it ends.
    assert prepared.text == "Refunds are paid within 14 days. Cards abroad cost 2 euros."
    assert [(c.source_id, c.claim, c.marker) for c in prepared.citations] == [
        ("file-refunds", 1, FIRST), ("file-fees", 2, SECOND)]


def test_sources_given_by_file_id_are_the_snapshot_too() -> None:
    sources = [{"id": "file-refunds", "text": "Refunds: 14 days."},
               {"id": "file-fees", "text": "Cards abroad: 2 euros."}]
    assert found(citeaudit.audit(CLEAN, sources)) == []


@pytest.mark.parametrize(("made", "code", "path", "message"), [
    (note(SECOND, "file-other"), "CA201", "$.content[0].text.annotations[1].file_citation",
     "【4:1†refunds.md】 cites 'file-other', which is not in this request's snapshot"),
    (note(SECOND, "file-fees", (80, 90)), "CA206", "$.content[0].text.annotations[1]",
     "file_citation range 80..90 lies outside its text (87 characters)"),
    (note(SECOND, "file-fees", (at(SECOND)[0] - 1, at(SECOND)[1] - 1)), "CA206",
     "$.content[0].text.annotations[1].text",
     "file_citation range 70..86 holds '.【4:1†refunds.md', not the annotation's text"
     " '【4:1†refunds.md】'"),
])
def test_each_broken_annotation_is_found_with_its_json_path(made: Any, code: str, path: str,
                                                            message: str) -> None:
    report = citeaudit.audit(message_with(made), [STEP])
    broken = [f for f in report.findings if f.code == code]
    assert [(f.path, f.message) for f in broken] == [(path, message)]
    assert not report.passed


def message_with(second: Any) -> Message:
    return message(note(FIRST, "file-refunds"), second)


def test_a_marker_no_annotation_covers_is_prose_and_says_so() -> None:
    report = citeaudit.audit(message(note(FIRST, "file-refunds")), [STEP])
    assert [(f.code, f.severity.value) for f in report.findings] == [
        ("CA302", "error"), ("CA101", "warning")]
    assert "【4:1†refunds.md】 looks like a citation marker but no file_citation" in \
        report.findings[1].message


def test_file_path_links_are_not_citations() -> None:
    value = "Refunds are paid within 14 days【4:0†source】. See sandbox:/mnt/data/refunds.csv"
    link = FilePathAnnotation(type="file_path", text="sandbox:/mnt/data/refunds.csv",
                              start_index=value.index("sandbox"), end_index=len(value),
                              file_path=FilePath(file_id="file-generated"))
    answer = message(note(FIRST, "file-refunds", at(FIRST, value)), link, value=value)
    cited = citeaudit.core.prepare(answer, [STEP]).answer.citations
    assert [c.source_id for c in cited] == ["file-refunds"]
    # The link's sentence states nothing cited: the claim policy asks for a citation.
    assert found(citeaudit.audit(answer, [STEP])) == [("CA301", None)]


def test_the_command_line_reads_the_run_steps_and_the_message(tmp_path: Path,
                                                              run: Any) -> None:
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps([STEP.model_dump(mode="json")]))
    answer = tmp_path / "message.json"
    answer.write_text(CLEAN.model_dump_json())
    assert run("check", str(steps), str(answer)).code == 0
    result = run("check", str(answer))
    assert result.code == 2
    assert result.err == (f"citeaudit: error: {answer}: $: an Assistants message is audited"
                          " against the files its run searched: its run steps (with"
                          " file_search results) or the sources given\n")

"""Refusals: several accepted strings, matched after normalising white space, case, quotes and
final punctuation, or an RE2 pattern; the same in audit, the stream and the command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit.cli import ExitCode

PASSAGES = ["Expense reports are filed within 60 days."]
S002 = str(Path(__file__).parent / "data/seeds/002/passages.json")


@pytest.mark.parametrize("text", [
    "Not covered by the provided documents.",
    "not covered by the provided documents",
    "NOT COVERED BY THE PROVIDED DOCUMENTS!",
    "\u201cNot covered by the provided documents.\u201d",
    "'Not covered by the provided documents'.",
    "  Not  covered\nby the   provided documents. ",
    "Not covered by the provided documents...",
    "**Not covered by the provided documents.**",
    "_Not covered by the provided documents._",
    "> Not covered by the provided documents.",
])
def test_refusal_variants_are_refusals(text: str) -> None:
    report = citeaudit.audit(text, PASSAGES)
    assert report.status == "no_evidence"
    assert report.passed
    auditor = citeaudit.stream(PASSAGES)
    auditor.feed(text)
    assert auditor.finish() == report


@pytest.mark.parametrize("text", [
    "Not covered by the provided documents, but reports take 60 days [1].",
    "Covered by the provided documents.",
    "Not covered by the documents.",
])
def test_other_answers_are_not_refusals(text: str) -> None:
    strict = citeaudit.Config(claims="strict")
    assert citeaudit.audit(text, PASSAGES, config=strict).status != "no_evidence"
    # Read for what they say, the last two speak of the documents: no claim, and the report
    # shows the sentence it did not ask to carry a citation; a refusal shows none.
    report = citeaudit.audit(text, PASSAGES)
    assert report.status != "no_evidence" or [u.kind for u in report.exempt] == ["meta"]
    assert citeaudit.audit("Not covered by the provided documents.", PASSAGES).exempt == ()


def test_several_refusals_are_all_honoured(run: Any, tmp_path: Path) -> None:
    config = citeaudit.Config(refusal=("I don't know.", "No answer in the sources."))
    for text in ("I don't know", "no answer in the sources."):
        assert citeaudit.audit(text, PASSAGES, config=config).status == "no_evidence"
    assert citeaudit.audit("I don't know.", PASSAGES,
                           refusal=["I don't know.", "Nope."]).status == "no_evidence"
    answer = tmp_path / "a.txt"
    for text in ("I don't know.", "Nope!"):
        answer.write_text(text)
        result = run("check", S002, str(answer), "--refusal", "I don't know.",
                     "--refusal", "Nope.")
        assert result.code == ExitCode.OK, result.out
        assert "status no_evidence" in result.out


def test_refusal_regex_from_configuration(run: Any, tmp_path: Path) -> None:
    (tmp_path / "citeaudit.toml").write_text(
        'refusal = ["Not covered by the provided documents."]\n'
        'refusal-regex = "(?i)(sorry, )?i (cannot|can\'t) answer( that)?\\\\.?"\n')
    answer = tmp_path / "a.txt"
    for text, status in (("Sorry, I cannot answer that.", "no_evidence"),
                         ("i can't answer", "no_evidence"),
                         ("Not covered by the provided documents.", "no_evidence"),
                         ("I cannot answer that, but see [1].", "ok")):
        answer.write_text(text)
        result = run("check", S002, str(answer))
        assert f"status {status}" in result.out, (text, result.out)
    config = citeaudit.load_config(tmp_path / "citeaudit.toml")
    auditor = citeaudit.stream(PASSAGES, config=config)
    shown = auditor.feed("Sorry, I cannot ") + auditor.feed("answer that.")
    assert shown == ""  # held back while it may be a refusal
    assert auditor.finish().status == "no_evidence"


def test_a_bad_refusal_regex_is_one_line(run: Any, tmp_path: Path) -> None:
    (tmp_path / "citeaudit.toml").write_text('refusal-regex = "(unclosed"\n')
    answer = tmp_path / "a.txt"
    answer.write_text("Fact [1].")
    result = run("check", S002, str(answer))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err.count("\n") == 1
    assert "refusal-regex '(unclosed' cannot be compiled: missing )" in result.err

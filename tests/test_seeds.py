"""The four seed documents' fixtures, as acceptance tests through the API and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import citeaudit
from citeaudit.core._loading import decode_json, decode_text

SEEDS = Path(__file__).parent / "data" / "seeds"
CASES = json.loads((SEEDS / "cases.json").read_text())


def _api_options(args: list[str]) -> dict[str, Any]:
    """Translate the CLI flags a case uses into audit() keywords."""
    options: dict[str, Any] = {}
    config: dict[str, Any] = {}
    pairs = dict(zip(args[::2], args[1::2], strict=True))
    if "--grammar" in pairs:
        options["grammar"] = pairs["--grammar"]
    if "--min-recall" in pairs:
        config["min_recall"] = float(pairs["--min-recall"])
    if "--extend-select" in pairs:
        config["extend_select"] = (pairs["--extend-select"],)
    options["config"] = citeaudit.Config(**config)
    return options


def _answer(path: Path) -> Any:
    data = path.read_bytes()
    if path.suffix == ".json":
        return decode_json(data, origin=path.name)
    return decode_text(data, origin=path.name)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_api(case: dict[str, Any]) -> None:
    snapshot = json.loads((SEEDS / case["snapshot"]).read_text())
    report = citeaudit.audit(_answer(SEEDS / case["answer"]), snapshot,
                             **_api_options(case.get("args", [])))
    assert [[f.code, f.claim] for f in report.findings] == case["findings"]
    assert report.status == case["status"]
    assert report.passed is (case["exit"] == 0)
    if "paths" in case:
        assert [f.path for f in report.findings] == case["paths"]
    for name, expected in case.get("metrics", {}).items():
        assert getattr(report.metrics, name) == pytest.approx(expected, abs=1e-6)
    assert "support (whether a cited passage supports its claim)" in report.not_checked


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_cli(case: dict[str, Any], run: Any) -> None:
    result = run("check", str(SEEDS / case["snapshot"]), str(SEEDS / case["answer"]),
                 *case.get("args", []), "--format", "json")
    assert result.code == case["exit"], result.err
    assert result.err == ""
    report = orjson.loads(result.out)
    assert [[f["code"], f["claim"]] for f in report["findings"]] == case["findings"]
    assert report["status"] == case["status"]
    assert report["version"] == 1


def test_seed000_messages_name_the_claim_and_the_id(run: Any) -> None:
    result = run("check", str(SEEDS / "000/sources.json"), str(SEEDS / "000/errors.json"))
    lines = result.out.splitlines()
    assert lines[0].endswith("claim 1, chars 0-20: CA301 error: claim has no citation marker"
                             ' (states a claim): "Unsupported promise."')
    assert lines[1].endswith("claim 2, chars 18-22: CA201 error: [S9] cites 'S9', which is not"
                             " in this request's snapshot")
    assert lines[2].startswith("FAIL")
    assert "not checked: support" in lines[2]


def test_seed002_refusal_is_configurable() -> None:
    passages = json.loads((SEEDS / "002/passages.json").read_text())
    assert citeaudit.audit("I cannot say.", passages, refusal="I cannot say.").status \
        == "no_evidence"
    custom = citeaudit.audit("Not covered by the provided documents.", passages,
                             refusal="I cannot say.", config=citeaudit.Config(claims="strict"))
    assert [f.code for f in custom.findings] == ["CA301"]  # no refusal: a sentence, a claim
    # Read for what it says, it speaks of the documents: no claim, and the report says so.
    judged = citeaudit.audit("Not covered by the provided documents.", passages,
                             refusal="I cannot say.")
    assert (judged.findings, judged.status) == ((), "no_evidence")
    assert [unit.kind for unit in judged.exempt] == ["meta"]


def test_seed002_refusal_that_cites_is_flagged() -> None:
    passages = json.loads((SEEDS / "002/passages.json").read_text())
    report = citeaudit.audit("Not covered by the provided documents. [2]", passages)
    assert [f.code for f in report.findings] == ["CA402"]


@pytest.mark.parametrize(("snapshot", "answer", "args", "message"), [
    ("001/retrieved_duplicate.json", "001/answer.json", [],
     "retrieved_duplicate.json: $.sources[1].id: duplicate source id 'eval-note-1'"),
    ("001/retrieved_missing_id.json", "001/answer.json", [],
     "retrieved_missing_id.json: $.sources[1].id: a source needs a non-empty string \"id\""),
    ("001/retrieved_bad_json.json", "001/answer.json", [],
     "retrieved_bad_json.json: line 3, column 24: invalid JSON"),
    ("001/retrieved.json", "001/answer_bad_utf8.json", [],
     "answer_bad_utf8.json: line 1, column 36: not valid UTF-8 (byte 0xe9"),
    ("000/sources_duplicate.json", "000/errors.json", [],
     "sources_duplicate.json: line 2, column 2: duplicate key '1' in one object"),
    ("001/retrieved.json", "001/answer.json", ["--max-bytes", "100"],
     "retrieved.json: file is 171 bytes, over the limit of 100 (raise it with --max-bytes)"),
])
def test_seed001_input_errors_exit_2(run: Any, snapshot: str, answer: str, args: list[str],
                                     message: str) -> None:
    result = run("check", str(SEEDS / snapshot), str(SEEDS / answer), *args)
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("citeaudit: error: ")
    assert message in result.err
    assert "Traceback" not in result.err
    assert result.err.count("\n") == 1


def test_seed001_oversize_is_refused_before_reading(run: Any, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b'{"sources": [' + b" " * 1_000_001 + b"]}")
    result = run("check", str(big), str(SEEDS / "001/answer.json"))
    assert result.code == 2
    assert "over the limit of 1,000,000" in result.err

"""The command line: exact output, exit codes, options, help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit._speedups import mode
from citeaudit.cli._app import ExitCode, _parser
from citeaudit.report._formatters import LineIndex, line_column, one_line

SEEDS = Path(__file__).parent / "data" / "seeds"
S000 = str(SEEDS / "000/sources.json")
S002 = str(SEEDS / "002/passages.json")


def test_text_output_is_exact(run: Any, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("Refunds take 14 days [7].\nReimbursements settle in 14 days.\n")
    result = run("check", S002, str(answer))
    assert result.code == ExitCode.FAILED
    assert result.err == ""
    assert result.out == (
        f"{answer}:1:22 (claim 1): CA202 error: [7] cites 7, outside the 3 retrieved sources"
        " (1..3)\n"
        f"{answer}:2:1 (claim 2): CA302 error: claim states a number or quantity but cites no"
        ' source: "Reimbursements settle in 14 days."\n'
        "FAIL (CA202 out-of-range; CA302 unmarked-quantity): 2 errors,"
        " 0 warnings; status unverified; precision 0.00, recall 0.00, F1 0.00, claim coverage"
        " 0.00; checked: marker syntax, cited ids in snapshot, claims cited, answer-level"
        " citation and refusal, answer contract; not checked: support (whether a cited passage"
        " supports its claim)\n")


def test_pass_line(run: Any) -> None:
    result = run("check", S000, str(SEEDS / "000/positive.json"))
    assert result.code == ExitCode.OK
    assert result.out.startswith("PASS: 0 errors, 0 warnings; status ok; precision 1.00,"
                                 " recall 0.50")


def test_refusal_text(run: Any) -> None:
    result = run("check", S002, str(SEEDS / "002/refusal.txt"))
    assert result.code == ExitCode.OK
    assert "status no_evidence; precision n/a, recall n/a" in result.out


def test_json_output_shape(run: Any) -> None:
    result = run("check", S000, str(SEEDS / "000/errors.json"), "--format", "json")
    report = json.loads(result.out)
    assert set(report) == {"version", "status", "passed", "reasons", "findings", "metrics",
                           "checked", "not_checked", "grammar", "grammar_reason",
                           "answer_shape", "fingerprint", "snapshot", "support", "exempt"}
    assert report["support"] is None  # no judge asked for
    assert report["findings"][1] == {
        "code": "CA201", "severity": "error",
        "message": "[S9] cites 'S9', which is not in this request's snapshot",
        "claim": 2, "span": [18, 22], "marker": "[S9]", "source_id": "S9", "path": None}
    assert report["answer_shape"] == "claims"
    assert report["fingerprint"].startswith("sha256:")


def test_answer_from_stdin(run: Any) -> None:
    result = run("check", S002, "-", "--min-recall", "0",
                 stdin=b"Reimbursements settle within 30 days [2].")
    assert result.code == ExitCode.OK, result.out


def test_answer_format_json_for_other_names(run: Any, tmp_path: Path) -> None:
    answer = tmp_path / "answer.out"
    answer.write_text('["Returns take 7 days. [S1]"]')
    assert run("check", S000, str(answer), "--answer-format", "json").code == ExitCode.OK
    as_text = run("check", S000, str(answer), "--format", "json")
    assert json.loads(as_text.out)["answer_shape"] == "text"


@pytest.mark.parametrize(("args", "codes"), [
    (["--ignore", "CA301"], ["CA201"]),
    (["--select", "CA3"], ["CA301"]),
    (["--severity", "CA201=warning", "--severity", "CA301=warning"], ["CA301", "CA201"]),
])
def test_rule_options(run: Any, args: list[str], codes: list[str]) -> None:
    result = run("check", S000, str(SEEDS / "000/errors.json"), "--format", "json", *args)
    assert [f["code"] for f in json.loads(result.out)["findings"]] == codes


def test_thresholds(run: Any) -> None:
    answer = str(SEEDS / "002/answer.txt")
    # No error finding passes; thresholds apply only when they are set (recall is 1/3).
    assert run("check", S002, answer).code == ExitCode.OK
    failed = run("check", S002, answer, "--min-recall", "0.5", "--format", "json")
    assert failed.code == ExitCode.FAILED
    assert json.loads(failed.out)["reasons"] == [
        "recall 0.33 < min-recall 0.50 (cited 1 of 3 retrieved passages)"]
    assert run("check", S002, answer, "--min-recall", "0.3").code == ExitCode.OK
    assert run("check", S002, answer, "--relevant", "2", "--min-recall", "0.5").code == \
        ExitCode.OK
    strict = run("check", S002, answer, "--relevant", "1,2", "--format", "json")
    assert json.loads(strict.out)["metrics"]["recall"] == 0.5


def test_config_file_is_used_and_flags_override(run: Any, tmp_path: Path) -> None:
    (tmp_path / "citeaudit.toml").write_text("min-recall = 0.3\n")
    answer = str(SEEDS / "002/answer.txt")
    assert run("check", S002, answer).code == ExitCode.OK
    assert run("check", S002, answer, "--min-recall", "0.9").code == ExitCode.FAILED
    assert run("check", S002, answer, "--no-config").code == ExitCode.OK  # no threshold set
    other = tmp_path / "other.toml"
    other.write_text("min-recall = 0.9\n")
    assert run("check", S002, answer, "--config", str(other)).code == ExitCode.FAILED


@pytest.mark.parametrize(("args", "message"), [
    (["check", S002], "needs a SNAPSHOT file before the answer"),
    (["check", S002, "missing.txt"], "missing.txt: No such file or directory"),
    (["check", S002, "-", "--grammar", "regex:("], "cannot compile grammar regex"),
    (["check", S002, "-", "--grammar", "roman"], "unknown grammar 'roman'"),
    (["check", S002, "-", "--select", "CA9"], "matches no rule code"),
    (["check", S002, "-", "--severity", "CA201=fatal"], "must be \"error\" or \"warning\""),
    (["check", S002, "-", "--severity", "CA999=error"], "unknown rule code 'CA999'"),
    (["check", S002, "-", "--min-precision", "2"], "must lie in [0, 1]"),
    (["check", S002, "-", "--relevant", "9"], "relevant: names ids not in the snapshot: 9"),
    (["check", S002, "-", "--config", "nowhere.toml"], "nowhere.toml: No such file"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_usage_and_input_errors(run: Any, args: list[str], message: str) -> None:
    result = run(*args, stdin=b"Text [1].")
    assert result.code == ExitCode.INPUT_ERROR
    assert result.out == ""
    assert message in result.err
    assert result.err.startswith(("citeaudit: error: ", "citeaudit check: error: ",
                                  "citeaudit: error: argument"))
    assert result.err.count("citeaudit") == 1  # no doubled prefix
    assert result.err.count("\n") == 1  # RE2 logs nothing of its own
    assert "Traceback" not in result.err


def test_rules_command(run: Any) -> None:
    result = run("rules")
    assert result.code == ExitCode.OK
    lines = result.out.splitlines()
    assert len(lines) == len(citeaudit.RULES)
    assert lines[0].split()[:3] == ["CA101", "malformed-marker", "warning"]
    assert lines[13].endswith("(off by default)")
    rows = json.loads(run("rules", "--format", "json").out)
    assert rows[3] == {"code": "CA202", "name": "out-of-range", "severity": "error",
                       "enabled": True,
                       "summary": "a numeric id is outside 1..N (including 0 and negatives)"}


def _commands() -> list[str]:
    parser = _parser()
    return sorted(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


@pytest.mark.parametrize("command", _commands())
def test_every_command_has_help(run: Any, command: str) -> None:
    result = run(command, "--help")
    assert result.code == ExitCode.OK
    assert result.out.startswith(f"usage: citeaudit {command}")


def test_version(run: Any) -> None:
    result = run("--version")
    assert result.code == ExitCode.OK
    assert result.out == f"citeaudit {citeaudit.__version__} ({mode()})\n"


def test_console_script_runs_as_a_real_process() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "citeaudit", "check", S000, str(SEEDS / "000/errors.json")],
        capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert "CA201" in result.stdout
    assert result.stderr == ""


def test_json_docs_match_the_output(run: Any) -> None:
    docs = (Path(__file__).parents[1] / "docs" / "json.md").read_text()
    example = json.loads(docs.split("```json\n", 1)[1].split("```", 1)[0])
    result = run("check", S000, str(SEEDS / "000/errors.json"), "--format", "json")
    report = json.loads(result.out)
    assert set(example) == set(report)
    assert set(example["metrics"]) == set(report["metrics"])
    assert set(example["findings"][0]) == set(report["findings"][0])
    for key in report:
        assert f"`{key}`" in docs or key in ("version", "findings", "checked", "not_checked")


def test_stdin_is_named_and_limited(run: Any) -> None:
    result = run("check", S002, "-", "--max-bytes", "500",
                 stdin=b"Refunds take 30 days [1]." * 30)
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err == ("citeaudit: error: <stdin>: input is over the limit of 500 bytes"
                          " (raise it with --max-bytes)\n")
    shown = run("check", S002, "-", stdin=b"Refunds take 30 days.")
    assert shown.out.startswith("<stdin>:1:1 (claim 1): CA302 error:")


def test_byte_order_mark_is_accepted(run: Any, tmp_path: Path) -> None:
    snapshot = tmp_path / "bom.json"
    snapshot.write_bytes(b"\xef\xbb\xbf" + (SEEDS / "000/sources.json").read_bytes())
    assert run("check", str(snapshot), str(SEEDS / "000/positive.json")).code == ExitCode.OK


def test_render_html_and_exit_code(run: Any, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("Settles in 30 days [2]. Refunds take 14 days [7].\n")
    result = run("render", S002, str(answer))
    assert result.code == ExitCode.FAILED  # the answer did not pass; the output is still there
    assert result.err.startswith("FAIL (CA202 out-of-range): 1 error, 0 warnings")
    assert result.err.count("\n") == 1
    assert result.out.startswith('<div class="citeaudit-answer">\n<p>Settles in 30 days <sup')
    assert '<div class="citeaudit-status" data-status="unverified" hidden></div>' in result.out
    assert "Refunds take 14 days.</p>" in result.out
    assert "[7]" not in result.out


def test_render_policies_and_markdown(run: Any, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("Settles in 30 days [2]. Refunds take 14 days [7].")
    dropped = run("render", S002, str(answer), "--to", "markdown", "--policy", "drop")
    assert dropped.out.startswith("Settles in 30 days [\\[1\\]](<https://hr.example/policy>).\n")
    withheld = run("render", S002, str(answer), "--policy", "withhold", "--fallback", "Held.")
    assert withheld.out == ('<div class="citeaudit-answer">\n<p>Held.</p>\n</div>\n'
                            '<div class="citeaudit-status" data-status="unverified"'
                            ' data-withheld="true" hidden></div>\n')
    assert withheld.code == ExitCode.FAILED
    good = tmp_path / "good.txt"
    good.write_text("Settles in 30 days [2]. Filed in 60 days [1].")
    passed = run("render", S002, str(good), "--min-recall", "0.5")
    assert passed.code == ExitCode.OK


def test_render_json(run: Any) -> None:
    result = run("render", S002, "-", "--to", "json", stdin=b"Desk [3]. Refunds [7].")
    data = json.loads(result.out)
    assert result.code == ExitCode.FAILED
    assert (data["text"], data["review"], data["removed"]) == ("Desk [3]. Refunds.", True,
                                                               ["[7]"])
    assert data["chips"][0]["url"] == "https://hr.example/faq"
    assert [s["id"] for s in data["snapshot"]["sources"]] == ["1", "2", "3"]


def test_render_from_stdin_and_bad_input(run: Any, tmp_path: Path) -> None:
    result = run("render", S002, "-", "--to", "markdown", stdin=b"Desk [3].")
    assert result.out.startswith("Desk [\\[1\\]](<https://hr.example/faq>).")
    broken = tmp_path / "broken.json"
    broken.write_text('[{"text": 3}]')
    bad = run("render", str(broken), "-", stdin=b"x")
    assert bad.code == ExitCode.INPUT_ERROR
    assert bad.out == ""
    assert bad.err == (f"citeaudit: error: {broken}: $[0].text: a passage needs a string"
                       ' "text", not a number\n')
    usage = run("render", S002, "-", "--policy", "keep")
    assert usage.code == ExitCode.INPUT_ERROR
    assert "invalid choice: 'keep'" in usage.err


def test_context_prints_the_prompt_and_writes_the_snapshot(run: Any, tmp_path: Path) -> None:
    snapshot = tmp_path / "snapshot.json"
    result = run("context", S002, "-o", str(snapshot), "--max-passages", "2")
    assert result.code == ExitCode.OK
    assert result.err == ""
    assert result.out.startswith("You answer ONLY from the numbered passages below.\n")
    assert result.out.endswith("[2] Reimbursement\n    Reimbursements settle within 30 days of"
                               " approval. Per diem claims follow the same schedule.\n")
    written = json.loads(snapshot.read_text())
    assert [s["id"] for s in written["sources"]] == ["1", "2"]
    answer = tmp_path / "answer.txt"
    answer.write_text("Settles in 30 days [2]. Filed in 60 days [1].")
    assert run("check", str(snapshot), str(answer)).code == ExitCode.OK
    assert run("check", str(snapshot), "-", stdin=b"Desk [3].").code == ExitCode.FAILED


def test_context_contract_file(run: Any, tmp_path: Path) -> None:
    contract = tmp_path / "contract.txt"
    contract.write_text("Cite with [n]; otherwise say {refusal}")
    result = run("context", "-", "-o", str(tmp_path / "s.json"), "--contract", str(contract),
                 "--refusal", "No.", stdin=b'["one"]')
    assert result.out == "Cite with [n]; otherwise say No.\n\nPassages:\n\n[1]\n    one\n"


@pytest.mark.parametrize(("passages", "message"), [
    (b'{"1": "x"}', "$: the passages must be a JSON list"),
    (b'["x", {"url": "https://a.example"}]',
     '$[1].text: a passage needs a string "text", not null'),
    (b'["x",', "line 1, column 6: "),
])
def test_context_bad_input(run: Any, tmp_path: Path, passages: bytes, message: str) -> None:
    result = run("context", "-", "-o", str(tmp_path / "s.json"), stdin=passages)
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err.startswith(f"citeaudit: error: <stdin>: {message}")
    assert not (tmp_path / "s.json").exists()


def test_context_unwritable_output(run: Any, tmp_path: Path) -> None:
    result = run("context", S002, "-o", str(tmp_path / "missing" / "s.json"))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err == (f"citeaudit: error: {tmp_path / 'missing' / 's.json'}: cannot write"
                          " the snapshot: No such file or directory\n")


_BAD_CONFIGS = {
    "citeaudit.toml": (b"min-recall = 0.5\nrefusal = \"No \xff.\"\n",
                       "line 2, column 15: not valid UTF-8 (byte 0xff: invalid start byte)"),
    "pyproject.toml": (b"[tool.citeaudit]\n# \xc3\x28\n",
                       "line 2, column 3: not valid UTF-8 (byte 0xc3: invalid continuation"
                       " byte)"),
    "deep.toml": (b"a = " + b"[" * 2000 + b"]" * 2000 + b"\n",
                  "line 1, column 69: nested deeper than 64 levels"),
}


@pytest.mark.parametrize("name", sorted(_BAD_CONFIGS))
@pytest.mark.parametrize("command", [
    ["check", S002, "-"], ["render", S002, "-"], ["eval", "-"], ["replay", "-"]])
def test_a_broken_configuration_file_is_one_line_naming_it(run: Any, tmp_path: Path,
                                                           name: str, command: list[str]) -> None:
    content, message = _BAD_CONFIGS[name]
    path = tmp_path / name
    path.write_bytes(content)
    given = ["--config", str(path)] if name == "deep.toml" else []  # else: discovered
    result = run(*command, *given, stdin=b"Refunds take 30 days [1].")
    assert (result.code, result.out) == (ExitCode.INPUT_ERROR, "")
    assert result.err == f"citeaudit: error: {path}: {message}\n"


@pytest.mark.parametrize("name", sorted(_BAD_CONFIGS))
def test_serve_refuses_a_broken_configuration_file(run: Any, tmp_path: Path, name: str) -> None:
    content, message = _BAD_CONFIGS[name]
    path = tmp_path / "elsewhere" / name
    path.parent.mkdir()
    path.write_bytes(content)
    result = run("serve", "--config", str(path), "--port", "1")
    assert (result.code, result.out) == (ExitCode.INPUT_ERROR, "")
    assert result.err == f"citeaudit: error: {path}: {message}\n"


@pytest.mark.parametrize("text", [
    "", "\n", "\n\n", "a", "a\n", "\nab\n\ncd", "Xy 1. " * 500, "Xy 1.\n" * 300,
    "é\r\n😀\n\n\u2028x\n" * 40])
def test_line_index_places_every_offset_as_counting_does(text: str) -> None:
    index = LineIndex(text)
    for offset in range(len(text) + 1):
        line = text.count("\n", 0, offset) + 1
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        assert index.line_column(offset) == (line, column) == line_column(text, offset)


def test_text_output_places_many_findings(run: Any, tmp_path: Path) -> None:
    text = "".join(f"Xy {n}. " + ("\n" if n % 7 == 0 else "") + ("\n\n" if n % 13 == 0 else "")
                   + ("Ok [9]. " if n % 5 == 0 else "") for n in range(1, 400))
    answer = tmp_path / "many.txt"
    answer.write_text(text)
    shown = run("check", S002, str(answer)).out.splitlines()[:-1]
    report = json.loads(run("check", S002, str(answer), "--format", "json").out)
    assert len(shown) == len(report["findings"]) > 400
    for line, finding in zip(shown, report["findings"], strict=True):
        start = finding["span"][0]
        row, column = text.count("\n", 0, start) + 1, start - text.rfind("\n", 0, start)
        assert line.startswith(f"{answer}:{row}:{column} (claim {finding['claim']}):"
                               f" {finding['code']} ")


# What a terminal must never be sent raw, as one_line shows it.
HOSTILE = "\x9b31m\u202eevil\u2066x\u2069\u200e\u200f\u061c\x7f\x1b[2J"
ESCAPED = "\\x9b31m\\u202eevil\\u2066x\\u2069\\u200e\\u200f\\u061c\\x7f\\x1b[2J"
RAW = {character for character in HOSTILE if not character.isprintable()}


def test_one_line_escapes_every_control_and_bidirectional_character() -> None:
    unsafe = [*range(0x20), *range(0x7F, 0xA0), 0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
              *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    for code in unsafe:
        if code == 0x09:
            continue
        shown = one_line(f"a{chr(code)}b")
        assert shown.isascii(), hex(code)
        assert shown.isprintable(), hex(code)
        assert shown.startswith("a\\"), hex(code)
        assert shown.endswith("b"), hex(code)
    kept = "tab\there, é, 中文, 😀, a\u200db, \u00a0, \u2060, \u202f, \u206a"
    assert one_line(kept) == kept
    assert one_line(HOSTILE) == ESCAPED


def test_check_text_escapes_what_the_answer_and_its_name_hold(run: Any, tmp_path: Path) -> None:
    answer = tmp_path / f"a{HOSTILE}.txt"
    answer.write_text(f"Costs 5 dollars {HOSTILE}.\n")
    result = run("check", S002, str(answer))
    assert result.code == ExitCode.FAILED
    assert result.out.splitlines()[0] == (
        f"{tmp_path}/a{ESCAPED}.txt:1:1 (claim 1): CA302 error: claim states a number or"
        f' quantity but cites no source: "Costs 5 dollars {ESCAPED}."')
    assert result.out.isascii()


def test_render_writes_nothing_raw_to_a_terminal(run: Any, tmp_path: Path) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text(f"Costs 5 dollars {HOSTILE} [1].\n")
    for to in ("html", "markdown"):
        result = run("render", S002, str(answer), "--to", to)
        assert not RAW & set(result.out + result.err), to
        assert result.err.isascii()


@pytest.mark.parametrize("command", [
    ["check", S002], ["render", S002], ["context"], ["calibrate"], ["replay"], ["merge"],
    ["eval"]])
def test_error_messages_escape_what_they_quote(run: Any, command: list[str]) -> None:
    result = run(*command, f"missing{HOSTILE}.json", *(["-o", "x.json"] if command == [
        "context"] else []))
    assert result.code == ExitCode.INPUT_ERROR
    assert f"missing{ESCAPED}.json: " in result.err
    assert result.err.isascii()
    assert result.err.count("\n") == 1


@pytest.mark.parametrize("command", [
    ["check", S002, "ANSWER", "--format", "json"], ["render", S002, "ANSWER", "--to", "json"],
    ["eval", "DATA", "--format", "json"]])
def test_json_output_holds_no_raw_terminal_controls(run: Any, tmp_path: Path,
                                                    command: list[str]) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text(f"Costs 5 dollars {HOSTILE}.\n")
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"id": HOSTILE, "sources": ["Costs 5 dollars."],
                                "answer": answer.read_text(), "tags": {HOSTILE: HOSTILE}})
                    + "\n")
    argv = [str(answer) if a == "ANSWER" else str(data) if a == "DATA" else a
            for a in command]
    result = run(*argv)
    assert not RAW & set(result.out), result.out
    assert any(HOSTILE in text for text in _strings(json.loads(result.out)))  # the same text


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys too."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []

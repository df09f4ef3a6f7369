"""One verdict for every command, and custom checks through every entry point."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import citeaudit
from citeaudit.cli import ExitCode
from citeaudit.eval import Dataset, Options, evaluate, load_evaluators
from citeaudit.service import create_app

SEEDS = Path(__file__).parent / "data/seeds"
S002 = str(SEEDS / "002/passages.json")
PASSAGES = json.loads((SEEDS / "002/passages.json").read_text())
CLEAN = (SEEDS / "002/answer.txt").read_text()
REFUSAL = "Not covered by the provided documents."


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_seed_002_clean_answer_passes_check_and_eval_only_with_enough_recall(
        run: Any, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(CLEAN)
    assert run("check", S002, str(answer)).code == ExitCode.OK
    data = write(tmp_path / "d.jsonl", [{"id": "clean", "sources": PASSAGES, "answer": CLEAN}])
    out = tmp_path / "r.jsonl"
    strict = run("eval", str(data), "-o", str(out), "--format", "json")
    assert strict.code == ExitCode.FAILED  # citation_coverage: recall 1/3 < 0.5
    (row,) = results(out)
    assert (row["audit_passed"], row["passed"]) == (True, False)
    assert row["reasons"] == [
        "citation_coverage: recall 0.33 < min-recall 0.50 (cited 1 of 3 retrieved passages,"
        " the default threshold: change it with --min-recall or min-recall in the configuration)"]
    assert run("eval", str(data), "--min-recall", "0.3").code == ExitCode.OK
    relevant = write(tmp_path / "rel.jsonl", [{"id": "clean", "sources": PASSAGES,
                                               "answer": CLEAN, "relevant": ["2"]}])
    assert run("eval", str(relevant)).code == ExitCode.OK  # recall against the gold id: 1


def test_a_refusal_gets_one_verdict_from_check_guard_and_eval(run: Any,
                                                              tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(REFUSAL)
    checked = run("check", S002, str(answer), "--format", "json")
    served = citeaudit.guard(REFUSAL, PASSAGES)
    data = write(tmp_path / "d.jsonl", [{"id": "r", "sources": PASSAGES, "answer": REFUSAL}])
    out = tmp_path / "r.jsonl"
    evaluated = run("eval", str(data), "-o", str(out))
    (row,) = results(out)
    assert json.loads(checked.out)["passed"] is True
    assert served.report.passed is True
    assert row["passed"] is True
    assert {checked.code, evaluated.code} == {ExitCode.OK}
    assert row["status"] == json.loads(checked.out)["status"] == served.status == "no_evidence"
    rendered = run("render", S002, str(answer))
    assert rendered.code == ExitCode.OK


def test_labelled_refusals(run: Any, tmp_path: Path) -> None:
    answered = "Reimbursements settle within 30 days [2]. Filing takes 60 days [1]. Desk [3]."
    data = write(tmp_path / "d.jsonl", [
        {"id": "refused-answerable", "sources": PASSAGES, "answer": REFUSAL,
         "answerable": True},
        {"id": "refused-unanswerable", "sources": PASSAGES, "answer": REFUSAL,
         "answerable": False},
        {"id": "answered-unanswerable", "sources": PASSAGES, "answer": answered,
         "answerable": False},
        {"id": "answered-answerable", "sources": PASSAGES, "answer": answered,
         "answerable": True},
        {"id": "unlabelled", "sources": PASSAGES, "answer": REFUSAL},
    ])
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out), "--format", "json")
    rows = {r["id"]: r for r in results(out)}
    assert {name: r["passed"] for name, r in rows.items()} == {
        "refused-answerable": False, "refused-unanswerable": True,
        "answered-unanswerable": False, "answered-answerable": True, "unlabelled": True}
    assert rows["refused-answerable"]["reasons"] == ["refused an answerable question"]
    assert rows["answered-unanswerable"]["reasons"] == ["answered an unanswerable question"]
    summary = json.loads(result.out)
    assert summary["no_evidence"] == 3
    # Of the labelled: 2 refused, 1 of them rightly; 2 unanswerable, 1 of them refused.
    assert (summary["refusal_precision"], summary["refusal_recall"]) == (0.5, 0.5)
    assert summary["failures"] == {"answered an unanswerable question": 1,
                                   "refused an answerable question": 1}
    table = run("eval", str(data)).out
    assert "failed records by reason: answered an unanswerable question 1, refused an" \
        " answerable question 1\n" in table
    assert "refusals (labelled records): precision 0.500, recall 0.500\n" in table
    markdown = run("eval", str(data), "--format", "markdown").out
    assert "| refused an answerable question | 1 |" in markdown
    report = citeaudit.audit(REFUSAL, PASSAGES, answerable=True)
    assert (report.passed, report.reasons) == (False, ("refused an answerable question",))
    bad = write(tmp_path / "bad.jsonl", [{"id": "x", "sources": PASSAGES, "answer": REFUSAL,
                                         "answerable": "yes"}])
    broken = run("eval", str(bad))
    assert broken.code == ExitCode.INPUT_ERROR
    assert "\"answerable\" must be true or false, not a string" in broken.err


def test_no_gate_is_needed_for_the_no_evidence_rate(run: Any, tmp_path: Path) -> None:
    data = write(tmp_path / "d.jsonl", [
        {"id": "a", "sources": PASSAGES, "answer": REFUSAL},
        {"id": "b", "sources": PASSAGES, "answer": "Reports are filed within 60 days [1]."}])
    assert run("eval", str(data), "--min-recall", "0").code == ExitCode.OK
    gated = run("eval", str(data), "--min-recall", "0", "--gate", "no_evidence_rate<=0.2")
    assert gated.code == ExitCode.FAILED
    assert "gate no_evidence_rate<=0.2: FAILS" in gated.out


CUSTOM_CHECK = '''
from citeaudit import Problem, Rule, Severity


def no_ellipsis(context):
    for claim in context.answer.claims:
        if "..." in claim.text:
            yield Problem("XY101", "claim trails off", claim.number, claim.span)


no_ellipsis.rules = (Rule("XY101", "trailing-ellipsis", Severity.ERROR,
                          "a claim that trails off"),)
'''


def _trails_off(context: citeaudit.Context) -> list[citeaudit.Problem]:
    return [citeaudit.Problem("XY101", "claim trails off", claim.number, claim.span)
            for claim in context.answer.claims if "..." in claim.text]


_trails_off.rules = (citeaudit.Rule("XY101", "trailing-ellipsis",  # type: ignore[attr-defined]
                                    citeaudit.Severity.ERROR, "a claim that trails off"),)
TRAILING = "Reports are filed within 60 days [1]. It goes on... [2]"


def test_a_custom_check_runs_through_audit_guard_stream_and_eval(tmp_path: Path) -> None:
    report = citeaudit.audit(TRAILING, PASSAGES, checks=[_trails_off])
    assert [(f.code, f.severity, f.claim) for f in report.findings] == [
        ("XY101", citeaudit.Severity.ERROR, 2)]
    assert report.reasons == ("XY101",)
    assert citeaudit.audit(TRAILING, PASSAGES).passed
    served = citeaudit.guard(TRAILING, PASSAGES, checks=[_trails_off], policy="withhold")
    assert served.withheld
    assert [f.code for f in citeaudit.resolve(TRAILING, PASSAGES,
                                              checks=[_trails_off]).report.findings] == ["XY101"]
    auditor = citeaudit.stream(PASSAGES, checks=[_trails_off])
    auditor.feed(TRAILING)
    assert [f.code for f in auditor.finish().findings] == ["XY101"]
    assert [f.code for f in citeaudit.iter_findings(TRAILING, PASSAGES,
                                                    checks=[_trails_off])] == ["XY101"]
    data = write(tmp_path / "d.jsonl", [{"id": "t", "sources": PASSAGES, "answer": TRAILING},
                                        {"id": "u", "sources": PASSAGES,
                                         "answer": "Reports are filed within 60 days [1]."}])
    config = citeaudit.Config(min_recall=0.0)
    for jobs in (1, 2):
        options = Options(config, tuple(load_evaluators(None, config)), checks=(_trails_off,))
        aggregate = evaluate(Dataset(str(data), format="jsonl", max_bytes=10**6), options,
                             jobs=jobs)
        assert aggregate.to_dict()["findings"] == {"XY101": 1}
        assert aggregate.to_dict()["passed"] == 1


def test_an_installed_check_runs_when_named(run: Any, tmp_path: Path, plugins: Any) -> None:
    plugins({"example_checks": CUSTOM_CHECK},
            {"citeaudit.checks": {"no_ellipsis": "example_checks:no_ellipsis"}})
    answer = tmp_path / "a.txt"
    answer.write_text(TRAILING)
    assert run("check", S002, str(answer)).code == ExitCode.OK  # not named: not run
    named = run("check", S002, str(answer), "--check", "no_ellipsis")
    assert named.code == ExitCode.FAILED
    assert "XY101 error: claim trails off" in named.out
    (tmp_path / "citeaudit.toml").write_text('checks = ["no_ellipsis"]\n')
    assert run("check", S002, str(answer)).code == ExitCode.FAILED  # named in the config
    data = write(tmp_path / "d.jsonl", [{"id": "t", "sources": PASSAGES, "answer": TRAILING}])
    out = tmp_path / "r.jsonl"
    for jobs in ("1", "2"):
        run("eval", str(data), "-o", str(out), "--jobs", jobs, "--no-config",
            "--check", "no_ellipsis", "--min-recall", "0")
        assert [f["code"] for f in results(out)[0]["findings"]] == ["XY101"]
    unknown = run("check", S002, str(answer), "--no-config", "--check", "nope")
    assert unknown.code == ExitCode.INPUT_ERROR
    assert "unknown check 'nope' (installed: malformed_markers," in unknown.err


def test_a_check_stating_an_undeclared_code_is_a_configuration_error() -> None:
    def loose(context: citeaudit.Context) -> list[citeaudit.Problem]:
        del context
        return [citeaudit.Problem("ZZ999", "what is this")]

    with pytest.raises(citeaudit.ConfigError, match="check loose states ZZ999, which is"
                                                    " neither a rule code nor one of the"
                                                    " rules it declares"):
        citeaudit.audit("A [1].", PASSAGES, checks=[loose])


# White space of every kind, and the invisible format characters a copy can leave behind.
BLANK_ANSWERS = ("", " ", "  \n\t\n", "\r\n", "\u3000\u00a0", "\u200b", "\ufeff \u2060\n")


def test_an_empty_answer_fails_with_one_finding_everywhere(run: Any, tmp_path: Path) -> None:
    service = TestClient(create_app())
    for blank in BLANK_ANSWERS:
        report = citeaudit.audit(blank, PASSAGES)
        assert (report.passed, report.status) == (False, "unverified"), repr(blank)
        assert [(f.code, f.message) for f in report.findings] == [
            ("CA404", "the answer is empty: it holds nothing but white space")], repr(blank)
        assert [f.code for f in citeaudit.iter_findings(blank, PASSAGES)] == ["CA404"]
        assert citeaudit.guard(blank, PASSAGES).report.passed is False
        auditor = citeaudit.stream(PASSAGES)
        auditor.feed(blank)
        assert auditor.finish().to_dict() == report.to_dict()
        served = service.post("/v1/audit", json={"answer": blank, "sources": PASSAGES})
        assert served.status_code == 200
        assert served.json() == report.to_dict()
        answer = tmp_path / "answer.txt"
        answer.write_text(blank, encoding="utf-8")
        checked = run("check", S002, str(answer), "--format", "json")
        assert (checked.code, json.loads(checked.out)) == (ExitCode.FAILED, report.to_dict())
        assert run("render", S002, str(answer)).code == ExitCode.FAILED
    data = write(tmp_path / "d.jsonl", [{"id": str(n), "sources": PASSAGES, "answer": blank}
                                        for n, blank in enumerate(BLANK_ANSWERS)])
    out = tmp_path / "r.jsonl"
    assert run("eval", str(data), "-o", str(out), "--min-recall", "0").code == ExitCode.FAILED
    assert {(row["passed"], tuple(f["code"] for f in row["findings"]))
            for row in results(out)} == {(False, ("CA404",))}


def test_an_empty_claim_list_passes_and_ca403_asks_for_claims(run: Any) -> None:
    assert citeaudit.audit([], PASSAGES).passed  # seed 000: no claims, nothing to audit
    strict = citeaudit.Config(extend_select=("CA403",))
    for empty in ([], "## Refunds\n", "Great question!"):
        report = citeaudit.audit(empty, PASSAGES, config=strict)
        assert [f.code for f in report.findings] == ["CA403"], empty
    assert [f.code for f in citeaudit.audit(" ", PASSAGES, config=strict).findings] == ["CA404"]


def _breaks_on_boom(context: citeaudit.Context) -> list[citeaudit.Problem]:
    if "boom" in context.answer.text:
        raise TypeError("unhashable type: 'list'")  # as a bug in a check would
    return []


_breaks_on_boom.rules = (citeaudit.Rule(  # type: ignore[attr-defined]
    "XY102", "never", citeaudit.Severity.ERROR, "never found"),)


def test_a_record_whose_audit_breaks_is_unreadable_and_the_run_goes_on(tmp_path: Path) -> None:
    records = [{"id": str(n), "sources": PASSAGES,
                "answer": "boom [1]." if n in (3, 700) else CLEAN} for n in range(1000)]
    data = write(tmp_path / "d.jsonl", records)
    config = citeaudit.Config(min_recall=0.0)
    for jobs in (1, 2):
        out = tmp_path / f"r{jobs}.jsonl"
        options = Options(config, tuple(load_evaluators(None, config)), checks=(_breaks_on_boom,))
        aggregate = evaluate(Dataset(str(data), format="jsonl", max_bytes=10**6), options,
                             jobs=jobs, out=out).to_dict()
        rows = results(out)
        assert len(rows) == 1000
        broken = [row for row in rows if row["status"] == "unreadable"]
        assert [row["id"] for row in broken] == ["3", "700"]
        assert broken[0]["error"] == ("the audit failed (TypeError: unhashable type: 'list'):"
                                      " a bug in citeaudit or in a check it ran")
        assert (aggregate["records"], aggregate["unreadable"], aggregate["passed"]) == (
            1000, 2, 998)

"""``citeaudit diff A B``: two runs compared record by record, through real runs of
``citeaudit eval`` and real processes of the command line, and as properties of generated
results.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import citeaudit
from citeaudit.cli import ExitCode, main
from citeaudit.eval import diff_runs, read_run
from thorough import examples

BROKEN = ("r03", "r07", "r11")  # the records whose answers run B breaks


def _dataset(count: int = 14) -> list[dict[str, Any]]:
    """Records that pass (two sources, both cited), one that fails in both runs, one refusal,
    tagged by topic.
    """
    records = []
    for number in range(count):
        records.append({"id": f"r{number:02d}", "sources": [f"Refunds take {number} days.",
                                                            "Fees apply."],
                        "answer": f"Refunds take {number} days [1]. Fees apply [2].",
                        "tags": {"topic": "billing" if number % 2 else "refunds"}})
    records.append({"id": "always-bad", "sources": ["Refunds take 30 days."],
                    "answer": "Refunds take 30 days [4].", "tags": {"topic": "billing"}})
    records.append({"id": "refusal", "sources": ["Refunds take 30 days."],
                    "answer": "Not covered by the provided documents.",
                    "tags": {"topic": "refunds"}})
    return records


def _broken(records: list[dict[str, Any]], ids: tuple[str, ...] = BROKEN,
            ) -> list[dict[str, Any]]:
    """The same records, those of ``ids`` answering with a citation out of range."""
    return [{**record, "answer": record["answer"].replace("[2]", "[9]")}
            if record["id"] in ids else record for record in records]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def _cli(*argv: str, real: bool = False) -> subprocess.CompletedProcess[str]:
    """The command line: ``eval``, and where ``real`` is asked, in a process of its own; the
    other ``diff`` runs in this one (the same ``main``, its streams captured).
    """
    if real or argv[0] == "eval":
        return subprocess.run([sys.executable, "-m", "citeaudit", *argv], capture_output=True,
                              text=True, check=False)
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err, stdin=io.BytesIO())
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


def _eval(dataset: Path, out: Path, *extra: str, unreadable: bool = False) -> Path:
    """``citeaudit eval`` run for real: its results file."""
    result = _cli("eval", str(dataset), "-o", str(out), "--jobs", "1", "--no-config",
                  "--format", "json", *extra)
    codes = (ExitCode.INPUT_ERROR,) if unreadable else (ExitCode.OK, ExitCode.FAILED)
    assert result.returncode in codes, result.stderr
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Run A over the dataset and run B over it with three answers broken."""
    folder = tmp_path_factory.mktemp("runs")
    records = _dataset()
    a = _eval(_write(folder / "answers.jsonl", records), folder / "a.jsonl")
    broken = folder / "b" / "answers.jsonl"
    broken.parent.mkdir()
    b = _eval(_write(broken, _broken(records)), folder / "b.jsonl")
    return a, b


def _json(*argv: str) -> tuple[int, dict[str, Any]]:
    result = _cli("diff", *argv, "--format", "json")
    assert result.returncode in (ExitCode.OK, ExitCode.FAILED), result.stderr
    return result.returncode, json.loads(result.stdout)


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [entry["id"] for entry in entries]


def test_a_run_against_itself_reports_nothing(runs: tuple[Path, Path]) -> None:
    a, _ = runs
    result = _cli("diff", str(a), str(a), "--fail-on", "changed", real=True)
    assert result.returncode == ExitCode.OK, result.stderr
    assert "no differences" in result.stdout
    assert "regressed" not in result.stdout
    assert "metrics (A -> B)" not in result.stdout
    code, data = _json(str(a), str(a), "--fail-on", "changed")
    assert code == ExitCode.OK
    assert data["same"] is True
    assert not any(data["counts"].values())
    assert data["matched"] == data["a"]["records"] == len(_dataset())
    assert data["notes"] == []
    assert all(m["delta"] in (0, None) for m in data["metrics"].values())
    assert all(m["delta"] in (0, None) for values in data["tags"].values()
               for metrics in values.values() for m in metrics.values())


def test_three_injected_regressions_are_exactly_those_three(runs: tuple[Path, Path]) -> None:
    a, b = runs
    code, data = _json(str(a), str(b))
    assert code == ExitCode.OK  # the diff reports; only --fail-on makes it a gate
    assert _ids(data["regressed"]) == list(BROKEN)
    assert data["fixed"] == data["changed"] == data["only_in_a"] == data["only_in_b"] == []
    expected = [f.code for f in citeaudit.audit("Refunds take 3 days [1]. Fees apply [9].",
                                                ["Refunds take 3 days.", "Fees apply."]
                                                ).findings]
    assert expected
    for entry in data["regressed"]:
        assert entry["a"]["passed"] is True
        assert entry["b"]["passed"] is False
        assert entry["gained"] == {code: expected.count(code) for code in expected}
        assert entry["lost"] == {}
        assert entry["b"]["reasons"]
    assert data["findings"]["gained"] == {code: 3 * expected.count(code) for code in expected}
    assert data["counts"]["regressed"] == 3
    assert data["metrics"]["passed"]["delta"] == -3
    assert data["metrics"]["pass_rate"]["delta"] == pytest.approx(-3 / data["a"]["records"])
    # per tag: r03, r07 and r11 are all odd: billing
    assert data["tags"]["topic"]["billing"]["passed"]["delta"] == -3
    assert data["tags"]["topic"]["refunds"]["passed"]["delta"] == 0


def test_regressed_one_way_is_fixed_the_other(runs: tuple[Path, Path]) -> None:
    a, b = runs
    _, forward = _json(str(a), str(b))
    code, backward = _json(str(b), str(a), "--fail-on", "regressed")
    assert code == ExitCode.OK  # nothing regressed from B to A
    assert _ids(backward["fixed"]) == _ids(forward["regressed"])
    assert backward["findings"]["lost"] == forward["findings"]["gained"]
    assert backward["regressed"] == []


@pytest.mark.parametrize(("fail_on", "code"), [("regressed", ExitCode.FAILED),
                                                ("changed", ExitCode.FAILED),
                                                ("never", ExitCode.OK)])
def test_fail_on_makes_the_diff_a_gate(runs: tuple[Path, Path], fail_on: str,
                                       code: int) -> None:
    a, b = runs
    result = _cli("diff", str(a), str(b), "--fail-on", fail_on)
    assert result.returncode == code, result.stderr
    if fail_on != "never":
        assert f"--fail-on {fail_on}: FAILS" in result.stdout


def test_the_text_names_the_regressed_records(runs: tuple[Path, Path]) -> None:
    a, b = runs
    result = _cli("diff", str(a), str(b))
    assert result.returncode == ExitCode.OK
    assert "regressed (passed in A, fails in B): 3" in result.stdout
    for record_id in BROKEN:
        assert f"  {record_id} (line " in result.stdout
    assert "pass_rate:" in result.stdout
    assert "topic=billing:" in result.stdout
    assert "topic=refunds:" not in result.stdout  # nothing changed there


def test_the_html_page_is_self_contained_and_escaped(tmp_path: Path) -> None:
    records = _dataset(4)
    records[1]["id"] = "<script>alert(1)</script>"
    records[2]["tags"] = {"topic": "<b>bold</b>"}
    a = _eval(_write(tmp_path / "a-set.jsonl", records), tmp_path / "a.jsonl")
    b = _eval(_write(tmp_path / "b-set.jsonl", _broken(records, (records[1]["id"],))),
              tmp_path / "b.jsonl")
    page = tmp_path / "diff.html"
    result = _cli("diff", str(a), str(b), "--html", str(page), "--fail-on", "regressed")
    assert result.returncode == ExitCode.FAILED
    html = page.read_text()
    assert html.startswith("<!doctype html>")
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "Regressed (passed in A, fails in B): 1" in html
    assert "http" not in html.lower()  # nothing loaded from the network


def test_terminal_escapes_in_ids_are_shown_not_sent(tmp_path: Path) -> None:
    records = _dataset(3)
    records[0]["id"] = "evil\x1b[2J\u202e"
    a = _eval(_write(tmp_path / "a-set.jsonl", records), tmp_path / "a.jsonl")
    b = _eval(_write(tmp_path / "b-set.jsonl", _broken(records, (records[0]["id"],))),
              tmp_path / "b.jsonl")
    result = _cli("diff", str(a), str(b))
    assert "\x1b" not in result.stdout
    assert "\u202e" not in result.stdout
    assert "evil\\x1b[2J\\u202e" in result.stdout
    data = json.loads(_cli("diff", str(a), str(b), "--format", "json").stdout)
    assert _ids(data["regressed"]) == [records[0]["id"]]


def test_records_are_matched_by_id_not_by_place(run: Any, tmp_path: Path) -> None:
    records = _dataset(8)
    shuffled = records[:]
    random.Random(3).shuffle(shuffled)
    a = _eval(_write(tmp_path / "a-set.jsonl", records), tmp_path / "a.jsonl")
    b = _eval(_write(tmp_path / "b-set.jsonl", shuffled), tmp_path / "b.jsonl")
    result = run("diff", str(a), str(b), "--format", "json", "--fail-on", "changed")
    assert result.code == ExitCode.OK, result.out
    assert json.loads(result.out)["same"] is True


def test_records_only_in_one_run(run: Any, tmp_path: Path) -> None:
    records = _dataset(6)
    later = [r for r in records if r["id"] != "r02"] + [{**records[0], "id": "new-one"}]
    a = _eval(_write(tmp_path / "a-set.jsonl", records), tmp_path / "a.jsonl")
    b = _eval(_write(tmp_path / "b-set.jsonl", later), tmp_path / "b.jsonl")
    result = run("diff", str(a), str(b), "--format", "json", "--fail-on", "regressed")
    assert result.code == ExitCode.OK  # a record gone is no regression
    data = json.loads(result.out)
    assert _ids(data["only_in_a"]) == ["r02"]
    assert _ids(data["only_in_b"]) == ["new-one"]
    assert data["regressed"] == data["fixed"] == []
    assert run("diff", str(a), str(b), "--fail-on", "changed").code == ExitCode.FAILED
    text = run("diff", str(a), str(b)).out
    assert "only in A: 1\n  r02 (line 3): ok, passed\n" in text


def test_records_without_ids_are_matched_by_position_and_it_is_said(run: Any,
                                                                   tmp_path: Path) -> None:
    records = [{k: v for k, v in r.items() if k != "id"} for r in _dataset(5)]
    a = _eval(_write(tmp_path / "a-set.jsonl", records), tmp_path / "a.jsonl")
    broken = [{**r, "answer": r["answer"].replace("[2]", "[9]")} if n == 1 else r
              for n, r in enumerate(records)]
    b = _eval(_write(tmp_path / "b-set.jsonl", broken), tmp_path / "b.jsonl")
    result = run("diff", str(a), str(b), "--format", "json")
    assert result.code == ExitCode.OK, result.err
    data = json.loads(result.out)
    assert [e["b"]["place"] for e in data["regressed"]] == ["line 2"]
    assert any("have no ids" in note and "matched by position" in note
               for note in data["notes"])
    assert "note: the records of A" in run("diff", str(a), str(b)).out


def test_unreadable_records_without_an_id_match_by_position(run: Any, tmp_path: Path) -> None:
    lines = [json.dumps(r) for r in _dataset(3)]
    (tmp_path / "a-set.jsonl").write_text("\n".join([*lines, "{not json"]) + "\n")
    (tmp_path / "b-set.jsonl").write_text("\n".join([*lines, json.dumps(_dataset(3)[0]
                                                                | {"id": "repaired"})]) + "\n")
    a = _eval(tmp_path / "a-set.jsonl", tmp_path / "a.jsonl", unreadable=True)
    b = _eval(tmp_path / "b-set.jsonl", tmp_path / "b.jsonl")
    data = json.loads(run("diff", str(a), str(b), "--format", "json").out)
    assert any("1 record of A" in note and "no id" in note for note in data["notes"])
    assert _ids(data["only_in_b"]) == ["repaired"]
    assert [e["status"] for e in data["only_in_a"]] == ["unreadable"]


def test_a_repeated_id_is_matched_occurrence_by_occurrence(run: Any, tmp_path: Path) -> None:
    records = _dataset(4)
    records[2]["id"] = records[1]["id"]
    a = _eval(_write(tmp_path / "a-set.jsonl", records), tmp_path / "a.jsonl")
    b = _eval(_write(tmp_path / "b-set.jsonl", _broken(records, ("r03",))),
              tmp_path / "b.jsonl")
    data = json.loads(run("diff", str(a), str(b), "--format", "json").out)
    assert _ids(data["regressed"]) == ["r03"]
    assert any("more than once ('r01')" in note for note in data["notes"])


def test_a_folder_of_shards_is_one_run(run: Any, runs: tuple[Path, Path],
                                       tmp_path: Path) -> None:
    a, b = runs
    dataset = a.parent / "answers.jsonl"
    shards = tmp_path / "shards"
    shards.mkdir()
    for number in (1, 2, 3):
        _eval(dataset, shards / f"shard-{number}.jsonl", "--shard", f"{number}/3")
    same = run("diff", str(a), str(shards), "--format", "json", "--fail-on", "changed")
    assert same.code == ExitCode.OK, same.err
    data = json.loads(run("diff", str(shards), str(b), "--format", "json").out)
    assert _ids(data["regressed"]) == list(BROKEN)
    (shards / "shard-2.jsonl").unlink()
    missing = run("diff", str(shards), str(b))
    assert missing.code == ExitCode.INPUT_ERROR
    assert "shard 2/3 of this run is missing" in missing.err


@pytest.mark.parametrize(("line", "where"), [
    ('{"status": "ok"}', "line 2: $.index: missing"),
    ('{"index": 0, "place": "line 1", "id": "x", "status": "ok", "passed": "yes"}',
     "line 2: $.passed: must be true or false"),
    ("{cut", "line 2, column 2"),
    ("[1]", "line 2: not a result of citeaudit eval"),
])
def test_a_line_that_is_no_result_names_file_line_and_field(
        runs: tuple[Path, Path], tmp_path: Path, line: str, where: str) -> None:
    a, _ = runs
    first = a.read_text().splitlines()[0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(f"{first}\n{line}\n")
    for argv in ((str(a), str(bad)), (str(bad), str(a))):
        result = _cli("diff", *argv, real=line == "[1]")
        assert result.returncode == ExitCode.INPUT_ERROR
        assert result.stdout == ""
        assert result.stderr.startswith(f"citeaudit: error: {bad}: {where}"), result.stderr
        assert "Traceback" not in result.stderr
        assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("case", ["missing", "empty folder", "html over input"])
def test_unusable_paths_are_input_errors(run: Any, runs: tuple[Path, Path], tmp_path: Path,
                                         case: str) -> None:
    a, _ = runs
    if case == "missing":
        result = run("diff", str(a), str(tmp_path / "nope.jsonl"))
        message = "nope.jsonl: cannot read"
    elif case == "empty folder":
        (tmp_path / "empty").mkdir()
        result = run("diff", str(tmp_path / "empty"), str(a))
        message = "a folder without results"
    else:
        copy = tmp_path / "copy.jsonl"
        copy.write_bytes(a.read_bytes())
        result = run("diff", str(copy), str(a), "--html", str(copy))
        message = "copy.jsonl"
    assert result.code == ExitCode.INPUT_ERROR
    assert message in result.err
    assert result.err.count("\n") == 1
    if case == "html over input":
        assert (tmp_path / "copy.jsonl").read_bytes() == a.read_bytes()


# Generated results: the shape citeaudit eval writes, drawn small.
_CODES = ("CA101", "CA201", "CA202", "CA301")
_RATIO = st.sampled_from([None, 0.0, 0.25, 0.5, 1.0])


@st.composite
def _result(draw: st.DrawFn, index: int, record_id: str | None) -> dict[str, Any]:
    place = f"line {index + 1}"
    if record_id is None or draw(st.integers(0, 9)) == 0:
        return {"index": index, "place": place, "id": record_id, "status": "unreadable",
                "passed": False, "error": "invalid JSON"}
    codes = draw(st.lists(st.sampled_from(_CODES), max_size=3))
    status = "unverified" if codes else draw(st.sampled_from(["ok", "no_evidence"]))
    passed = not codes and draw(st.booleans())
    metrics = {name: draw(_RATIO) for name in ("precision", "recall", "f1", "claim_coverage")}
    return {"index": index, "place": place, "id": record_id, "status": status,
            "passed": passed, "reasons": [] if passed else ["recall 0.00 < min-recall 0.50"],
            "audit_passed": not codes, "errors": len(codes),
            "findings": [{"code": code, "severity": "error", "message": "m"} for code in codes],
            "metrics": metrics, "tags": {"topic": draw(st.sampled_from(["a", "b"]))},
            "evaluators": {}}


@st.composite
def _run(draw: st.DrawFn) -> list[dict[str, Any]]:
    ids = draw(st.lists(st.one_of(st.none(), st.sampled_from("pqrstuvwxyz")), max_size=12))
    return [draw(_result(index, record_id)) for index, record_id in enumerate(ids)]


def _diff(first: list[dict[str, Any]], second: list[dict[str, Any]]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, results in (("a.jsonl", first), ("b.jsonl", second)):
            path = Path(folder) / name
            path.write_text("".join(json.dumps(result) + "\n" for result in results))
            paths.append(path)
        return diff_runs(read_run(str(paths[0])), read_run(str(paths[1])))


def _sorted(entries: list[dict[str, Any]]) -> list[str]:
    """The entries in an order of their own (each run lists them in its own order)."""
    return sorted(json.dumps(entry, sort_keys=True) for entry in entries)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_run())
def test_a_generated_run_against_itself_is_empty(results: list[dict[str, Any]]) -> None:
    data = _diff(results, results)
    assert data["same"] is True
    assert not any(data["counts"].values())
    assert data["regressed"] == data["fixed"] == data["changed"] == []
    assert all(m["delta"] in (0, None) for m in data["metrics"].values())


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_run(), _run())
def test_regressed_from_a_to_b_is_fixed_from_b_to_a(first: list[dict[str, Any]],
                                                    second: list[dict[str, Any]]) -> None:
    forward, backward = _diff(first, second), _diff(second, first)
    mirrored = [{**e, "a": e["b"], "b": e["a"], "gained": e["lost"], "lost": e["gained"],
                 "metrics": {n: {"a": m["b"], "b": m["a"]} for n, m in e["metrics"].items()}}
                for e in backward["fixed"]]
    assert _sorted(forward["regressed"]) == _sorted(mirrored)
    assert _sorted(forward["only_in_a"]) == _sorted(backward["only_in_b"])
    assert forward["findings"]["gained"] == backward["findings"]["lost"]
    assert forward["counts"]["changed"] == backward["counts"]["changed"]
    for name, metric in forward["metrics"].items():
        reverse = backward["metrics"][name]
        assert (metric["a"], metric["b"]) == (reverse["b"], reverse["a"])

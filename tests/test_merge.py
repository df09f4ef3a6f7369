"""Shards and merge: ``eval --shard I/N`` on several machines, ``citeaudit merge`` of their
results (and of resumed runs, and of other days when told), equal to one run exactly.
"""

from __future__ import annotations

import json
import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from citeaudit.cli import ExitCode
from dataset_builders import EXAMPLES, write_every_code

OPTIONS = ("--jobs", "1")


def _one_run(run: Any, dataset: Path, out: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    result = run("eval", str(dataset), "-o", str(out), "--format", "json", *OPTIONS, *extra)
    return result.code, json.loads(result.out)


def _shards(run: Any, dataset: Path, count: int, folder: Path, *extra: str) -> list[Path]:
    paths = []
    for number in range(1, count + 1):
        out = folder / f"shard-{number}-of-{count}.jsonl"
        result = run("eval", str(dataset), "--shard", f"{number}/{count}", "-o", str(out),
                     "--format", "json", *OPTIONS, *extra)
        assert result.code in (ExitCode.OK, ExitCode.FAILED, ExitCode.INPUT_ERROR), result.err
        paths.append(out)
    return paths


def _every_code(tmp_path: Path, count: int = 240) -> tuple[Path, tuple[str, ...]]:
    dataset, config = write_every_code(tmp_path / "d.jsonl", count)
    return dataset, ("--config", str(config), "--support", "lexical")


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_merged_shards_equal_one_run(run: Any, tmp_path: Path, count: int) -> None:
    dataset, extra = _every_code(tmp_path)
    code, whole = _one_run(run, dataset, tmp_path / "whole.jsonl", *extra)
    assert set(whole["findings"]) >= {"CA101", "CA201", "CA202", "CA301", "CA403", "CA501"}
    assert whole["unreadable"] > 0
    assert whole["no_evidence"] > 0
    assert "refusal_recall" in whole
    shards = _shards(run, dataset, count, tmp_path, *extra)
    lines = [len(p.read_text().splitlines()) for p in shards]
    assert sum(lines) == whole["records"]
    assert max(lines) - min(lines) <= 1
    order = list(reversed(shards))  # the order they are given in does not matter
    merged = run("merge", *map(str, order), "-o", str(tmp_path / "m.jsonl"), "--format",
                 "json")
    assert merged.code == code
    assert json.loads(merged.out) == whole
    # The merged results are the results of one run, byte for byte.
    assert (tmp_path / "m.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()


def test_merged_shards_of_the_shipped_examples(run: Any, tmp_path: Path) -> None:
    code, whole = _one_run(run, EXAMPLES, tmp_path / "whole.jsonl")
    shards = _shards(run, EXAMPLES, 3, tmp_path)
    for form in ("table", "markdown", "json"):
        merged = run("merge", *map(str, shards), "--format", form)
        direct = run("eval", str(EXAMPLES), "--format", form, *OPTIONS)
        assert (merged.code, merged.out) == (direct.code, direct.out) == (code, merged.out)
    assert json.loads(run("merge", *map(str, shards), "--format", "json").out) == whole


def test_junit_and_gates_of_a_merge(run: Any, tmp_path: Path) -> None:
    dataset, extra = _every_code(tmp_path, 90)
    shards = _shards(run, dataset, 2, tmp_path, *extra)
    direct = run("eval", str(dataset), "--format", "junit", *OPTIONS, *extra)
    merged = run("merge", *map(str, shards), "--format", "junit")
    strip = lambda text: "\n".join(line for line in text.splitlines()  # noqa: E731
                                   if "timestamp" not in line)
    assert strip(merged.out) == strip(direct.out)
    assert len(ET.fromstring(merged.out).iter("testcase").__next__().attrib) >= 1
    relaxed = run("merge", *map(str, shards), "--gate", "pass_rate>=0", "--format", "json")
    assert [(g["gate"], g["holds"]) for g in json.loads(relaxed.out)["gates"]] == [
        ("pass_rate>=0", True)]
    assert relaxed.code == ExitCode.INPUT_ERROR  # the run had unreadable records, as eval says
    assert "could not be audited" in relaxed.err


def test_a_resumed_shard_merges_like_a_clean_one(run: Any, tmp_path: Path) -> None:
    dataset, extra = _every_code(tmp_path, 150)
    shards = _shards(run, dataset, 2, tmp_path, *extra)
    clean = shards[0].read_bytes()
    # An interrupted shard: its first results and a torn line, left as the partial file.
    partial = shards[0].with_name(shards[0].name + ".partial")
    partial.write_bytes(b"".join(clean.splitlines(keepends=True)[:20]) + b'{"index": 4')
    shards[0].unlink()
    resumed = run("eval", str(dataset), "--shard", "1/2", "-o", str(shards[0]), "--resume",
                  "--format", "json", *OPTIONS, *extra)
    assert resumed.code == ExitCode.INPUT_ERROR  # unreadable records, as before
    assert shards[0].read_bytes() == clean
    # Resuming as another shard is refused.
    partial.write_bytes(b"".join(clean.splitlines(keepends=True)[:5]))
    other = run("eval", str(dataset), "--shard", "2/2", "-o", str(shards[0]), "--resume",
                *OPTIONS, *extra)
    assert other.code == ExitCode.INPUT_ERROR
    assert "written for another shard" in other.err
    partial.unlink()


def test_a_run_and_its_parts_split_anywhere_merge(run: Any, tmp_path: Path) -> None:
    """Results split at any line (a run cut in two, say) merge back to the run."""
    _, whole = _one_run(run, EXAMPLES, tmp_path / "whole.jsonl")
    lines = (tmp_path / "whole.jsonl").read_bytes().splitlines(keepends=True)
    rng = random.Random(3)
    for _ in range(3):
        cut = rng.randrange(1, len(lines))
        (tmp_path / "a.jsonl").write_bytes(b"".join(lines[:cut]))
        (tmp_path / "b.jsonl").write_bytes(b"".join(lines[cut:]))
        merged = run("merge", str(tmp_path / "b.jsonl"), str(tmp_path / "a.jsonl"),
                     "--format", "json")
        assert json.loads(merged.out) == whole


def _error(run: Any, *args: str, printed: bool = False) -> str:
    result = run("merge", *args)
    assert result.code == ExitCode.INPUT_ERROR, result.err
    assert (result.out != "") == printed
    assert "Traceback" not in result.err
    assert len(result.err.splitlines()) == 1, result.err
    return str(result.err)


def test_merge_refuses_what_does_not_belong_together(run: Any, tmp_path: Path) -> None:
    dataset, extra = _every_code(tmp_path, 60)
    one, two, three = map(str, _shards(run, dataset, 3, tmp_path, *extra))
    assert "shard 2/3 of this run is missing" in _error(run, one, three)
    assert "is given twice" in _error(run, one, one, two, three)
    whole = tmp_path / "whole.jsonl"
    _one_run(run, dataset, whole, *extra)
    assert "the whole run: they overlap" in _error(run, str(whole), one)
    # Other settings: another threshold.
    strict = tmp_path / "strict.jsonl"
    run("eval", str(dataset), "--shard", "2/3", "-o", str(strict), "--min-precision", "1",
        *OPTIONS, *extra)
    assert "written with other settings" in _error(run, one, str(strict), three)
    # Another dataset.
    other_data = tmp_path / "other.jsonl"
    other_data.write_bytes(EXAMPLES.read_bytes())
    other = tmp_path / "other-results.jsonl"
    run("eval", str(other_data), "-o", str(other), *OPTIONS)
    message = _error(run, str(whole), str(other))
    assert "of the dataset 'other.jsonl', not 'd.jsonl'" in message
    # A partial file, a results file with a gap, one out of order, one that is not results.
    partial = tmp_path / "x.jsonl.partial"
    partial.write_bytes(whole.read_bytes())
    assert "unfinished run" in _error(run, str(partial))
    lines = whole.read_bytes().splitlines(keepends=True)
    gap = tmp_path / "gap.jsonl"
    gap.write_bytes(b"".join(lines[:10] + lines[11:]))
    assert f"{gap}: line 11: no input holds the result for the record at index 10" in \
        _error(run, str(gap))
    swapped = tmp_path / "swapped.jsonl"
    swapped.write_bytes(b"".join([lines[1], lines[0], *lines[2:]]))
    assert f"{swapped}: line 1: no input holds the result for the record at index 0" in \
        _error(run, str(swapped))
    assert f"{swapped}: line 2: results are out of order" in _error(run, str(swapped),
                                                                    "--allow-mismatch")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(lines[0] + b"{oops\n")
    assert f"{garbage}: line 2, column 2: not a result line" in _error(run, str(garbage))
    assert "no such file" in _error(run, str(tmp_path / "missing.jsonl")).lower()
    # Nothing was written where an output was asked for.
    out = tmp_path / "merged.jsonl"
    _error(run, one, three, "-o", str(out))
    assert not out.exists()
    assert not out.with_name("merged.jsonl.partial").exists()
    assert "same file as the input" in _error(run, one, two, three, "-o", one)


def test_told_merges_other_days_one_after_the_other(run: Any, tmp_path: Path) -> None:
    days = []
    for day in ("monday", "tuesday"):
        data = tmp_path / f"{day}.jsonl"
        data.write_bytes(EXAMPLES.read_bytes())
        days.append(tmp_path / f"{day}-results.jsonl")
        run("eval", str(data), "-o", str(days[-1]), *OPTIONS)
    _, one = _one_run(run, EXAMPLES, tmp_path / "whole.jsonl")
    merged = run("merge", *map(str, days), "--allow-mismatch", "--format", "json",
                 "-o", str(tmp_path / "both.jsonl"))
    data = json.loads(merged.out)
    assert data["records"] == 2 * one["records"]
    assert data["passed"] == 2 * one["passed"]
    assert data["findings"] == {code: 2 * n for code, n in one["findings"].items()}
    assert data["median_precision"] == one["median_precision"]
    ids = [json.loads(line)["id"] for line in (tmp_path / "both.jsonl").read_text().splitlines()]
    assert ids == [*ids[:one["records"]]] * 2


def test_merge_report_shows_the_worst_records(run: Any, tmp_path: Path) -> None:
    dataset, extra = _every_code(tmp_path, 120)
    shards = list(map(str, _shards(run, dataset, 2, tmp_path, *extra)))
    report = tmp_path / "report.html"
    merged = run("merge", *shards, "--report", str(report), "--dataset", str(dataset))
    assert merged.code == ExitCode.INPUT_ERROR
    html = report.read_text()
    assert html.count('class="record"') >= 10
    assert "<mark" in html  # the answers are there, findings highlighted
    without = tmp_path / "bare.html"
    run("merge", *shards, "--report", str(without))
    assert "<mark" not in without.read_text()
    assert without.read_text().count(
        'class="record"') >= 10
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_bytes(b'{"id": "x", "sources": [], "answer": "y"}\n' * 120)
    # The aggregate is printed, as eval prints it before it writes the report.
    assert "is not the record the result" in _error(run, *shards, "--report",
                                                     str(tmp_path / "r.html"), "--dataset",
                                                     str(wrong), printed=True)


def _set(result: dict[str, Any], path: str, value: Any) -> None:
    """Set (or with ``...``, delete) the field at ``path`` ("metrics.precision",
    "findings.0.span") of a result.
    """
    *parents, last = path.split(".")
    target: Any = result
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    key: Any = int(last) if isinstance(target, list) else last
    if value is ...:
        del target[key]
    else:
        target[key] = value


BAD_FIELDS = [
    # (line, field, value, JSON path, reason)
    (2, "metrics.precision", "x", "$.metrics.precision",
     'must be a number from 0 to 1 or null, not "x"'),
    (2, "metrics.recall", 1.5, "$.metrics.recall", "must be a number from 0 to 1 or null, not 1.5"),
    (2, "metrics.claims", -1, "$.metrics.claims", "must be a whole number from 0, not -1"),
    (2, "metrics", ..., "$.metrics", "missing"),
    (2, "metrics.f1", ..., "$.metrics.f1", "missing"),
    (2, "findings", 5, "$.findings", "must be a list, not 5"),
    (2, "findings.1", "CA302", "$.findings[1]", 'must be an object, not "CA302"'),
    (2, "findings.0.span", [75], "$.findings[0].span",
     "must be [start, end] (whole numbers from 0) or null, not [75]"),
    (2, "findings.0.code", None, "$.findings[0].code", "must be a string, not null"),
    (2, "findings.3.severity", "fatal", "$.findings[3].severity",
     'must be one of "error", "warning", not "fatal"'),
    (2, "tags", None, "$.tags", "must be an object, not null"),
    (2, "tags.system", 5, "$.tags.system", "must be a string, not 5"),
    (2, "evaluators.out_of_range", 5, "$.evaluators.out_of_range", "must be an object, not 5"),
    (2, "evaluators.citation_coverage.score", None, "$.evaluators.citation_coverage.score",
     "must be a finite number, not null"),
    (2, "evaluators.citation_coverage.passed", "yes", "$.evaluators.citation_coverage.passed",
     'must be true or false, not "yes"'),
    (2, "errors", "3", "$.errors", 'must be a whole number from 0, not "3"'),
    (2, "errors", 1e30, "$.errors", "must be a whole number from 0, not 1e+30"),
    (2, "errors", 2 ** 63, "$.errors", "must be a whole number from 0, not 9223372036854775808"),
    (2, "passed", None, "$.passed", "must be true or false, not null"),
    (2, "status", "great", "$.status",
     'must be one of "ok", "unverified", "no_evidence", "unreadable", not "great"'),
    (2, "reasons", ["a", 7], "$.reasons[1]", "must be a string, not 7"),
    (2, "id", {"a": 1}, "$.id", 'must be a string or null, not {"a":1}'),
    (2, "run", 5, "$.run", "must be an object or null, not 5"),
    (2, "run.shard", [1], "$.run.shard", "must be [I, N] (1 <= I <= N) or null, not [1]"),
    (2, "index", -1, "$.index", "must be a whole number from 0, not -1"),
    (16, "error", None, "$.error", "must be a string, not null"),
    (16, "place", ..., "$.place", "missing"),
]


@pytest.mark.parametrize("case", BAD_FIELDS,
                         ids=[f"{field}={value!r}" for _, field, value, *_ in BAD_FIELDS])
def test_a_wrong_field_of_a_results_line_is_one_error_naming_it(
        run: Any, tmp_path: Path, case: tuple[int, str, Any, str, str]) -> None:
    line, field, value, path, reason = case
    data = tmp_path / "d.jsonl"
    data.write_bytes(EXAMPLES.read_bytes() + b"{oops\n")
    out = tmp_path / "r.jsonl"
    run("eval", str(data), "-o", str(out), *OPTIONS)
    results = [json.loads(text) for text in out.read_text().splitlines()]
    _set(results[line - 1], field, value)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(result) + "\n" for result in results))
    expected = f"citeaudit: error: {bad}: line {line}: {path}: {reason}\n"
    for command in (["merge", str(bad)], ["replay", str(bad)], ["replay", "-"]):
        result = run(*command, stdin=bad.read_bytes())
        assert (result.code, result.out) == (ExitCode.INPUT_ERROR, ""), command
        assert result.err == expected.replace(str(bad), "-" if "-" in command else str(bad))
    # Resuming a finished run or an interrupted one reads its results the same way.
    for kept in (out, Path(f"{out}.partial")):
        out.unlink(missing_ok=True)
        kept.write_bytes(bad.read_bytes())
        resumed = run("eval", str(data), "-o", str(out), "--resume", *OPTIONS)
        assert (resumed.code, resumed.out) == (ExitCode.INPUT_ERROR, "")
        assert resumed.err == expected.replace(str(bad), str(out) if kept == out else str(kept))
        assert kept.read_bytes() == bad.read_bytes()
        kept.unlink()


@pytest.mark.parametrize("spelling", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_a_number_json_cannot_hold_is_one_error_naming_the_line(run: Any, tmp_path: Path,
                                                                 spelling: str) -> None:
    out = tmp_path / "r.jsonl"
    run("eval", str(EXAMPLES), "-o", str(out), *OPTIONS)
    lines = out.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace('"recall":null', f'"recall":{spelling}', 1)
    start = lines[2].index(spelling) + 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines))
    for command in ("merge", "replay"):
        result = run(command, str(bad))
        assert result.code == ExitCode.INPUT_ERROR
        shown = re.fullmatch(f"citeaudit: error: {re.escape(str(bad))}: line 3, column"
                             r" (\d+): not a result line: [^\n]+\n", result.err)
        assert shown is not None, result.err
        assert start <= int(shown[1]) < start + len(spelling)  # in the number

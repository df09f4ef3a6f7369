"""Dataset evaluation: inputs, bad records, results, aggregates, gates, formats, resume,
replay and custom evaluators.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from citeaudit.cli import ExitCode
from thorough import THOROUGH

ROOT = Path(__file__).parents[1]
PASSAGES = json.loads((ROOT / "tests/data/seeds/002/passages.json").read_text())
ANSWERS = [
    ("Reimbursements settle within 30 days [2]. Filing takes 60 days [1]. Desk [3].", "a"),
    ("Refunds take 14 days [7]. Reimbursements settle in 14 days.", "a"),
    ("Not covered by the provided documents.", "b"),
    ("Reimbursements settle within 30 days [2].", "b"),
    ({"status": "answered", "text": "Thirty days.", "citations": ["2", "9"]}, "b"),
    (["Filed in 60 days [1].", "Paid in 30 days [2]."], "a"),
]


def records(count: int) -> list[dict[str, Any]]:
    out = []
    for number in range(count):
        answer, system = ANSWERS[number % len(ANSWERS)]
        out.append({"id": f"r{number}", "sources": PASSAGES, "answer": answer,
                    "tags": {"system": system, "prompt": f"v{number % 2}"}})
    return out


def write_jsonl(path: Path, rows: list[Any], extra: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(row).encode() + b"\n" for row in rows) + extra)
    return path


def results_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_results_aggregate_and_exit(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(12))
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out), "--jobs", "1", "--format", "json")
    assert result.code == ExitCode.FAILED  # default gate: every record passes
    assert result.err == ""
    summary = json.loads(result.out)
    # r0, r5 (cited, recall >= 0.5) and r2 (an unlabelled refusal), twice each.
    assert (summary["records"], summary["passed"], summary["no_evidence"]) == (12, 6, 2)
    assert summary["pass_rate"] == pytest.approx(6 / 12)
    assert summary["no_evidence_rate"] == pytest.approx(2 / 12)
    assert summary["failures"] == {"CA201 unknown-source": 2, "CA202 out-of-range": 2,
                                   "CA302 unmarked-quantity": 2, "evaluator out_of_range": 2,
                                   "precision < min-precision 0.9": 4,
                                   "recall < min-recall 0.5": 6}
    assert summary["findings"] == {"CA201": 2, "CA202": 2, "CA302": 2}
    assert summary["tags"]["system"]["a"]["records"] == 6
    assert summary["tags"]["system"]["b"]["no_evidence"] == 2
    assert summary["gates"] == [{"gate": "pass_rate>=1", "holds": False, "value": 0.5,
                                 "reason": "pass_rate is 0.5, not >= 1"}]
    rows = results_of(out)
    assert [r["id"] for r in rows] == [f"r{n}" for n in range(12)]
    assert [r["index"] for r in rows] == list(range(12))
    first = rows[0]
    assert set(first) >= {"id", "status", "passed", "findings", "metrics", "fingerprint", "tags"}
    assert first["passed"] is True
    assert first["fingerprint"].startswith("sha256:")
    assert rows[2]["status"] == "no_evidence"
    assert rows[2]["passed"] is True  # an unlabelled refusal passes (counted as no_evidence)
    assert rows[3]["passed"] is False
    assert rows[3]["audit_passed"] is True  # no error finding: citation_coverage fails it
    assert rows[3]["reasons"] == [
        "citation_coverage: recall 0.33 < min-recall 0.50 (cited 1 of 3 retrieved passages,"
        " the default threshold: change it with --min-recall or min-recall in the configuration)"]
    relaxed = run("eval", str(data), "--min-recall", "0.3", "--gate", "pass_rate>=0.6",
                  "--format", "json")
    assert json.loads(relaxed.out)["passed"] == 8
    assert relaxed.code == ExitCode.OK
    # Without evaluators only the audit decides: thresholds apply when they are set.
    audit_only = json.loads(run("eval", str(data), "--format", "json",
                                "--no-evaluators").out)
    assert audit_only["passed"] == 8
    assert json.loads(run("eval", str(data), "--format", "json", "--no-evaluators",
                          "--min-recall", "0.5").out)["passed"] == 6


def test_jobs_and_formats_give_the_same_results(run: Any, tmp_path: Path) -> None:
    rows = records(300)
    jsonl = write_jsonl(tmp_path / "d.jsonl", rows)
    array = tmp_path / "d.json"
    array.write_text(json.dumps(rows))
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.table({
        "id": [r["id"] for r in rows],
        "sources": [json.dumps(r["sources"]) for r in rows],
        "answer": [r["answer"] if isinstance(r["answer"], str) else json.dumps(r["answer"])
                   for r in rows],
        "tags": [r["tags"] for r in rows]}), parquet)
    outputs = {}
    for name, path, jobs in (("one", jsonl, "1"), ("two", jsonl, "2"), ("array", array, "2")):
        out = tmp_path / f"{name}.jsonl"
        result = run("eval", str(path), "-o", str(out), "--jobs", jobs, "--format", "json")
        assert result.code == ExitCode.FAILED
        outputs[name] = (results_of(out), json.loads(result.out))
    assert outputs["one"] == outputs["two"]
    # Where a record is, its bytes and the file's name differ between the formats; nothing else.
    where = {"place", "record_digest", "run"}  # and the dataset's name
    strip = [{k: v for k, v in r.items() if k not in where} for r in outputs["one"][0]]
    assert [{k: v for k, v in r.items() if k not in where} for r in outputs["array"][0]] == strip
    out = tmp_path / "pq.jsonl"
    run("eval", str(parquet), "-o", str(out), "--jobs", "2")
    from_parquet = results_of(out)
    # Parquet holds structured answers as JSON text: those are text answers there.
    assert [r["id"] for r in from_parquet] == [r["id"] for r in outputs["one"][0]]
    assert [r["place"] for r in from_parquet[:2]] == ["row 0", "row 1"]
    same = [a["metrics"] == b["metrics"] for a, b in zip(from_parquet, outputs["one"][0],
                                                         strict=True)
            if isinstance(rows[a["index"]]["answer"], str)]
    assert all(same)


def test_workers_reading_their_own_ranges_give_the_results_of_one_process(
        run: Any, tmp_path: Path) -> None:
    """With ``--jobs`` the workers read byte ranges of a JSONL file: blank and white-space
    lines, a byte order mark, CRLF, a line over the limit and no final line break change
    nothing.
    """
    lines = [json.dumps(r).encode() for r in records(200)]
    for at, odd in ((0, b""), (5, b" \t"), (70, b"x" * 5000), (71, b""), (130, b"\r")):
        lines.insert(at, odd)
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(lines))
    outputs = []
    for jobs in ("1", "3"):
        out = tmp_path / f"{jobs}.jsonl"
        result = run("eval", str(data), "-o", str(out), "--jobs", jobs, "--max-bytes", "4000",
                     "--format", "json")
        outputs.append((results_of(out), json.loads(result.out)))
    assert outputs[0] == outputs[1]
    assert len(outputs[0][0]) == 201  # every record, and the one over the limit
    assert [(r["place"], r["status"]) for r in outputs[0][0][67:70]] == [
        ("line 70", outputs[0][0][67]["status"]), ("line 71", "unreadable"),
        ("line 73", outputs[0][0][69]["status"])]


def test_bad_records_are_reported_and_the_rest_audited(run: Any, tmp_path: Path) -> None:
    good = records(3)
    big = b'{"id": "big", "sources": [], "answer": "' + b"x" * 50_000_000 + b'"}\n'
    bad = (b'{"id": "cut", "sources": ["a"], "answer": "tru\n'
           b'{"id": "no-answer", "sources": ["a"]}\n'
           b'{"id": "no-sources", "answer": "x"}\n'
           b'["not", "an", "object"]\n'
           b'{"id": "utf8", "sources": ["a"], "answer": "caf\xe9"}\n'
           + big +
           b'{"id": "bad-snapshot", "sources": [{"id": "1"}], "answer": "x [1]."}\n'
           b"\n")
    data = write_jsonl(tmp_path / "d.jsonl", good[:2], bad + json.dumps(good[2]).encode())
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out), "--jobs", "2", "--max-bytes", "1000000")
    assert result.code == ExitCode.INPUT_ERROR
    name = str(data)
    assert result.err.splitlines() == [
        f"citeaudit: error: {name}: line 3: invalid JSON at column 47: unexpected end of data",
        f"citeaudit: error: {name}: line 4: the record has no 'answer'",
        f"citeaudit: error: {name}: line 5: the record has no 'sources'",
        f"citeaudit: error: {name}: line 6: a record must be a JSON object, not a list",
        f"citeaudit: error: {name}: line 7: not valid UTF-8 (byte 0xe9 at column 48)",
        f"citeaudit: error: {name}: line 8: record is over the limit of 1000000 bytes",
        f"citeaudit: error: {name}: line 9: $[0].text: a passage needs a string \"text\", not"
        " null",
        f"citeaudit: error: 7 records of {name} could not be audited",
    ]
    rows = results_of(out)
    assert [r["id"] for r in rows] == ["r0", "r1", None, "no-answer", "no-sources", None, None,
                                       None, "bad-snapshot", "r2"]
    assert [r["status"] for r in rows].count("unreadable") == 7
    assert rows[-1]["place"] == "line 11"  # the blank line is counted, not an item


def test_a_failed_gate_says_what_it_measured_and_a_tag_gate_reads_its_tag(
        run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(12))
    out = tmp_path / "r.jsonl"
    shown = run("eval", str(data), "-o", str(out), "--no-evaluators", "--gate",
                "pass_rate[system=a]>=0", "--gate", "pass_rate[system=zz]>=0", "--gate",
                "mean_support_recall>=0.5", "--gate", "records>=12", "--format", "json")
    gates = json.loads(shown.out)["gates"]
    assert [(g["gate"], g["holds"], g["reason"]) for g in gates] == [
        ("pass_rate[system=a]>=0", True, ""),
        ("pass_rate[system=zz]>=0", False, "no record has the tag system=zz"),
        ("mean_support_recall>=0.5", False,
         "mean_support_recall was not computed: it needs a support judge (--support)"),
        ("records>=12", True, "")]
    assert gates[0]["value"] == json.loads(shown.out)["tags"]["system"]["a"]["pass_rate"]
    assert shown.code == ExitCode.FAILED
    table = run("eval", str(data), "--no-evaluators", "--gate", "mean_support_recall>=0.5").out
    assert ("gate mean_support_recall>=0.5: FAILS (mean_support_recall was not computed: it"
            " needs a support judge (--support))") in table
    replayed = run("replay", str(out), "--gate", "pass_rate>=0.4", "--gate", "records>=12")
    assert replayed.code == ExitCode.OK
    assert "gate pass_rate>=0.4: holds\ngate records>=12: holds\n" in replayed.out
    strict = run("replay", str(out), "--gate", "pass_rate>=0.9", "--format", "json")
    assert strict.code == ExitCode.FAILED
    (gate,) = json.loads(strict.out)["gates"]
    assert gate["reason"] == f"pass_rate is {gate['value']:.4g}, not >= 0.9"
    unmeasured = run("replay", str(out), "--gate", "mean_precision>=0.5", "--format", "json")
    assert json.loads(unmeasured.out)["gates"][0]["reason"] == (
        "mean_precision is not measured here")
    assert run("replay", str(out)).code == ExitCode.FAILED  # the default: every record passes


def test_gates_and_formats(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(6))
    holds = run("eval", str(data), "--gate", "pass_rate>=0.1", "--gate",
                "no_evidence_rate<=0.2", "--no-evaluators")
    assert holds.code == ExitCode.OK
    assert "gate pass_rate>=0.1: holds\ngate no_evidence_rate<=0.2: holds\n" in holds.out
    fails = run("eval", str(data), "--gate", "mean_precision>=0.99", "--no-evaluators")
    assert fails.code == ExitCode.FAILED
    assert re.search(r"^gate mean_precision>=0\.99: FAILS \(mean_precision is 0\.\d+, not >="
                     r" 0\.99\)$", fails.out, re.MULTILINE), fails.out
    bad = run("eval", str(data), "--gate", "precision=0.9")
    assert bad.code == ExitCode.INPUT_ERROR
    assert "--gate 'precision=0.9': write METRIC>=VALUE" in bad.err
    for bad_tag in ("pass_rate[system]>=0.5", "pass_rate[=a]>=0.5", "pass_rate[a b=c]>=1"):
        refused = run("eval", str(data), "--gate", bad_tag)
        assert refused.code == ExitCode.INPUT_ERROR, bad_tag
    markdown = run("eval", str(data), "--format", "markdown", "--no-evaluators").out
    assert markdown.startswith("|  | records | pass rate |")
    assert "| system=a | 3 |" in markdown
    junit = run("eval", str(data), "--format", "junit")
    root = ET.fromstring(junit.out)
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [f"r{n}" for n in range(6)]
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "3", "0")
    failure = cases[1].find("failure")
    assert failure is not None
    assert "CA202 error: [7] cites 7, outside the 3 retrieved sources" in (failure.text or "")
    # The message names the reasons: findings, evaluators and missed thresholds.
    assert failure.get("message", "").startswith(
        "CA202 out-of-range; CA302 unmarked-quantity; out_of_range: [7] out of range;")
    recall = cases[3].find("failure")
    assert recall is not None
    assert recall.get("message") == (
        "citation_coverage: recall 0.33 < min-recall 0.50 (cited 1 of 3 retrieved passages,"
        " the default threshold: change it with --min-recall or min-recall in the configuration)")
    assert cases[2].find("failure") is None  # an unlabelled refusal passes


def test_resume_after_a_torn_line_gives_the_clean_result(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(40))
    clean = tmp_path / "clean.jsonl"
    first = run("eval", str(data), "-o", str(clean), "--format", "json")
    lines = clean.read_bytes().splitlines(keepends=True)
    for keep in (0, 1, 17, 39, 40):
        partial = tmp_path / f"partial{keep}.jsonl"
        partial.write_bytes(b"".join(lines[:keep]) + (lines[keep][:25] if keep < 40 else b""))
        again = run("eval", str(data), "-o", str(partial), "--resume", "--format", "json")
        assert partial.read_bytes() == clean.read_bytes()
        assert again.out == first.out
        assert again.code == first.code


def test_resume_refuses_another_dataset(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(5))
    out = tmp_path / "r.jsonl"
    run("eval", str(data), "-o", str(out))
    other = write_jsonl(tmp_path / "other.jsonl", records(3))
    result = run("eval", str(other), "-o", str(out), "--resume")
    assert result.code == ExitCode.INPUT_ERROR
    assert "do not match this dataset" in result.err
    assert run("eval", str(data), "--resume").code == ExitCode.INPUT_ERROR  # needs --out


def test_the_spark_engine_without_pyspark_names_its_extra(
        run: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where PySpark is missing (here: its import refused), ``citeaudit.spark`` fails to
    import as PySpark's own absence does, and ``--engine spark`` says which extra to install.
    """
    monkeypatch.setitem(sys.modules, "pyspark", None)  # None: the import raises
    for name in [n for n in sys.modules if n == "citeaudit.spark"
                 or n.startswith("citeaudit.integrations.spark")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ModuleNotFoundError, match="pyspark"):
        import citeaudit.spark  # noqa: F401, PLC0415 - the import is what is tested
    data = write_jsonl(tmp_path / "d.jsonl", records(3))
    result = run("eval", str(data), "--engine", "spark")
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err == ("citeaudit eval: error: --engine spark needs PySpark: pip install"
                          " 'citeaudit[spark]'\n")
    assert result.out == ""


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_resume_after_a_real_interruption(tmp_path: Path, how: signal.Signals) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(6000))
    clean = tmp_path / "clean.jsonl"
    command = [sys.executable, "-m", "citeaudit", "eval", str(data), "--jobs", "2",
               "--format", "json"]
    subprocess.run([*command, "-o", str(clean)], capture_output=True, check=False)
    out = tmp_path / "r.jsonl"
    partial = tmp_path / "r.jsonl.partial"
    # Ctrl-C reaches it even where this test runs as a background job (which ignores SIGINT).
    process = subprocess.Popen([*command, "-o", str(out)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=_default_sigint)  # noqa: PLW1509 -- no threads here
    wait_for_results(partial, 200_000)
    if how == signal.SIGINT:
        os.killpg(process.pid, how)  # the whole group, as Ctrl-C in a terminal does
    else:
        process.kill()  # the main process only: its workers must notice and go
    _, stderr = process.communicate(timeout=60)
    if how == signal.SIGINT:
        assert process.returncode == 130
        assert stderr == (b"citeaudit: interrupted: the results so far are kept in "
                          + bytes(partial) + b"; run the same command with --resume to go"
                          b" on\n")  # no traceback, from any process
    deadline = time.monotonic() + 10
    while workers_of(data) and time.monotonic() < deadline:  # they go with their parent
        time.sleep(0.1)
    assert workers_of(data) == []
    assert not out.exists(), "an interrupted run leaves its results beside the target"
    interrupted = partial.read_bytes()
    assert 0 < len(interrupted) < clean.stat().st_size, "interrupted mid-run"
    resumed = subprocess.run([*command, "-o", str(out), "--resume"], capture_output=True,
                             check=False)
    assert resumed.returncode == ExitCode.FAILED
    assert out.read_bytes() == clean.read_bytes()
    assert not partial.exists()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_results(path: Path, size: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while (not path.exists() or path.stat().st_size < size) and time.monotonic() < deadline:
        time.sleep(0.005)


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def test_a_killed_worker_ends_the_run_promptly(tmp_path: Path) -> None:
    """Random kills of a worker (ten; four locally, tests/thorough.py): each run ends within
    seconds with one line and exit 2, every result written is complete, and resuming gives
    exactly the clean run.
    """
    wanted = 10 if THOROUGH else 4
    data = write_jsonl(tmp_path / "d.jsonl", records(3000))
    command = [sys.executable, "-m", "citeaudit", "eval", str(data), "--jobs", "2",
               "--format", "json"]
    clean = tmp_path / "clean.jsonl"
    subprocess.run([*command, "-o", str(clean)], capture_output=True, check=False)
    chooser = random.Random(9)
    kills = 0
    for attempt in range(30):
        out = tmp_path / f"r{attempt}.jsonl"
        process = subprocess.Popen([*command, "-o", str(out)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE)
        wait_for_results(Path(f"{out}.partial"), chooser.randrange(1, 1_500_000))
        workers = children_of(process.pid)
        if not workers or process.poll() is not None:
            process.communicate(timeout=60)
            continue  # the run was over before the kill: not counted
        os.kill(chooser.choice(workers), signal.SIGKILL)
        started = time.monotonic()
        try:
            _, stderr = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("the run hangs after one of its workers was killed")
        if process.returncode != ExitCode.INPUT_ERROR:  # it had sent its last batch
            assert process.returncode == ExitCode.FAILED
            continue
        kills += 1
        assert time.monotonic() - started < 15
        message = stderr.decode()
        assert message.count("\n") == 1, message
        assert "a worker process died (killed by signal 9)" in message
        assert "--resume" in message
        written = Path(f"{out}.partial").read_bytes()
        assert clean.read_bytes().startswith(written)  # complete lines, in order
        if kills <= 2:
            resumed = subprocess.run([*command, "-o", str(out), "--resume"],
                                     capture_output=True, check=False)
            assert resumed.returncode == ExitCode.FAILED
            assert out.read_bytes() == clean.read_bytes()
        if kills == wanted:
            break
    assert kills == wanted


def workers_of(data: Path) -> list[int]:
    """Processes still running an eval of ``data``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(data).encode() in command and b"eval" in command:
                found.append(int(entry.name))
    return found


def test_replay(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(12))
    out = tmp_path / "r.jsonl"
    run("eval", str(data), "-o", str(out))
    same = json.loads(run("replay", str(out), "--format", "json").out)
    assert (same["records"], same["passed"], same["flipped"]) == (12, 6, [])
    looser = run("replay", str(out), "--min-recall", "0.3", "--format", "json")
    data_looser = json.loads(looser.out)
    assert data_looser["passed"] == 8
    assert data_looser["flipped"] == ["r3", "r9"]
    assert (data_looser["flipped_to_pass"], data_looser["flipped_to_fail"]) == (2, 0)
    assert looser.code == ExitCode.FAILED
    # replay at thresholds equals an eval run at them
    evaluated = json.loads(run("eval", str(data), "--min-recall", "0.3", "--format",
                               "json").out)
    assert evaluated["passed"] == data_looser["passed"]
    swept = json.loads(run("replay", str(out), "--sweep", "--format", "json").out)
    assert len(swept["sweep"]) == 121
    by_pair = {(r["min_precision"], r["min_recall"]): r["passed"] for r in swept["sweep"]}
    assert by_pair[(0.9, 0.5)] == 6
    assert by_pair[(0.9, 0.3)] == 8
    assert by_pair[(1.0, 1.0)] == 4  # r0 cites everything; refusals pass at any thresholds
    assert all(by_pair[(p, r)] >= by_pair[(p, r2)] for (p, r) in by_pair for r2 in
               (0.0, 0.5, 1.0) if r2 >= r)
    table = run("replay", str(out), "--sweep").out
    assert table.startswith("6 of 12 records pass at precision >= 0.90, recall >= 0.50")
    assert "pass rate by min precision (rows) and min recall (columns):" in table


def test_replay_bad_input(run: Any, tmp_path: Path) -> None:
    results = tmp_path / "r.jsonl"
    run("eval", str(write_jsonl(tmp_path / "d.jsonl", records(1))), "-o", str(results))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(results.read_bytes() + b'{"nope": 1}\n')
    result = run("replay", str(bad))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err == f"citeaudit: error: {bad}: line 2: not a result of citeaudit eval\n"
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"status": "ok", "metr')
    assert "line 1, column 23: not a result line" in run("replay", str(torn)).err


@pytest.fixture
def example_evaluator(plugins: Any) -> Path:
    """The docs' example evaluator, installed as a distribution with an entry point."""
    return plugins(
        {"min_sources": (ROOT / "examples/evaluators/min_sources.py").read_text(),
         "broken_evaluator": "class Broken:\n    name = 'broken'\n"
                             "    def evaluate(self, record, report):\n"
                             "        raise ValueError('no luck')\n"},
        {"citeaudit.evaluators": {"min_sources": "min_sources:MinSources",
                                  "broken": "broken_evaluator:Broken"}})


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_custom_evaluators(run: Any, tmp_path: Path, example_evaluator: Path,
                           jobs: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(6))
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out), "--jobs", jobs, "--format", "json")
    summary = json.loads(result.out)
    assert set(summary["evaluators"]) == {"min_sources", "broken", "out_of_range",
                                          "citation_coverage"}
    assert summary["evaluators"]["min_sources"]["passed"] == 2  # r0: 3 sources, r5: 2
    assert summary["evaluators"]["broken"]["pass_rate"] == 0.0
    rows = results_of(out)
    assert rows[0]["evaluators"]["min_sources"] == {
        "passed": True, "score": 1.0, "reason": "r0: 3 valid source(s) cited, 2 wanted"}
    assert rows[0]["evaluators"]["broken"] == {
        "passed": False, "score": 0.0, "reason": "evaluator raised ValueError: no luck"}
    assert rows[0]["passed"] is False  # an evaluator's verdict is part of the record's
    only = run("eval", str(data), "--evaluator", "min_sources", "--min-recall", "0",
               "--format", "json")
    assert set(json.loads(only.out)["evaluators"]) == {"min_sources"}
    unknown = run("eval", str(data), "--evaluator", "nope")
    assert unknown.code == ExitCode.INPUT_ERROR
    assert "unknown evaluator nope (installed: broken, citation_coverage, min_sources," \
        " out_of_range)" in unknown.err
    table = run("eval", str(data), "--evaluator", "min_sources").out
    assert "evaluator min_sources: pass rate 0.333, mean score" in table


@pytest.mark.parametrize("jobs", ["1", "2"])  # items read here; ranges read by the workers
def test_progress_only_on_a_terminal(tmp_path: Path, jobs: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(3000))
    command = [sys.executable, "-m", "citeaudit", "eval", str(data), "--jobs", jobs]
    piped = subprocess.run(command, capture_output=True, text=True, check=False)
    assert piped.stderr == ""
    main, secondary = os.openpty()
    try:
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=secondary, check=False)
        os.close(secondary)
        shown = b""
        while True:
            try:
                block = os.read(main, 65536)
            except OSError:
                break
            if not block:
                break
            shown += block
    finally:
        os.close(main)
    text = shown.decode(errors="replace")
    assert "auditing" in text
    assert "100%" in text
    assert "rec/s" in text


def test_unusable_datasets(run: Any, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    out.write_text("kept\n")
    missing = run("eval", str(tmp_path / "nope.jsonl"), "-o", str(out))
    assert missing.code == ExitCode.INPUT_ERROR
    assert missing.err == (f"citeaudit: error: {tmp_path / 'nope.jsonl'}: cannot read: no such"
                           " file\n")
    assert out.read_text() == "kept\n"  # nothing was overwritten
    broken = tmp_path / "d.json"
    broken.write_text(json.dumps(records(2))[:-30])
    result = run("eval", str(broken), "-o", str(out))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err.startswith(f"citeaudit: error: {broken}: line 1, column ")
    assert result.err.endswith(": unterminated string in the JSON array\n")
    # What came before is written, beside the results of the last good run.
    assert [r["id"] for r in results_of(Path(f"{out}.partial"))] == ["r0"]
    assert out.read_text() == "kept\n"
    parquet = tmp_path / "d.parquet"
    parquet.write_bytes(b"PAR1 not really")
    bad = run("eval", str(parquet))
    assert bad.code == ExitCode.INPUT_ERROR
    assert bad.err.startswith(f"citeaudit: error: {parquet}: cannot read Parquet:")


def test_dataset_from_stdin(run: Any) -> None:
    lines = "".join(json.dumps(r) + "\n" for r in records(4)).encode()
    result = run("eval", "-", "--format", "json", "--no-evaluators", stdin=lines)
    assert json.loads(result.out)["records"] == 4
    assert run("eval", "-", "--report", "x.html", stdin=lines).code == ExitCode.INPUT_ERROR


def test_dataset_values_are_escaped_in_every_output_format(run: Any, tmp_path: Path) -> None:
    hostile = {"system": "<img src=x onerror=alert(1)>", "link": "[x](javascript:alert(1))",
               "term": "\x1b]8;;http://evil.example\x1b\\click\x1b[2J", "pipe": "a|b\nc"}
    rows = records(3)
    rows[0]["tags"] = hostile
    rows[1]["id"] = "\x1b[31mred"
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    out = tmp_path / "r.jsonl"
    table = run("eval", str(data), "-o", str(out))
    assert "\x1b" not in table.out
    assert "\x9b" not in table.out
    markdown = run("eval", str(data), "--format", "markdown").out
    assert "\x1b" not in markdown
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    assert "<img" not in html
    assert "<a " not in html
    table_rows = [line for line in markdown.splitlines() if line.startswith("| ")]
    cells = {len(re.findall(r"(?<!\\)\|", line)) for line in table_rows[:7]}
    assert len(cells) == 1, "a tag value never adds a column"
    replayed = run("replay", str(out), "--min-recall", "0.9")
    assert "\x1b" not in replayed.out
    junit = run("eval", str(data), "--format", "junit").out
    ET.fromstring(junit)  # still well-formed XML


def test_aggregates_are_exact_whatever_the_order_and_merging() -> None:
    from citeaudit.eval._results import Summary  # noqa: PLC0415
    from citeaudit.eval._summary import Aggregate  # noqa: PLC0415

    chooser = random.Random(4)
    summaries = []
    for n in range(3000):
        value = chooser.random()
        summaries.append(Summary(n, f"line {n + 1}", f"r{n}", "ok", value > 0.3, 0, value,
                                 chooser.random(), value / 3, 0.1 * (n % 7), None, None, (),
                                 (("system", "ab"[n % 2]),),
                                 (("judge", value > 0.5, chooser.random() / 7),)))
    whole = Aggregate(0.9, 0.5)
    for summary in summaries:
        whole.add(summary)
    for cut in (1, 17, 1499, 2999):  # a resumed run: the kept part, then merged batches
        resumed = Aggregate(0.9, 0.5)
        for summary in reversed(summaries[:cut]):
            resumed.add(summary)
        for start in range(cut, len(summaries), 64):
            batch = Aggregate(0.9, 0.5)
            for summary in summaries[start:start + 64]:
                batch.add(summary)
            resumed.merge(batch)
        assert resumed.to_dict() == whole.to_dict()


def test_html_report_header_failures_worst_by_rule_bins_and_missing_values(
        run: Any, tmp_path: Path) -> None:
    rows = records(6) * 3
    for number, row in enumerate(rows):
        row["id"] = f"r{number}"
    rows.append({"id": "refusal-only", "sources": PASSAGES,
                 "answer": "Not covered by the provided documents.", "tags": {"system": "c"}})
    data = write_jsonl(tmp_path / "d.jsonl", rows)
    report = tmp_path / "report.html"
    result = run("eval", str(data), "--report", str(report), "--gate", "pass_rate>=0.1")
    assert result.code == ExitCode.OK
    html = report.read_text()
    assert "<th>citeaudit</th>" in html
    assert f"<td>{data}</td>" in html
    assert "gate pass_rate&gt;=0.1</th><td class=\"ok\">holds" in html
    assert "Run passes its gates." in html
    failures = html.split("<h2>Failures by reason</h2>", 1)[1].split("</table>", 1)[0]
    assert "<th>recall &lt; min-recall 0.5</th>" in failures
    assert "<th>CA202 out-of-range</th>" in failures
    assert "<td>system=a</td>" in failures
    worst = html.split("<h2>Failed records</h2>", 1)[1]
    codes = set(re.findall(r'<li class="(?:fail|warn)">(CA\d+) ', worst))
    summary = json.loads(run("eval", str(data), "--format", "json").out)
    assert codes == set(summary["findings"])  # every rule found has an example
    assert "CA202 out-of-range" in html
    assert "0.9\u20131.0]" in html
    assert "0.0\u20130.1)" in html
    by_tag = html.split("<h2>By tag</h2>", 1)[1]
    system_c = by_tag.split("<td>c</td>", 1)[1].split("</tr>", 1)[0]
    assert "\u2014 / \u2014" in system_c  # no precision at all, not 0
    assert "0.000 / 0.000" not in system_c


def test_json_array_splitting_matches_a_parser_for_any_chunking(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The streaming splitter against ``json.loads`` on random arrays, read in random chunk
    sizes with random first parser windows (element ends are found across every boundary).
    """
    import io  # noqa: PLC0415

    import citeaudit.eval._records as records_module  # noqa: PLC0415

    chooser = random.Random(5)

    def value(depth: int = 0) -> Any:
        roll = chooser.random()
        if depth > 4 or roll < 0.3:
            return chooser.choice([1, -2.5, "a,b]", 'q"uo\\te', True, None, "}{[", "é€",
                                   "\\\"", "", "x" * 50, 10**20])
        if roll < 0.6:
            return [value(depth + 1) for _ in range(chooser.randrange(0, 4))]
        return {f"k{i}": value(depth + 1) for i in range(chooser.randrange(0, 4))}

    for _ in range(1500):
        array = [value() for _ in range(chooser.randrange(0, 6))]
        text = json.dumps(array, indent=chooser.choice([None, 1]),
                          ensure_ascii=chooser.random() < 0.5).encode()
        monkeypatch.setattr(records_module, "_READ", chooser.randrange(1, 40))
        monkeypatch.setattr(records_module, "_WINDOW", chooser.randrange(1, 30))
        items = records_module._ArraySplitter(io.BytesIO(text), "x", 10**6).items()
        assert [json.loads(item.value) for item in items] == array, text


def test_c1_and_bidirectional_characters_are_escaped_in_every_terminal_output(
        run: Any, tmp_path: Path) -> None:
    hostile = "\x9b31m\u202eevil\u2066x\u2069\u200e\u200f\u061c"
    raw = set(hostile) - set("31mevilx")
    rows = records(4)
    rows[0]["tags"] = {"system": hostile, hostile: "v"}
    rows[3]["id"] = hostile  # it passes at a lower recall threshold: replay lists it
    data = write_jsonl(tmp_path / f"d{hostile}.jsonl", rows, extra=b"{oops\n")
    out = tmp_path / "r.jsonl"
    for form in ("table", "markdown"):
        result = run("eval", str(data), "-o", str(out), "--format", form)
        assert result.code == ExitCode.INPUT_ERROR
        assert not raw & set(result.out + result.err), form
        assert "\\u202eevil" in result.out
        assert result.err.splitlines()[-1] == (
            f"citeaudit: error: 1 record of {tmp_path}/d\\x9b31m\\u202eevil\\u2066x\\u2069"
            "\\u200e\\u200f\\u061c.jsonl could not be audited")
    replayed = run("replay", str(out), "--min-recall", "0.3")
    assert "\\u202eevil" in replayed.out
    assert not raw & set(replayed.out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[1]["findings"][0]["code"] = hostile
    lines[1]["evaluators"][hostile] = {"passed": False, "score": 0.0, "reason": hostile}
    edited = tmp_path / "edited.jsonl"
    edited.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for form in ("table", "markdown"):
        merged = run("merge", str(edited), "--format", form)
        assert merged.code == ExitCode.INPUT_ERROR  # an unreadable record
        assert not raw & set(merged.out + merged.err), form
        shown = merged.out.replace("\\\\", "\\")  # Markdown doubles a backslash
        assert "findings: CA302 1, \\x9b31m\\u202eevil" in shown or form == "markdown"
        assert "| \\x9b31m\\u202eevil\\u2066x\\u2069\\u200e\\u200f\\u061c | 1 |" in shown \
            or form == "table"


@pytest.mark.parametrize("score", ["nan", "inf", "-inf"])
def test_an_evaluator_score_that_is_no_finite_number_fails_the_record(
        run: Any, tmp_path: Path, plugins: Any, score: str) -> None:
    module = f"odd_{score.replace('-', 'minus_')}"  # a module imported once per process
    plugins({module: "class Odd:\n    name = 'odd'\n"
                     "    def evaluate(self, record, report):\n"
                     "        from citeaudit.eval import EvaluatorResult\n"
                     f"        return EvaluatorResult(True, float({score!r}))\n"},
            {"citeaudit.evaluators": {"odd": f"{module}:Odd"}})
    data = write_jsonl(tmp_path / "d.jsonl", records(3))
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out), "--format", "json")
    assert (result.code, result.err) == (ExitCode.FAILED, "")
    assert json.loads(result.out)["evaluators"]["odd"]["pass_rate"] == 0.0
    assert results_of(out)[0]["evaluators"]["odd"] == {
        "passed": False, "score": 0.0,
        "reason": f"evaluator gave the score {float(score)}, not a finite number"}
    for command in ("merge", "replay"):  # the results read back as eval wrote them
        assert run(command, str(out)).code == ExitCode.FAILED


def test_json_array_places_are_those_counted_from_the_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The splitter's places (line and byte column, one per element it reports) against
    counting from the start of the file, at positions in any order, across buffer refills.
    """
    import io  # noqa: PLC0415

    import citeaudit.eval._records as records_module  # noqa: PLC0415

    chooser = random.Random(11)
    for _ in range(200):
        text = bytes(chooser.choice(b"[,\n\n x]") for _ in range(chooser.randrange(1, 300)))
        monkeypatch.setattr(records_module, "_READ", chooser.randrange(1, 50))
        splitter = records_module._ArraySplitter(io.BytesIO(text), "x", 10**6)
        splitter.more(0)
        while True:
            for _ in range(chooser.randrange(0, 12)):
                if not splitter.buffer:
                    break
                position = chooser.randrange(len(splitter.buffer) + 1)
                offset = splitter.base + position
                line = text.count(b"\n", 0, offset) + 1
                column = offset - (text.rfind(b"\n", 0, offset) + 1) + 1
                assert splitter.where(position) == f"line {line}, column {column}", text
            if splitter.eof:
                break
            splitter.more(chooser.randrange(len(splitter.buffer) + 1))


def test_stray_commas_are_each_reported_at_their_place(run: Any, tmp_path: Path) -> None:
    data = tmp_path / "d.json"
    data.write_bytes(b"[" + b",\n" * 3000 + b"]")
    result = run("eval", str(data), "--format", "json", "--jobs", "1")
    assert result.code == ExitCode.INPUT_ERROR
    lines = result.err.splitlines()
    assert lines[0] == f"citeaudit: error: {data}: $[0]: empty element at line 1, column 2" \
        " (a stray comma?)"
    assert lines[2999] == f"citeaudit: error: {data}: $[2999]: empty element at line 3000," \
        " column 1 (a stray comma?)"
    assert lines[3000] == f"citeaudit: error: {data}: $[3000]: empty element at line 3001," \
        " column 1 (a stray comma?)"


FOUR = ["Refunds take 5 days.", "Shipping is free.", "Returns close after 30 days.",
        "Support answers every day."]
RECALL_RULE = ("the default threshold: change it with --min-recall or min-recall in the"
               " configuration")
PRECISION_RULE = ("the default threshold: change it with --min-precision or min-precision in the"
                  " configuration")


def test_a_threshold_failure_says_why_on_its_record(run: Any, tmp_path: Path) -> None:
    """Each record that fails a threshold names the measured value, the threshold, what was
    counted and where the threshold comes from: in its result, its JUnit case and the table.
    """
    data = write_jsonl(tmp_path / "d.jsonl", [
        {"id": "one-of-four", "sources": FOUR, "answer": "Refunds take 5 days [1]."},
        {"id": "gold", "sources": FOUR, "answer": "Refunds take 5 days [1].",
         "relevant": ["1", "2", "3"]},
        {"id": "two-of-four", "sources": FOUR,
         "answer": "Refunds take 5 days [1]. Shipping is free [2]."},
        {"id": "unknown-id", "sources": {"a": "Refunds take 5 days.", "b": "Shipping is free."},
         "answer": "Refunds take 5 days [a]. Shipping is free [zz]."},
    ])
    out = tmp_path / "r.jsonl"
    assert run("eval", str(data), "-o", str(out), "--jobs", "1").code == ExitCode.FAILED
    rows = {row["id"]: row for row in results_of(out)}
    assert rows["one-of-four"]["reasons"] == [
        "citation_coverage: recall 0.25 < min-recall 0.50 (cited 1 of 4 retrieved passages,"
        f" {RECALL_RULE})"]
    assert rows["gold"]["reasons"] == [
        "citation_coverage: recall 0.33 < min-recall 0.50 (cited 1 of 3 relevant passages,"
        f" {RECALL_RULE})"]
    assert rows["two-of-four"]["passed"] is True
    assert rows["unknown-id"]["reasons"] == [
        "CA201 unknown-source", "citation_coverage: precision 0.50 < min-precision 0.90 (1 of"
        f" 2 cited ids name a retrieved passage, {PRECISION_RULE})"]
    # A threshold set on the command line is not the default: the count alone says why.
    strict = tmp_path / "strict.jsonl"
    run("eval", str(data), "-o", str(strict), "--jobs", "1", "--min-recall", "0.6")
    set_rows = {row["id"]: row for row in results_of(strict)}
    assert set_rows["two-of-four"]["reasons"] == [
        "citation_coverage: recall 0.50 < min-recall 0.60 (cited 2 of 4 retrieved passages)"]
    # Grouped as before, however each record's counts read.
    summary = json.loads(run("eval", str(data), "--format", "json").out)
    assert summary["failures"]["recall < min-recall 0.5"] == 2
    assert summary["failures"]["precision < min-precision 0.9"] == 1
    junit = ET.fromstring(run("eval", str(data), "--format", "junit").out)
    messages = [case.find("failure") for case in junit.iter("testcase")]
    assert messages[0] is not None
    assert "(cited 1 of 4 retrieved passages, the default threshold" in (
        messages[0].get("message") or "")
    # The table names the rule the threshold failures broke and how to change it.
    table = run("eval", str(data)).out
    assert ("thresholds: min-precision 0.90, min-recall 0.50 (the defaults: change them with"
            " --min-precision, --min-recall or the configuration)") in table
    assert "min-recall 0.60 (set by --min-recall or the configuration)" in run(
        "eval", str(data), "--min-recall", "0.6").out

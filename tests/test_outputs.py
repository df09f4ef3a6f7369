"""Outputs never destroy inputs and never fail silently: an output naming an input is refused,
files are replaced whole, results files are locked and resumed only when they match, and
write errors (a full disk, a file size limit, a closed pipe) end every command with one line.
"""

from __future__ import annotations

import fcntl
import json
import multiprocessing
import os
import resource
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeaudit.cli import ExitCode
from citeaudit.eval._store import ResultsFile
from test_eval import records, results_of, write_jsonl

ROOT = Path(__file__).parents[1]
S002 = str(ROOT / "tests/data/seeds/002/passages.json")


def eval_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "citeaudit", "eval", *args]


@pytest.mark.parametrize("spelling", ["same", "dot", "symlink", "hardlink"])
@pytest.mark.parametrize("option", ["-o", "--report"])
@pytest.mark.parametrize("resume", [False, True])
def test_eval_refuses_to_write_over_its_dataset(run: Any, tmp_path: Path, spelling: str,
                                                option: str, resume: bool) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(7))
    before = data.read_bytes()
    target = {"same": str(data), "dot": "./d.jsonl", "symlink": str(tmp_path / "link"),
              "hardlink": str(tmp_path / "hard")}[spelling]
    if spelling == "symlink":
        (tmp_path / "link").symlink_to(data)
    if spelling == "hardlink":
        os.link(data, tmp_path / "hard")
    extra = ["-o", str(tmp_path / "r.jsonl")] if option == "--report" or resume else []
    if option == "-o":
        extra = []
    result = run("eval", str(data), option, target, *extra, *(["--resume"] if resume and
                                                               option == "-o" else []))
    assert result.code == ExitCode.INPUT_ERROR
    assert "is the same file as the input" in result.err
    assert result.err.count("\n") == 1
    assert data.read_bytes() == before
    assert not Path(f"{target}.partial").exists()


def test_other_commands_refuse_to_write_over_their_inputs(run: Any, tmp_path: Path) -> None:
    passages = tmp_path / "p.json"
    passages.write_text(json.dumps(["Expense reports are filed in 60 days."]))
    result = run("context", str(passages), "-o", str(passages))
    assert result.code == ExitCode.INPUT_ERROR
    assert "is the same file as the input" in result.err
    assert json.loads(passages.read_text()) == ["Expense reports are filed in 60 days."]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text('{"claim": "a", "evidence": "a", "label": 1}\n')
    result = run("calibrate", str(pairs), "--report", str(pairs))
    assert result.code == ExitCode.INPUT_ERROR
    assert pairs.read_text() == '{"claim": "a", "evidence": "a", "label": 1}\n'
    data = write_jsonl(tmp_path / "d.jsonl", records(3))
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out), "--report", str(out))
    assert result.code == ExitCode.INPUT_ERROR


def test_a_failed_report_leaves_the_last_good_one(run: Any, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(6))
    report = tmp_path / "report.html"
    assert run("eval", str(data), "--report", str(report)).code == ExitCode.FAILED
    good = report.read_bytes()
    assert good.startswith(b"<!doctype html>")

    def fail(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", fail)
    result = run("eval", str(data), "--report", str(report))
    assert result.code == ExitCode.INPUT_ERROR
    assert result.err.endswith(f"{report}: cannot write the report: No space left on device\n")
    assert report.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_resume_refuses_results_of_other_options_or_records(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(6))
    out = tmp_path / "r.jsonl"
    run("eval", str(data), "-o", str(out))
    kept = out.read_bytes()
    other = run("eval", str(data), "-o", str(out), "--resume", "--min-recall", "0.2")
    assert other.code == ExitCode.INPUT_ERROR
    assert "written with other options" in other.err
    changed = records(6)
    changed[3]["answer"] = "Something else entirely [1]."
    (tmp_path / "changed").mkdir()  # the same name: another name is refused first
    same_length = write_jsonl(tmp_path / "changed" / "d.jsonl", changed)
    result = run("eval", str(same_length), "-o", str(out), "--resume")
    assert result.code == ExitCode.INPUT_ERROR
    assert "the result for line 4 was written for another record" in result.err
    assert out.read_bytes() == kept
    assert not Path(f"{out}.partial").exists()
    # Resuming a finished run with the same dataset and options changes nothing.
    again = run("eval", str(data), "-o", str(out), "--resume")
    assert again.code == ExitCode.FAILED
    assert out.read_bytes() == kept


def test_a_second_run_on_the_same_results_exits_at_once(run: Any, tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(4))
    out = tmp_path / "r.jsonl"
    partial = Path(f"{out}.partial")
    partial.write_bytes(b"")
    with partial.open("ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # what a first run holds while it runs
        for resume in ([], ["--resume"]):
            result = run("eval", str(data), "-o", str(out), *resume)
            assert result.code == ExitCode.INPUT_ERROR
            assert "another citeaudit run is writing these results" in result.err
    assert run("eval", str(data), "-o", str(out)).code == ExitCode.FAILED


def limited(size: int) -> Any:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


def test_a_file_size_limit_ends_eval_with_one_line_and_resume_is_exact(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(400))
    clean = tmp_path / "clean.jsonl"
    subprocess.run(eval_command(str(data), "-o", str(clean)), capture_output=True, check=False)
    out = tmp_path / "r.jsonl"
    cut = subprocess.run(eval_command(str(data), "-o", str(out), "--jobs", "2"),
                         capture_output=True, preexec_fn=limited(100_000), check=False)
    assert cut.returncode == ExitCode.INPUT_ERROR
    assert cut.stderr.decode() == (f"citeaudit: error: {out}.partial: cannot write the"
                                   " results: File too large\n")
    assert not out.exists()
    resumed = subprocess.run(eval_command(str(data), "-o", str(out), "--resume"),
                             capture_output=True, check=False)
    assert resumed.returncode == ExitCode.FAILED
    assert out.read_bytes() == clean.read_bytes()
    assert results_of(out)[-1]["index"] == 399


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [
    ["check", S002, str(ROOT / "examples/hr/answer.md")],
    ["render", S002, str(ROOT / "examples/hr/answer.md")],
    ["rules"],
    ["eval", "DATA", "--format", "json"],
    ["replay", "RESULTS"],
])
def test_a_full_standard_output_is_one_line_and_exit_2(tmp_path: Path,
                                                       command: list[str]) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(30))
    results = tmp_path / "r.jsonl"
    subprocess.run(eval_command(str(data), "-o", str(results)), capture_output=True,
                   check=False)
    argv = [str(data) if a == "DATA" else str(results) if a == "RESULTS" else a
            for a in command]
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "citeaudit", *argv], stdout=full,
                              stderr=subprocess.PIPE, check=False)
    assert done.returncode == ExitCode.INPUT_ERROR
    assert done.stderr.decode() == ("citeaudit: error: <stdout>: cannot write: No space left"
                                    " on device\n")


@pytest.mark.parametrize("command", [
    ["eval", "DATA", "--format", "junit"], ["check", S002, "ANSWER"],
    ["render", S002, "ANSWER", "--to", "markdown"]])
def test_a_closed_pipe_ends_quietly(tmp_path: Path, command: list[str]) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(3000))
    answer = tmp_path / "a.txt"
    answer.write_text("Reimbursements settle in 30 days [2]. Fact [9]. " * 12000)
    argv = [str(data) if a == "DATA" else str(answer) if a == "ANSWER" else a for a in command]
    process = subprocess.Popen([sys.executable, "-m", "citeaudit", *argv],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.read(10)  # | head -c 10
    process.stdout.close()
    _, stderr = process.communicate(timeout=60)
    assert b"Traceback" not in stderr
    assert b"Exception ignored" not in stderr
    assert process.returncode == ExitCode.CLOSED_PIPE
    if command[0] != "render":  # render's verdict line goes to stderr, as ever
        assert stderr == b""


def memory_capped(megabytes: int) -> Any:
    def limit() -> None:
        cap = megabytes << 20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    return limit


@pytest.mark.parametrize("depth", [600, 40_000, 100_000])
def test_deep_records_in_a_json_array_are_rejected_in_flat_memory(tmp_path: Path,
                                                                  depth: int) -> None:
    good = records(3)
    deep = b'{"id": "deep", "sources": ["a"], "answer": ' + b"[" * depth + b"]" * depth + b"}"
    huge = (b'{"id": "big", "n": 123456789012345678901234567890, "sources": ["a"],'
            b' "answer": "Cards cost 5 dollars."}')
    body = b"[" + b", ".join([json.dumps(good[0]).encode(), deep, huge,
                               json.dumps(good[1]).encode(), b"\n" + json.dumps(good[2]).encode()]
                              ) + b"]"
    data = tmp_path / "d.json"
    data.write_bytes(body)
    out = tmp_path / "r.jsonl"
    done = subprocess.run(eval_command(str(data), "-o", str(out), "--jobs", "1"),
                          capture_output=True, preexec_fn=memory_capped(600), check=False,
                          timeout=120)
    assert done.returncode == ExitCode.INPUT_ERROR, done.stderr
    assert b"Traceback" not in done.stderr
    assert f"{data}: $[1]: nested deeper than 512 levels at line 1, column".encode() \
        in done.stderr
    results = results_of(out)  # the run is complete: unreadable records are results too
    assert [r["id"] for r in results] == ["r0", None, "big", "r1", "r2"]
    assert results[2]["status"] == "unverified"  # a 30-digit integer does not abort the array


@pytest.mark.parametrize("command", ["check", "render", "context"])
@pytest.mark.parametrize("depth", [513, 988, 1023, 5000, 200_000])
def test_deep_input_files_are_one_error_line(run: Any, tmp_path: Path, command: str,
                                             depth: int) -> None:
    deep = tmp_path / "deep.json"
    deep.write_bytes(b'{"sources": ' + b"[" * depth + b"]" * depth + b"}")
    answer = tmp_path / "a.json"
    answer.write_bytes(b"[" * depth + b"]" * depth)
    good = tmp_path / "good.json"
    good.write_text('["A passage."]')
    argv = {"check": ["check", str(deep), str(answer)],
            "render": ["render", str(good), str(answer)],
            "context": ["context", str(deep), "-o", str(tmp_path / "s.json")]}[command]
    result = run(*argv)
    assert result.code == ExitCode.INPUT_ERROR
    assert "nested deeper than 512 levels" in result.err
    assert ": line 1, column " in result.err
    assert result.err.count("\n") == 1


def test_jsonl_records_and_a_bom_in_every_input(run: Any, tmp_path: Path) -> None:
    rows = records(2)
    deep = b'{"id": "deep", "sources": ["a"], "answer": ' + b"[" * 900 + b"]" * 900 + b"}"
    data = tmp_path / "d.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + json.dumps(rows[0]).encode() + b"\n" + deep + b"\n"
                     + json.dumps(rows[1]).encode() + b"\n")
    out = tmp_path / "r.jsonl"
    result = run("eval", str(data), "-o", str(out))
    assert result.code == ExitCode.INPUT_ERROR
    assert "line 2: nested deeper than 512 levels at column" in result.err
    assert [r["status"] for r in results_of(out)] == [
        "ok", "unreadable", "unverified"]
    array = tmp_path / "d.json"
    array.write_bytes(b"\xef\xbb\xbf" + json.dumps(rows).encode())
    assert run("eval", str(array)).code == ExitCode.FAILED


def test_a_bad_grammar_regex_is_one_line_from_the_process() -> None:
    done = subprocess.run([sys.executable, "-m", "citeaudit", "check", S002,
                           str(ROOT / "examples/hr/answer.md"), "--grammar", "regex:(\\["],
                          capture_output=True, check=False)
    assert done.returncode == ExitCode.INPUT_ERROR
    assert done.stderr.decode() == ("citeaudit: error: cannot compile grammar regex '(\\\\[':"
                                    " missing ): (\\[\n")


def test_an_empty_answer_file_is_an_error(run: Any, tmp_path: Path) -> None:
    for text in ("", "  \n\t\n"):
        answer = tmp_path / "a.txt"
        answer.write_text(text)
        result = run("check", S002, str(answer))
        assert result.code == ExitCode.FAILED
        assert "CA404 error: the answer is empty: it holds nothing but white space" in result.out
    claims = tmp_path / "claims.json"
    claims.write_text("[]")
    assert run("check", S002, str(claims)).code == ExitCode.OK  # an empty claim list is allowed


@pytest.mark.parametrize("kept", ["finished", "partial"])
def test_resume_refuses_results_of_a_dataset_of_another_name(run: Any, tmp_path: Path,
                                                             kept: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(6))
    out = tmp_path / "r.jsonl"
    run("eval", str(data), "-o", str(out))
    if kept == "partial":
        lines = out.read_bytes().splitlines(keepends=True)
        out.unlink()
        Path(f"{out}.partial").write_bytes(b"".join(lines[:3]))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("r.")}
    longer = write_jsonl(tmp_path / "other.jsonl", [*records(6), *records(3)])
    same = tmp_path / "same.jsonl"
    same.write_bytes(data.read_bytes())
    for other, stdin in ((longer, b""), (same, b""), ("-", data.read_bytes())):
        result = run("eval", str(other), "-o", str(out), "--resume", stdin=stdin)
        assert (result.code, result.out) == (ExitCode.INPUT_ERROR, "")
        name = Path(other).name
        assert result.err == (
            f"citeaudit: error: {other}: {out} holds results that do not match this dataset"
            f" and these options (they were written for the dataset 'd.jsonl', not {name!r}):"
            " use a new results file or run without --resume\n")
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()
                if p.name.startswith("r.")} == before


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("target", ["/dev/stdin", "/proc/self/fd/0", "LINK"])
def test_eval_refuses_to_write_into_the_pipe_it_reads(tmp_path: Path, target: str,
                                                      jobs: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(3)).read_bytes()
    if target == "LINK":
        (tmp_path / "link").symlink_to("/proc/self/fd/0")
        target = str(tmp_path / "link")
    done = subprocess.run(eval_command("-", "-o", target, "--jobs", jobs), input=data,
                          capture_output=True, timeout=60, check=False)  # | citeaudit eval -
    assert (done.returncode, done.stdout) == (ExitCode.INPUT_ERROR, b"")
    assert done.stderr.decode() == (
        f"citeaudit: error: {target}: is the same pipe as the input <stdin>: the run would"
        " read its own results and never end; choose another output\n")


@pytest.mark.parametrize("target", ["/dev/stdin", "/proc/self/fd/0", "PATH", "HARDLINK"])
@pytest.mark.parametrize("command", ["eval", "context"])
def test_commands_refuse_to_write_over_the_file_on_their_standard_input(
        tmp_path: Path, target: str, command: str) -> None:
    data = write_jsonl(tmp_path / "d.jsonl", records(3)) if command == "eval" else \
        tmp_path / "p.json"
    if command == "context":
        data.write_text(json.dumps(["Expense reports are filed in 60 days."]))
    before = data.read_bytes()
    if target == "HARDLINK":
        os.link(data, tmp_path / "hard")
    target = {"PATH": str(data), "HARDLINK": str(tmp_path / "hard")}.get(target, target)
    with data.open("rb") as stdin:  # citeaudit eval - < d.jsonl
        done = subprocess.run([sys.executable, "-m", "citeaudit", command, "-", "-o", target],
                              stdin=stdin, capture_output=True, timeout=60, check=False)
    assert (done.returncode, done.stdout) == (ExitCode.INPUT_ERROR, b"")
    assert done.stderr.decode() == (
        f"citeaudit: error: {target}: is the same file as the input <stdin>: writing it would"
        " destroy the input; choose another output\n")
    assert data.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["d.jsonl" if command == "eval" else "p.json", *(["hard"] if "hard" in target else [])])


def test_a_device_may_be_both_input_and_output(tmp_path: Path) -> None:
    with open(os.devnull, "rb") as stdin:  # nothing to read, nothing kept: no conflict
        done = subprocess.run(eval_command("-", "-o", os.devnull, "--format", "json"),
                              stdin=stdin, capture_output=True, timeout=60, check=False)
    assert done.stderr == b""
    assert json.loads(done.stdout)["records"] == 0


def test_a_worker_forked_during_a_run_keeps_no_end_of_its_results_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "results"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    context = multiprocessing.get_context("fork")
    release = context.Event()
    try:
        with ResultsFile(fifo, resume=False) as store:
            store.write(b"{}\n")
            worker = context.Process(target=release.wait, args=(60,))
            worker.start()
        assert os.read(reader, 100) == b"{}\n"
        ready, _, _ = select.select([reader], [], [], 10)
        assert ready, "the worker still holds the write end of the pipe"
        assert os.read(reader, 100) == b""  # the end of the file, while the worker lives
        assert worker.is_alive()
    finally:
        release.set()
        os.close(reader)
    worker.join(10)

"""The Spark engine on a real local Spark session: ``eval --engine spark`` equals the local
engine record for record and in aggregate; ``citeaudit.spark.audit`` and ``aggregate`` on
DataFrames; results as JSONL part files (merge and replay read them) and typed Parquet.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from requires import needs

needs("pyspark", "pandas", part="spark")
# ruff: noqa: E402 - the part's imports follow its check

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

import citeaudit.spark
from citeaudit import Config
from citeaudit.cli import ExitCode
from dataset_builders import EXAMPLES, every_code_records, write_every_code


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """One local session for the module, with small partitions so that every dataset here
    spans several (the index of a partition's first row is what is tested).
    """
    # PySpark starts its workers with PYSPARK_PYTHON (not spark.pyspark.python): this one.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (SparkSession.builder.master("local[2]").appName("citeaudit tests")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.sql.files.maxPartitionBytes", "4096")
               .config("spark.sql.files.openCostInBytes", "0")
               .config("spark.sql.warehouse.dir", str(tmp_path_factory.mktemp("warehouse")))
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _lines(path: Path) -> bytes:
    """A results file, or the part files of a results folder, as one run of lines."""
    if path.is_dir():
        return b"".join(p.read_bytes() for p in sorted(path.glob("part-*")))
    return path.read_bytes()


def _both(run: Any, dataset: Path, tmp_path: Path, *extra: str,
          out: str = "results.jsonl") -> tuple[Any, Any]:
    local = run("eval", str(dataset), "-o", str(tmp_path / f"local-{out}"), "--format",
                "json", "--jobs", "2", *extra)
    on_spark = run("eval", str(dataset), "--engine", "spark", "-o",
                   str(tmp_path / f"spark-{out}"), "--format", "json", *extra)
    return local, on_spark


def test_spark_equals_local_on_the_shipped_examples(spark: SparkSession, run: Any,
                                                    tmp_path: Path) -> None:
    assert spark.read.text(str(EXAMPLES)).rdd.getNumPartitions() > 1
    local, on_spark = _both(run, EXAMPLES, tmp_path)
    assert (on_spark.code, on_spark.err) == (local.code, local.err)
    assert json.loads(on_spark.out) == json.loads(local.out)
    assert (tmp_path / "spark-results.jsonl").is_dir()
    assert _lines(tmp_path / "spark-results.jsonl") == _lines(tmp_path / "local-results.jsonl")
    for form in ("table", "markdown"):
        assert run("eval", str(EXAMPLES), "--engine", "spark", "--format", form).out == \
            run("eval", str(EXAMPLES), "--format", form, "-j", "1").out


def test_spark_equals_local_with_every_code_unreadable_rows_and_support(
        spark: SparkSession, run: Any, tmp_path: Path) -> None:
    dataset, config = write_every_code(tmp_path / "d.jsonl", 400)
    # Blank lines and a byte order mark: lines are numbered, records counted, as locally.
    dataset.write_bytes(b"\xef\xbb\xbf" + dataset.read_bytes().replace(b"\n", b"\n\n", 7)
                        + b"   \n")
    assert spark.read.text(str(dataset)).rdd.getNumPartitions() > 4
    local, on_spark = _both(run, dataset, tmp_path, "--config", str(config), "--support",
                            "lexical", "--max-bytes", "2000")
    assert local.code == on_spark.code == ExitCode.INPUT_ERROR
    assert on_spark.err == local.err  # every unreadable record named, as locally
    whole = json.loads(local.out)
    assert set(whole["findings"]) >= {"CA101", "CA201", "CA202", "CA204", "CA301", "CA403",
                                      "CA501", "CA502", "CA503"}
    assert whole["unreadable"] > 5
    assert "refusal_recall" in whole
    assert json.loads(on_spark.out) == whole
    assert _lines(tmp_path / "spark-results.jsonl") == _lines(tmp_path / "local-results.jsonl")
    junit = [run("eval", str(dataset), "--config", str(config), "--support", "lexical",
                 "--format", "junit", *engine).out for engine in (("-j", "1"),
                                                                  ("--engine", "spark"))]
    assert junit[0] == junit[1]


def test_spark_results_are_merged_and_replayed_like_local_ones(
        spark: SparkSession, run: Any, tmp_path: Path) -> None:
    _, on_spark = _both(run, EXAMPLES, tmp_path)
    folder = str(tmp_path / "spark-results.jsonl")
    merged = run("merge", folder, "--format", "json")
    assert json.loads(merged.out) == json.loads(on_spark.out)
    replayed = run("replay", folder, "--format", "json")
    assert replayed.out == run("replay", str(tmp_path / "local-results.jsonl"),
                               "--format", "json").out


def test_parquet_in_and_out(spark: SparkSession, run: Any, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in every_code_records(200) if line.startswith(b"{\"")]
    table = pa.table({
        "id": [r.get("id") for r in rows],
        "sources": [json.dumps(r.get("sources")) for r in rows],
        "answer": [r["answer"] if isinstance(r.get("answer"), str) else json.dumps(
            r.get("answer")) for r in rows],
        "answerable": [r.get("answerable") for r in rows],
        "tags": [r.get("tags") for r in rows]})
    pq.write_table(table, tmp_path / "d.parquet", row_group_size=16)
    local, on_spark = _both(run, tmp_path / "d.parquet", tmp_path, out="results.parquet")
    assert json.loads(on_spark.out) == json.loads(local.out)
    typed = pq.read_table(tmp_path / "spark-results.parquet").sort_by("index")
    assert typed.num_rows == len(rows)
    assert str(typed.schema.field("findings").type).startswith("list<element: struct<code:")
    assert typed.schema.field("metrics").type.num_fields == 15
    local_rows = [json.loads(line) for line in
                  (tmp_path / "local-results.parquet").read_text().splitlines()]
    spark_rows = typed.to_pylist()
    assert [r["status"] for r in spark_rows] == [r["status"] for r in local_rows]
    assert [r["findings"] for r in spark_rows] == [r.get("findings") for r in local_rows]
    assert [r["metrics"] for r in spark_rows] == [r.get("metrics") for r in local_rows]


def test_audit_and_aggregate_on_a_dataframe(spark: SparkSession, run: Any,
                                            tmp_path: Path) -> None:
    """The library: a lakehouse table with its own column names, tags from columns."""
    records = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    logged = [{"request_id": r["id"], "model_answer": json.dumps(r["answer"]) if "answer" in r
               and not isinstance(r["answer"], str) else r.get("answer"),
               "retrieved": json.dumps(r.get("sources")) if "sources" in r else None,
               "system": r["tags"]["system"], "kind": r["tags"]["kind"]}
              for r in records if "answer" in r]
    df = spark.createDataFrame(logged).repartition(3)
    results = citeaudit.spark.audit(df, answer="model_answer", sources="retrieved",
                                    id="request_id", tags=["system", "kind"],
                                    config=Config(), dataset="logs")
    assert results.schema == citeaudit.spark.RESULT
    rows = sorted((row.asDict(recursive=True) for row in results.collect()),
                  key=lambda r: r["index"])
    assert [r["index"] for r in rows] == list(range(len(logged)))
    by_id = {r["id"]: r for r in rows}
    # The same records as a local Parquet dataset: the same verdicts and metrics.
    table = pa.Table.from_pylist([{"id": x["request_id"], "answer": x["model_answer"],
                                   "sources": x["retrieved"],
                                   "tags": {"system": x["system"], "kind": x["kind"]}}
                                  for x in logged])
    pq.write_table(table, tmp_path / "same.parquet")
    assert run("eval", str(tmp_path / "same.parquet"), "-o", str(tmp_path / "r.jsonl"),
               "-j", "1").code in (ExitCode.OK, ExitCode.FAILED)
    for line in (tmp_path / "r.jsonl").read_text().splitlines():
        local = json.loads(line)
        mine = by_id[local["id"]]
        assert (mine["status"], mine["passed"], mine["metrics"], mine["tags"]) == (
            local["status"], local["passed"], local["metrics"], local["tags"])
        assert mine["run"]["dataset"] == "logs"
    total = citeaudit.spark.aggregate(results).to_dict()
    assert total["records"] == len(logged)
    assert total["tags"]["system"]["hr"]["records"] == 3
    local_total = json.loads(run("eval", str(tmp_path / "same.parquet"), "--format", "json",
                                 "-j", "1").out)
    local_total.pop("gates")
    assert {k: v for k, v in total.items() if k != "unreadable_records"} == {
        k: v for k, v in local_total.items() if k != "unreadable_records"}


def test_bad_input_on_spark(spark: SparkSession, run: Any, tmp_path: Path) -> None:
    missing = run("eval", str(tmp_path / "nope.jsonl"), "--engine", "spark")
    assert missing.code == ExitCode.INPUT_ERROR
    assert "Spark could not run: [PATH_NOT_FOUND] Path does not exist" in missing.err
    assert "Traceback" not in missing.err
    for flags, message in ((("--shard", "1/2"), "--shard is for the local engine"),
                           (("--resume", "-o", "x"), "--resume is for the local engine")):
        refused = run("eval", str(EXAMPLES), "--engine", "spark", *flags)
        assert refused.code == ExitCode.INPUT_ERROR
        assert message in refused.err
    array = tmp_path / "d.json"
    array.write_text("[]")
    assert "reads JSONL or Parquet" in run("eval", str(array), "--engine", "spark").err
    inside = tmp_path / "out"
    inside.mkdir()
    (inside / "d.jsonl").write_bytes(EXAMPLES.read_bytes())
    clobber = run("eval", str(inside / "d.jsonl"), "--engine", "spark", "-o", str(inside))
    assert clobber.code == ExitCode.INPUT_ERROR
    assert "holds the dataset" in clobber.err
    assert (inside / "d.jsonl").read_bytes() == EXAMPLES.read_bytes()


def test_the_command_in_its_own_process(tmp_path: Path) -> None:
    """As a user runs it: a new JVM, Spark's own session, nothing but citeaudit's output."""
    done = subprocess.run([sys.executable, "-m", "citeaudit", "eval", str(EXAMPLES),
                           "--engine", "spark", "--spark-master", "local[2]",
                           "--gate", "pass_rate>=0.1", "--report",
                           str(tmp_path / "report.html")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == ExitCode.OK, done.stderr
    assert done.stdout.splitlines()[-1] == "gate pass_rate>=0.1: holds"
    assert "Traceback" not in done.stderr
    assert " WARN " not in done.stderr
    html = (tmp_path / "report.html").read_text()
    assert html.count('class="record"') >= 10


def _shim(folder: Path, name: str, body: str) -> Path:
    folder.mkdir(exist_ok=True)
    shim = folder / name
    shim.write_text(f"#!/bin/sh\n{body}\n")
    shim.chmod(0o755)
    return shim


def _spark_run(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citeaudit", "eval", str(EXAMPLES),
                           "--engine", "spark", "-o", str(tmp_path / "out"),
                           "--gate", "pass_rate>=0"],
                          capture_output=True, text=True, timeout=300, check=False, env=env,
                          cwd=tmp_path)


def _outside_the_environment(tmp_path: Path) -> dict[str, str]:
    """The environment of a user who runs the environment's ``citeaudit`` without activating
    it: the ``python3`` first on the path cannot run citeaudit (here: one that only fails).
    """
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    bin_dir = tmp_path / "bin"
    for name in ("python3", "python"):
        _shim(bin_dir, name, "echo 'not this python' >&2; exit 3")
    env["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    return env


def test_workers_run_the_interpreter_that_runs_citeaudit(tmp_path: Path) -> None:
    done = _spark_run(tmp_path, _outside_the_environment(tmp_path))
    assert done.returncode == ExitCode.OK, done.stderr
    assert "Traceback" not in done.stderr
    assert _lines(tmp_path / "out")


def test_a_failing_spark_job_is_one_line_naming_its_cause(tmp_path: Path) -> None:
    """The user's choice of worker Python is kept; when that Python cannot run the job, the
    error is one line with the Python error, not Spark's stack traces.
    """
    env = _outside_the_environment(tmp_path)
    # site-packages hidden: the workers cannot import citeaudit's dependencies
    env["PYSPARK_PYTHON"] = str(_shim(tmp_path / "chosen", "python",
                                      f'exec "{sys.executable}" -S "$@"'))
    done = _spark_run(tmp_path, env)
    assert done.returncode == ExitCode.INPUT_ERROR
    assert "Traceback" not in done.stderr
    assert not [line for line in done.stderr.splitlines() if line.startswith("\tat ")]
    last = done.stderr.splitlines()[-1]
    assert re.fullmatch(rf"citeaudit: error: {re.escape(str(EXAMPLES))}: Spark could not run:"
                        r" a Python worker failed: ModuleNotFoundError: No module named '\S+'",
                        last), done.stderr


def test_the_readme_notebook_example(spark: SparkSession) -> None:
    readme = (Path(__file__).parents[1] / "docs" / "spark.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)
    (code,) = [block for block in blocks if "citeaudit.spark.audit(logs" in block]
    records = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    rows = [{"request_id": r["id"], "model_answer": r["answer"] if isinstance(
        r["answer"], str) else json.dumps(r["answer"]), "retrieved": json.dumps(r["sources"]),
             "system": r["tags"]["system"], "prompt_version": "v1"}
            for r in records if "answer" in r]
    spark.sql("CREATE DATABASE IF NOT EXISTS rag")
    spark.createDataFrame(rows).write.mode("overwrite").saveAsTable("rag.answers_2026_12_01")
    scope: dict[str, Any] = {"spark": spark}
    exec(code, scope)  # docs/spark.md's own example
    assert scope["summary"]["records"] == len(rows)
    assert set(scope["summary"]["tags"]) == {"system", "prompt_version"}
    stored = spark.table("rag.citation_audits")
    assert stored.count() == len(rows)
    assert stored.schema["findings"].dataType == citeaudit.spark.RESULT["findings"].dataType

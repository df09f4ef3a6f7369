"""``citeaudit.evaluate()``: a dataset run from Python whose rows are the rows
``citeaudit eval --out`` writes (the command run as a real process), with its aggregate,
DataFrames and results file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit import Config, InputError
from citeaudit.cli import ExitCode
from citeaudit.eval import COLUMNS, Record
from dataset_builders import EXAMPLES, write_every_code
from requires import needs

DOCS = Path(__file__).parents[1] / "docs" / "evaluate.md"


def _cli_run(dataset: Path, out: Path, *extra: str) -> dict[str, Any]:
    """``citeaudit eval`` as a real process: its printed aggregate (the rows are in ``out``)."""
    result = subprocess.run([sys.executable, "-m", "citeaudit", "eval", str(dataset), "-o",
                             str(out), "--format", "json", *extra], capture_output=True,
                            text=True, check=False)
    assert result.returncode in (ExitCode.OK, ExitCode.FAILED, ExitCode.INPUT_ERROR), \
        result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    data.pop("gates")
    return data


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.mark.parametrize(("flags", "options"), [
    (("--no-config", "--jobs", "1"), {"config": Config(), "jobs": 1}),
    (("--no-config", "--jobs", "2", "--min-recall", "0.25"),
     {"config": Config(), "jobs": 2, "min_recall": 0.25}),
    (("--no-config", "--jobs", "1", "--min-precision", "0.5", "--no-evaluators"),
     {"config": Config(), "jobs": 1, "min_precision": 0.5, "evaluators": ()}),
    (("--no-config", "--jobs", "1", "--evaluator", "out_of_range"),
     {"config": Config(), "jobs": 1, "evaluators": ["out_of_range"]}),
])
def test_rows_are_the_command_s_rows(tmp_path: Path, flags: tuple[str, ...],
                                     options: dict[str, Any]) -> None:
    dataset = tmp_path / "answers.jsonl"
    shutil.copy(EXAMPLES, dataset)
    out = tmp_path / "cli.jsonl"
    aggregate = _cli_run(dataset, out, *flags)
    results = citeaudit.evaluate(dataset, **options)
    assert results.rows() == _rows(out)
    assert list(results) == _rows(out)
    assert len(results) == aggregate["records"] == 15
    assert results.summary() == aggregate
    assert results.aggregate.to_dict() == aggregate
    results.write(tmp_path / "api.jsonl")
    assert (tmp_path / "api.jsonl").read_bytes() == out.read_bytes()
    assert results.failed() == [row for row in _rows(out) if not row["passed"]]


def test_a_configuration_file_and_unreadable_records(tmp_path: Path) -> None:
    dataset, config = write_every_code(tmp_path / "every.jsonl", 120)
    out = tmp_path / "cli.jsonl"
    aggregate = _cli_run(dataset, out, "--config", str(config), "--jobs", "2")
    results = citeaudit.evaluate(str(dataset), config=config, jobs=2)
    assert results.rows() == _rows(out)
    assert results.summary() == aggregate
    assert any(row["status"] == "unreadable" for row in results)


def test_the_configuration_is_found_as_the_command_finds_it(tmp_path: Path) -> None:
    # The tests run in tmp_path: a configuration there is the nearest one.
    shutil.copy(EXAMPLES, tmp_path / "answers.jsonl")
    (tmp_path / "citeaudit.toml").write_text("min-recall = 0.2\nignore = [\"CA301\"]\n")
    out = tmp_path / "cli.jsonl"
    aggregate = _cli_run(tmp_path / "answers.jsonl", out, "--jobs", "1")
    results = citeaudit.evaluate("answers.jsonl", jobs=1)
    assert results.rows() == _rows(out)
    assert results.summary() == aggregate
    assert aggregate["min_recall"] == 0.2


def test_records_given_in_python_are_read_as_the_same_lines(tmp_path: Path) -> None:
    lines = EXAMPLES.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    dataset = tmp_path / "records.jsonl"  # the name an iterable's results give their dataset
    # as compact JSON (what evaluate() writes them as): the record digests are of the bytes
    dataset.write_text("".join(json.dumps(record, separators=(",", ":"), ensure_ascii=False)
                               + "\n" for record in records))
    out = tmp_path / "cli.jsonl"
    _cli_run(dataset, out, "--no-config", "--jobs", "1")
    from_list = citeaudit.evaluate(records, config=Config(), jobs=1)
    from_generator = citeaudit.evaluate((r for r in records), config=Config(), jobs=2)
    assert from_list.rows() == from_generator.rows() == _rows(out)


def test_record_objects_are_records(tmp_path: Path) -> None:
    record = Record("r1", ["Refunds take 30 days.", "Fees apply."],
                    "Refunds take 30 days [1]. Fees apply [3].", ("1",),
                    (("topic", "billing"),), "numeric", True)
    as_dict = {"id": "r1", "sources": record.sources, "answer": record.answer,
               "relevant": ["1"], "tags": {"topic": "billing"}, "grammar": "numeric",
               "answerable": True}
    (row,) = citeaudit.evaluate([record], config=Config(), jobs=1)
    (same,) = citeaudit.evaluate([as_dict], config=Config(), jobs=1)
    assert {**row, "record_digest": None} == {**same, "record_digest": None}
    assert row["tags"] == {"topic": "billing"}
    assert [f["code"] for f in row["findings"]] == ["CA202"]


def test_bad_records_are_rows_and_bad_inputs_errors(tmp_path: Path) -> None:
    results = citeaudit.evaluate([{"id": "x"}, "not a record"], config=Config(), jobs=1)
    assert [row["status"] for row in results] == ["unreadable", "unreadable"]
    assert len(results.failed()) == 2
    with pytest.raises(InputError, match=r"<records>: \$\[1\]: not JSON"):
        citeaudit.evaluate([{"id": "a"}, {"id": "b", "answer": object()}], config=Config())
    with pytest.raises(InputError, match="no such file"):
        citeaudit.evaluate(tmp_path / "missing.jsonl", config=Config())


def _results() -> citeaudit.EvalResults:
    records = [{"id": "good", "sources": ["Refunds take 30 days."],
                "answer": "Refunds take 30 days [1].", "tags": {"topic": "refunds"}},
               {"id": "bad", "sources": ["Refunds take 30 days."],
                "answer": "Refunds take 30 days [4].", "tags": {"topic": "billing",
                                                                 "lang": "en"}},
               "unreadable"]
    return citeaudit.evaluate(records, config=Config(), jobs=1)


def test_columns_are_the_documented_ones() -> None:
    table = _results().columns()
    assert list(table) == [*COLUMNS, "tag.lang", "tag.topic"]
    assert table["id"] == ["good", "bad", None]
    assert table["passed"] == [True, False, False]
    assert table["findings"] == [[], ["CA202"], []]
    assert table["tag.lang"] == [None, "en", None]
    assert table["error"][:2] == [None, None]
    assert table["error"][2].startswith("a record must be a JSON object")
    docs = DOCS.read_text()
    for name in COLUMNS:
        assert f"`{name}`" in docs


def test_to_pandas() -> None:
    needs("pandas", part="dataframe")
    results = _results()
    frame = results.to_pandas()
    assert len(frame) == len(results) == 3
    assert list(frame.columns) == list(results.columns())
    assert frame["passed"].tolist() == [True, False, False]
    assert frame["id"].isna().tolist() == [False, False, True]
    assert frame["findings"].tolist() == [[], ["CA202"], []]
    assert str(frame["precision"].dtype) == "Float64"


def test_to_polars() -> None:
    needs("polars", part="dataframe")
    results = _results()
    frame = results.to_polars()
    assert frame.height == len(results) == 3
    assert frame.columns == list(results.columns())
    assert frame["passed"].to_list() == [True, False, False]
    assert frame["findings"].to_list() == [[], ["CA202"], []]
    assert frame["tag.topic"].to_list() == ["refunds", "billing", None]


@pytest.mark.parametrize(("module", "method"), [("pandas", "to_pandas"),
                                                ("polars", "to_polars")])
def test_a_missing_dataframe_library_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                     module: str, method: str) -> None:
    results = _results()
    monkeypatch.setitem(sys.modules, module, None)  # import then raises ImportError
    with pytest.raises(ImportError, match=rf"needs {module}: pip install 'citeaudit\[dataframe\]'"):
        getattr(results, method)()


def test_the_page_s_example_runs(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLES.parent, tmp_path / "examples" / "eval")
    block = DOCS.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(block, namespace)
    assert len(namespace["results"]) == 15


def test_the_page_s_dataframe_example_runs(tmp_path: Path) -> None:
    """docs/evaluate.md's examples in order, the DataFrame one too."""
    needs("pandas", part="dataframe")
    shutil.copytree(EXAMPLES.parent, tmp_path / "examples" / "eval")
    namespace: dict[str, Any] = {}
    for block in DOCS.read_text().split("```python\n")[1:]:
        exec(block.split("```", 1)[0], namespace)
    assert len(namespace["frame"]) == 15

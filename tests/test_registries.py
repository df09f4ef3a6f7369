"""One registry mechanism for every kind of plug-in: built-ins and installed packages alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit.cli import ExitCode
from citeaudit.core._answer import FORMATS
from citeaudit.core._checks import CHECKS
from citeaudit.core._grammar import GRAMMARS
from citeaudit.core._judging import JUDGES
from citeaudit.core._registry import Registry
from citeaudit.eval._evaluators import EVALUATORS
from citeaudit.eval._records import DATASET_FORMATS
from citeaudit.report._formatters import FORMATTERS

S002 = str(Path(__file__).parent / "data/seeds/002/passages.json")
REGISTRIES: dict[str, tuple[Registry[Any], tuple[str, ...]]] = {
    "grammars": (GRAMMARS, ("numeric", "S", "id", "source")),
    "checks": (CHECKS, ("malformed_markers", "unread_markers", "unresolved_citations",
                        "cited_locations", "duplicate_citations",
                        "empty_snapshot", "uncited_claims", "answer_level", "invalid_answer",
                        "support")),
    "judges": (JUDGES, ("lexical", "embedding", "nli", "llm")),
    "formats": (FORMATS, ("text", "claims", "structured", "anthropic", "openai-responses",
                          "openai-chat", "openai-assistants", "cohere", "gemini",
                          "gemini-interactions", "bedrock", "bedrock-converse", "perplexity",
                          "perplexity-responses", "azure-on-your-data", "mistral", "xai")),
    "formatters": (FORMATTERS, ("text", "json")),
    "evaluators": (EVALUATORS, ("out_of_range", "citation_coverage")),
    "datasets": (DATASET_FORMATS, ("jsonl", "json", "parquet")),
}


@pytest.mark.parametrize("kind", sorted(REGISTRIES))
def test_every_registry_is_the_same_mechanism(kind: str) -> None:
    registry, builtins = REGISTRIES[kind]
    assert registry.group == f"citeaudit.{kind}"
    assert registry.builtins() == builtins
    assert list(registry)[:len(builtins)] == list(builtins)
    for name in builtins:
        assert registry[name] is registry[name]  # loaded once
    with pytest.raises(TypeError):
        registry["new"] = registry[builtins[0]]  # type: ignore[index]  # read-only
    with pytest.raises(citeaudit.ConfigError, match=f"unknown {registry.what} 'nope'"):
        registry.require("nope")


def test_the_rule_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        citeaudit.RULES["CA999"] = citeaudit.RULES["CA101"]  # type: ignore[index]


CURLY = '''
from citeaudit.core._grammar import RegexGrammar

CURLY = RegexGrammar(r"\\{\\{([a-z0-9_]+)\\}\\}")
'''
SHOUT = '''
class Shout:
    def write(self, report, answer_text, origin, stream):
        stream.write(f"{origin}: {report.status.upper()}\\n")
'''
TSV = '''
from citeaudit.eval._records import RawItem
import json
import subprocess
import sys


class Tsv:
    suffixes = (".tsv",)

    def items(self, path, *, max_bytes, stdin=None):
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                record_id, answer, sources = line.rstrip("\\n").split("\\t")
                yield RawItem(number, f"line {number + 1}", {
                    "id": record_id, "answer": answer, "sources": json.loads(sources)})
'''


def test_installed_plugins_are_found_by_name(run: Any, tmp_path: Path, plugins: Any) -> None:
    plugins({"curly": CURLY, "shout": SHOUT, "tsv_reader": TSV},
            {"citeaudit.grammars": {"curly": "curly:CURLY"},
             "citeaudit.formatters": {"shout": "shout:Shout"},
             "citeaudit.datasets": {"tsv": "tsv_reader:Tsv"}})
    report = citeaudit.audit("Filed within 60 days {{1}}.", ["Filed within 60 days."],
                             grammar="curly")
    assert [c.source_id for c in citeaudit.prepare(
        "Filed within 60 days {{1}}.", ["x"], grammar="curly").answer.citations] == ["1"]
    assert report.passed
    answer = tmp_path / "a.txt"
    answer.write_text("Expense reports are filed within 60 days [1].")
    shouted = run("check", S002, str(answer), "--format", "shout")
    assert (shouted.code, shouted.out) == (ExitCode.OK, f"{answer}: OK\n")
    data = tmp_path / "d.tsv"
    data.write_text("a\tFiled within 60 days [1].\t" + json.dumps(["Filed within 60 days."])
                    + "\n")
    evaluated = run("eval", str(data), "--format", "json", "--jobs", "1")
    assert evaluated.code == ExitCode.OK, evaluated.err
    assert json.loads(evaluated.out)["records"] == 1
    assert "tsv" in run("eval", "--help").out


def test_a_layer_adds_its_built_ins_after_the_engine_s() -> None:
    registry: Registry[object] = Registry("tests", {"first": "citeaudit:audit"},
                                          what="test plug-in", validate=lambda loaded: loaded)
    registry.add_builtins({"second": "citeaudit:Report", "third": "citeaudit:Config"})
    assert registry.builtins() == ("first", "second", "third")
    assert registry["second"] is citeaudit.Report
    with pytest.raises(ValueError, match="declared twice: first"):
        registry.add_builtins({"first": "citeaudit:Config"})
    assert registry["first"] is citeaudit.audit


def test_the_formats_and_judges_are_there_whatever_is_imported_first() -> None:
    """The engine names no layer above it; importing any part of the package imports the
    package first, which imports the layers that register the formats and the judges.
    """
    program = ("from citeaudit.core import FORMATS, JUDGES, get_judge;"
               "print(len(FORMATS.builtins()), JUDGES.builtins(), get_judge('lexical').name)")
    printed = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                             check=True).stdout
    assert printed.split() == ["17", "('lexical',", "'embedding',", "'nli',", "'llm')",
                               "lexical"]

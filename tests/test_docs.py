"""The documentation runs: every example in the README and the pages under ``docs/`` is
executed, the generated pages (command reference, one page per rule) cover every command and
rule, every page is in the site's nav, and the README stays short.

``python`` blocks run in order, one namespace a page. ``console`` blocks' ``$ ...`` commands
run as real processes (bash, with this interpreter's ``citeaudit`` first on the path) in a
folder holding a copy of ``examples/``; the exit code is checked (``<!-- exit: N -->`` before
the block, else 1 when the output shown has a failing verdict or gate, else 0) and so is the
output shown (``...`` in a line stands for any text; a line of its own for any lines).
``toml`` blocks are loaded as configuration. A block that cannot run offline is marked before
it: ``<!-- not-run: REASON -->``, or ``<!-- run-by: tests/test_NAME.py -->`` where a heavy
part's test runs it with offline stand-ins. Only Markdown is read here: MkDocs is not needed
(``tests/test_site.py`` builds the site).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from markdown_it import MarkdownIt

import citeaudit

ROOT = Path(__file__).parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
# docs/rules.md is the rule pages' source (each rule's text and example case), not a page.
SOURCES_ONLY = {"rules.md"}
PAGES = [README, *sorted(p for p in DOCS.glob("*.md") if p.name not in SOURCES_ONLY)]
MOST_NOT_RUN = 6  # blocks that no test runs at all: few, each with its reason
_MARK = re.compile(r"<!--\s*(not-run|run-by|exit):\s*(.*?)\s*-->", re.DOTALL)
# What may stand between a mark and its block: a list item opening or closing.
_BETWEEN = {"bullet_list_open", "ordered_list_open", "list_item_open", "list_item_close",
            "bullet_list_close", "ordered_list_close"}
_FAILED = re.compile(r"^FAIL\b|^gate .*: FAILS\b")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page, with the mark written before it (if any)."""

    page: Path
    line: int
    lang: str
    text: str
    mark: str | None
    reason: str

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of a page, in order (also those inside list items)."""
    found: list[Block] = []
    mark: tuple[str, str] | None = None
    for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
        if token.type == "html_block":
            match = _MARK.search(token.content)
            mark = (match.group(1), match.group(2)) if match else None
        elif token.type == "fence":
            assert token.map is not None
            found.append(Block(page, token.map[0] + 1, token.info.split(" ")[0],
                               token.content, mark[0] if mark else None,
                               mark[1] if mark else ""))
            mark = None
        elif token.type not in _BETWEEN:  # a mark belongs to the very next block
            mark = None
    return found


def _runnable(block: Block) -> bool:
    return block.mark not in ("not-run", "run-by")


def _all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks(page)]


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _copy_examples(tmp_path: Path) -> None:
    """The examples, where a page's blocks run them, less their installed JavaScript packages
    (``npm ci`` puts over a gigabyte under ``node_modules``, and no block runs them): copied
    for every block and page, they cost CI minutes.
    """
    shutil.copytree(ROOT / "examples", tmp_path / "examples",
                    ignore=shutil.ignore_patterns("node_modules"))


# Python ----------------------------------------------------------------------------------


@pytest.mark.parametrize("page", [p for p in PAGES
                                  if any(b.lang == "python" for b in blocks(p))],
                         ids=_page_id)
def test_python_blocks_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _copy_examples(tmp_path)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem}"}
    ran = 0
    for block in blocks(page):
        if block.lang == "python" and _runnable(block):
            code = compile(block.text, block.name, "exec")
            exec(code, namespace)
            ran += 1
    assert ran or all(not _runnable(b) for b in blocks(page) if b.lang == "python")


def test_the_pages_examples_show_what_they_return() -> None:
    """The values a page writes in comments beside its calls are what the calls return."""
    namespace: dict[str, Any] = {}
    (block, *_) = [b for b in blocks(DOCS / "getting-started.md") if b.lang == "python"]
    exec(block.text, namespace)
    assert namespace["report"].status == "unverified"
    assert namespace["served"].text == "Reports are due in 60 days [1]. Refunds take 14 days."
    namespace = {}
    (block, *_) = [b for b in blocks(DOCS / "python.md") if b.lang == "python"]
    exec(block.text, namespace)
    assert (namespace["report"].passed, namespace["report"].reasons) == (True, ())
    assert namespace["report"].to_dict()["snapshot"] == {"numbering": "ids", "sources": 2}


# Console ---------------------------------------------------------------------------------


def _commands(block: Block) -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            found.append((line[2:], []))
        else:
            assert found, f"{block.name}: output before any command"
            found[-1][1].append(line)
    return found


def _matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, ``...`` standing for any text."""
    pattern = "".join(
        r"(?:.*\n)*?" if line == "..." else
        ".*".join(re.escape(part) for part in line.split("...")) + r"\n"
        for line in shown)
    text = "".join(f"{line}\n" for line in printed)
    if shown and shown[-1] == "...":
        pattern += r"(?:.*\n)*"
    return re.fullmatch(pattern, text) is not None


def _expected_exit(block: Block, shown: list[str]) -> int:
    if block.mark == "exit":
        return int(block.reason)
    return 1 if any(_FAILED.search(line) for line in shown) else 0


def _console_blocks() -> list[Block]:
    return [b for b in _all_blocks() if b.lang == "console" and _runnable(b)]


@pytest.mark.parametrize("block", _console_blocks(), ids=lambda b: b.name)
def test_console_blocks_run(block: Block, tmp_path: Path) -> None:
    _copy_examples(tmp_path)
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for name in [n for n in environment if n.startswith("CITEAUDIT_") and n != "CITEAUDIT_PURE"]:
        del environment[name]
    commands = _commands(block)
    assert commands, f"{block.name}: a console block without a command"
    for command, shown in commands:
        assert "citeaudit" in command, f"{block.name}: {command}"
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=environment,
                              capture_output=True, text=True, timeout=120, check=False)
        printed = (done.stdout + done.stderr).splitlines()
        assert done.returncode == _expected_exit(block, shown), (command, done.stderr[-2000:])
        if shown:
            assert _matches(shown, printed), (command, shown, printed)


def test_the_output_matching_can_fail() -> None:
    assert _matches(["a ... c"], ["a b c"])
    assert _matches(["a", "...", "z"], ["a", "b", "c", "z"])
    assert _matches(["a", "..."], ["a", "b"])
    assert not _matches(["a ... c"], ["a b d"])
    assert not _matches(["a"], ["a", "b"])
    assert not _matches(["a", "...", "z"], ["a", "b"])


# Other blocks ----------------------------------------------------------------------------


@pytest.mark.parametrize("block", [b for b in _all_blocks() if b.lang == "toml"],
                         ids=lambda b: b.name)
def test_toml_blocks_are_configurations_that_load(block: Block, tmp_path: Path) -> None:
    name = "pyproject.toml" if "[tool.citeaudit]" in block.text else "citeaudit.toml"
    (tmp_path / name).write_text(block.text, encoding="utf-8")
    assert isinstance(citeaudit.load_config(tmp_path / name), citeaudit.Config)


def test_the_configuration_page_lists_every_key() -> None:
    from citeaudit.core._config import SETTINGS  # noqa: PLC0415

    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+)`(?:, `([a-z-]+)`)? \|", page, re.M))
    keys = {key for row in listed for key in row if key}
    assert keys == {setting.key for setting in SETTINGS.values()}


def test_commands_outside_console_blocks_are_marked() -> None:
    """A shell block holding a citeaudit command is run (a console block) or says why not."""
    for block in _all_blocks():
        if block.lang in ("sh", "bash", "shell") and _runnable(block):
            lines = [line.strip() for line in block.text.splitlines()]
            assert not [line for line in lines if re.match(r"(\S+=\S+ )*citeaudit ", line)], \
                f"{block.name}: make it a console block, or mark it <!-- not-run: REASON -->"


def test_marks_are_few_and_each_has_its_reason() -> None:
    marked = [b for b in _all_blocks() if b.mark in ("not-run", "run-by")]
    not_run = [b for b in marked if b.mark == "not-run"]
    assert len(not_run) <= MOST_NOT_RUN, [b.name for b in not_run]
    for block in not_run:
        assert len(block.reason.split()) >= 3, f"{block.name}: say why it cannot run"
    for block in marked:
        if block.mark == "run-by":
            test = ROOT / block.reason
            assert re.fullmatch(r"tests/test_\w+\.py", block.reason), block.name
            assert test.exists(), block.name
            page = block.page.relative_to(ROOT).as_posix()
            assert page in test.read_text(encoding="utf-8"), \
                f"{block.reason} does not run the example of {page}"


def test_the_marks_are_read(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("Text.\n\n<!-- not-run: needs a network service -->\n```python\nx = 1\n```\n"
                    "\n```python\ny = 2\n```\n\n- item\n\n  <!-- exit: 1 -->\n  ```console\n"
                    "  $ citeaudit rules\n  ```\n", encoding="utf-8")
    found = blocks(page)
    assert [(b.lang, b.mark, b.reason) for b in found] == [
        ("python", "not-run", "needs a network service"), ("python", None, ""),
        ("console", "exit", "1")]


# Generated pages -------------------------------------------------------------------------


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("citeaudit_docs",
                                                  DOCS / "hooks" / "citeaudit_docs.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    """The rule pages (made once: each runs its example case)."""
    pages: dict[str, str] = _generator().rule_pages()
    return pages


def test_every_command_and_option_has_its_reference() -> None:
    from citeaudit.cli._app import COMMANDS, _parser  # noqa: PLC0415

    reference = _generator().cli_reference()
    sections = dict(re.findall(r"^## (\S+)\n(.*?)(?=^## |\Z)", reference, re.DOTALL | re.M))
    assert set(sections) == set(COMMANDS)
    subparsers = next(a for a in _parser()._actions if a.choices and a.dest == "command")
    assert isinstance(subparsers.choices, dict)
    for name, parser in subparsers.choices.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in sections[name], (name, flag)


def test_every_rule_has_its_page(generated: dict[str, str]) -> None:
    index = generated["rules/index.md"]
    rows = dict(re.findall(r"^\| \[(CA\d{3})\]\(CA\d{3}\.md\) \| ([a-z-]+) \|", index, re.M))
    assert rows == {code: rule.name for code, rule in citeaudit.RULES.items()}
    generator = _generator()
    sections = generator.rule_sections()
    for code, rule in citeaudit.RULES.items():
        page = generated[f"rules/{code}.md"]
        assert page.startswith(f"# {code} {rule.name}\n")
        assert f"| default severity | {rule.severity.value} |" in page
        if generator.case_of(sections.get(code, "")) is not None:
            example = page.split("## Example", 1)[1]
            assert re.search(rf"^\S.*: {code} (error|warning): ", example, re.M), code


def test_a_rule_case_that_does_not_produce_its_rule_stops_the_build() -> None:
    generator = _generator()
    with pytest.raises(RuntimeError, match="CA202's example case does not produce CA202"):
        generator._example("CA202", {"sources": ["a"], "answer": "Fine [1]."})


def test_the_generated_pages_examples_are_real(generated: dict[str, str]) -> None:
    """The rule pages' output is what the command prints for their case (run again here)."""
    generator = _generator()
    case = generator.case_of(generator.rule_sections()["CA202"])
    args, output, code = generator.run_case(case)
    assert code == 1
    assert f"$ citeaudit {' '.join(args)}\n{output.rstrip()}\n" in generated["rules/CA202.md"]


# The site and the README -----------------------------------------------------------------


def test_every_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:\n", 1)[1]
    listed = set(re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", nav, re.M))
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")
             if "hooks" not in p.parts and p.name not in SOURCES_ONLY}
    assert pages <= listed, f"not in mkdocs.yml's nav: {sorted(pages - listed)}"
    assert {"rules/index.md", "reference/cli.md"} <= listed


def test_the_readme_is_short_and_keeps_its_two_commands() -> None:
    readme = README.read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "python3 -m pip install -e '.[test]' && python3 -m pytest -n auto" in readme
    main = re.search(r"^python3 -m pip install \. && (citeaudit check examples/\S+ examples/\S+)$",
                     readme, re.M)
    assert main, "the README's install-and-run command"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m pip install -e '.[test]' && python3 -m pytest -n auto" in ci
    done = subprocess.run([sys.executable, "-m", "citeaudit", *shlex.split(main.group(1))[1:]],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_says_how_to_change_the_recall_threshold() -> None:
    readme = README.read_text(encoding="utf-8")
    after = readme.split("$ citeaudit eval", 1)[1].split("```", 1)[1][:800]
    assert "1 of 4" in after
    assert "--min-recall" in after





pytest_plugins = ["pytester"]


def test_the_pytest_plugin_example_runs(pytester: pytest.Pytester) -> None:
    """docs/integrations.md's pytest example, in a project whose ``rag_app`` answers offline."""
    (block,) = [b for b in blocks(DOCS / "integrations.md")
                if b.lang == "python" and "def test_refund_answer" in b.text]
    pytester.makeconftest("""
        import pytest

        class App:
            def __init__(self, answer):
                self.answer = answer

            def ask(self, question):
                return self.answer, ["Refunds take 14 days.", "Fees apply."]

        @pytest.fixture(params=["Refunds take 14 days [1].", "Refunds take 14 days [3]."])
        def rag_app(request):
            return App(request.param)
    """)
    pytester.makepyfile(test_example=block.text)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)  # the second answer cites a passage never sent
    result.stdout.fnmatch_lines(["*CA202 error: [[]3[]] cites 3, outside the 2 retrieved*"])

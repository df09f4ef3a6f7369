"""The generated pages of the documentation site: the command reference and one page per rule.

Both come from the code, so they cannot fall behind it: the command reference from the
command line's argparse parsers, the rule pages from ``citeaudit.RULES`` with each rule's text
and example case in ``docs/rules.md`` (the case is run through ``citeaudit check`` here, and
its real output shown). MkDocs calls the hooks at the bottom (``hooks:`` in ``mkdocs.yml``);
``tests/test_docs.py`` calls :func:`pages` directly.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import citeaudit
from citeaudit.cli import main

ROOT = Path(__file__).resolve().parents[2]
RULES_TEXT = ROOT / "docs" / "rules.md"
CLI_PAGE = "reference/cli.md"
RULES_INDEX = "rules/index.md"
_CASE = re.compile(r"\n*The example the rule's page runs[^\n]*\n+```json case\n(.*?)\n```\n?",
                   re.DOTALL)


def pages() -> dict[str, str]:
    """Every generated page, by its path under ``docs/``."""
    return {CLI_PAGE: cli_reference(), **rule_pages()}


# The command reference ------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    from citeaudit.cli import _app  # noqa: PLC0415  the parsers are the command line's own

    return _app._parser()


def commands() -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, in the order ``citeaudit --help`` lists them."""
    for action in _parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise RuntimeError("the command line has no subcommands")


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    metavar = ""
    if action.nargs != 0:
        shown = action.metavar or (
            "{" + ",".join(map(str, action.choices)) + "}" if action.choices else
            action.dest.upper())
        metavar = f" {shown}"
    return ", ".join(f"`{flag}{metavar}`" for flag in action.option_strings)


def _help(action: argparse.Action, parser: argparse.ArgumentParser) -> str:
    text = action.help or ""
    if "%(" in text:
        text = parser._get_formatter()._expand_help(action)
    return _cell(text)


def _command_section(name: str, parser: argparse.ArgumentParser) -> Iterator[str]:
    yield f"## {name}\n"
    usage = " ".join(parser.format_usage().split()).removeprefix("usage: ")
    yield f"```text\n{usage}\n```\n"
    if parser.description:
        yield " ".join(parser.description.split()) + "\n"
    yield "| argument | meaning |\n|---|---|"
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:
            continue
        yield f"| {_flags(action)} | {_help(action, parser)} |"
    yield ""


def cli_reference() -> str:
    """The command reference page: every command, its usage, description and every option."""
    parts = ["# Command reference\n",
             "Generated from the command line's own parsers when the site is built: every"
             " command and every option, as `citeaudit COMMAND --help` prints them. The"
             " [command line](../cli.md) page explains the output and the exit codes.\n",
             "`citeaudit --version` prints the version and whether the compiled build runs.\n"]
    for name, parser in commands().items():
        parts.extend(_command_section(name, parser))
    return "\n".join(parts)


# The rule pages -------------------------------------------------------------------------


def rule_sections() -> dict[str, str]:
    """Each rule's text in ``docs/rules.md``, by code (the part after its heading)."""
    text = RULES_TEXT.read_text(encoding="utf-8")
    found = re.split(r"^## (CA\d{3}) [a-z-]+\n", text, flags=re.MULTILINE)
    return {code: body.strip() for code, body in zip(found[1::2], found[2::2], strict=True)}


def rules_intro() -> str:
    """What ``docs/rules.md`` says before its first rule."""
    text = RULES_TEXT.read_text(encoding="utf-8")
    return text.split("\n## ", 1)[0].split("\n", 1)[1].strip()


def case_of(section: str) -> dict[str, Any] | None:
    """The example case a rule's text defines, if any."""
    match = _CASE.search(section)
    return None if match is None else dict(json.loads(match.group(1)))


def run_case(case: dict[str, Any]) -> tuple[list[str], str, int]:
    """Run ``citeaudit check`` on a case: the command as shown, its output and exit code."""
    with tempfile.TemporaryDirectory() as folder:
        where = Path(folder)
        sources = where / "sources.json"
        sources.write_text(json.dumps(case["sources"], ensure_ascii=False), encoding="utf-8")
        answer = case["answer"]
        name = "answer.txt" if isinstance(answer, str) else "answer.json"
        (where / name).write_text(answer if isinstance(answer, str) else
                                  json.dumps(answer, ensure_ascii=False), encoding="utf-8")
        args = ["check", "sources.json", name, *case.get("args", [])]
        out, err = io.StringIO(), io.StringIO()
        with _inside(where):
            code = main(args, stdout=out, stderr=err)
    return args, out.getvalue() + err.getvalue(), code


@contextlib.contextmanager
def _inside(folder: Path) -> Iterator[None]:
    """Run in ``folder`` (without a configuration file of the project's), then come back."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _example(code: str, case: dict[str, Any]) -> str:
    args, output, exit_code = run_case(case)
    if code not in output:
        raise RuntimeError(f"{code}'s example case does not produce {code}:\n{output}")
    answer = case["answer"]
    shown = answer if isinstance(answer, str) else json.dumps(answer, indent=2,
                                                              ensure_ascii=False)
    kind = "text" if isinstance(answer, str) else "json"
    return "\n".join([
        "## Example\n",
        "Generated when the site is built, by running `citeaudit check` on this case.\n",
        "`sources.json`:\n",
        f"```json\n{json.dumps(case['sources'], indent=2, ensure_ascii=False)}\n```\n",
        f"`{args[2]}`:\n",
        f"```{kind}\n{shown.rstrip()}\n```\n",
        f"```console\n$ citeaudit {' '.join(args)}\n{output.rstrip()}\n```\n",
        f"Exit code {exit_code}.\n"])


def _rule_page(rule: citeaudit.Rule, section: str) -> str:
    text = _CASE.sub("\n", section)
    text = re.sub(r"^Default severity: [a-z]+(, [^\n]*)?\n+", "", text).strip()
    # docs/rules.md's links are relative to docs/; the rule pages live one folder down
    text = re.sub(r"\]\((?![a-z]+:|#|/)([^)\s]+\.md(?:#[^)\s]*)?)\)", r"](../\1)", text)
    case = case_of(section)
    facts = "\n".join([
        "| | |", "|---|---|",
        f"| code | `{rule.code}` |",
        f"| name | `{rule.name}` |",
        f"| default severity | {rule.severity.value} |",
        f"| enabled by default | {'yes' if rule.default_enabled else 'no'} |",
        f"| summary | {_cell(rule.summary)} |"])
    parts = [f"# {rule.code} {rule.name}\n", facts + "\n", "## What it means\n", text + "\n"]
    if case is not None:
        parts.append(_example(rule.code, case))
    return "\n".join(parts)


def rule_pages() -> dict[str, str]:
    """The rules' index and one page per rule, from ``citeaudit.RULES``."""
    sections = rule_sections()
    rows = [f"| [{code}]({code}.md) | {rule.name} | {rule.severity.value}"
            f"{'' if rule.default_enabled else ', off'} | {_cell(rule.summary)} |"
            for code, rule in citeaudit.RULES.items()]
    index = "\n".join(["# Rules\n", rules_intro() + "\n",
                       "| code | name | default | fires when |", "|---|---|---|---|",
                       *rows, ""])
    generated = {RULES_INDEX: index}
    for code, rule in citeaudit.RULES.items():
        # a rule whose text is not written yet still gets its page, from the code alone
        # (tests/test_rules.py holds docs/rules.md to a section for every rule)
        generated[f"rules/{code}.md"] = _rule_page(rule, sections.get(code, rule.summary))
    return generated


# MkDocs hooks -----------------------------------------------------------------------------


def on_config(config: Any) -> Any:
    """Put every rule's page under the nav's ``rules/index.md`` entry."""
    rules = [{code: f"rules/{code}.md"} for code in citeaudit.RULES]

    def expand(items: list[Any]) -> list[Any]:
        out: list[Any] = []
        for item in items:
            if isinstance(item, dict):
                ((title, value),) = item.items()
                if value == RULES_INDEX:
                    out.append({title: [RULES_INDEX, *rules]})
                    continue
                if isinstance(value, list):
                    out.append({title: expand(value)})
                    continue
            out.append(item)
        return out

    config["nav"] = expand(config["nav"])
    return config


def on_files(files: Any, config: Any) -> Any:
    """Add the generated pages to the site."""
    from mkdocs.structure.files import File  # noqa: PLC0415  only while MkDocs builds

    for path, content in pages().items():
        files.append(File.generated(config, path, content=content))
    return files

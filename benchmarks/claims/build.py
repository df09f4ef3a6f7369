"""Rebuild the claims development set: ``units.jsonl`` and ``answers.jsonl``.

Each source is a public repository of real model answers, pinned to one commit. Give the path
of a clone (or of a bare git directory) per source; the files are read at the pinned commit
with ``git show``, or from the work tree when the path holds no git directory. Answers are
split into units by citeaudit's own segmenter (``citeaudit.core.prepare`` with every claim
policy rule switched off, so nothing is exempted), and the units that carry no citation
marker are kept, with two units of context either side. Answers are sampled whole, per
system, with a fixed seed: the same inputs give byte-identical outputs.

Usage (from the repository root, with the project's environment)::

    python benchmarks/claims/build.py \\
        --deep-research-bench PATH --onyx PATH --drb-firstprinciples PATH \\
        --drb-tickr PATH --ai-search-benchmark PATH --drb-webweaver PATH \\
        [--out benchmarks/claims]

With ``--append``, only the sources given are read, and their sampled answers that the files
do not hold yet are added at the end (how a source joined after the first build).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citeaudit.core import Config, prepare

SEED = 20260601
CONTEXT = 2  # units of context either side
# Whole answers are added while a system stays under its quota times this slack.
SLACK = 1.15
# The claim policy switched off: every sentence, list item and table row is a unit.
_EVERY_UNIT = Config(not_citable=frozenset(), claims="strict")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_NUMBER_MARK = re.compile(r"\[(\d{1,4})\]")


@dataclass(frozen=True, slots=True)
class Source:
    """A pinned public repository and what it holds."""

    option: str
    repo: str
    commit: str
    licence: str


@dataclass(frozen=True, slots=True)
class Answer:
    """One real answer, as its source stores it."""

    key: str
    source: str
    system: str
    question: str
    text: str
    path: str
    passages: tuple[dict[str, str], ...] | None
    commit: str = ""  # where it differs from its source's pinned commit


SOURCES = {
    source.option: source for source in (
        Source("deep-research-bench", "Ayanami0730/deep_research_bench",
               "214741e474a5347ea7f869ab79d27e7c8734ede7", "Apache-2.0"),
        Source("onyx", "onyx-dot-app/onyx_deep_research_bench",
               "41f404cc61e287ffff18df0f23ce8456503a94bc", "MIT"),
        Source("drb-firstprinciples", "Luke-Guan-FirstPrinciples/deep_research_bench",
               "a6f1a09e7eb002171366c64bab18b57a7bee65d7", "Apache-2.0"),
        Source("drb-tickr", "tickr/deep_research_bench_tickr",
               "5d1504eb4bdf2f2dd8bd8bb53953c4fba453f267", "Apache-2.0"),
        Source("ai-search-benchmark", "Chkhikvadze/ai-search-benchmark",
               "0fd517cd28e026a47fbaf344d74c5caee93e292a", "MIT"),
        Source("drb-webweaver", "koenshen/deep_research_bench",
               "3db9d6b15724ccb2c52c912879cc6bf184f4ad31", "Apache-2.0"),
    )
}

# Units wanted per system (no system above ~30% of the total).
QUOTA = {
    "Claude 3.7 Sonnet (web search)": 1050,
    "Onyx Deep Research (GPT-5.2)": 450,
    "OpenAI deep research": 500,
    "FirstPrinciples DLS research agent": 350,
    "GPT-5 (tickr agent)": 700,
    "Google Gemini (grounding)": 200,
    "xAI Grok 2 (search)": 200,
    "Desearch (Horizon, Orbit)": 200,
    "Perplexity (free tier)": 150,
    "ChatGPT search": 150,
    "Andi Search": 100,
    "WebWeaver (DeepSeek V4 Flash)": 700,
}

# Systems whose answers are taken in task order rather than in the seeded shuffle.
IN_TASK_ORDER = frozenset({"WebWeaver (DeepSeek V4 Flash)"})

# Runs that the source later replaced by files over the snapshot's size limit: read at the
# commit that last held them whole (path, system, commit).
AI_SEARCH_HISTORY = (
    ("results/perplexity_ai_100_result.jsonl", "Perplexity (free tier)",
     "8894d713a664ece67f4f5476007390e23fba50cf"),
    ("results/chatgpt_search_200_result.jsonl", "ChatGPT search",
     "2f02190723cab42b33be98bad88a7acb745969e3"),
    ("results/andi_search_200_result.jsonl", "Andi Search",
     "769fc42da3c8faafcbb1c4183c499f499a8d18d6"),
)


def read(root: Path, source: Source, path: str, commit: str = "") -> str:
    """The file at ``path`` in ``source``'s pinned commit, or in ``commit`` when given (or in
    a plain checkout)."""
    git_dir = root / ".git" if (root / ".git").exists() else root
    if (git_dir / "HEAD").is_file():
        shown = subprocess.run(
            ["git", f"--git-dir={git_dir}", "show", f"{commit or source.commit}:{path}"],
            capture_output=True, check=True)
        return shown.stdout.decode("utf-8")
    return (root / path).read_text(encoding="utf-8")


def _lines(text: str) -> Iterator[dict[str, Any]]:
    # A few source lines hold two records run together (a scraper's missing newline).
    decoder = json.JSONDecoder()
    for line in text.splitlines():
        at = 0
        while line[at:].strip():
            row, end = decoder.raw_decode(line, at)
            yield row
            at = end + len(line[end:]) - len(line[end:].lstrip())


def _english(text: str) -> bool:
    return _CJK.search(text) is None


def deep_research_bench(root: Path) -> Iterator[Answer]:
    """DeepResearch Bench's own run: Claude 3.7 Sonnet with web search (English tasks)."""
    source = SOURCES["deep-research-bench"]
    path = "data/test_data/raw_data/claude-3-7-sonnet-latest.jsonl"
    for row in _lines(read(root, source, path)):
        if _english(row["prompt"]):
            yield Answer(f"{source.option}/{row['id']}", source.option,
                         "Claude 3.7 Sonnet (web search)", row["prompt"], row["article"], path,
                         None)


def onyx(root: Path) -> Iterator[Answer]:
    """Onyx's submission to DeepResearch Bench: the ANSWER part of each report log."""
    source = SOURCES["onyx"]
    for task in range(1, 101):
        path = f"report_logs/{task}.md"
        log = read(root, source, path)
        question = log.split("QUESTION:", 1)[1].split("\n=====", 1)[0].strip()
        if _english(question):
            answer = log.split("\nANSWER:\n", 1)[1].strip("\n")
            yield Answer(f"{source.option}/{task}", source.option,
                         "Onyx Deep Research (GPT-5.2)", question, answer, path, None)


def _drb_run(root: Path, option: str, path: str, system: str) -> Iterator[Answer]:
    source = SOURCES[option]
    stem = Path(path).stem
    for row in _lines(read(root, source, path)):
        if _english(row["prompt"]) and row["article"].strip():
            yield Answer(f"{option}/{stem}/{row['id']}", option, system, row["prompt"],
                         row["article"], path, None)


def drb_firstprinciples(root: Path) -> Iterator[Answer]:
    """A fork's science-task runs: OpenAI deep research and the fork's own DLS agent."""
    yield from _drb_run(root, "drb-firstprinciples",
                        "data/test_data/raw_data/openai_science_03_17.jsonl",
                        "OpenAI deep research")
    yield from _drb_run(root, "drb-firstprinciples",
                        "data/test_data/raw_data/dls_science_03_17.jsonl",
                        "FirstPrinciples DLS research agent")


def drb_tickr(root: Path) -> Iterator[Answer]:
    """A fork's insurance risk-survey tasks, answered by GPT-5 with the fork's tools."""
    yield from _drb_run(root, "drb-tickr", "data/test_data/raw_data/gpt5-tickr-0915.jsonl",
                        "GPT-5 (tickr agent)")


def drb_webweaver(root: Path) -> Iterator[Answer]:
    """A fork's run of the WebWeaver research agent on DeepSeek V4 Flash."""
    yield from _drb_run(
        root, "drb-webweaver",
        "data/test_data/raw_data/webweaver-deepresearch-deepresearch-deepseek-v4-flash-0731-"
        "260818.jsonl", "WebWeaver (DeepSeek V4 Flash)")


def ai_search_benchmark(root: Path) -> Iterator[Answer]:
    """Answers of AI search products to one question set, with the links each returned."""
    source = SOURCES["ai-search-benchmark"]
    runs = (("results/gemini_results.jsonl", "Google Gemini (grounding)", ""),
            ("results/grok_search_result.jsonl", "xAI Grok 2 (search)", ""),
            ("results/datura_horizon_web_results.jsonl", "Desearch (Horizon, Orbit)", ""),
            ("results/datura_orbit_web_results.jsonl", "Desearch (Horizon, Orbit)", ""),
            *AI_SEARCH_HISTORY)
    for path, system, commit in runs:
        stem = Path(path).stem
        for row in _lines(read(root, source, path, commit)):
            text = row.get("result") or ""
            if not text.strip() or not _english(row["question"]):
                continue
            passages = tuple(
                {name: str(hit.get(name) or "") for name in ("title", "url", "description")}
                for hit in row.get("search_results") or ())
            yield Answer(f"{source.option}/{stem}/{row['id']}", source.option, system,
                         row["question"], text, path, passages, commit)


LOADERS: dict[str, Callable[[Path], Iterator[Answer]]] = {
    "deep-research-bench": deep_research_bench,
    "onyx": onyx,
    "drb-firstprinciples": drb_firstprinciples,
    "drb-tickr": drb_tickr,
    "ai-search-benchmark": ai_search_benchmark,
    "drb-webweaver": drb_webweaver,
}


def segmented(answer: Answer) -> list[dict[str, Any]]:
    """Every unit of the answer as the engine reads it, with its markers counted.

    The snapshot numbers sources 1..N (N the highest ``[n]`` in the text), so numeric markers
    resolve and the grammar is the one a numbered source list gets.
    """
    numbers = [int(n) for n in _NUMBER_MARK.findall(answer.text)]
    snapshot = {str(n): "" for n in range(1, max(numbers, default=1) + 1)}
    context = prepare(answer.text, snapshot, config=_EVERY_UNIT)
    return [{"number": claim.number, "text": claim.text, "span": list(claim.span),
             "markers": len(claim.markers), "malformed": len(claim.malformed)}
            for claim in context.answer.claims]


def _position(index: int, count: int) -> str:
    if count == 1:
        return "only"
    if index == 0:
        return "first"
    return "last" if index == count - 1 else "middle"


def uncited_units(answer: Answer, units: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The units without a marker, each with its context and where it stands."""
    texts = [unit["text"] for unit in units]
    cited = sum(1 for unit in units if unit["markers"])
    found = []
    for index, unit in enumerate(units):
        if unit["markers"]:
            continue
        found.append({
            "id": f"{answer.key}#{unit['number']}",
            "source": answer.source,
            "system": answer.system,
            "answer": answer.key,
            "question": answer.question,
            "text": unit["text"],
            "before": texts[max(0, index - CONTEXT):index],
            "after": texts[index + 1:index + 1 + CONTEXT],
            "position": _position(index, len(units)),
            "unit": unit["number"],
            "units_in_answer": len(units),
            "cited_units_in_answer": cited,
            "span": unit["span"],
            "malformed_markers": unit["malformed"],
            "has_passages": bool(answer.passages),
            "label": None,
            "kind": None,
        })
    return found


def sample(answers: Sequence[Answer], quota: int, system: str
           ) -> list[tuple[Answer, list[dict[str, Any]]]]:
    """Whole answers in a seeded order (or in task order, ``IN_TASK_ORDER``), while the
    system's units stay near its quota."""
    if system in IN_TASK_ORDER:
        order = sorted(answers, key=lambda answer: int(answer.key.rsplit("/", 1)[1]))
    else:
        order = sorted(answers, key=lambda answer: answer.key)
        random.Random(f"{SEED}:{system}").shuffle(order)
    chosen: list[tuple[Answer, list[dict[str, Any]]]] = []
    total = 0
    for answer in order:
        if total >= quota:
            break
        units = uncited_units(answer, segmented(answer))
        if not units or (chosen and total + len(units) > quota * SLACK):
            continue
        chosen.append((answer, units))
        total += len(units)
    return chosen


def _answer_record(answer: Answer) -> dict[str, Any]:
    source = SOURCES[answer.source]
    return {"answer": answer.key, "source": answer.source, "system": answer.system,
            "repo": source.repo, "commit": answer.commit or source.commit, "path": answer.path,
            "licence": source.licence, "question": answer.question, "text": answer.text,
            "passages": list(answer.passages) if answer.passages else None}


def _write(path: Path, rows: Sequence[dict[str, Any]], append: bool = False) -> None:
    with path.open("a" if append else "w", encoding="utf-8", newline="\n") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def build(roots: dict[str, Path], out: Path, append: bool = False) -> Counter[str]:
    """Write ``units.jsonl`` and ``answers.jsonl`` under ``out`` from the sources in
    ``roots`` (or, with ``append``, add the answers of those sources that the files do not
    hold yet); the units per system."""
    by_system: dict[str, list[Answer]] = {}
    for option, loader in LOADERS.items():
        if option in roots:
            for answer in loader(roots[option]):
                by_system.setdefault(answer.system, []).append(answer)
    held: set[str] = set()
    if append and (out / "answers.jsonl").exists():
        held = {json.loads(line)["answer"] for line in
                (out / "answers.jsonl").read_text(encoding="utf-8").splitlines()}
    units: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for system, quota in QUOTA.items():
        for answer, found in sample(by_system.get(system, []), quota, system):
            if answer.key in held:
                continue
            answers.append(_answer_record(answer))
            units.extend(found)
            counts[system] += len(found)
            counts[f"{system} (answers)"] += 1
    out.mkdir(parents=True, exist_ok=True)
    _write(out / "units.jsonl", units, append)
    _write(out / "answers.jsonl", answers, append)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the source paths, build, and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    for option, source in SOURCES.items():
        parser.add_argument(f"--{option}", type=Path, metavar="PATH",
                            help=f"a clone of {source.repo} (commit {source.commit[:12]})")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                        help="where units.jsonl and answers.jsonl go (default: beside this)")
    parser.add_argument("--append", action="store_true",
                        help="add the given sources' answers that the files do not hold yet "
                             "(without it every source is required)")
    args = parser.parse_args(argv)
    roots = {option: path for option in SOURCES
             if (path := getattr(args, option.replace("-", "_"))) is not None}
    if not args.append and len(roots) < len(SOURCES):
        missing = ", ".join(f"--{option}" for option in SOURCES if option not in roots)
        parser.error(f"every source is needed to build the files whole: {missing}")
    counts = build(roots, args.out, args.append)
    total = sum(count for name, count in counts.items() if not name.endswith("(answers)"))
    for system in QUOTA:
        if counts[f"{system} (answers)"] or not args.append:
            print(f"{system}: {counts[system]} units from "
                  f"{counts[f'{system} (answers)']} answers")
    print(f"total: {total} units{' added' if args.append else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

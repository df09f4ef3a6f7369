"""The provider formats, compiled from their own Python (``citeaudit.formats._anthropic`` and
the others, with ``_fields`` and ``_ranges``), read every response as that Python does: each
case is audited here, by the compiled build, and in one process under ``CITEAUDIT_PURE=1``,
by the same modules run as Python; the reports (or the input errors) must be equal.

Compared over every provider's clean responses broken at random and with each field replaced
by a value of another type (the cases of ``test_provider_mutations``), the valid and
offset-moved responses of ``test_provider_properties``' builders over seeded random documents
(non-ASCII text, byte offsets), the shipped examples and the benchmark's responses. Where the
formats are not compiled (a pure install, or the suite run under ``CITEAUDIT_PURE=1``) these
tests skip, unless ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes a missing build a failure.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pickle
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit import _speedups
from citeaudit.formats import _anthropic, _mistral
from citeaudit.formats._ranges import answer_of
from test_provider_mutations import FORMATS, PATHS, _mutate, clean_cases, mutated
from test_provider_mutations import case as clean_case
from test_provider_properties import BUILDERS, WORDS, _moved

ROOT = Path(__file__).parent.parent
COMPILED = ("_fields", "_ranges", "_anthropic", "_openai", "_cohere", "_gemini", "_bedrock",
            "_mistral", "_marked")

if _speedups.PURE:
    pytest.skip("the suite runs the Python (CITEAUDIT_PURE=1): nothing compiled to compare",
                allow_module_level=True)
_UNBUILT = [name for name in COMPILED  # run from their .py: the build left them out
            if str(importlib.import_module(f"citeaudit.formats.{name}").__file__)
            .endswith(".py")]
if _UNBUILT:
    if os.environ.get("CITEAUDIT_REQUIRE_CORE") == "1":
        raise ImportError(f"the provider formats are not compiled: {', '.join(_UNBUILT)}")
    pytest.skip("the provider formats are not compiled", allow_module_level=True)

Case = tuple[Any, Any]  # a response, its request (or sources)

# A value's objects, lists and strings as subclasses of dict, list and str (what a caller's
# own types may be), made alike in both processes.
_SUBCLASSED = """
class Object(dict): pass
class Items(list): pass
class Text(str): pass
def subclassed(value):
    if isinstance(value, dict):
        return Object({key: subclassed(item) for key, item in value.items()})
    if isinstance(value, list):
        return Items(subclassed(item) for item in value)
    return Text(value) if isinstance(value, str) else value
"""
namespace: dict[str, Any] = {}
exec(_SUBCLASSED, namespace)  # this module's own code, shared with the process
_subclassed = namespace["subclassed"]

# Run under CITEAUDIT_PURE=1: the cases (pickled, on stdin; made of subclasses there, if the
# first argument says so) audited by the Python, their outcomes pickled on stdout.
_PURE_RUN = _SUBCLASSED + """
import pickle, sys
import citeaudit
from citeaudit.formats import _anthropic
assert _anthropic.__file__.endswith(".py"), _anthropic.__file__
def outcome(answer, request):
    try:
        return citeaudit.audit(answer, request).to_dict()
    except citeaudit.CiteauditError as error:
        return f"{type(error).__name__}: {error}"
cases = pickle.load(sys.stdin.buffer)
if sys.argv[1] == "subclassed":
    cases = [(subclassed(answer), subclassed(request)) for answer, request in cases]
pickle.dump([outcome(answer, request) for answer, request in cases], sys.stdout.buffer)
"""


def _outcome(answer: Any, request: Any) -> object:
    """The audit's report as JSON, or the input error it raised."""
    try:
        return citeaudit.audit(answer, request).to_dict()
    except citeaudit.CiteauditError as error:
        return f"{type(error).__name__}: {error}"


@contextlib.contextmanager
def _ordered_checked() -> Iterator[None]:
    """``answer_of`` asserting that a format calling its ranges ordered made them in order."""
    def checked(*args: Any, ordered: bool = False, **options: Any) -> Any:
        cited = args[2]
        if ordered:
            assert cited == sorted(cited, key=lambda c: (c[0], c[1]))
        return answer_of(*args, ordered=ordered, **options)

    modules = (_anthropic, _mistral)
    for module in modules:
        module.answer_of = checked  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for module in modules:
            module.answer_of = answer_of  # type: ignore[attr-defined]


def _same(cases: list[Case], *, subclassed: bool = False) -> None:
    """Each case audits alike compiled (here) and as Python (in a process of its own);
    ``subclassed``: its objects, lists and strings made subclasses of theirs in both.
    """
    assert cases
    given = pickle.dumps(cases)  # before auditing: an audit does not change its input
    with _ordered_checked():
        compiled = [_outcome(_subclassed(answer), _subclassed(request)) if subclassed else
                    _outcome(answer, request) for answer, request in cases]
    package = str(Path(citeaudit.__file__).parent.parent)  # this package, wherever it is
    env = {**os.environ, "CITEAUDIT_PURE": "1",
           "PYTHONPATH": os.pathsep.join([package, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", _PURE_RUN, "subclassed" if subclassed else "-"],
                         input=given, capture_output=True, env=env, check=False)
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    pure = pickle.loads(run.stdout)  # this test's own output
    assert len(pure) == len(cases)
    for (answer, request), ours, theirs in zip(cases, compiled, pure, strict=True):
        assert ours == theirs, (answer, request)



def test_the_clean_responses_read_alike() -> None:
    _same(clean_cases())


def test_responses_of_subclasses_read_alike() -> None:
    _same(clean_cases(), subclassed=True)
    rnd = random.Random(7)
    _same([(json.loads(json.dumps(answer)), request) for answer, request in
           (BUILDERS[name](*_random_case(rnd))[:2] for name in BUILDERS for _ in range(5))],
          subclassed=True)


def test_broken_responses_read_alike() -> None:
    rnd = random.Random(20261204)
    seeds = clean_cases()
    cases = []
    for _ in range(3000):
        seed, request = rnd.choice(seeds)
        answer = json.loads(json.dumps(seed))
        for _ in range(rnd.randint(1, 4)):
            _mutate(answer, rnd)
        if isinstance(request, dict) and rnd.random() < 0.3:  # a request as JSON
            request = json.loads(json.dumps(request))
            _mutate(request, rnd)
        cases.append((answer, request))
    _same(cases)


def test_every_field_of_another_type_reads_alike() -> None:
    _same([(mutated(name, path, value), clean_case(name)[1]) for name in FORMATS
           for path in PATHS[name] for value in (None, True, 7, "x", [1], {"type": "text"})])


# Characters of one, two, three and four UTF-8 bytes, and punctuation.
_LETTERS = "abcxyzAZ09éçñüßøΩжあ東京𝔘😀.,;-"


def _random_case(rnd: random.Random) -> tuple[list[str], list[str], list[tuple[int, int, int]]]:
    """Documents, answer sentences, and for each sentence a document and a range in it
    (``test_provider_properties.cases``, drawn from ``rnd``).
    """
    documents = list(dict.fromkeys("".join(rnd.choices(_LETTERS, k=rnd.randint(8, 60)))
                                   for _ in range(rnd.randint(1, 4))))
    sentences = [" ".join(rnd.choices(WORDS, k=rnd.randint(2, 6))).capitalize() + "."
                 for _ in range(rnd.randint(1, 4))]
    ranges = []
    for _ in sentences:
        index = rnd.randrange(len(documents))
        start = rnd.randrange(len(documents[index]))
        ranges.append((index, start, rnd.randint(start + 1, len(documents[index]))))
    return documents, sentences, ranges


@pytest.mark.parametrize("name", list(BUILDERS))
def test_valid_and_moved_offsets_read_alike(name: str) -> None:
    rnd = random.Random(name)
    cases: list[Case] = []
    for _ in range(40):
        response, request, offsets = BUILDERS[name](*_random_case(rnd))
        cases.append((response, request))
        cases += [(_moved(response, path, by), request) for path in offsets for by in (-1, 1)]
    _same(cases)


def test_examples_read_alike() -> None:
    cases = []
    for given in sorted(p for p in (ROOT / "examples" / "providers").iterdir() if p.is_dir()):
        answer, *request = [json.loads((given / name).read_text(encoding="utf-8"))
                            for name in ("response.json", "message.json", "request.json",
                                         "sources.json", "steps.json")
                            if (given / name).exists()]
        cases.append((answer, request[0] if request else None))
    _same(cases)


def test_benchmark_responses_read_alike() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_providers  # noqa: PLC0415 -- the benchmark's own responses
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    _same([build(*case) for case in bench_providers.cases(20)
           for build in bench_providers.PROVIDERS.values()])

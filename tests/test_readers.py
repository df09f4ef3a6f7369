"""The compiled readers of the provider formats (``citeaudit.formats._readers``) and the format
modules' own loops give identical results: each reader reads a response on the path a
well-formed one takes and gives up (None) where the reference must decide, so an audit with
the readers equals the audit without them, whatever the response.

Compared over every provider's clean responses broken at random and with each field
replaced by a value of another type (the cases of ``test_provider_mutations``), the valid and
offset-moved responses of ``test_provider_properties`` (non-ASCII text, byte offsets), the
shipped examples and the benchmark's responses. Where the readers are not built these tests
skip, unless ``CITEAUDIT_REQUIRE_CORE=1`` (as in CI) makes that a failure.
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import citeaudit
from citeaudit.formats import (
    _anthropic,
    _bedrock,
    _cohere,
    _gemini,
    _marked,
    _mistral,
    _openai,
    _ranges,
)
from citeaudit.formats._ranges import answer_of
from test_core import compiled_or_skip
from test_provider_mutations import FORMATS, PATHS, _mutate, clean_cases, mutated
from test_provider_mutations import case as clean_case
from test_provider_properties import BUILDERS, _moved, cases

READERS = compiled_or_skip("citeaudit.formats._readers")
ROOT = Path(__file__).parent.parent
MODULES = (_anthropic, _bedrock, _cohere, _gemini, _marked, _mistral, _openai, _ranges)
_BUILT = [name for name in dir(READERS) if not name.startswith("_") and
          callable(getattr(READERS, name))]


class _Counting:
    """The readers, counting which of them read a response (gave a result, not None)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.read: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        reader = getattr(self.module, name)

        def counted(*args: Any) -> Any:
            found = reader(*args)
            if found is not None:
                self.read[name] += 1
            return found
        return counted


@contextlib.contextmanager
def _readers(chosen: object) -> Iterator[None]:
    saved = [module._read for module in MODULES]
    for module in MODULES:
        module._read = chosen  # type: ignore[assignment]
    try:
        yield
    finally:
        for module, read in zip(MODULES, saved, strict=True):
            module._read = read


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


def _outcome(answer: Any, request: Any) -> object:
    """The audit's report as JSON, or the input error it raised."""
    try:
        return citeaudit.audit(answer, request).to_dict()
    except citeaudit.CiteauditError as error:
        return f"{type(error).__name__}: {error}"


def _same(answer: Any, request: Any, counting: _Counting | None = None) -> None:
    with _readers(counting or READERS), _ordered_checked():
        compiled = _outcome(answer, request)
    with _readers(None), _ordered_checked():
        reference = _outcome(answer, request)
    assert compiled == reference


def test_every_reader_reads_the_clean_responses() -> None:
    counting = _Counting(READERS)
    for answer, request in clean_cases():
        _same(answer, request, counting)
    # All but two: the Anthropic request there sends a document of content blocks and search
    # results, the Cohere one documents with ids, which the reference reads.
    assert set(counting.read) == set(_BUILT) - {"anthropic_documents", "cohere_documents"}


def test_broken_responses_read_alike() -> None:
    rnd = random.Random(20261204)
    seeds = clean_cases()
    for _ in range(3000):
        seed, request = rnd.choice(seeds)
        answer = json.loads(json.dumps(seed))
        for _ in range(rnd.randint(1, 4)):
            _mutate(answer, rnd)
        if isinstance(request, dict) and rnd.random() < 0.3:  # a request as JSON
            request = json.loads(json.dumps(request))
            _mutate(request, rnd)
        _same(answer, request)


@pytest.mark.parametrize("name", FORMATS)
def test_every_field_of_another_type_reads_alike(name: str) -> None:
    request = clean_case(name)[1]
    for path in PATHS[name]:
        for value in (None, True, 7, "x", [1], {"type": "text"}):
            _same(mutated(name, path, value), request)


@pytest.mark.parametrize("name", list(BUILDERS))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases())
def test_valid_and_moved_offsets_read_alike(
        name: str, case: tuple[list[str], list[str], list[tuple[int, int, int]]]) -> None:
    response, request, offsets = BUILDERS[name](*case)
    _same(response, request)
    for path in offsets:
        for by in (-1, 1):
            _same(_moved(response, path, by), request)


@pytest.mark.parametrize("folder", sorted(p.name for p in (ROOT / "examples" / "providers")
                                          .iterdir() if p.is_dir()))
def test_examples_read_alike(folder: str) -> None:
    given = ROOT / "examples" / "providers" / folder
    answer, *request = [json.loads((given / name).read_text(encoding="utf-8")) for name in (
        "response.json", "message.json", "request.json", "sources.json", "steps.json")
        if (given / name).exists()]
    _same(answer, request[0] if request else None)


def test_benchmark_responses_read_alike() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench_providers  # noqa: PLC0415 -- the benchmark's own responses
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    counting = _Counting(READERS)
    for case in bench_providers.cases(20):
        for build in bench_providers.PROVIDERS.values():
            _same(*build(*case), counting)
    assert set(counting.read) == set(_BUILT)
    assert all(count >= 20 for count in counting.read.values()), counting.read  # each response


class _Meddling:
    """A key that looks like "source" to a dict lookup and empties the request's blocks when
    compared: the document reader must not read what it loaded ahead once they are gone.
    """

    def __init__(self, blocks: list[Any]) -> None:
        self.blocks = blocks

    def __hash__(self) -> int:
        return hash("source")

    def __eq__(self, other: object) -> bool:
        self.blocks.clear()
        return False


def test_a_lookup_that_runs_code_leaves_the_reader_safe() -> None:
    blocks: list[Any] = []
    for at in range(5):
        block: dict[Any, Any] = {_Meddling(blocks): 1} if at == 2 else {}
        block.update({"type": "document", "source": {"type": "text", "data": f"Doc {at}."}})
        blocks.append(block)
    found = READERS.anthropic_documents([{"role": "user", "content": blocks}],
                                        citeaudit.Source, {}, dict)
    assert found == []  # the blocks were emptied while being read: none is left to read
    assert blocks == []

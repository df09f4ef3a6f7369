"""Provider responses (every provider format's shape) with fields broken at random never
crash the audit: each gives findings, or an input error (exit 2 on the command line), never
another exception.
"""

from __future__ import annotations

import json
import random
from typing import Any

import citeaudit
import test_anthropic as anthropic_cases
import test_bedrock as bedrock_cases
import test_cohere as cohere_cases
import test_gemini as gemini_cases
import test_marked_providers as marked_cases
import test_mistral as mistral_cases
import test_openai as openai_cases
import test_openai_assistants as assistants_cases

JUNK: list[Any] = [None, 0, -1, 10**9, "", "x", [], {}, [1], {"a": 1}, True, 3.5, "é—"]


def _mutate(value: Any, rnd: random.Random) -> None:
    if isinstance(value, dict) and value:
        key = rnd.choice(list(value))
        roll = rnd.random()
        if roll < 0.3:
            value[key] = rnd.choice(JUNK)
        elif roll < 0.4:
            del value[key]
        else:
            _mutate(value[key], rnd)
    elif isinstance(value, list) and value:
        index = rnd.randrange(len(value))
        if rnd.random() < 0.3:
            value[index] = rnd.choice(JUNK)
        else:
            _mutate(value[index], rnd)


def clean_cases() -> list[tuple[Any, Any]]:
    """A clean response (as JSON) and its request, of every provider format."""
    return [
        (anthropic_cases.CLEAN.model_dump(mode="json"), anthropic_cases.REQUEST),
        (openai_cases.response(openai_cases.FILE, openai_cases.URL).model_dump(mode="json"),
         openai_cases.SOURCES),
        (openai_cases.chat(openai_cases.url_annotation("https://shop.example/shipping"))
         .model_dump(mode="json"), openai_cases.SOURCES),
        (gemini_cases.response(gemini_cases.support(gemini_cases.START, gemini_cases.END, 0))
         .model_dump(mode="json", by_alias=True), None),
        (cohere_cases.CLEAN.model_dump(mode="json"), cohere_cases.REQUEST),
        (bedrock_cases.CLEAN, None),
        (mistral_cases.CLEAN.model_dump(mode="json"), mistral_cases.REQUEST),
        (assistants_cases.CLEAN.model_dump(mode="json"), [assistants_cases.STEP]),
        (marked_cases.perplexity("Refunds take 14 days [1]. Express takes 1 day [2].",
                                 search_results=marked_cases.RESULTS), None),
        (marked_cases.azure("Refunds take 14 days [doc1]."), None),
    ]


def test_broken_provider_responses_give_findings_or_input_errors() -> None:
    cases = clean_cases()
    rnd = random.Random(20261201)
    audited = 0
    for _ in range(3000):
        seed, request = rnd.choice(cases)
        answer = json.loads(json.dumps(seed))
        for _ in range(rnd.randint(1, 4)):
            _mutate(answer, rnd)
        try:
            citeaudit.audit(answer, request)
            audited += 1
        except citeaudit.CiteauditError:
            pass
    assert audited > 2000

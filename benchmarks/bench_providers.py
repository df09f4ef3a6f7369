"""What reading a provider's response costs, beside decoding it and auditing the same answer
written as text with ``[n]`` markers, measured in one run.

    python3 benchmarks/bench_providers.py [--answers N] [--rounds R]

For each provider format, N responses of ~6 cited sentences over 5 documents are audited from
their JSON bytes (``json.loads`` + the audit of the response and its request), and beside
them the baseline: ``json.loads`` of the same bytes + the audit of the same answer written
with markers, ``(text, passages)``. Both audits are made whole (findings and all, as
``audit()`` makes them when they are read): a text answer's verdict alone may be settled
without them, which a provider's is not. Target: ratio <= 1.0 for every format.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import citeaudit
from citeaudit.core._engine import run

SUBJECTS = ["Reimbursements", "Expense reports", "Per diem claims", "Travel bookings",
            "Refund requests", "Manager approvals", "Corporate cards", "Mileage claims"]
VERBS = ["settle within", "must be filed within", "are reviewed within", "are paid after",
         "need approval within", "are processed in"]
TAILS = ["of approval", "of purchase", "of the trip", "business days", "of submission"]

Case = tuple[list[str], list[str], list[int]]  # documents, sentences, the document each cites


def cases(count: int, seed: int = 7) -> list[Case]:
    rng = random.Random(seed)
    made = []
    for _ in range(count):
        documents = [" ".join(f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.randint(2, 90)}"
                              f" {rng.choice(TAILS)}." for _ in range(4)) for _ in range(5)]
        sentences = [f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.randint(2, 90)}"
                     f" {rng.choice(TAILS)}." for _ in range(6)]
        made.append((documents, sentences, [rng.randrange(5) for _ in sentences]))
    return made


def _spans(sentences: list[str]) -> tuple[str, list[tuple[int, int]]]:
    text = " ".join(sentences)
    spans, at = [], 0
    for sentence in sentences:
        spans.append((at, at + len(sentence)))
        at += len(sentence) + 1
    return text, spans


def anthropic(documents: list[str], sentences: list[str], cited: list[int]) -> tuple[Any, Any]:
    request = {"messages": [{"role": "user", "content": [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": d},
         "citations": {"enabled": True}} for d in documents]}]}
    content: list[dict[str, Any]] = []
    for sentence, index in zip(sentences, cited, strict=True):
        if content:
            content.append({"type": "text", "text": " "})
        quote = documents[index].split(". ")[0] + "."
        content.append({"type": "text", "text": sentence, "citations": [{
            "type": "char_location", "document_index": index, "start_char_index": 0,
            "end_char_index": len(quote), "cited_text": quote}]})
    return {"id": "m", "type": "message", "role": "assistant", "content": content}, request


def openai_responses(documents: list[str], sentences: list[str],
                     cited: list[int]) -> tuple[Any, Any]:
    text, spans = _spans(sentences)
    notes = [{"type": "url_citation", "start_index": s, "end_index": e, "title": "t",
              "url": f"https://kb.example/{i}"} for (s, e), i in zip(spans, cited, strict=True)]
    sources = [{"id": str(i), "text": d, "url": f"https://kb.example/{i}"}
               for i, d in enumerate(documents)]
    return {"object": "response", "output": [{"type": "message", "content": [
        {"type": "output_text", "text": text, "annotations": notes}]}]}, sources


def cohere(documents: list[str], sentences: list[str], cited: list[int]) -> tuple[Any, Any]:
    text, spans = _spans(sentences)
    citations = [{"start": s, "end": e, "text": text[s:e], "type": "TEXT_CONTENT",
                  "sources": [{"type": "document", "id": f"doc:{i}"}]}
                 for (s, e), i in zip(spans, cited, strict=True)]
    return {"finish_reason": "COMPLETE", "message": {
        "role": "assistant", "content": [{"type": "text", "text": text}],
        "citations": citations}}, {"documents": documents}


def gemini(documents: list[str], sentences: list[str], cited: list[int]) -> tuple[Any, Any]:
    text, spans = _spans(sentences)
    supports = [{"segment": {"startIndex": len(text[:s].encode()),
                             "endIndex": len(text[:e].encode()), "text": text[s:e]},
                 "groundingChunkIndices": [i]} for (s, e), i in zip(spans, cited, strict=True)]
    return {"candidates": [{"content": {"parts": [{"text": text}]}, "groundingMetadata": {
        "groundingChunks": [{"retrievedContext": {"text": d}} for d in documents],
        "groundingSupports": supports}}]}, None


def bedrock(documents: list[str], sentences: list[str], cited: list[int]) -> tuple[Any, Any]:
    text, spans = _spans(sentences)
    citations = [{"generatedResponsePart": {"textResponsePart": {
        "span": {"start": s, "end": e - 1}, "text": text[s:e]}}, "retrievedReferences": [
        {"content": {"text": documents[i]}, "metadata": {"x-amz-bedrock-kb-chunk-id": f"c{i}"}}]}
        for (s, e), i in zip(spans, cited, strict=True)]
    return {"output": {"text": text}, "citations": citations}, None


def mistral(documents: list[str], sentences: list[str], cited: list[int]) -> tuple[Any, Any]:
    chunks: list[dict[str, Any]] = []
    for at, (sentence, index) in enumerate(zip(sentences, cited, strict=True)):
        chunks += [{"type": "text", "text": ("" if at == 0 else " ") + sentence},
                   {"type": "reference", "reference_ids": [index]}]
    results = {str(i): {"title": "t", "snippets": [d]} for i, d in enumerate(documents)}
    request = {"messages": [{"role": "tool", "content": json.dumps(results)}]}
    return {"object": "chat.completion", "choices": [{"message": {
        "role": "assistant", "content": chunks}}]}, request


def perplexity(documents: list[str], sentences: list[str], cited: list[int]) -> tuple[Any, Any]:
    text = " ".join(f"{s[:-1]} [{i + 1}]." for s, i in zip(sentences, cited, strict=True))
    return {"object": "chat.completion", "choices": [{"message": {"content": text}}],
            "search_results": [{"title": "t", "url": f"https://kb.example/{i}", "snippet": d}
                               for i, d in enumerate(documents)]}, None


PROVIDERS: dict[str, Callable[[list[str], list[str], list[int]], tuple[Any, Any]]] = {
    "anthropic": anthropic, "openai-responses": openai_responses, "cohere": cohere,
    "gemini": gemini, "bedrock": bedrock, "mistral": mistral, "perplexity": perplexity}


def _time(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    made = cases(args.answers)
    texts = [(" ".join(f"{s[:-1]} [{i + 1}]." for s, i in zip(sentences, cited, strict=True)),
              documents) for documents, sentences, cited in made]
    print(f"answers: {len(made)} per format, 6 cited sentences over 5 documents,"
          f" {args.rounds} rounds (medians)")
    worst = 0.0
    for name, build in PROVIDERS.items():
        built = [build(*case) for case in made]
        raws = [(json.dumps(response).encode(), request) for response, request in built]
        for response, request in built[:3]:
            report = citeaudit.audit(response, request)
            if report.shape != name or not report.passed:
                raise SystemExit(f"{name}: the benchmark's responses must audit clean:"
                                 f" {report.findings}")

        def provider(raws: list[tuple[bytes, Any]] = raws) -> None:
            for raw, request in raws:
                run(json.loads(raw), request)

        def baseline(raws: list[tuple[bytes, Any]] = raws) -> None:
            for (raw, _), (text, passages) in zip(raws, texts, strict=True):
                json.loads(raw)
                run(text, passages)

        provider()
        baseline()  # warm caches before timing
        timed: dict[str, list[float]] = {"provider": [], "baseline": []}
        for _ in range(args.rounds):  # interleaved, so machine noise falls on both alike
            timed["provider"].append(_time(provider))
            timed["baseline"].append(_time(baseline))
        ours, base = (statistics.median(timed[k]) for k in ("provider", "baseline"))
        ratio = ours / base
        worst = max(worst, ratio)
        print(f"  {name:<17} {ours / len(made) * 1e6:7.1f} us/response   baseline (json.loads"
              f" + text audit) {base / len(made) * 1e6:7.1f} us   ratio {ratio:.2f}")
    print(f"target ratio <= 1.0 for every format: {'met' if worst <= 1.0 else 'NOT met'}"
          f" (worst {worst:.2f})")


if __name__ == "__main__":
    main()

"""Support judges: claim-passage pairs per second on one core with ~1 kB passages (the
lexical judge; the embedding judge when its extra is installed; the NLI and LLM judges when
their environment names a checkpoint or a server), and ``eval --support lexical`` beside
plain ``eval``, measured in one run.

    python3 benchmarks/bench_support.py [--answers N] [--records M] [--model-pairs K]

Target: >= 10,000 claim-passage pairs per second.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_eval import WORDS, write
from corpus import answer

from citeaudit import prepare
from citeaudit.core._config import Config
from citeaudit.core._segment import Span, mask
from citeaudit.errors import ConfigError
from citeaudit.eval import Dataset, Options, evaluate
from citeaudit.support import get_judge
from citeaudit.support._lexical import LexicalJudge, _analyse


def passage(rng: random.Random) -> str:
    """About 1,000 characters of sentences, some with amounts."""
    sentences: list[str] = []
    while sum(len(s) + 1 for s in sentences) < 1000:
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
        tail = rng.choice(["", f" within {rng.randint(1, 90)} days", f" for {rng.randint(2, 60)}%",
                           f" up to ${rng.randint(10, 900)}"])
        sentences.append(words.capitalize() + tail + ".")
    return " ".join(sentences)


def pairs(count: int, seed: int = 5) -> list[tuple[str, list[tuple[str, str]]]]:
    """(claim, cited passages) pairs from generated answers over ~1 kB passages."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        sources = rng.randint(5, 10)
        passages = [passage(rng) for _ in range(sources)]
        context = prepare(answer(rng, sources), passages)
        cited: dict[int, dict[str, None]] = {}
        for citation, source_id in zip(context.answer.citations, context.resolved, strict=True):
            if source_id is not None and citation.claim is not None:
                cited.setdefault(citation.claim, {})[source_id] = None
        for claim in context.answer.claims:
            if claim.number in cited:
                text = mask(claim.text, [Span(m.start - claim.span[0], m.end - claim.span[0])
                                         for m in claim.markers], "")
                out.append((text, [(i, passages[int(i) - 1]) for i in cited[claim.number]]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--model-pairs", type=int, default=500,
                        help="pairs for each model judge (they are slow)")
    args = parser.parse_args()
    work = pairs(args.answers)
    count = sum(len(p) for _, p in work)
    print(f"{len(work)} claims from {args.answers} answers: {count} claim-passage pairs,"
          f" passages of ~1 kB, each analysed once per answer")
    rates = []
    for _ in range(5):
        judge = LexicalJudge()
        _analyse.cache_clear()  # a cold start every round: no passage analysed yet
        start = time.perf_counter()
        judge.judge(work)
        rates.append(count / (time.perf_counter() - start))
    rate = statistics.median(rates)
    print(f"lexical judge: {rate:,.0f} pairs/s (target >= 10,000:"
          f" {'met' if rate >= 10_000 else 'NOT met'})")
    for name, needed in (("embedding", None), ("nli", "CITEAUDIT_NLI_MODEL"),
                         ("llm", "CITEAUDIT_LLM_BASE_URL")):
        if needed is not None and not os.environ.get(needed):
            print(f"{name} judge: skipped ({needed} is not set)")
            continue
        try:
            model_judge = get_judge(name)
        except ConfigError as error:
            print(f"{name} judge: skipped ({error})")
            continue
        subset = work[:args.model_pairs]
        start = time.perf_counter()
        model_judge.judge(subset)
        seconds = time.perf_counter() - start
        print(f"{name} judge: {sum(len(p) for _, p in subset) / seconds:,.0f} pairs/s"
              f" ({len(subset)} claims)")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "dataset.jsonl"
        write(path, args.records)
        dataset = Dataset(str(path), format="jsonl", max_bytes=1_000_000)
        times: dict[str, list[float]] = {"eval": [], "eval --support lexical": []}
        for _ in range(3):
            for name, config in (("eval", Config()),
                                 ("eval --support lexical", Config(support="lexical"))):
                start = time.perf_counter()
                evaluate(dataset, Options(config), jobs=1, out=Path("/dev/null"))
                times[name].append(time.perf_counter() - start)
        plain, judged = (args.records / statistics.median(t) for t in times.values())
        print(f"eval, one process: {plain:,.0f} records/s; with --support lexical:"
              f" {judged:,.0f} records/s ({plain / judged:.2f}x the time)")


if __name__ == "__main__":
    main()

"""Support judges on WiCE: real Wikipedia claims and the web pages they cite.

    python3 benchmarks/calibrate_wice.py CLAIMS.jsonl [--judge lexical] [--judge embedding]

CLAIMS.jsonl is WiCE's claim-level entailment data (dev and test splits; one record per claim
with ``claim``, ``evidence`` (the page's sentences), ``label`` in supported /
partially_supported / not_supported and ``split``), from the WiCE repository (ryokamoi/wice,
Kamoi et al., EMNLP 2023; annotations ODC-BY 1.0). It is not shipped with citeaudit.

The judge reads the whole page, as in production: it must find the supporting window itself.
Binary figures count ``supported`` as 1 and the other two labels as 0. The best threshold is
chosen on dev and reported on test; the per-class table shows whether partial support scores
below full support. Each threshold of the grid judges every page again: seconds for the
lexical judge, hours for a model judge on a CPU.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import orjson

from citeaudit.core._judging import get_judge
from citeaudit.support._calibrate import _auc, _balanced

CLASSES = ("supported", "partially_supported", "not_supported")


def read(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def _best_threshold(scores: list[float], labels: list[bool]) -> tuple[float, float]:
    best, value = 0.0, -1.0
    for threshold in sorted(set(scores)):
        accuracy = _balanced([s >= threshold for s in scores], labels)
        if accuracy > value:
            best, value = threshold, accuracy
    return best, value


def measure(records: list[dict[str, object]], judge_name: str) -> None:
    judge = get_judge(judge_name, None)
    pairs = [(str(r["claim"]), [("page", "\n".join(map(str, r["evidence"])))])  # type: ignore[call-overload]
             for r in records]  # the whole page: the judge finds the window
    judged = judge.judge(pairs)
    scores = [j.score for j in judged]
    verdicts = [j.supported for j in judged]
    labels = [r["label"] == "supported" for r in records]
    split = [r["split"] for r in records]

    def part(name: str) -> list[int]:
        return [i for i, s in enumerate(split) if s == name]

    dev, test = part("dev"), part("test")
    threshold, dev_best = _best_threshold([scores[i] for i in dev], [labels[i] for i in dev])
    tuned = get_judge(judge_name, threshold).judge([pairs[i] for i in test])
    test_labels = [labels[i] for i in test]
    print(f"judge {judge_name} (threshold {judge.threshold}), {len(dev)} dev / {len(test)} test")
    print(f"  test: balanced accuracy {_balanced([verdicts[i] for i in test], test_labels):.3f}"
          f" at its threshold, ROC AUC {_auc([scores[i] for i in test], test_labels):.3f}")
    print(f"  best threshold on dev {threshold:.3f} (dev balanced accuracy {dev_best:.3f});"
          f" on test {_balanced([j.supported for j in tuned], test_labels):.3f}")
    print("  verdicts' balanced accuracy by threshold (dev / test):")
    for grid in (0.3, 0.35, 0.4, 0.44, 0.45, 0.5, 0.55, 0.6):
        at = [j.supported for j in get_judge(judge_name, grid).judge(pairs)]
        on_dev = _balanced([at[i] for i in dev], [labels[i] for i in dev])
        print(f"    {grid:.2f}: {on_dev:.3f} / {_balanced([at[i] for i in test], test_labels):.3f}")
    print("  test by class: pairs, mean score, median score, judged supported")
    for name in CLASSES:
        members = [i for i in test if records[i]["label"] == name]
        values = [scores[i] for i in members]
        share = sum(verdicts[i] for i in members) / len(members)
        print(f"    {name:<20} {len(members):4d}  {statistics.mean(values):.3f}"
              f"  {statistics.median(values):.3f}  {share:.1%}")
    full = [scores[i] for i in test if records[i]["label"] == "supported"]
    partial = [scores[i] for i in test if records[i]["label"] == "partially_supported"]
    none = [scores[i] for i in test if records[i]["label"] == "not_supported"]
    above = _auc(full + partial, [True] * len(full) + [False] * len(partial))
    below = _auc(partial + none, [True] * len(partial) + [False] * len(none))
    print(f"  test ROC AUC supported vs partial {above:.3f}, partial vs not {below:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("claims", type=Path, help="WiCE claims (JSONL)")
    parser.add_argument("--judge", action="append", help="a support judge (default: lexical)")
    args = parser.parse_args()
    records = read(args.claims)
    for name in args.judge or ["lexical"]:
        measure(records, name)


if __name__ == "__main__":
    main()

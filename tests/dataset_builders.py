"""Datasets the scale tests share: the shipped examples, and a generated one with every
finding code, refusals (labelled and not), tags, record grammars and unreadable rows.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from test_rules import TRIGGERS

ROOT = Path(__file__).parents[1]
EXAMPLES = ROOT / "examples" / "eval" / "answers.jsonl"
# Read with this configuration and --support lexical, every rule can fire (CA403 is opt-in).
CONFIG = 'extend-select = ["CA403"]\n'
UNREADABLE = [b"{not json\n", b"[1, 2]\n", b'{"id": "no-answer", "sources": []}\n',
              b'{"id": "bad-grammar", "sources": ["x"], "answer": "y [1].",'
              b' "grammar": "nope"}\n']
REFUSAL = "Not covered by the provided documents."  # the default refusal


def every_code_records(count: int, seed: int = 7) -> list[bytes]:
    """``count`` JSONL lines (some unreadable) drawing on every rule's trigger."""
    rng = random.Random(seed)
    triggers = sorted(TRIGGERS.items())
    lines: list[bytes] = []
    for number in range(count):
        roll = rng.random()
        tags = {"system": rng.choice("abc"), "prompt": f"v{number % 3}"}
        if roll < 0.04:
            lines.append(rng.choice(UNREADABLE))
            continue
        if roll < 0.12:
            record: dict[str, Any] = {"sources": ["Refunds take 30 days.", "Fees apply."],
                                      "answer": REFUSAL, "answerable": rng.random() < 0.3}
        else:
            code, (answer, sources, _) = triggers[number % len(triggers)]
            record = {"sources": sources, "answer": answer}
            if rng.random() < 0.3:
                record["answerable"] = rng.random() < 0.7
            if rng.random() < 0.1 and isinstance(answer, str):
                record["grammar"] = "numeric"
            tags["code"] = code
        record["id"] = f"r{number}"
        record["tags"] = tags
        lines.append(json.dumps(record, sort_keys=True).encode() + b"\n")
    return lines


def write_every_code(path: Path, count: int) -> tuple[Path, Path]:
    """The dataset at ``path`` and its configuration file beside it."""
    path.write_bytes(b"".join(every_code_records(count)))
    config = path.parent / "citeaudit.toml"
    config.write_text(CONFIG)
    return path, config

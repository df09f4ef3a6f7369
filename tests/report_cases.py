"""A small dataset whose HTML report has a card of every kind: threshold-only failures
(against retrieved and against gold passages), several rule codes, a refused answerable
question, an answered unanswerable one, hostile text in ids, tags and cited passages, and
tags whose values are long or wide.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FOUR = ["Refunds take 5 days.", "Shipping is free.", "Returns close after 30 days.",
        "Support answers every day."]
HOSTILE = "<script>window.__pwned = true</script><img src=x onerror=alert(1)>"
LONG_TAG = "a rather long tag value that names the prompt template v2 in full"
WIDE_TAG = "请求的答复非常长的标签值"
CAPS_TAG = "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW"


def rows() -> list[dict[str, Any]]:
    return [
        {"id": "low-recall", "sources": FOUR, "answer": "Refunds take 5 days [1].",
         "tags": {"topic": "billing", "lang": "en"}},
        {"id": "gold-recall", "sources": FOUR, "answer": "Refunds take 5 days [1].",
         "relevant": ["1", "2", "3"], "tags": {"topic": "billing", "lang": "de"}},
        {"id": "out-of-range", "sources": FOUR,
         "answer": "Refunds take 5 days [1]. Shipping is free [7].",
         "tags": {"topic": "shipping", "lang": "en"}},
        {"id": "unknown-id", "sources": {"a": "Refunds take 5 days.", "b": "Shipping is free."},
         "answer": "Refunds take 5 days [a]. Shipping is free [zz].",
         "tags": {"topic": "shipping", "lang": "de"}},
        {"id": "refused", "sources": FOUR, "answer": "Not covered by the provided documents.",
         "answerable": True, "tags": {"topic": "refunds", "lang": "en"}},
        {"id": "answered-unanswerable", "sources": FOUR,
         "answer": "Refunds take 5 days [1]. Shipping is free [2]. Returns close after 30"
                   " days [3]. Support answers every day [4].",
         "answerable": False, "tags": {"topic": "refunds", "lang": "en"}},
        {"id": f"hostile {HOSTILE}", "sources": [f"Refunds take 5 days. {HOSTILE}",
                                                 "Shipping is free.", "Returns close."],
         "answer": f"Refunds take 5 days [1]. {HOSTILE}",
         "tags": {"topic": HOSTILE, "lang": "en"}},
        {"id": "long-tag", "sources": FOUR, "answer": "Support answers every day [4].",
         "tags": {"topic": LONG_TAG, "lang": WIDE_TAG}},
        {"id": "caps-tag", "sources": FOUR, "answer": "Returns close after 30 days [3].",
         "tags": {"topic": CAPS_TAG, "lang": "en"}},
        {"id": "passes", "sources": ["Refunds take 5 days."],
         "answer": "Refunds take 5 days [1].", "tags": {"topic": "billing", "lang": "en"}},
    ]


def write(path: Path) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows()),
                    encoding="utf-8")
    return path

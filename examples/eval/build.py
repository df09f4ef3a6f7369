"""Rebuild ``answers.jsonl``, a small dataset of every other example in ``examples/``:
``python3 examples/eval/build.py``.

One record per example answer (the HR answers and refusal over their passages, the claim
list, the structured answer, and each provider's logged call as ``request`` + ``response``),
tagged by where it came from, so ``citeaudit eval``, ``--shard`` and ``merge`` have a real
run to show.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
EXAMPLES = HERE.parent


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def records() -> list[dict[str, Any]]:
    """The dataset's records, in a fixed order."""
    hr = EXAMPLES / "hr"
    passages = _json(hr / "passages.json")
    out: list[dict[str, Any]] = [
        {"id": "hr-answer", "sources": passages, "answer": (hr / "answer.md").read_text(),
         "tags": {"system": "hr", "kind": "text"}, "answerable": True},
        {"id": "hr-answer-bad", "sources": passages,
         "answer": (hr / "answer_bad.txt").read_text(),
         "tags": {"system": "hr", "kind": "text"}, "answerable": True},
        {"id": "hr-refusal", "sources": passages, "answer": (hr / "refusal.txt").read_text(),
         "tags": {"system": "hr", "kind": "text"}, "answerable": False},
        {"id": "claims", "sources": _json(EXAMPLES / "claims/sources.json"),
         "answer": _json(EXAMPLES / "claims/answer.json"),
         "tags": {"system": "claims", "kind": "claims"}},
        {"id": "eval-notes", "sources": _json(EXAMPLES / "eval-notes/retrieved.json"),
         "answer": _json(EXAMPLES / "eval-notes/answer.json"),
         "tags": {"system": "notes", "kind": "structured"}},
    ]
    for folder in sorted((EXAMPLES / "providers").iterdir()):
        if not folder.is_dir():
            continue
        if (folder / "message.json").is_file():  # Assistants: the message and its run steps
            record = {"response": _json(folder / "message.json"),
                      "request": _json(folder / "steps.json")}
        elif (folder / "sources.json").is_file():
            record = {"answer": _json(folder / "response.json"),
                      "sources": _json(folder / "sources.json")}
        else:
            record = {"response": _json(folder / "response.json")}
            if (folder / "request.json").is_file():
                record["request"] = _json(folder / "request.json")
        out.append({"id": folder.name, **record,
                    "tags": {"system": folder.name, "kind": "provider"}})
    return out


def main() -> None:
    """Write answers.jsonl."""
    lines = [json.dumps(record, ensure_ascii=False, sort_keys=True) for record in records()]
    (HERE / "answers.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

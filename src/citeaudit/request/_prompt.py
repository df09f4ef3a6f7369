"""The context builder: number the passages chosen for one request, once, and produce from that
one numbering both the prompt block the model sees and the snapshot its answer is audited
against, so the two can never drift apart (renumbering before trimming is the classic bug).
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType
from typing import Any, NamedTuple

from citeaudit.core import DEFAULT_REFUSAL, Snapshot, Source, passage
from citeaudit.errors import SnapshotError

__all__ = ["DEFAULT_CONTRACT", "PromptContext", "build_context"]

DEFAULT_CONTRACT = """\
You answer ONLY from the numbered passages below.

Rules:
1. After every factual sentence you take from a passage, append its number in
   brackets, like this: Employees are reimbursed within 30 days [2].
2. Never cite a number you were not given.
3. If the passages do not contain the answer, reply exactly:
   "{refusal}"
4. Do not merge two passages into one sentence unless both numbers appear."""


class PromptContext(NamedTuple):
    """What one request needs: the ``prompt`` block (contract, then the numbered passages)
    and the ``snapshot`` to audit the answer against, both from one numbering.
    """

    prompt: str
    snapshot: Snapshot
    contract: str
    passages: str


def build_context(passages: Iterable[Any], *, contract: str = DEFAULT_CONTRACT,
                  refusal: str = DEFAULT_REFUSAL, max_passages: int | None = None,
                  max_chars: int | None = None) -> PromptContext:
    """Number ``passages`` densely from 1 in the order given and build the prompt block and
    the snapshot together.

    Each passage is a string, an object with ``text`` (and optional ``url``/``source_url``,
    ``title``/``label``/``section``, ``score``, ``rank``, ``metadata``) or a
    :class:`~citeaudit.Source`. An ``id`` the passage already carries (a retrieval id, or a
    number given before trimming) is never used as its number: it is kept in the metadata as
    ``retrieval_id``. ``max_passages`` and ``max_chars`` (total passage text) trim here,
    before numbering; a passage that does not fit is left out whole. In ``contract``,
    ``{refusal}`` is replaced by the exact refusal string.
    """
    if max_passages is not None and max_passages < 0:
        raise SnapshotError("max_passages must not be negative")
    chosen: list[Source] = []
    used = 0
    for index, value in enumerate(passages):
        if max_passages is not None and len(chosen) >= max_passages:
            break
        source = _numbered(len(chosen) + 1, value, f"$[{index}]")
        if max_chars is not None and used + len(source.text) > max_chars:
            break
        used += len(source.text)
        chosen.append(source)
    snapshot = Snapshot(tuple(chosen))
    contract_text = contract.replace("{refusal}", refusal)
    block = "\n\n".join(_entry(source) for source in chosen)
    prompt = f"{contract_text}\n\nPassages:\n\n{block}\n" if chosen else f"{contract_text}\n"
    return PromptContext(prompt, snapshot, contract_text, block)


def _numbered(number: int, value: Any, path: str) -> Source:
    retrieval_id = value.get("id") if isinstance(value, dict) else (
        value.id if isinstance(value, Source) else None)
    source = passage(str(number), value, path)
    if retrieval_id is None:
        return source._replace(id=str(number))
    metadata = MappingProxyType({**source.metadata, "retrieval_id": retrieval_id})
    return source._replace(id=str(number), metadata=metadata)


def _entry(source: Source) -> str:
    """``[n] label`` then the text, every line indented, so that a line of passage text can
    never pass for another numbered passage.
    """
    head = f"[{source.id}]" + (f" {_one_line(source.label)}" if source.label else "")
    body = "\n".join(f"    {line}" if line else "" for line in source.text.split("\n"))
    return f"{head}\n{body}"


def _one_line(text: str) -> str:
    return " ".join(text.split())

"""OpenAI Assistants: a thread message whose text carries markers like ``【4:0†source】``, each
covered by a ``file_citation`` annotation naming the file it cites.

Field names follow the ``openai`` SDK's types (``beta.threads.Message``, ``TextContentBlock``,
``Text``, ``FileCitationAnnotation``, ``FilePathAnnotation``; run steps'
``FileSearchToolCall.file_search.results``):

* an annotation's ``start_index..end_index`` (end exclusive) covers its marker in
  ``text.value`` and ``text`` repeats the marker: a range outside the text or over other
  text than ``text`` is CA206. The markers are cut out of the answer and cite the sentence
  they end (or sit in);
* a marker no annotation covers cites nothing: CA101, and its sentence is uncited;
* ``file_path`` annotations link files the model wrote (code interpreter): not citations; a
  ``refusal`` content block is the model declining: a refusal;
* the snapshot is the sources given: any snapshot shape (ids = file ids), or the run steps
  of the run (a step or a list of steps, as ``runs.steps.list`` returns them, fetched with
  ``include=["step_details.tool_calls[*].file_search.results[*].content"]``), one source per
  file with its result chunks joined.
"""

from __future__ import annotations

import re
from typing import Any

from citeaudit.core import Answer, Citation, Problem, Reading, Snapshot, Source, load_snapshot
from citeaudit.errors import SnapshotError
from citeaudit.formats._fields import Fields
from citeaudit.formats._ranges import Cited, answer_of, as_list, plain, spanned

__all__ = ["OpenAIAssistantsFormat"]

_MARKER = re.compile(r"【[^【】\n]{1,40}】")


class OpenAIAssistantsFormat:
    """An OpenAI Assistants thread message (``object: "thread.message"``)."""

    name = "openai-assistants"
    keys = ("object",)
    expects = "an OpenAI Assistants thread message (object \"thread.message\")"
    needs = (("object", "thread.message"), ("content", list))

    def recognises(self, answer: object) -> bool:
        if isinstance(answer, dict):
            return answer.get("object") == "thread.message"
        return hasattr(answer, "model_dump") and getattr(answer, "object", None) == \
            "thread.message"

    def snapshot(self, answer: object, sources: object) -> Snapshot:  # noqa: ARG002
        if isinstance(sources, Snapshot):
            return sources
        given = plain(sources)
        steps = [plain(s) for s in (given if isinstance(given, list) else [given])]
        if steps and all(isinstance(s, dict) and s.get("object") == "thread.run.step"
                         for s in steps):
            return Snapshot(tuple(_searched(steps)))
        if sources is None:
            raise SnapshotError("an Assistants message is audited against the files its run"
                                " searched: its run steps (with file_search results) or the"
                                " sources given", origin="<snapshot>", place="$")
        return load_snapshot(sources)

    def parse(self, answer: object, reading: Reading) -> Answer:
        message = plain(answer)
        fields = Fields()
        pieces: list[str] = []
        cited: Cited = []
        offset = 0
        declined = False
        blocks = fields.items(message, "content", "$", "a thread message", needed=True)
        for _, block, path in fields.objects(blocks, "$.content", "a content block"):
            kind = fields.field(block, "type", str, path, "a content block", needed=True)
            if kind == "refusal":  # the model declined, in the block made for it
                declined = True
                continue
            if kind != "text":
                continue  # images: no answer text
            text = fields.field(block, "text", dict, path, "a text block", needed=True)
            value = None if text is None else fields.field(
                text, "value", str, f"{path}.text", "a text block", needed=True)
            if text is None or value is None:
                continue
            if pieces:
                pieces.append("\n\n")
                offset += 2
            notes = fields.items(text, "annotations", f"{path}.text", "a text block")
            prose, points = _without_markers(value, notes, f"{path}.text", fields)
            for point, made in points:
                where = offset + point  # the marker's place in the answer, once cut out
                cited.append((max(offset, where - 1), max(where, offset + 1),
                              [spanned(c, (where, where)) for c in made]))
            pieces.append(prose)
            offset += len(prose)
        return answer_of(self.name, "".join(pieces), cited, fields.problems, reading,
                         "$.content", declined=declined)


def _without_markers(value: str, annotations: list[Any], path: str, fields: Fields,
                     ) -> tuple[str, list[tuple[int, list[Citation]]]]:
    """``value`` with its markers cut out, and where each cited marker was (in the text
    without markers) with the citation it makes.
    """
    problems = fields.problems
    marks: list[tuple[int, int, Citation]] = []
    for _, note, where in fields.objects(annotations, f"{path}.annotations", "an annotation"):
        kind = fields.field(note, "type", str, where, "an annotation", needed=True)
        if kind is None or kind == "file_path":
            continue  # file_path: a link to a file the model wrote, not a citation
        if kind != "file_citation":
            fields.add(f"{where}.type", f"unknown annotation type {kind!r}")
            continue
        span = fields.integers(note, ("start_index", "end_index"), kind, where)
        inner = fields.field(note, "file_citation", dict, where, kind, needed=True)
        said = fields.field(note, "text", str, where, kind)
        if span is None or inner is None or (said is None and note.get("text") is not None):
            continue
        file_id = inner.get("file_id")
        if not isinstance(file_id, str) or not file_id:
            fields.add(f"{where}.file_citation.file_id", "file_citation needs a string file_id")
            continue
        start, end = span
        if not 0 <= start <= end <= len(value):
            problems.append(Problem("CA206", f"file_citation range {start}..{end} lies outside"
                                    f" its text ({len(value)} characters)", path=where))
            continue
        if said is not None and said != value[start:end]:
            problems.append(Problem("CA206", f"file_citation range {start}..{end} holds"
                                    f" {value[start:end][:40]!r}, not the annotation's text"
                                    f" {said[:40]!r}", path=f"{where}.text"))
            continue
        marks.append((start, end, Citation(file_id, None, (start, end), value[start:end],
                                           f"{where}.file_citation")))
    covered = [(s, e) for s, e, _ in marks]
    for found in _MARKER.finditer(value):
        if not any(s <= found.start() and found.end() <= e for s, e in covered):
            problems.append(Problem("CA101", f"{found[0]} looks like a citation marker but no"
                                    " file_citation annotation covers it; treated as prose",
                                    path=f"{path}.value"))
    marks.sort(key=lambda m: m[:2])
    pieces: list[str] = []
    points: list[tuple[int, list[Citation]]] = []
    last = removed = 0
    for start, end, citation in marks:
        if start < last:
            continue  # two annotations over one marker: the first counts
        pieces.append(value[last:start])
        removed += end - start
        points.append((end - removed, [citation]))
        last = end
    pieces.append(value[last:])
    return "".join(pieces), points


def _searched(steps: list[Any]) -> list[Source]:
    """One source per file the run's file searches returned, its chunks joined."""
    by_file: dict[str, list[dict[str, Any]]] = {}
    for step in steps:
        details = step.get("step_details")
        for call in as_list(details.get("tool_calls") if isinstance(details, dict) else None):
            search = call.get("file_search") if isinstance(call, dict) else None
            for result in as_list(search.get("results") if isinstance(search, dict) else None):
                if isinstance(result, dict) and isinstance(result.get("file_id"), str):
                    by_file.setdefault(result["file_id"], []).append(result)
    sources = []
    for file_id, results in by_file.items():
        texts = [part["text"] for r in results for part in as_list(r.get("content"))
                 if isinstance(part, dict) and isinstance(part.get("text"), str)]
        scores = [r["score"] for r in results if isinstance(r.get("score"), int | float)]
        name = next((r["file_name"] for r in results if isinstance(r.get("file_name"), str)),
                    None)
        sources.append(Source(file_id, "\n\n".join(texts), None, name,
                              max(scores) if scores else None))
    return sources

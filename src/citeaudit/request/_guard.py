"""The request-path guard: audit an answer, resolve its valid citations to chips, and apply a
policy to what fails, so that an unverifiable marker is never served as if it were checked.

Policies:

* ``strip``: unverifiable markers are removed (a marker naming valid and invalid ids keeps
  the valid ones); the text is kept.
* ``drop``: claims carrying an unverifiable marker are removed, then any marker left outside
  a claim is stripped (as are the markers of a claim with a backtick or tilde, which is kept:
  removing it could change what is code). When no claim is left the answer is withheld.
* ``withhold``: an ``unverified`` answer is replaced by the fallback text.

Every ``unverified`` answer is flagged for review, with its report and snapshot attached.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from citeaudit.core import (
    Check,
    Citation,
    Claim,
    Config,
    Context,
    GrammarSpec,
    Report,
    Severity,
    Snapshot,
    Status,
    run,
)
from citeaudit.errors import ConfigError
from citeaudit.request._chips import DEFAULT_QUOTE_LENGTH, Chip, chips_of

__all__ = ["DEFAULT_FALLBACK", "POLICIES", "Guarded", "Policy", "Ref", "Resolution", "guard",
           "guarded", "junction", "line_open", "resolve", "space_before", "strip_marker"]

Policy = Literal["strip", "drop", "withhold"]
POLICIES: tuple[Policy, ...] = ("strip", "drop", "withhold")
DEFAULT_FALLBACK = ("This answer could not be checked against its sources, so it is not shown."
                    " It has been sent for review.")
_CODE_NEXT = re.compile(r"[ \t]*[`~]")  # a backtick or tilde next on the line
_LINE_LEAD = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,9}[.)])?[ \t]*")


class Ref(NamedTuple):
    """A verified marker as served: the ids it keeps (as written) and their chip numbers."""

    raw: str
    ids: tuple[str, ...]
    chips: tuple[int, ...]
    complete: bool  # every id the marker named is valid: ``raw`` can be shown as written

    @property
    def text(self) -> str:
        """The marker as plain text: as written, or rewritten to its valid ids."""
        return self.raw if self.complete else f"[{', '.join(self.ids)}]"


Part = str | Ref


class Resolution(NamedTuple):
    """Seed 002's ``resolve()``: the status, the chips and the full report."""

    status: Status
    chips: tuple[Chip, ...]
    report: Report


@dataclass(frozen=True, slots=True)
class Guarded:
    """What to serve for one answer after its policy: text and verified markers (``parts``),
    chips, and for review, the report and the snapshot it was checked against.
    """

    status: Status
    policy: Policy
    parts: tuple[Part, ...]
    chips: tuple[Chip, ...]
    report: Report
    withheld: bool
    removed: tuple[str, ...]  # unverifiable markers taken out, as written
    dropped: tuple[int, ...]  # claims taken out (policy drop)

    @property
    def review(self) -> bool:
        """Whether a person should look at this answer: it did not verify."""
        return self.status == "unverified"

    @property
    def snapshot(self) -> Snapshot:
        """The registry the answer was checked against."""
        return self.report.snapshot

    @property
    def text(self) -> str:
        """The served answer as plain text, verified markers included."""
        return "".join(part if isinstance(part, str) else part.text for part in self.parts)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: served text, chips, what was removed, and the report; for an answer
        flagged for review, the snapshot too (what a reviewer needs to check it again).
        """
        data = {"version": 1, "status": self.status, "policy": self.policy, "text": self.text,
                "withheld": self.withheld, "review": self.review,
                "chips": [chip.to_dict() for chip in self.chips],
                "removed": list(self.removed), "dropped": list(self.dropped),
                "report": self.report.to_dict()}
        if self.review:
            data["snapshot"] = self.snapshot.to_dict()
        return data


def resolve(answer: Any, sources: Any, *, grammar: GrammarSpec = None,
            refusal: str | Sequence[str] | None = None, config: Config | None = None,
            quote_length: int = DEFAULT_QUOTE_LENGTH, checks: Sequence[Check] = (),
            answer_format: str | None = None) -> Resolution:
    """Audit ``answer`` and turn its valid citations into chips (one per cited passage)."""
    context, report = run(answer, sources, grammar=grammar, refusal=refusal, config=config,
                          checks=checks, answer_format=answer_format)
    chips = () if context.answer.refusal else chips_of(context, quote_length)[0]
    return Resolution(report.status, chips, report)


def guard(answer: Any, sources: Any, *, policy: Policy = "strip",
          fallback: str = DEFAULT_FALLBACK, grammar: GrammarSpec = None,
          refusal: str | Sequence[str] | None = None, config: Config | None = None,
          quote_length: int = DEFAULT_QUOTE_LENGTH, checks: Sequence[Check] = (),
          answer_format: str | None = None) -> Guarded:
    """Audit ``answer`` against ``sources`` (with ``checks`` beside the built-in ones) and
    apply ``policy`` to what fails.
    """
    if policy not in POLICIES:
        raise ConfigError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    context, report = run(answer, sources, grammar=grammar, refusal=refusal, config=config,
                          checks=checks, answer_format=answer_format)
    return guarded(context, report, policy, fallback, quote_length)


def guarded(context: Context, report: Report, policy: Policy, fallback: str,
            quote_length: int = DEFAULT_QUOTE_LENGTH) -> Guarded:
    """Apply ``policy`` to an audited context."""
    if policy == "withhold" and report.status == "unverified":
        return _withheld(report, policy, fallback, ())
    parsed = context.answer
    if parsed.refusal:  # a refusal cites nothing: any marker on it goes
        parts, removed = _apply(parsed.text, [(c, None) for c in parsed.citations], {})
        return Guarded(report.status, policy, parts, (), report, False, removed, ())
    verified = _verified(context, report)
    pairs = list(zip(parsed.citations, verified, strict=True))
    drop = {c.claim for c, source_id in pairs if source_id is None and c.claim is not None
            } if policy == "drop" else set()
    if drop and ("`" in parsed.text or "~" in parsed.text):
        # Taking out a claim with a backtick or tilde could re-pair code spans, and taking out
        # one just before a backtick or tilde could bring a fence to the start of its line:
        # either could turn code into prose (and its brackets into markers). Such claims are
        # stripped instead.
        drop -= {claim.number for claim in parsed.claims
                 if "`" in claim.text or "~" in claim.text
                 or _CODE_NEXT.match(parsed.text, claim.span[1])}
    chips, chip_of = chips_of(context, quote_length, skip=drop, resolved=verified)
    if parsed.kind == "structured":
        return _structured(report, policy, fallback, parsed.text, pairs=pairs, chips=chips,
                           chip_of=chip_of)
    if parsed.kind == "claims":
        parts, removed = _claim_list(parsed.claims, pairs, chip_of, drop)
    else:
        spans = [claim.span for claim in parsed.claims if claim.number in drop]
        kept = [(c, source_id) for c, source_id in pairs if c.claim not in drop]
        if parsed.kind != "text":
            kept = _placed(parsed.text, kept)
        parts, removed = _apply(parsed.text, kept, chip_of, spans)
    dropped = tuple(sorted(drop))
    if dropped and len(dropped) == len(parsed.claims):
        return _withheld(report, policy, fallback, dropped)
    return Guarded(report.status, policy, parts, chips, report, False, removed, dropped)


# A provider citation that quotes what its source does not hold there, or points outside it,
# verifies nothing though its id resolves: the policies treat it as they treat an unknown id.
_MISPLACED = ("CA204", "CA205")


def _verified(context: Context, report: Report) -> Sequence[str | None]:
    """The snapshot id each citation verifies: its resolved id, but ``None`` for a citation
    that a CA204 or CA205 error names.
    """
    misplaced = {(f.span, f.source_id, f.path) for f in report.findings
                 if f.code in _MISPLACED and f.severity is Severity.ERROR}
    if not misplaced:
        return context.resolved
    return tuple(None if (citation.span, citation.source_id, citation.path) in misplaced
                 else source_id
                 for citation, source_id in zip(context.answer.citations, context.resolved,
                                                strict=True))


def _placed(text: str, pairs: list[tuple[Citation, str | None]],
            ) -> list[tuple[Citation, str | None]]:
    """A provider answer's citations as :func:`_apply` takes them: a marker written in the
    text (Perplexity's ``[1]``) as it is; a citation of a range of the answer (Cohere,
    Gemini, Bedrock, OpenAI, Anthropic, Mistral) as a point at the range's end, where its chip
    goes, or nothing when it names no source (there is no marker in the text to take out).
    """
    placed = []
    for citation, source_id in pairs:
        span = citation.span
        if span is not None and citation.marker is not None and \
                text[span[0]:span[1]] == citation.marker:
            placed.append((citation, source_id))
        elif span is not None and source_id is not None:
            placed.append((citation._replace(span=(span[1], span[1])), source_id))
    placed.sort(key=lambda pair: pair[0].span or (0, 0))  # stable: a point's ids stay together
    return placed


def _claim_list(claims: Sequence[Claim], pairs: list[tuple[Citation, str | None]],
                chip_of: dict[str, int], drop: set[int],
                ) -> tuple[tuple[Part, ...], tuple[str, ...]]:
    """A claim list as parts, one claim per line, dropped claims left out."""
    by_claim: dict[int | None, list[tuple[Citation, str | None]]] = {}
    for pair in pairs:
        by_claim.setdefault(pair[0].claim, []).append(pair)
    parts: list[Part] = []
    removed: list[str] = []
    for claim in claims:
        if claim.number in drop:
            continue
        claim_parts, claim_removed = _apply(claim.text, by_claim.get(claim.number, []),
                                            chip_of)
        if parts:
            parts.append("\n")
        parts.extend(claim_parts)
        removed.extend(claim_removed)
    return tuple(parts), tuple(removed)


def _withheld(report: Report, policy: Policy, fallback: str,
              dropped: tuple[int, ...]) -> Guarded:
    return Guarded(report.status, policy, (fallback,), (), report, True, (), dropped)


def _apply(text: str, pairs: Sequence[tuple[Citation, str | None]], chip_of: dict[str, int],
           drop: Sequence[tuple[int, int]] = ()) -> tuple[tuple[Part, ...], tuple[str, ...]]:
    """``text`` as parts: the ``drop`` spans removed, unverifiable markers removed with the
    space before them, verified markers as :class:`Ref`. ``pairs`` (each citation with the
    snapshot id it resolved to) come in text order, a marker's ids next to each other.
    """
    cuts = [_drop_range(text, start, end) for start, end in _merged(text, drop)]
    cut = 0
    opened = False  # an unclosed "[" on the served line, up to the parts already done
    checked = 0  # parts already looked at for ``opened``
    parts: list[Part] = []
    removed: list[str] = []
    position = 0
    index = 0
    while index < len(pairs):
        citation = pairs[index][0]
        span = citation.span
        following = index + 1  # the citations of the same marker follow it
        while following < len(pairs) and pairs[following][0].span == span:
            following += 1
        group = pairs[index:following]
        index = following
        if span is None:
            continue
        start, end = span
        # A cut at a point's place comes after it (a chip ends the claim before a dropped one).
        while cut < len(cuts) and (cuts[cut][0] < start or cuts[cut][0] == start < end):
            if cuts[cut][0] > position:
                parts.append(text[position:cuts[cut][0]])
            position = max(position, cuts[cut][1])
            cut += 1
        if start < position:
            continue  # in a dropped claim
        valid = [(c.source_id, chip_of[source_id]) for c, source_id in group
                 if source_id is not None]
        glue = ""
        if not valid:
            for part in parts[checked:]:
                opened = line_open(part if isinstance(part, str) else part.text, opened)
            checked = len(parts)
            last = parts[-1] if parts else ""
            start, glue = strip_marker(text, start, end, position, opened=opened,
                                       shown=last if isinstance(last, str) else last.text)
            removed.append(citation.marker or "")
        if start > position:
            parts.append(text[position:start])
        if glue:
            parts.append(glue)
        if len(valid) == 1:
            parts.append(Ref(citation.marker or "", (valid[0][0],), (valid[0][1],),
                             len(group) == 1))
        elif valid:
            parts.append(Ref(citation.marker or "", tuple(dict.fromkeys(w for w, _ in valid)),
                             tuple(dict.fromkeys(c for _, c in valid)),
                             len(valid) == len(group)))
        position = end
    for start, end in cuts[cut:]:
        if start > position:
            parts.append(text[position:start])
        position = max(position, end)
    if position < len(text):
        parts.append(text[position:])
    return tuple(parts), tuple(removed)


_OPEN = ("[", "\uff3b")
_CLOSE = ("]", "\uff3d")
_ZERO_WIDTH_SPACE = "\u200b"


def line_open(text: str, opened: bool) -> bool:
    """Whether a ``[`` is left unclosed on the last line of what was served, once ``text`` is
    added to a line that was (``opened``) or was not.
    """
    newline = text.rfind("\n")
    if newline >= 0:
        text = text[newline + 1:]
        opened = False
    last_open = max(text.rfind(_OPEN[0]), text.rfind(_OPEN[1]))
    last_close = max(text.rfind(_CLOSE[0]), text.rfind(_CLOSE[1]))
    if last_open == last_close:  # neither
        return opened
    return last_open > last_close


def strip_marker(text: str, start: int, end: int, floor: int, *, shown: str, opened: bool,
                 after: str = "") -> tuple[int, str]:
    """How an unverifiable marker, ``text[start:end]``, is removed from what is displayed (by
    the guard and by the stream alike): where the cut begins (the spaces and tabs before the
    marker go with it, but nothing before ``floor``, where the text still to display begins)
    and the glue that takes the marker's place (:func:`junction`). ``shown`` is what was
    displayed before ``floor`` (its end is enough), ``opened`` whether a ``[`` was left open
    on its last line; ``after`` what follows where ``text`` ends at the marker.
    """
    cut = max(space_before(text, start), floor)
    kept = text[floor:cut]
    return cut, junction((kept or shown)[-1:], text[end:end + 1] or after,
                         line_open(kept, opened))


def junction(before: str, after: str, opened: bool) -> str:
    """What goes where an unverifiable marker was removed, so that what was around it cannot
    join into something new: inside an open ``[`` or before a backtick or tilde (a marker, a
    code run, a fence) an invisible U+200B; between two letters or digits a space; else nothing.
    """
    if not after or after == "\n":
        return ""
    if opened or after in "`~":
        return _ZERO_WIDTH_SPACE
    if before.isalnum() and after.isalnum():
        return " "
    return ""


def space_before(text: str, start: int) -> int:
    """Where the spaces and tabs just before ``start`` begin, unless they open the line:
    what an unverifiable marker takes with it when it is removed.
    """
    begin = start
    while begin > 0 and text[begin - 1] in " \t":
        begin -= 1
    return start if begin == 0 or text[begin - 1] == "\n" else begin


def _merged(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted spans, those separated only by spaces and tabs merged into one."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and not text[merged[-1][1]:start].strip(" \t"):
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _drop_range(text: str, start: int, end: int) -> tuple[int, int]:
    """What dropping the claim at ``start:end`` removes: its whole line when it is alone on
    it (list marker included), else the claim and the spaces after it.
    """
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not text[end:line_end].strip():
        if _LINE_LEAD.fullmatch(text, line_start, start):
            return line_start, min(line_end + 1, len(text))
        return space_before(text, start), end
    while end < len(text) and text[end] in " \t":
        end += 1
    return start, end


def _structured(report: Report, policy: Policy, fallback: str, text: str, *,
                pairs: list[tuple[Citation, str | None]], chips: tuple[Chip, ...],
                chip_of: dict[str, int]) -> Guarded:
    """A structured answer: its text, then one marker per valid cited id."""
    removed = tuple(f"[{c.source_id}]" for c, source_id in pairs if source_id is None)
    if removed and policy == "drop":
        return _withheld(report, policy, fallback, (1,))
    parts: list[Part] = [text]
    seen: set[str] = set()
    for citation, source_id in pairs:
        if source_id is not None and source_id not in seen:
            seen.add(source_id)
            parts.append(Ref(f"[{citation.source_id}]", (citation.source_id,),
                             (chip_of[source_id],), True))
    return Guarded(report.status, policy, tuple(parts), chips, report, False, removed, ())

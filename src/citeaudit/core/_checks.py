"""The checks. Each is a small function that states problems; the engine adds severity,
applies select/ignore and orders the findings. Every rule code in :mod:`citeaudit.rules`
is produced by exactly one check here (``CHECKS`` maps checks to their codes).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Protocol

from citeaudit.core._amounts import states_amount
from citeaudit.core._answer import Answer, Citation, Claim, Location
from citeaudit.core._claims import why_citable
from citeaudit.core._config import Config
from citeaudit.core._findings import Problem
from citeaudit.core._judging import ClaimSupport, Judgement, Remembered, get_judge
from citeaudit.core._layout import reference_blocks
from citeaudit.core._registry import Registry
from citeaudit.core._segment import Span, code_spans, mask
from citeaudit.core._sources import Snapshot, Source
from citeaudit.core._unread import (
    looks_cited,
    might_be_unread,
    square_hints,
    unread,
    would_read,
)

__all__ = ["BUILTIN", "CHECKS", "CODES", "Check", "Context", "claim_support"]

_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True, slots=True)
class Context:
    """What every check reads: the parsed answer, the snapshot, the configuration, and how each
    citation resolved (``resolved[i]`` is the snapshot id for ``answer.citations[i]`` or None).
    """

    answer: Answer
    snapshot: Snapshot
    config: Config
    resolved: tuple[str | None, ...]
    grammar: str = ""
    grammar_reason: str = ""
    # Support judgements of this audit by (claim, cited passages): made once, read by the
    # support check and the ALCE metrics alike.
    judged: dict[object, Any] = field(default_factory=dict, compare=False, repr=False)

    def support_judge(self) -> Remembered:
        """The configured support judge, answering each (claim, cited passages) once for this
        audit however often it is asked.
        """
        config = self.config
        return Remembered(get_judge(config.support or "", config.support_threshold), self.judged)

    def out_of_range(self, citation: Citation) -> bool:
        """Whether an unresolved citation names a number outside the snapshot's numbering."""
        numbering = self.snapshot.numbering
        if not citation.ordinal or numbering is None:
            return False
        prefix = numbering[0]
        written = citation.source_id
        # [9] against doc_1..doc_3 is out of range too: a bare number names a position.
        return (written.startswith(prefix) and _INTEGER.fullmatch(written, len(prefix))
                is not None) or (prefix != "" and _INTEGER.fullmatch(written) is not None)


class Check(Protocol):
    """A check: reads a prepared :class:`Context` and states problems, codes from the rule
    table only. The engine adds severity, applies select/ignore and orders the findings.
    """

    def __call__(self, context: Context) -> Iterable[Problem]:
        """The problems found, in any order."""
        ...


def malformed_markers(context: Context) -> list[Problem]:
    """CA101: marker-looking text that breaks the grammar."""
    return [Problem("CA101", f"{bad.raw} looks like a citation marker but is not one"
                    f" ({bad.reason}); treated as prose", claim, (bad.start, bad.end), bad.raw)
            for claim, bad in context.answer.malformed]


def unread_markers(context: Context) -> Sequence[Problem]:
    """CA102: bracketed shapes that look like citations but the grammar does not read; once
    per answer, naming the grammar that would.
    """
    answer = context.answer
    texts: list[tuple[int | None, str, list[tuple[int, int]]]]
    if answer.kind == "text":
        text = answer.text
        marks = len(answer.marks)
        if (text.count("[") <= marks or square_hints(text) <= marks) and \
                not might_be_unread(text):
            return ()  # every citation-like bracket was read, and nothing else looks like one
        # A reference list's ids are read as no markers, and are not unread ones either.
        texts = [(None, text, list(answer.marks) + reference_blocks(text))]
    elif answer.kind == "claims":
        texts = [(c.number, c.text, [(m.start, m.end) for m in c.markers]
                  + [(b.start, b.end) for b in c.malformed]) for c in answer.claims]
    else:
        return ()
    found: list[tuple[int | None, int, int, str]] = []
    for number, text, read in texts:
        code = [(span.start, span.end) for span in code_spans(text)] \
            if "`" in text or ("~" in text and "~~~" in text) else []
        found += [(number, a, b, text[a:b]) for a, b in unread(text, read + code)]
    if not found:
        return ()
    number, start, end, raw = found[0]
    if number is None:  # free text: the claim it is in
        number = next((c.number for c in answer.claims if c.span[0] <= start < c.span[1]), None)
    shapes = list(dict.fromkeys(shape for *_, shape in found))
    shown = ", ".join(shapes[:3]) + (", …" if len(shapes) > 3 else "")
    other = would_read(shapes)
    one = len(found) == 1
    them = "it" if one else "them"
    advice = f"the {other} grammar reads {them} (--grammar {other})" if other and \
        other != context.grammar else f"a regex grammar would read {them} (--grammar" \
        " regex:PATTERN)"
    what = "1 bracketed shape looks like a citation" if one else \
        f"{len(found)} bracketed shapes look like citations"
    return (Problem("CA102", f"{what} but the {context.grammar} grammar does not read {them}"
                    f" ({shown}); {advice}", number, (start, end), raw),)


def unresolved_citations(context: Context) -> list[Problem]:
    """CA201/CA202: cited ids that are not in the snapshot, once per claim and id."""
    found: list[Problem] = []
    if None not in context.resolved:
        return found
    seen: set[tuple[int | None, str]] = set()
    numbering = context.snapshot.numbering
    for citation, resolved in zip(context.answer.citations, context.resolved, strict=True):
        if resolved is not None:
            continue
        if citation.location is not None:  # a provider's index into what it was sent
            found.append(_unsent(context, citation, citation.location))
            continue
        key = (citation.claim, citation.source_id)
        if key in seen:
            continue
        seen.add(key)
        shown = repr(citation.source_id)
        if numbering is not None and context.out_of_range(citation):
            prefix, count = numbering
            valid = f"{prefix}1..{prefix}{count}" if count else "none (the snapshot is empty)"
            found.append(Problem(
                "CA202", f"{citation.marker or shown} cites {citation.source_id}, outside the"
                f" {count} retrieved sources ({valid})", citation.claim, citation.span,
                citation.marker, citation.source_id, citation.path))
        else:
            what = f"{citation.marker} cites {citation.source_id!r}, which" if citation.marker \
                else repr(citation.source_id)
            found.append(Problem("CA201", f"{what} is not in this request's snapshot",
                                 citation.claim, citation.span, citation.marker,
                                 citation.source_id, citation.path))
    return found


def _unsent(context: Context, citation: Citation, where: Location) -> Problem:
    family = citation.source_id.split(":", 1)[0]
    sent = sum(1 for s in context.snapshot.sources if s.id.split(":", 1)[0] == family)
    what = f"{family.replace('_', ' ')}{'' if sent == 1 else 's'}"
    # Grounding chunks come with the response; documents and search results with the request.
    has = f"the response has {sent} grounding {what}" if family == "chunk" else \
        f"the request has {sent} {what}"
    return Problem("CA202", f"{where.label} names nothing sent: {has}",
                   citation.claim, citation.span, citation.marker, citation.source_id,
                   citation.path)


_MARKED = frozenset(("text", "claims", "structured"))
_CLAIM = itemgetter(1)  # a citation's claim


def cited_locations(context: Context) -> Sequence[Problem]:
    """CA204/CA205: provider citations that point into their source by range: the range lies
    inside the source, and the text the citation quotes is the text there (white space
    normalised). An index that names nothing sent is CA202 (see unresolved_citations).
    """
    answer = context.answer
    if answer.kind in _MARKED or answer.marks:
        return ()  # markers point at no place in their source
    return _located(answer.citations, context.resolved, context.snapshot.index,
                    _location_problem)


def _located(citations: Sequence[Citation], resolved: Sequence[str | None],
             index: Mapping[str, Source], problem_of: Callable[..., Problem | None],
             ) -> list[Problem]:
    """The problem (from ``problem_of``, :func:`_location_problem`) of each citation with a
    location in the source it names.
    """
    found = []
    for citation, source_id in zip(citations, resolved, strict=True):
        where = citation.location
        if where is None or source_id is None:
            continue  # no location, or nothing it names
        unit, start, end, quoted, _ = where
        if unit == "source":
            continue  # the whole source
        text = index[source_id].text
        if unit == "char" and quoted is not None and 0 <= start <= end <= len(text) \
                and text[start:end] == quoted:
            continue  # the common case, decided as _location_problem would
        problem = problem_of(citation, where, text, index[source_id].metadata)
        if problem is not None:
            found.append(problem)
    return found


def _location_problem(citation: Citation, where: Location, text: str,
                      metadata: Mapping[str, Any]) -> Problem | None:
    parts: Sequence[str] | None
    unit, start, end = where.unit, where.start, where.end
    if unit == "char":
        parts, size, what, low = None, len(text), "characters", 0
    else:
        parts = metadata.get("pages" if unit == "page" else "blocks")
        size = len(parts) if parts is not None else -1  # a PDF's pages: not known
        what = "pages" if unit == "page" else "content blocks"
        low = 1 if unit == "page" else 0
    if start < low or end < start or (unit != "char" and end == start) or (
            size >= 0 and end > size + low):
        has = f"{size} {what}" if size >= 0 else f"{what} from {low}"
        return Problem("CA205", f"{where.label} {unit} range {start}..{end} lies outside"
                       f" {citation.source_id} ({has})", citation.claim, citation.span,
                       citation.marker, citation.source_id, citation.path)
    quoted = where.quoted
    if quoted is None or (parts is None and unit != "char"):
        return None  # nothing quoted, or the source's pages are not known (a PDF)
    there = text[start:end] if parts is None else "".join(parts[start - low:end - low])
    if there == quoted or " ".join(there.split()) == " ".join(quoted.split()):
        return None
    said, held = _differing(quoted, there)
    return Problem("CA204", f"{where.label} {unit} range {start}..{end} quotes {said} but"
                   f" {citation.source_id} holds {held} there", citation.claim, citation.span,
                   citation.marker, citation.source_id, citation.path)


def _differing(one: str, other: str, width: int = 40) -> tuple[str, str]:
    """Two texts quoted on one line each, around where they first differ: whole when short,
    else ``width`` characters from a little before the first difference, cut at word
    boundaries and marked with ellipses (white space is normalised first).
    """
    texts = (" ".join(one.split()), " ".join(other.split()))
    if max(map(len, texts)) <= width:
        return f"\"{texts[0]}\"", f"\"{texts[1]}\""
    shorter = min(map(len, texts))
    first = next((i for i in range(shorter) if texts[0][i] != texts[1][i]), shorter)
    start = max(0, first - width // 3)
    if start:  # from the start of the word the window opens in
        space = texts[0].rfind(" ", 0, start + 1)
        start = space + 1 if space >= 0 and first - space <= width // 2 else start
    return _window(texts[0], start, width), _window(texts[1], start, width)


def _window(text: str, start: int, width: int) -> str:
    end = start + width
    if end < len(text):
        space = text.rfind(" ", start + width // 2, end)
        end = space if space > 0 else end
    head = "…" if start else ""
    tail = "…" if end < len(text) else ""
    return f"\"{head}{text[start:end].rstrip(' ,;:')}{tail}\""


def duplicate_citations(context: Context) -> list[Problem]:
    """CA203: a structured citations list names an id twice."""
    found: list[Problem] = []
    if context.answer.kind != "structured":
        return found
    seen: set[str] = set()
    for citation in context.answer.citations:
        if citation.source_id in seen:
            found.append(Problem("CA203", f"{citation.source_id!r} is cited more than once",
                                 citation.claim, None, None, citation.source_id, citation.path))
        seen.add(citation.source_id)
    return found


def empty_snapshot(context: Context) -> Sequence[Problem]:
    """CA207: nothing was retrieved for the request, so no citation can be verified."""
    if context.snapshot.sources:
        return ()
    return (Problem("CA207", "the snapshot is empty: nothing was retrieved for this request,"
                             " so no citation can be checked"),)


def _needs_citation(claim: Claim, amounts: bool, every: bool) -> str | None:
    """The code a claim without markers gets: CA302 when it states an amount (``amounts``:
    CA302 is enabled), else CA301 when ``every`` claim needs a citation (CA301 enabled).
    """
    if claim.markers:
        return None
    if amounts:
        text = claim.text
        if claim.malformed:  # a broken marker's digits are not a quantity
            offset = claim.span[0]
            text = mask(text, [Span(b.start - offset, b.end - offset) for b in claim.malformed],
                        "")
        if ("[" in text or "(" in text or "【" in text) and (shapes := looks_cited(text)):
            text = mask(text, [Span(a, b) for a, b in shapes], "")  # nor an unread marker's
        if states_amount(text):  # no digit, no amount: one search either way
            return "CA302"
    return "CA301" if every else None


def _wanted(config: Config) -> tuple[bool, bool]:
    """What :func:`_needs_citation` is asked: is CA302 on, does every claim need CA301."""
    enabled = config.enabled
    return "CA302" in enabled, config.claim_policy == "all" and "CA301" in enabled


_UNCITED = {"CA302": "claim states a number or quantity but cites no source: ",
            "CA301": "claim has no citation marker: "}


def uncited_claims(context: Context) -> Sequence[Problem]:
    """CA301/CA302: claims in text, claim lists or provider answers that carry no citation."""
    if context.answer.kind in ("structured", "invalid"):
        return ()
    amounts, every = _wanted(context.config)
    answer = context.answer
    # Markers say which claims are cited in text; a provider's citations name their claims.
    marked = answer.kind in ("text", "claims") or answer.marks
    found = _uncited(answer.claims, () if marked else answer.citations, amounts, every)
    if not found:
        return found
    by_number = {claim.number: claim for claim in answer.claims}
    return [_explained(problem, by_number, context.snapshot) for problem in found]


def _explained(problem: Problem, claims: dict[int, Claim], snapshot: Snapshot) -> Problem:
    """A CA301 that says why its claim needs a citation ("names an entity", "restates
    passage 2"); CA302 says it already (the claim states an amount).
    """
    if problem.code != "CA301" or problem.claim not in claims:
        return problem
    claim = claims[problem.claim]
    why = why_citable(claim.text, ((s.id, s.text) for s in snapshot.sources))
    return problem._replace(message=f"claim has no citation marker ({why}): "
                                    + quoted(claim.text))


def _uncited(claims: Sequence[Claim], citations: Sequence[Citation], amounts: bool,
             every: bool) -> list[Problem]:
    """A problem for each claim without markers (and not the claim of one of a provider's
    ``citations``) that needs a citation.
    """
    cited = set(map(_CLAIM, citations))
    found = []
    for claim in claims:
        if claim.markers or claim.number in cited:
            continue
        code = _needs_citation(claim, amounts, every)
        if code is not None:
            found.append(Problem(code, _UNCITED[code] + quoted(claim.text), claim.number,
                                 claim.span))
    return found


def quoted(text: str, limit: int = 60) -> str:
    """The claim, quoted, on one line, cut at a word boundary near ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        cut = flat.rfind(" ", 0, limit)
        flat = flat[:cut if cut > limit // 2 else limit].rstrip(" ,;:") + "…"
    return f"\"{flat}\""


def answer_level(context: Context) -> Sequence[Problem]:
    """CA401-CA403: citations against the answer as a whole."""
    answer = context.answer
    if answer.kind == "invalid" or (answer.problems and not answer.claims):
        return ()  # its CA404 says what is wrong with it
    if answer.refusal:
        if not answer.citations:
            return ()
        ids = ", ".join(sorted({c.source_id for c in answer.citations}))
        return (Problem("CA402", f"the answer refuses (no evidence) but still cites {ids}",
                        path="$.citations" if answer.kind == "structured" else None),)
    if not answer.claims:
        return () if answer.kind == "structured" else (
            Problem("CA403", "the answer has no claims"),)
    if answer.citations:
        return ()
    if answer.kind == "structured":
        return (Problem("CA401", "status is \"answered\" but citations is empty",
                        path="$.citations"),)
    if any(_needs_citation(claim, *_wanted(context.config)) for claim in answer.claims):
        return ()
    return (Problem("CA401", "the answer is not a refusal but cites no source at all"),)


def invalid_answer(context: Context) -> Sequence[Problem]:
    """CA404 and CA206: contract violations, and provider ranges outside the answer's text,
    found while reading the answer.
    """
    return context.answer.problems


def claim_passages(context: Context) -> list[tuple[Claim, str, list[tuple[str, str]]]]:
    """Every claim, its text without markers, and the passages its valid citations name
    (``(source id, text)``, in citation order).
    """
    answer = context.answer
    cited: dict[int, dict[str, None]] = {}
    for citation, source_id in zip(answer.citations, context.resolved, strict=True):
        if source_id is not None and citation.claim is not None:
            cited.setdefault(citation.claim, {})[source_id] = None
    snapshot = context.snapshot
    out = []
    for claim in answer.claims:
        offset = claim.span[0] if answer.kind == "text" else 0
        text = mask(claim.text, [Span(m.start - offset, m.end - offset) for m in claim.markers],
                    "") if claim.markers else claim.text
        passages = [(source_id, source.text) for source_id in cited.get(claim.number, {})
                    if (source := snapshot.get(source_id)) is not None]
        out.append((claim, text, passages))
    return out


def judged_passages(context: Context,
                    ) -> tuple[list[tuple[Claim, str, list[tuple[str, str]]]], list[int]]:
    """:func:`claim_passages` with the passages that have no text left out (nothing there
    can support a claim or contradict it), and the claims that cite only such passages (not
    judged).
    """
    judged = []
    unjudged = []
    for claim, text, passages in claim_passages(context):
        kept = [p for p in passages if p[1].strip()]
        if passages and not kept:
            unjudged.append(claim.number)
        else:
            judged.append((claim, text, kept))
    return judged, unjudged


def claim_support(context: Context) -> tuple[tuple[Claim, ClaimSupport], ...]:
    """Each judged claim (one that cites a passage with text) and the configured judge's
    judgement of it, in claim order; nothing without a judge. Judged once per audit: the
    support check, the report and the chips read the same judgements.
    """
    if context.config.support is None:
        return ()
    cited = [(claim, text, passages) for claim, text, passages in judged_passages(context)[0]
             if passages]
    judgements = context.support_judge().judge([(text, passages) for _, text, passages in cited])
    return tuple((claim, ClaimSupport(claim.number, judgement))
                 for (claim, _, _), judgement in zip(cited, judgements, strict=True))


def support(context: Context) -> list[Problem]:
    """CA501-CA504: whether each claim's cited passages support it (or contradict it), by the
    configured support judge (nothing without one).
    """
    found: list[Problem] = []
    judged = claim_support(context)
    if not judged:
        return found
    judge = context.support_judge()
    for claim, (_, judgement) in judged:
        found += (Problem(code, message, claim.number, claim.span,
                          source_id=judgement.source_id)
                  for code, message in judgement.problems or _unexplained(judgement, judge))
    return found


def _unexplained(judgement: Judgement, judge: Remembered) -> tuple[tuple[str, str], ...]:
    """The problem of a judgement that fails without saying why (a plug-in judge's)."""
    if judgement.contradicted:
        return (("CA504", f"the {judge.name} judge finds the cited passages contradict the"
                          " claim"),)
    if judgement.supported:
        return ()
    return (("CA503", f"the {judge.name} judge scores the cited passages"
                      f" {judgement.score:.2f}, below {judge.threshold:.2f}"),)


CODES: dict[Check, tuple[str, ...]] = {
    malformed_markers: ("CA101",),
    unread_markers: ("CA102",),
    unresolved_citations: ("CA201", "CA202"),
    cited_locations: ("CA204", "CA205"),
    duplicate_citations: ("CA203",),
    empty_snapshot: ("CA207",),
    uncited_claims: ("CA301", "CA302"),
    answer_level: ("CA401", "CA402", "CA403"),
    invalid_answer: ("CA206", "CA404"),
    support: ("CA501", "CA502", "CA503", "CA504"),
}
BUILTIN: tuple[Check, ...] = tuple(CODES)


def _check(loaded: object) -> Check:
    if not callable(loaded):
        raise TypeError("a check is a callable: context -> problems")
    return loaded  # what it yields is checked as it runs


CHECKS: Registry[Check] = Registry("checks", {
    getattr(check, "__name__", ""): f"{__name__}:{getattr(check, '__name__', '')}"
    for check in BUILTIN}, what="check", validate=_check)
"""Every check by name: the built-ins (always run) and installed ones (run when named, by
``checks = [...]`` in the configuration or ``--check NAME``)."""


# A Context from all its fields' values in order (``judged`` a new dict).
new_context = Context

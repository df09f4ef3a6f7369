"""Resolution: the valid citations of an answer become source chips, one per cited passage.

A chip links to its passage's URL in canonical form with its fragment (``#section``): two
chunks of one page are two chips, each quoting its own text. The same passage reached twice
(two ids for one URL, fragment and text, as two retrievers can return it; scheme and host
case, default port, trailing slash and tracking parameters make no difference) is one chip. A
source without a usable ``http``/``https`` URL is a chip of its own, shown without a link.
Chips are numbered in the order the answer first cites them.

With a support judge, a chip carries the spans of its passage that the judge found for each
claim citing it (``evidence``: the claim, the outcome, ``[start, end)`` offsets into the
snapshot's passage text and the quoted text): what a reader should look at. The offsets are
into the passage as retrieved, not into the page at ``url`` (a page renders its text
otherwise), so no ``#:~:text=`` fragment is made from them; a front end that wants one can
build it from ``quote``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import unquote, urlsplit, urlunsplit

from citeaudit.core import Outcome, claim_support

if TYPE_CHECKING:
    from citeaudit.core import Context, Source

__all__ = ["DEFAULT_QUOTE_LENGTH", "TRACKING_PARAMETERS", "Chip", "ChipEvidence", "ChipNumbers",
           "canonical_url", "chip_for", "chips_of", "excerpt", "link_url"]

DEFAULT_QUOTE_LENGTH = 160
# Query parameters that say how a reader arrived, never which document it is.
TRACKING_PARAMETERS = frozenset({
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "igshid", "mc_cid",
    "mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "mkt_tok", "oly_anon_id", "oly_enc_id", "vero_id",
    "ref_src", "spm",
})
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Whitespace, control characters and bidirectional controls have no place in a destination.
_UNSAFE_URL = re.compile("[\\s\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e"
                         "\u2028\u2029\u2066-\u2069\ufeff]")


@functools.lru_cache(maxsize=4096)  # the same few documents are cited again and again
def canonical_url(url: str | None) -> str | None:
    """The canonical form of an ``http``/``https`` URL, or ``None`` when it cannot be a safe
    link destination (another scheme, relative or protocol-relative, no host, credentials in
    it, whitespace or control characters, a bad port).

    Lower-case scheme and host, no default port, no fragment, no tracking parameters
    (``utm_*`` and :data:`TRACKING_PARAMETERS`), no trailing slash (the root is ``/``).
    """
    if not url or _UNSAFE_URL.search(url) or "\\" in url:
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a bad port or a malformed IPv6 host
        return None
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or "@" in parts.netloc or \
            not url.lower().startswith(f"{scheme}://"):
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    path = parts.path.rstrip("/") or "/"
    query = "&".join(pair for pair in parts.query.split("&")
                     if pair and not _tracking(pair.partition("=")[0]))
    return urlunsplit((scheme, netloc, path, query, ""))


@functools.lru_cache(maxsize=4096)
def link_url(url: str | None) -> str | None:
    """The link to a passage: its :func:`canonical_url` with the URL's fragment (the place in
    the document the passage comes from), or ``None`` when it cannot be a safe link.
    """
    canonical = canonical_url(url)
    if canonical is None or url is None:
        return canonical
    fragment = urlsplit(url).fragment  # free of white space and controls: canonical_url says
    return f"{canonical}#{fragment}" if fragment else canonical


def _tracking(key: str) -> bool:
    name = unquote(key).lower()
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def excerpt(text: str, length: int = DEFAULT_QUOTE_LENGTH) -> str:
    """The start of ``text`` on one line, at most ``length`` characters, cut at a word
    boundary and marked with an ellipsis when cut.
    """
    flat = " ".join(text.split())
    if len(flat) <= length:
        return flat
    if length <= 1:
        return "\u2026"[:length]
    cut = flat[:length]  # room for the ellipsis is made below
    space = cut.rfind(" ", 0, length)
    cut = cut[:space] if space > 0 else cut[:length - 1]  # one long word: cut inside it
    return cut.rstrip(" ,;:.-\u2013\u2014") + "\u2026"


class ChipEvidence(NamedTuple):
    """A span of a chip's passage that the support judge found for a claim citing it."""

    claim: int
    outcome: Outcome  # supported, unsupported or contradicted
    source_id: str
    start: int  # [start, end) in the snapshot text of source_id (Python str indices)
    end: int
    quote: str

    def to_dict(self) -> dict[str, object]:
        """The JSON form."""
        return self._asdict()


class Chip(NamedTuple):
    """One passage the answer cites, numbered in first-citation order."""

    number: int
    url: str | None  # canonical http(s) URL with its fragment, or None: shown without a link
    label: str
    quote: str
    source_ids: tuple[str, ...]  # the snapshot's sources merged into this chip
    claims: tuple[int, ...]  # the claims citing it, ascending
    evidence: tuple[ChipEvidence, ...] = ()  # with a support judge: its spans, by claim

    def to_dict(self) -> dict[str, object]:
        """The JSON form."""
        return {"number": self.number, "url": self.url, "label": self.label,
                "quote": self.quote, "source_ids": list(self.source_ids),
                "claims": list(self.claims),
                "evidence": [span.to_dict() for span in self.evidence]}


def chips_of(context: Context, quote_length: int = DEFAULT_QUOTE_LENGTH,
             skip: Collection[int] = (), resolved: Sequence[str | None] | None = None,
             ) -> tuple[tuple[Chip, ...], dict[str, int]]:
    """The chips for every valid citation in ``context`` (but those of the claims in
    ``skip``), and the chip number of each cited source id. ``resolved``: the id each
    citation verifies, where not ``context.resolved``.
    """
    snapshot = context.snapshot
    numbers = ChipNumbers()
    claims: list[set[int]] = []
    ids = context.resolved if resolved is None else resolved
    for citation, source_id in zip(context.answer.citations, ids, strict=True):
        if source_id is None or citation.claim in skip:
            continue
        source = snapshot.get(source_id)
        assert source is not None  # resolved ids are snapshot ids
        number = numbers.number(source)
        if number > len(claims):
            claims.append(set())
        if citation.claim is not None:
            claims[number - 1].add(citation.claim)
    firsts, members = numbers.firsts, numbers.members
    spans = _evidence_by_chip(context, numbers.chip_of, claims)
    chips = tuple(
        Chip(number, link_url(source.url), _label(source), excerpt(source.text, quote_length),
             tuple(members[number - 1]), tuple(sorted(claims[number - 1])),
             tuple(spans.get(number, ())))
        for number, source in enumerate(firsts, 1))
    return chips, numbers.chip_of


def _evidence_by_chip(context: Context, chip_of: dict[str, int], claims: list[set[int]],
                      ) -> dict[int, list[ChipEvidence]]:
    """The support judge's spans (nothing without a judge), by the chip of their passage,
    for the claims that cite that chip, in claim order.
    """
    found: dict[int, list[ChipEvidence]] = {}
    for _, judged in claim_support(context):
        judgement = judged.judgement
        for span in judgement.spans:
            number = chip_of.get(span.source_id)
            if number is not None and judged.claim in claims[number - 1]:
                found.setdefault(number, []).append(ChipEvidence(
                    judged.claim, judgement.outcome, span.source_id, span.start, span.end,
                    span.quote))
    return found


class ChipNumbers:
    """Chip numbers in first-citation order, one per passage: sources with the same link
    (:func:`link_url`) and the same text, white space aside, share a chip (a source without a
    URL is a passage of its own).
    """

    __slots__ = ("_by_key", "chip_of", "firsts", "members")

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], int] = {}
        self.chip_of: dict[str, int] = {}  # source id -> chip number
        self.firsts: list[Source] = []  # the first source cited of each chip
        self.members: list[list[str]] = []  # the source ids of each chip, as first cited

    def number(self, source: Source) -> int:
        """The chip number of ``source``, a new one for a document not cited before."""
        number = self.chip_of.get(source.id)
        if number is None:
            url = link_url(source.url)
            key = (url, " ".join(source.text.split())) if url is not None else ("", source.id)
            number = self._by_key.get(key)
            if number is None:
                number = self._by_key[key] = len(self.firsts) + 1
                self.firsts.append(source)
                self.members.append([])
            self.chip_of[source.id] = number
            self.members[number - 1].append(source.id)
        return number


def chip_for(source: Source, number: int, quote_length: int = DEFAULT_QUOTE_LENGTH) -> Chip:
    """The chip a source starts when it is the first of its document to be cited."""
    return Chip(number, link_url(source.url), _label(source),
                excerpt(source.text, quote_length), (source.id,), ())


def _label(source: Source) -> str:
    if source.label and source.label.strip():
        return " ".join(source.label.split())
    url = canonical_url(source.url)
    if url is not None:
        host = urlsplit(url).hostname
        if host:
            return host
    return f"Source {source.id}"

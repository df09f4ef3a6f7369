"""Where each unit of an answer stands: the layout and context features of the claim scorer.

The scorer (:mod:`citeaudit.core._citable`) reads a unit's own text; this module reads the
answer around it,
the way the engine reads it: the engine's segmenter gives the units (``citeaudit.core.prepare``
with every claim rule off, the same call that built ``units.jsonl``) and its list reader
(``citeaudit.core.list_items``) the lines that open a list item. From the lines of the answer
it names, for each unit:

- its line: a heading (markdown ``#``, a whole-bold line, or a short line with no finite verb
  and no closing stop standing between blank lines), a label line ("Materials:"), a table row
  (header or body), a list item and its depth, a cell of a table that lost its pipes (a run
  of short or stop-less lines), the first unit of its paragraph, a run-in title ("Scope. The
  system ..."), a lead-in ending in a colon right above a list;
- its place: the first unit of a paragraph, the first unit under a heading (the first and
  last unit of the answer are the scorer's own);
- its section: the kind of the nearest heading above ("References", "Methodology", "Plan",
  "Recommendations", "Conclusion", "Introduction", ...);
- a list item's lead-in: the nearest line above the list, its colon and what it says (a plan,
  a pointer to the answer itself, a heading, or a claim whose completions the items are),
  whether the item is bold and whether items are nested under it (then it titles a group);
- a reference block: the lines under a heading that names a reference list ("References",
  "Sources:", "See also", ...; see :func:`reference_blocks`), or a run of two or more lines
  shaped like bibliography entries.

The engine will compute these from its own reading; the scorer only adds the names.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import NamedTuple

from citeaudit.core._citable import (
    ASIDE,
    PLAN,
    SELF,
    entry_shaped,
    finite,
    lead_features,
    words_of,
)
from citeaudit.core._policy import list_items

__all__ = ["Layout", "Line", "layout", "lines_of", "reference_blocks", "section_of"]

_MD_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+\S")
_BOLD_LINE = re.compile(r"^\s*(\*\*|__)(?:(?!\*\*|__).)+\1\s*:?\s*$")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_ITEM = re.compile(r"^(\s*)(?:[-*+•‣◦]|\d{1,3}[.)]|[a-z][.)])\s+")
# The marks a heading may open with, and the words that name a reference list (each opens
# with four letters :func:`_opens_reference_word` knows); a heading may name one in longer
# words too ("Reference list", "Sources consulted", "Source(s)", "Sources (3)").
_HEAD_MARKS = r"[^\S\n]*[#>*_]{0,4}[^\S\n]*"
_LIST_NAMES = (r"references?|sources?|bibliography|works cited|citations?|further reading"
               r"|key sources|cited sources|endnotes|footnotes|see also|read more|learn more"
               r"|(?:recommended|suggested) reading|(?:useful |related )?links")
_LIST_TITLES = (r"(?:reference list|sources?(?: list| cited| consulted| used| and further "
                r"reading)|source\(s\)|" + _LIST_NAMES + r")(?:\s*\(\d{1,3}\))?")
_SECTIONS = (
    # ("Notes" too: a section's kind, though a note may be a cited claim, see _NAMES_LIST)
    ("references", re.compile(r"^[\W_]*(?:\d+[.)]?\s*)?(?:notes|" + _LIST_TITLES + r")[\W_]*$",
                              re.I)),
    ("method", re.compile(r"\b(?:method(?:s|ology)?|approach|design|protocol|framework|"
                          r"architecture|implementation|pipeline|study design|procedure|"
                          r"scope|objectives?|requirements?)\b", re.I)),
    ("plan", re.compile(r"\b(?:plan|roadmap|next steps?|timeline|milestones?|work ?plan|"
                        r"phases?|deliverables?|agenda|budget)\b", re.I)),
    ("advice", re.compile(r"\b(?:recommendations?|recommended|guidance|strategies|strategy|"
                          r"actions?|what to do|tips|best practices|implications)\b", re.I)),
    ("conclusion", re.compile(r"\b(?:conclusions?|summary|takeaways?|bottom line|tl;?dr|"
                              r"final thoughts|closing)\b", re.I)),
    ("intro", re.compile(r"\b(?:introduction|overview|background|executive|abstract|context|"
                         r"preface)\b", re.I)),
    ("limits", re.compile(r"\b(?:limitations?|caveats?|risks?|open questions|gaps?|"
                          r"uncertaint(?:y|ies)|assumptions?)\b", re.I)),
)
_OPENERS = frozenset(("the", "this", "these", "that", "those", "it", "its", "they", "we", "i",
                      "however", "thus", "so", "but", "and", "also", "yes", "no", "there"))
_LABEL_WORDS = 6
_CELL_RUN = 4  # lines: two columns by two rows at the least
_CELL_WORDS = 30
_TRAILING_MARKERS = re.compile(r"(?:\s*\[\d{1,4}\])+\s*$")
_SHORT = 12  # words: a line this short with no verb and no closing stop may be a title or cell


class Line(NamedTuple):
    """One line of the answer as its layout reads."""

    start: int
    end: int
    kind: str  # blank, heading, bold, item, table-header, table-body, table-rule, short, prose
    depth: int  # a heading's level, a list item's indentation in spaces
    text: str


def _short(text: str) -> bool:
    """A line with no finite verb and no closing stop, of a title's length."""
    stripped = text.strip().rstrip("*_ ")
    words = words_of(stripped)
    return bool(words) and len(words) <= _SHORT and stripped[-1:] not in ".!?;:," and \
        not finite(words)


def lines_of(text: str) -> list[Line]:
    """The lines of ``text``, each with the kind its layout gives it."""
    items = list_items(text)
    raw = text.split("\n")
    found: list[Line] = []
    start = 0
    for index, line in enumerate(raw):
        end = start + len(line)
        stripped = line.strip()
        heading = _MD_HEADING.match(line)
        item = _ITEM.match(line)
        if not stripped:
            kind, depth = "blank", 0
        elif heading:
            kind, depth = "heading", len(heading.group(1))
        elif stripped.startswith("|") or stripped.count("|") >= 2:
            following = raw[index + 1] if index + 1 < len(raw) else ""
            kind = "table-rule" if _TABLE_SEPARATOR.match(line) else \
                "table-header" if _TABLE_SEPARATOR.match(following) else "table-body"
            depth = 0
        elif start in items or item:
            kind, depth = "item", len(item.group(1)) if item else 0
        elif _BOLD_LINE.match(line):
            kind, depth = "bold", 0
        elif _short(stripped):
            kind, depth = "short", 0
        else:
            kind, depth = "prose", 0
        found.append(Line(start, end, kind, depth, stripped))
        start = end + 1
    return found


def section_of(title: str) -> str:
    """The kind of section a heading opens ("other" when its words name none)."""
    for name, pattern in _SECTIONS:
        if pattern.search(title):
            return name
    return "other"


def _neighbour(lines: Sequence[Line], at: int, step: int) -> Line | None:
    """The nearest non-blank line from ``at`` in direction ``step``."""
    at += step
    while 0 <= at < len(lines):
        if lines[at].kind != "blank":
            return lines[at]
        at += step
    return None


# A line that only names a reference list ("References:", "Source(s):", "works cited",
# "Sources (3)") heads one, with a colon or without, a blank line before it or none. "Notes"
# is left to the rule for short lines: a note may be a cited claim.
_NAMES_LIST = re.compile(_HEAD_MARKS + _LIST_TITLES + r"(?:[^\w\n]|_){0,6}$", re.I)
_NAMING_SIZE = 48


def _names_list(text: str) -> bool:
    """``_NAMES_LIST.match(text)``, tried only on a line of a heading's length where, past
    its marks, a word of the pattern opens (:func:`_opens_reference_word`).
    """
    size = len(text)
    if size > _NAMING_SIZE:
        return False
    at = 0
    while at < size and text[at] in " \t#>*_":
        at += 1
    return _opens_reference_word(text, at, size) and _NAMES_LIST.match(text) is not None


def _titles(lines: Sequence[Line], runs: Sequence[int], entries: _Entries) -> list[bool]:
    """Which lines are headings: markdown, whole-bold, a line that names a reference list
    (``_NAMES_LIST``; inside a run of cells, only as the run's first line), or a short line
    standing alone whose next line is prose, a list or another heading, outside a run of
    cells and not shaped like a bibliography entry (a title has something under it).
    """
    titles = []
    for at, line in enumerate(lines):
        if line.kind in ("heading", "bold") or (
                line.kind in ("short", "prose") and _names_list(line.text) and (
                    runs[at] < _CELL_RUN or not at or lines[at - 1].kind == "blank")):
            titles.append(True)
            continue
        if line.kind != "short" or runs[at] >= _CELL_RUN or entries[at]:
            titles.append(False)
            continue
        before = lines[at - 1].kind if at else "blank"
        after = _neighbour(lines, at, 1)
        titles.append(before == "blank" and after is not None and after.kind in (
            "prose", "item", "heading", "bold", "table-header"))
    return titles


def _cellish(line: Line) -> bool:
    """A line that could be a cell of a table whose pipes were lost: a title's length, or
    a few dozen words with no closing stop (a cell ends where its text ends).
    """
    if line.kind == "short":
        return True
    text = _TRAILING_MARKERS.sub("", line.text).rstrip(" *_")
    return line.kind == "prose" and len(text.split()) <= _CELL_WORDS and \
        not text.endswith((".", "!", "?", ":"))


def _cell_runs(lines: Sequence[Line]) -> list[int]:
    """For each line, the length of the run of cell-like lines (blank lines between) it is
    in: a table whose pipes were lost turns into such a run, a heading stands alone.
    """
    runs = [0] * len(lines)
    members: list[int] = []
    for at, line in enumerate([*lines, Line(0, 0, "prose", 0, "end.")]):
        if line.kind == "blank":
            continue
        if at < len(lines) and _cellish(line):
            members.append(at)
            continue
        for member in members:
            runs[member] = len(members)
        members = []
    return runs


class _Entries:
    """Which lines are shaped like a bibliography entry, each read when first asked."""

    __slots__ = ("known", "lines")

    def __init__(self, lines: Sequence[Line]) -> None:
        self.lines = lines
        self.known: dict[int, bool] = {}

    def __getitem__(self, at: int) -> bool:
        known = self.known.get(at)
        if known is None:
            line = self.lines[at]
            known = self.known[at] = line.kind != "blank" and entry_shaped(line.text)
        return known


class _Page(NamedTuple):
    lines: list[Line]
    starts: list[int]
    titles: list[bool]
    runs: list[int]
    entries: _Entries
    cites: dict[int, bool]  # by heading: whether its section cites in prose (read when asked)


def _page(text: str) -> _Page:
    lines = lines_of(text)
    runs = _cell_runs(lines)
    entries = _Entries(lines)
    return _Page(lines, [line.start for line in lines], _titles(lines, runs, entries), runs,
                 entries, {})


def _section_kind(page: _Page, title: int) -> str:
    """The kind of section the heading on line ``title`` opens: what its words name
    (:func:`section_of`), but not a reference list where a line under it cites in prose
    ("See also" then "Ibuprofen lowers fever within two hours [2]."): that is content.
    """
    kind = section_of(page.lines[title].text)
    if kind != "references":
        return kind
    cites = page.cites.get(title)
    if cites is None:
        cites = False
        at = title + 1
        while at < len(page.lines) and not page.titles[at]:
            line = page.lines[at]
            if "[" in line.text and line.kind != "blank" and not page.entries[at] and \
                    _cites_in_prose(line.text):
                cites = True
                break
            at += 1
        page.cites[title] = cites
    return "other" if cites else kind


_ID_MARK = re.compile(r"\[\d{1,4}(?:[,;–-][^\S\n]*\d{1,4})*\]")


def _cites_in_prose(text: str) -> bool:
    """Whether a line holds a numbered marker after words of its own: not an entry's id at
    the line's head ("[3] Lee, K. ..."), nor one right after a link ("https://... [2]").
    """
    for found in _ID_MARK.finditer(text):
        before = text[:found.start()].rstrip()
        if not before.strip(" \t#>*_-+•0123456789.)"):
            continue  # the line's own id, behind its bullet
        token = before.rsplit(None, 1)[-1]
        if token.startswith(("http", "www.", "<http")) or "](" in token:
            continue
        return True
    return False


def _lead_features(lead: Line | None, is_title: bool) -> list[str]:
    if lead is None:
        return ["lead:none"]
    found = []
    text = lead.text.rstrip("*_ ")
    if is_title:
        found.append("lead:heading")
    elif lead.kind == "item":
        found.append("lead:item")
    if text.endswith(":"):
        found.append("lead:colon")
    if PLAN.search(text):
        found.append("lead:plan")
    if SELF.search(text):
        found.append("lead:self")
    words = set(words_of(text))
    if words & {"include", "includes", "including", "are", "such", "were", "involve",
                "involves", "key", "common", "main", "factors", "reasons", "causes", "benefits"}:
        found.append("lead:claim")
    if words & {"we", "our", "i", "you", "your", "should", "recommend", "recommended", "will"}:
        found.append("lead:person")
    return found


def _unit_line(page: _Page, position: int) -> int:
    return bisect.bisect_right(page.starts, position) - 1


def _section(page: _Page, at: int) -> tuple[str, int]:
    """The section of line ``at`` and the line of its heading (-1 when none)."""
    probe = at - 1
    while probe >= 0:
        if page.titles[probe]:
            return _section_kind(page, probe), probe
        probe -= 1
    return "none", -1


def _in_reference_block(page: _Page, at: int, section: str) -> bool:
    if page.lines[at].kind in ("heading", "bold"):
        return False
    if section == "references":
        return True
    if not page.entries[at]:
        return False
    before, after = _neighbour_index(page, at, -1), _neighbour_index(page, at, 1)
    return (before >= 0 and page.entries[before]) or (after >= 0 and page.entries[after])


def _neighbour_index(page: _Page, at: int, step: int) -> int:
    at += step
    while 0 <= at < len(page.lines):
        if page.lines[at].kind != "blank":
            return at
        at += step
    return -1


def layout(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, ...]]:
    """The layout features of each unit ``spans`` (every unit of the answer ``text``, in
    order, as the engine's segmenter gives them).
    """
    placed = Layout(text, spans)
    return [placed.names(index) for index in range(len(spans))]


class Layout:
    """The layout of one answer, read once (its lines, titles, cells, entries), and the
    features of any of its units, worked out when asked: the engine asks only of the uncited
    units the rules leave.
    """

    __slots__ = ("lines_of_units", "page", "spans", "text")

    def __init__(self, text: str, spans: Sequence[tuple[int, int]]) -> None:
        self.text = text
        self.spans = spans
        self.page = page = _page(text)
        self.lines_of_units = [_unit_line(page, start) for start, _ in spans]

    def names(self, index: int) -> tuple[str, ...]:
        """The layout features of the unit ``spans[index]``."""
        text, spans, page, lines_of_units = self.text, self.spans, self.page, self.lines_of_units
        start, end = spans[index]
        at = lines_of_units[index]
        line = page.lines[at]
        names: list[str] = []
        # The unit is its line, no more: a title line followed by its text in one unit is
        # no heading.
        whole = end <= line.end and not text[line.start:start].strip(" \t>-*+#0123456789.)|") \
            and not text[end:line.end].strip(" *_|")
        names.append(f"line:{line.kind}")
        if page.titles[at] and whole:
            names.append("is:heading")
        elif page.titles[at]:
            names.append("in:heading")
        first_on_line = index == 0 or lines_of_units[index - 1] != at
        if first_on_line and end <= line.end and not page.titles[at] and \
                _label_line(text[start:end]):
            names.append("is:label")
        if page.runs[at] >= _CELL_RUN:
            names.append("cell")
        if end > line.end:
            names.append("lines:spans")
        if line.kind == "item":
            names.append("item:nested" if line.depth else "item:top")
            if _BOLD_LINE.match(_ITEM.sub("", line.text)):
                names.append("item:bold")
            below = _neighbour_index(page, at, 1)
            if below >= 0 and page.lines[below].kind == "item" and \
                    page.lines[below].depth > line.depth:
                names.append("item:parent")  # its items complete it: a group's title
                if _short(ASIDE.sub(" ", text[start:end]).rstrip(":")):
                    names.append("is:group")
            lead_at = _neighbour_lead(page, at)
            names.extend(_lead_features(page.lines[lead_at] if lead_at >= 0 else None,
                                        lead_at >= 0 and page.titles[lead_at]))
            if lead_at >= 0:
                names.extend(lead_features(_last_sentence(text, spans, lines_of_units, lead_at,
                                                          page.lines[lead_at])))
        first_in_line = index == 0 or lines_of_units[index - 1] != at
        last_in_line = index + 1 == len(spans) or lines_of_units[index + 1] != at
        if first_in_line and not last_in_line and line.kind == "prose":
            sentence = text[start:end]
            if _run_in(sentence):
                names.append("runin")
        if first_in_line:
            names.append("para:first" if not last_in_line else "para:only")
        if last_in_line and text[start:end].rstrip(" *_").endswith(":"):
            below = _neighbour_index(page, at, 1)
            if below >= 0 and page.lines[below].kind in ("item", "table-header", "table-body"):
                # What it says is what follows: a list's lead-in ("Options include:").
                names.append("leads:list" if len(words_of(text[start:end])) > _LABEL_WORDS
                             else "leads:list:short")
        section, heading = _section(page, at)
        names.append(f"section:{section}")
        if heading >= 0 and first_in_line and _neighbour_index(page, at, -1) == heading:
            names.append("after:heading")
        if _in_reference_block(page, at, section):
            names.append("refblock")
        return tuple(names)


def _last_sentence(text: str, spans: Sequence[tuple[int, int]], lines_of_units: Sequence[int],
                   at: int, line: Line) -> str:
    """The last unit on line ``at`` (the sentence a list completes), or the line itself (a
    markdown heading is no unit).
    """
    last = bisect.bisect_right(lines_of_units, at) - 1
    if last >= 0 and lines_of_units[last] == at:
        return text[spans[last][0]:spans[last][1]]
    return line.text


def _label_line(unit: str) -> bool:
    """A line that only names what follows ("Materials:", "**Core requirements:**"): a few
    words, no finite verb, a colon at the end.
    """
    stripped = unit.strip().strip("*_ ").rstrip("*_ ")
    words = words_of(ASIDE.sub(" ", stripped))  # "Outcomes (reported by X):" names, too
    return stripped.endswith(":") and 0 < len(words) <= _LABEL_WORDS and not finite(words)


def _run_in(sentence: str) -> bool:
    """A title run into its paragraph ("Scope definition. The system ..."): a short first
    sentence that names rather than states (no verb, no pronoun or article opening it).
    """
    lowered = words_of(sentence)
    return 0 < len(lowered) <= 8 and sentence.rstrip().endswith(".") and \
        lowered[0] not in _OPENERS and not finite(lowered) and \
        not any(w.endswith(("ed", "es")) for w in lowered[1:])


def _neighbour_lead(page: _Page, at: int) -> int:
    """The index of a list item's lead-in line, or -1."""
    depth = page.lines[at].depth
    probe = at - 1
    while probe >= 0:
        line = page.lines[probe]
        if line.kind == "blank" or (line.kind == "item" and line.depth >= depth):
            probe -= 1
            continue
        return probe
    return -1


# What a reference list shows before it is read, at the head of a line: a line naming one
# ("References", "**Sources:**", "## Works cited", "1. Key sources") or a line that opens with
# a numbered id ("[3] Lee, K. ...", "- [3] https://"). A line is matched against a pattern
# only where its first letter or its first five characters allow: most lines never are.
_NAMING = (_HEAD_MARKS + r"(?:\d+[.)]?[^\S\n]*)?(?:" + _LIST_NAMES + r")(?![^\W_])(?:[^\n]{0,30}"
           r"(?:\n|$)|[^\w\n]{0,2}:[^\S\n]*(?:\[\d{1,4}\]|\d{1,3}[.)][^\S\n]))")
# (the ids' letters case-blind would be "\u017f" and "\u212a" too: the look reads ASCII)
REFERENCES_HINT = re.compile(r"\n" + _NAMING + r"|\n\W{0,4}\[\^?(?-i:[A-Za-z_]){0,5}\d{1,4}\]"
                             r"\W{0,3}\S", re.IGNORECASE)
"""The specification of :func:`_may_hold_references` (searched in the text after a line break)."""
_NAMING_LINE = re.compile(_NAMING, re.IGNORECASE)
_NUMBERED_HEAD = re.compile(r"\W{0,4}\[\^?[A-Za-z_]{0,5}\d{1,4}\]\W{0,3}\S")


def _may_hold_references(text: str) -> bool:
    """Whether a line of ``text`` may name a reference list or open with a numbered id:
    ``REFERENCES_HINT`` searched in ``text`` after a line break, line by line. A line is
    matched against the pattern only where, past its marks, digits and blanks, a word of the
    pattern opens (:func:`_opens_reference_word`), or where a bracket comes within its first
    five characters with no letter, digit or "_" before it.
    """
    if "\n" not in text:
        return False
    chars = str.__str__(text)  # (a subclass of str is read as its str)
    size = len(chars)
    start = 0
    while True:
        at = start
        while at < size:  # past the line's marks, digits and blanks
            char = chars[at]
            if not (char in "#>*_.)0123456789 \t\r\x0b\x0c\x1c\x1d\x1e\x1f" or (
                    ord(char) > 127 and (char.isdecimal() or char.isspace()))):
                break
            at += 1
        if _opens_reference_word(chars, at, size) and _NAMING_LINE.match(chars, start):
            return True
        at = start
        while at < size and at < start + 5:  # a bracket behind no word character
            char = chars[at]
            if char == "[":
                if _NUMBERED_HEAD.match(chars, start):
                    return True
                break
            if char in "\n_" or char.isalnum():  # (a later line's bracket is its own)
                break
            at += 1
        end = chars.find("\n", start)
        if end < 0:
            return False
        start = end + 1


def _opens_reference_word(text: str, at: int, size: int) -> bool:
    """Whether the four characters at ``at`` open a word of ``REFERENCES_HINT`` ("references",
    "sources", "bibliography", "works cited", "citations", "further reading", "key sources",
    "cited sources", "endnotes", "footnotes", "see also", "read more", "learn more",
    "recommended reading", "suggested reading", "links", "useful links", "related links"),
    case-blind as the regex engine folds case ("\u017f" is an "s", "\u212a" a "k", "\u0130"
    and "\u0131" an "i").
    """
    if at + 4 > size or text[at] not in "rRsSbBwWcCfFkKeElLuU\u017f\u212a":
        return False
    first, second, third, fourth = text[at], text[at + 1], text[at + 2], text[at + 3]
    if first in "rR":  # refe(rences), read (more), reco(mmended), rela(ted links)
        return second in "eE" and ((third in "fF" and fourth in "eE") or (
            third in "aA" and fourth in "dD") or (third in "cC" and fourth in "oO") or (
            third in "lL" and fourth in "aA"))
    if first in "sS\u017f":  # sour(ces), see (also), sugg(ested reading)
        return (second in "oO" and third in "uU" and fourth in "rR") or (
            second in "eE" and third in "eE" and fourth == " ") or (
            second in "uU" and third in "gG" and fourth in "gG")
    if first in "bB":
        return second in "iI\u0130\u0131" and third in "bB" and fourth in "lL"
    if first in "wW":
        return second in "oO" and third in "rR" and fourth in "kK\u212a"
    if first in "cC":  # cita(tions), cite(d sources)
        return second in "iI\u0130\u0131" and third in "tT" and fourth in "aAeE"
    if first in "fF":  # furt(her reading), foot(notes)
        return (second in "uU" and third in "rR" and fourth in "tT") or (
            second in "oO" and third in "oO" and fourth in "tT")
    if first in "eE":  # endn(otes)
        return second in "nN" and third in "dD" and fourth in "nN"
    if first in "lL":  # lear(n more), link(s)
        return (second in "eE" and third in "aA" and fourth in "rR") or (
            second in "iI\u0130\u0131" and third in "nN" and fourth in "kK\u212a")
    if first in "uU":  # usef(ul links)
        return second in "sS\u017f" and third in "eE" and fourth in "fF"
    return first in "kK\u212a" and second in "eE" and third in "yY" and fourth == " "


_NUMBERED_LINE = re.compile(
    r"^\W{0,4}(?:\[\^?[A-Za-z_]{0,5}\d{1,4}\]:?|\d{1,3}[.)])\W{0,3}[^\W\d_]")


def reference_blocks(text: str) -> list[tuple[int, int]]:
    """The reference lists pasted or run into an answer, as ``[start, end)`` spans of their
    lines: the lines under a heading that names one ("References", "Sources:", "Works
    cited", "Endnotes", "See also", ...; with the heading or a rule right above the first
    entry, which the segmenter runs into it), runs of two or more numbered lines shaped like
    bibliography entries ("[3] Lee, K. (2017). ...", "2. https://...", "[^1]: ...", "[S2]
    ..."), and a list run into one line ("Sources: [1] https://... [2] ..."). Not the lines
    under such a heading where one of them cites in prose: that section is content. Their
    ids are not citation markers and their lines no claims. Cheap where there is none: the
    lines are read only where one may name a list or open with an id
    (:func:`_may_hold_references`).
    """
    if not _may_hold_references(text):
        return []
    page = _page(text)
    blocks: list[tuple[int, int]] = []
    firsts: list[int] = []  # the line each block opens with
    section = "none"
    for at, line in enumerate(page.lines):
        if page.titles[at]:
            section = _section_kind(page, at)
            continue
        if line.kind == "blank" or (
                _RUN_IN_LIST.match(line.text) is None and (
                    not _in_reference_block(page, at, section) or (
                        section != "references" and not _numbered_entries(page, at)))):
            continue
        if blocks and not text[blocks[-1][1]:line.start].strip():
            blocks[-1] = (blocks[-1][0], line.end)  # the same block, blank lines between
        else:
            blocks.append((line.start, line.end))
            firsts.append(at)
    # The heading or rule right above a block, with no blank line between, is the block's
    # too: the segmenter runs such a line into the first entry's sentence.
    for index, first in enumerate(firsts):
        above = page.lines[first - 1] if first else None
        if above is not None and above.kind != "blank" and (
                _RULE_LINE.match(above.text) is not None or (
                    page.titles[first - 1] and _section_kind(page, first - 1) == "references")):
            blocks[index] = (above.start, blocks[index][1])
    return blocks


# A reference list run into one line, each entry a link, a site or an author: "Sources: [1]
# https://... [2] https://...", "Learn more: 1. example.org 2. example.com"; not "Sources:
# [1], [2]" (markers) nor "Sources: [1] and [2] both report ..." (a cited claim)
_RUN_IN_LIST = re.compile(
    _HEAD_MARKS + r"(?:" + _LIST_NAMES + r")[^\w\n]{0,2}:[^\S\n]*(?:\[\d{1,4}\]|\d{1,3}[.)])"
    r"[^\S\n]*(?:https?://|www\.|[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b|(?-i:[A-Z])[\w'’-]+, "
    r"(?-i:[A-Z])\.)", re.I)
_RULE_LINE = re.compile(r"(?:-{3,}|\*{3,}|_{3,})$")


_FURTHER_PART = re.compile(r"[^\s.]{2}\.\s+[A-Z]")  # "... retail. Journal", "(2017). Title"


def _numbered_entry(line: str) -> bool:
    """A line that opens with a numbered id and goes on like a bibliography entry (a link,
    authors and a year, "et al", "doi", "pp. 4"): "[3] Lee, K. (2017). ...", "2. https://...";
    not "[1] Refunds take 30 days." nor "[1] Lee, K. reports that ..." (claims that open with
    their marker).
    """
    opened = _NUMBERED_LINE.match(line)
    if opened is None:
        return False
    rest = line[opened.end() - 1:]
    # one sentence with a finite verb and no link is a claim that opens with its marker,
    # whatever it names ("[1] Lee, K. reports that ...", "[2] Refunds take 14 days (pp.
    # 3-4)."); an entry whose title is a sentence goes on after it ("... a meta-analysis.
    # BMJ 2019.") or is a link's ("[7] https://... - How Airports Drive Growth")
    return entry_shaped(rest) and (
        "http" in rest or "www." in rest or "](" in rest or  # a link and its title
        _FURTHER_PART.search(rest) is not None or not finite(words_of(rest)))


def _numbered_entries(page: _Page, at: int) -> bool:
    """Whether line ``at`` is a numbered entry beside another one (a run of two or more)."""
    if not _numbered_entry(page.lines[at].text):
        return False
    before, after = _neighbour_index(page, at, -1), _neighbour_index(page, at, 1)
    return any(near >= 0 and _numbered_entry(page.lines[near].text) for near in (before, after))

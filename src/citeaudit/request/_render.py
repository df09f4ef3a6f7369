"""Safe rendering of a guarded answer to HTML or Markdown.

The model's text is never trusted: it is escaped (HTML by :mod:`markupsafe`), control and
bidirectional-override characters are neutralised, and nothing in it becomes a link, an image
or markup. Links come only from verified markers, through the snapshot, and only to canonical
``http``/``https`` destinations, with ``rel="noopener noreferrer"``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Literal
from urllib.parse import quote

from markupsafe import Markup, escape

from citeaudit.core import Snapshot
from citeaudit.errors import ConfigError
from citeaudit.request._chips import DEFAULT_QUOTE_LENGTH, Chip, ChipNumbers, chip_for
from citeaudit.request._guard import Guarded, Part, Policy, Ref, guard

__all__ = ["FORMATS", "StreamRenderer", "escape_markdown", "neutralise", "render",
           "render_html", "render_markdown"]

Format = Literal["html", "markdown"]
FORMATS: tuple[Format, ...] = ("html", "markdown")

_REPLACEMENT = "\ufffd"
# C0 and C1 controls (but tab and newline), and the bidirectional controls that can reorder
# what a reader sees (Trojan Source), are shown as U+FFFD; carriage returns are dropped.
_NEUTRAL: dict[int, str | None] = {
    **{code: _REPLACEMENT for code in range(0x20) if code not in (0x09, 0x0A)},
    **dict.fromkeys(range(0x7F, 0xA0), _REPLACEMENT),
    **dict.fromkeys((0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)),
                    _REPLACEMENT),
    0x0D: None, 0x2028: "\n", 0x2029: "\n\n",
}
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
# Characters that can start a link, image, autolink, raw HTML, entity, code or escape in
# CommonMark, and the triggers of GFM's extended autolinks (``www.``, ``scheme://``), are
# escaped. E-mail autolinks see through escapes, so "@" gets an invisible word joiner.
_MARKDOWN_SPECIAL = re.compile(r"[\\\[\]<>&!`]|(?<=[wW][wW][wW])\.|:(?=//)")
_WORD_JOINER = "\u2060"
_URL_SAFE = "/:?&=%@!$*+,;~-._#"
_REL = 'rel="noopener noreferrer nofollow" target="_blank"'


_NEEDS_NEUTRAL = re.compile("[" + "".join(re.escape(chr(code)) for code in _NEUTRAL) + "]")


def neutralise(text: str) -> str:
    """``text`` with control and bidirectional-override characters made harmless."""
    return text.translate(_NEUTRAL) if _NEEDS_NEUTRAL.search(text) else text


def _destination(url: str) -> str:
    """A canonical URL percent-encoded so it cannot break out of an attribute or a Markdown
    destination.
    """
    return quote(url, safe=_URL_SAFE)


def _html_text(text: str) -> str:
    paragraphs = _PARAGRAPH.split(str(escape(neutralise(text))))
    return "</p>\n<p>".join(p.replace("\n", "<br>\n") for p in paragraphs)


def _html_link(chip: Chip) -> str:
    """How a marker shows one chip: a link to its document, or its number alone."""
    label = escape(neutralise(chip.label))
    if chip.url is None:
        return f'<span class="citeaudit-ref" title="{label}">[{chip.number}]</span>'
    return (f'<a class="citeaudit-ref" href="{escape(_destination(chip.url))}" title="{label}"'
            f' {_REL}>[{chip.number}]</a>')


def _html_ref(ref: Ref, links: dict[int, str]) -> str:
    return f'<sup class="citeaudit-cite">{"".join(links[n] for n in ref.chips)}</sup>'


_HTML_HEAD = '<div class="citeaudit-answer">\n<p>'


def _html_tail(guarded: Guarded) -> str:
    """The end of the answer, then its status: stated last, as a stream knows it only then."""
    withheld = ' data-withheld="true"' if guarded.withheld else ""
    return (f'</p>\n</div>\n<div class="citeaudit-status" data-status="{guarded.status}"'
            f"{withheld} hidden></div>\n")


def render_html(guarded: Guarded) -> str:
    """The answer as an HTML fragment: the text in paragraphs with verified markers as links,
    then the list of sources.
    """
    links = {chip.number: _html_link(chip) for chip in guarded.chips}
    body = "".join(_html_text(part) if isinstance(part, str) else _html_ref(part, links)
                   for part in _trimmed(guarded.parts))
    html = [f"{_HTML_HEAD}{body}{_html_tail(guarded)}"]
    html.append(_html_sources(guarded.chips))
    return "".join(html)


def _html_sources(chips: tuple[Chip, ...]) -> str:
    html = []
    if chips:
        html.append('<ol class="citeaudit-sources">\n')
        for chip in chips:
            label = escape(neutralise(chip.label))
            head: Markup | str = label if chip.url is None else Markup(
                f'<a href="{escape(_destination(chip.url))}" {_REL}>{label}</a>')
            shown = escape(neutralise(chip.quote))  # none for a source sent without its text
            html.append(f'<li value="{chip.number}">{head}'
                        + (f' <q class="citeaudit-quote">{shown}</q>' if shown else "")
                        + "</li>\n")
        html.append("</ol>\n")
    return "".join(html)


def _trimmed(parts: tuple[Part, ...]) -> tuple[Part, ...]:
    """Parts without the blank space at the ends of the answer, adjacent text joined into one
    piece: text is escaped as served, whole, never piece by piece (removing a marker from
    ``www[2].evil.example`` leaves two pieces that are a link once joined).
    """
    joined: list[Part] = []
    for part in parts:
        if isinstance(part, str) and joined and isinstance(joined[-1], str):
            joined[-1] += part
        elif part != "":
            joined.append(part)
    parts = tuple(joined)
    if parts and isinstance(parts[0], str):
        parts = (parts[0].lstrip(), *parts[1:])
    if parts and isinstance(parts[-1], str):
        parts = (*parts[:-1], parts[-1].rstrip())
    return parts


def escape_markdown(text: str) -> str:
    """``text`` as Markdown that shows it literally: no link, image, autolink, HTML, code or
    escape survives, and control characters are neutralised.
    """
    return _markdown_text(text)


def _markdown_text(text: str) -> str:
    escaped = _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m[0], neutralise(text))
    return escaped.replace("@", "@" + _WORD_JOINER) if "@" in escaped else escaped


def _markdown_link(chip: Chip) -> str:
    if chip.url is None:
        return f"\\[{chip.number}\\]"
    return f"[\\[{chip.number}\\]](<{_destination(chip.url)}>)"


def render_markdown(guarded: Guarded) -> str:
    """The answer as Markdown: text escaped so that it creates no link, image, autolink or
    HTML; verified markers as links; then the list of sources.
    """
    links = {chip.number: _markdown_link(chip) for chip in guarded.chips}
    body = "".join(_markdown_text(part) if isinstance(part, str) else
                   "".join(links[n] for n in part.chips) for part in _trimmed(guarded.parts))
    return body + _markdown_sources(guarded.chips)


def _markdown_sources(chips: tuple[Chip, ...]) -> str:
    lines = ["", ""]
    if chips:
        lines += ["Sources:", ""]
        for chip in chips:
            label = _markdown_text(chip.label)
            head = label if chip.url is None else f"[{label}](<{_destination(chip.url)}>)"
            lines.append(f"{chip.number}. {head}: \u201c{_markdown_text(chip.quote)}\u201d"
                         if chip.quote else f"{chip.number}. {head}")
        lines.append("")
    return "\n".join(lines)


class StreamRenderer:
    """Renders what a stream settles, piece by piece, so that everything it returns, once
    :meth:`close` has returned too, equals :func:`render_html` or :func:`render_markdown` of
    the guarded whole. Text is held back only as long as what follows can change how it is
    escaped: the last two characters (Markdown's ``www.`` and ``://``), a run of white space
    (paragraphs in HTML; the end of the answer is trimmed).
    """

    def __init__(self, to: Format, snapshot: Snapshot,
                 quote_length: int = DEFAULT_QUOTE_LENGTH) -> None:
        if to not in _RENDERERS:
            raise ConfigError(f"render must be one of {', '.join(FORMATS)}, not {to!r}")
        self.format: Format = to
        self._html = to == "html"
        self._snapshot = snapshot
        self._quote_length = quote_length
        self._numbers = ChipNumbers()  # numbered as chips_of numbers the whole answer
        self._links: dict[int, str] = {}
        self._run = ""  # text of the current run not yet shown (neutralised)
        self._context = ""  # the last characters shown of the current run (for ``www.``)
        self._leading = True  # the answer's first run: its leading white space goes
        self.started = False  # whether anything was returned yet

    def take(self, text: str, refs: Sequence[tuple[int, int, Sequence[tuple[str, str]]]],
             ) -> str:
        """The rendering of ``text`` (settled plain text) whose verified markers are
        ``refs``: (start, end, [(id as written, snapshot id)]), in order.
        """
        out: list[str] = []
        position = 0
        for start, end, ids in refs:
            self._add(text[position:start])
            out.append(self._flush(final=True))
            out.append(self._ref(ids))
            self._leading = False
            position = end
        self._add(text[position:])
        out.append(self._flush(final=False))
        return self._shown("".join(out))

    def close(self, guarded: Guarded) -> str:
        """The rest: the held end of the text, then (HTML) the status and the sources."""
        rest = self._flush(final=True, last=True)
        if self._html:
            head = "" if self.started else _HTML_HEAD
            self.started = True
            return head + rest + _html_tail(guarded) + _html_sources(guarded.chips)
        return self._shown(rest) + _markdown_sources(guarded.chips)

    def _shown(self, text: str) -> str:
        if text and not self.started:
            self.started = True
            return (_HTML_HEAD if self._html else "") + text
        return text

    def _add(self, text: str) -> None:
        if not text:
            return
        text = neutralise(text)
        if self._leading:
            text = text.lstrip()
            if not text:
                return
            self._leading = False
        self._run += text

    def _flush(self, *, final: bool, last: bool = False) -> str:
        run = self._run.rstrip() if last else self._run
        if final:
            keep = len(run)
        else:
            keep = len(run.rstrip())  # white space waits for what follows it
            if not self._html:
                keep = min(keep, len(run) - 2)
        keep = max(keep, 0)
        if self._html:
            shown = _html_text(run[:keep]) if keep else ""
            self._run = run[keep:]
        else:
            full = self._context + run
            begin = len(self._context)
            stop = begin + keep
            pieces = []
            position = begin
            for match in _MARKDOWN_SPECIAL.finditer(full, begin):
                if match.start() >= stop:
                    break
                pieces.append(full[position:match.start()])
                pieces.append("\\" + match[0])
                position = match.end()
            pieces.append(full[position:stop])
            shown = "".join(pieces)
            if "@" in shown:
                shown = shown.replace("@", "@" + _WORD_JOINER)
            self._context = full[max(0, stop - 3):stop]
            self._run = run[keep:]
        if final:
            self._run, self._context = "", ""
        return shown

    def _ref(self, ids: Sequence[tuple[str, str]]) -> str:
        numbers = []
        for _, source_id in ids:
            source = self._snapshot.get(source_id)
            assert source is not None  # verified ids are snapshot ids
            number = self._numbers.number(source)
            if number not in self._links:
                chip = chip_for(self._numbers.firsts[number - 1], number, self._quote_length)
                self._links[number] = _html_link(chip) if self._html else _markdown_link(chip)
            numbers.append(number)
        links = "".join(self._links[n] for n in dict.fromkeys(numbers))
        return f'<sup class="citeaudit-cite">{links}</sup>' if self._html else links


_RENDERERS: dict[Format, Callable[[Guarded], str]] = {
    "html": render_html, "markdown": render_markdown}


def render(answer: Any, sources: Any, *, to: Format = "html", policy: Policy = "strip",
           **options: Any) -> str:
    """Guard ``answer`` (see :func:`~citeaudit.guard`) and render it; ``options`` go to
    :func:`~citeaudit.guard`.
    """
    if to not in _RENDERERS:
        raise ConfigError(f"to must be one of {', '.join(FORMATS)}, not {to!r}")
    return _RENDERERS[to](guard(answer, sources, policy=policy, **options))

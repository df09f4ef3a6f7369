"""Streaming: audit an answer while it is generated, and show only text that is settled.

:meth:`StreamAuditor.feed` returns the text that is now safe to display: the same text the
``strip`` policy serves for the whole answer, delivered as soon as later text can no longer
change it. What is held back, and why:

* a ``[`` that may still become a marker (``[1`` + ``2]``), and a ``]`` whose next character
  decides whether it is a marker or a link (``[1](...)``);
* spaces and tabs at the end, since an unverifiable marker after them takes them with it;
* a paragraph with a backtick or tilde, from that character until the paragraph ends, since
  code decides whether brackets are markers;
* the start of the answer while it may still be the refusal (a refusal cites nothing);
* for grammars other than the bracket presets, the current line.

Every unverifiable marker is removed before display. :meth:`StreamAuditor.finish` audits the
whole text once (equal to :func:`~citeaudit.audit` on it) and leaves the held-back end in
:attr:`StreamAuditor.rest`. Work per chunk is proportional to the chunk and the (bounded)
held-back text; each paragraph with code is examined once, when it ends. That per-chunk work
is :class:`~citeaudit.request._feed.Feed`, compiled from its own Python where the package is
built.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeaudit.core import (
    BracketGrammar,
    Chain,
    Check,
    Config,
    Grammar,
    GrammarSpec,
    Refusal,
    Report,
    choose_grammar,
    load_snapshot,
    run,
)
from citeaudit.request._feed import Feed
from citeaudit.request._guard import DEFAULT_FALLBACK, guarded
from citeaudit.request._render import Format, StreamRenderer, render_html, render_markdown

__all__ = ["StreamAuditor", "stream"]

_DEFAULT = Config()
_RENDER = {"html": render_html, "markdown": render_markdown}


def stream(sources: Any, *, grammar: GrammarSpec = None,
           refusal: str | Sequence[str] | None = None, config: Config | None = None,
           render: Format | None = None, checks: Sequence[Check] = ()) -> StreamAuditor:
    """A :class:`StreamAuditor` for one answer audited against ``sources``; with ``render``
    (``"html"`` or ``"markdown"``), what it returns is rendered (see :class:`StreamAuditor`).
    """
    return StreamAuditor(sources, grammar=grammar, refusal=refusal, config=config,
                         render=render, checks=checks)


class StreamAuditor(Feed):
    """Feed the answer as it arrives; display what :meth:`feed` returns; call :meth:`finish`
    at the end for the report and display :attr:`rest`.
    """

    def __init__(self, sources: Any, *, grammar: GrammarSpec = None,
                 refusal: str | Sequence[str] | None = None, config: Config | None = None,
                 render: Format | None = None, checks: Sequence[Check] = ()) -> None:
        self._config = config or _DEFAULT
        self._checks = tuple(checks)
        snapshot = load_snapshot(sources)
        renderer = None if render is None else StreamRenderer(render, snapshot)
        # What the answer is displayed under: the grammar asked for, else the snapshot's (the
        # text is not there yet); finish() audits the whole text as audit() does.
        self._asked: GrammarSpec = grammar
        chosen = choose_grammar(snapshot, grammar, self._config)
        refusals = self._config.refusals if refusal is None else Refusal.of(
            refusal, self._config.refusal_regex)
        # ``refs``: the verified markers in what is released, for the renderer.
        super().__init__(chosen, refusals, snapshot, _bracket_only(chosen), renderer=renderer,
                         refs=None if renderer is None else [])
        self.rest = ""

    def finish(self) -> Report:
        """Audit the whole answer; :attr:`rest` is then the rest of the text to display."""
        text = self._stop()
        context, report = run(text, self._snapshot, grammar=self._asked,
                              refusal=self._refusal, config=self._config,
                              checks=self._checks)
        renderer: StreamRenderer | None = self._renderer
        if context.answer.refusal:
            # Held back from the start; the guard removes every marker of a refusal.
            served = guarded(context, report, "strip", DEFAULT_FALLBACK)
            self.rest = served.text if renderer is None else _RENDER[renderer.format](served)
            return report
        self.rest = self._flush()
        if renderer is not None:
            assert self._refs is not None
            served = guarded(context, report, "strip", DEFAULT_FALLBACK)
            self.rest = renderer.take(self.rest, self._refs) + renderer.close(served)
        return report


def _bracket_only(grammar: Grammar) -> bool:
    """Whether every marker is ``[...]`` on one line (the bracket presets)."""
    if isinstance(grammar, Chain):
        return all(isinstance(g, BracketGrammar) for g in grammar.grammars)
    return isinstance(grammar, BracketGrammar)

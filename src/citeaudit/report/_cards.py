"""The failed records of the HTML report, one card each: why it failed (its findings, the
threshold it missed and the rule, or the refusal rule it broke), its tags, and each claim
beside the passages it cites; and the filters (tag, rule, free text) over the cards.

The filters are a small inline script that reads the cards' ``data-`` attributes: the data
is only ever escaped text in the page, never part of the script. Without scripts the filters
stay hidden and every card is shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from markupsafe import Markup, escape

from citeaudit.request import neutralise

__all__ = ["FILTER_SCRIPT", "cards", "filters", "why"]

PASSAGE_CHARS = 1500  # of a cited passage shown (the rest is cut, and says so)
_CUT = "\u2026"
# The refusal rule each refusal reason breaks, in words.
REFUSAL_RULES = {
    "refused an answerable question": (
        'the record is labelled "answerable": true and the answer refuses (it makes no claim'
        " to cite); a record labelled answerable fails when it refuses"),
    "answered an unanswerable question": (
        'the record is labelled "answerable": false and the answer makes claims; a record'
        " labelled unanswerable fails unless it refuses"),
}
NO_PASSAGES = ("Passages not shown: the results this report was made from do not hold them"
               " (the report of citeaudit eval --report shows each claim's cited passages).")

FILTER_SCRIPT = """(function () {
  var form = document.getElementById("filters");
  if (!form) { return; }
  var cards = Array.prototype.slice.call(document.querySelectorAll(".record[data-rules]"));
  var tag = form.elements.tag, rule = form.elements.rule, text = form.elements.text;
  var shown = document.getElementById("shown");
  function has(card, name, wanted) {
    return !wanted || JSON.parse(card.getAttribute(name)).indexOf(wanted) >= 0;
  }
  function apply() {
    var query = text.value.trim().toLowerCase(), count = 0;
    cards.forEach(function (card) {
      var show = has(card, "data-tags", tag.value) && has(card, "data-rules", rule.value) &&
        (!query || card.textContent.toLowerCase().indexOf(query) >= 0);
      card.hidden = !show;
      count += show ? 1 : 0;
    });
    shown.textContent = count + " of " + cards.length + " records shown";
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  form.hidden = false;
  apply();
})();"""

STYLE = """
[hidden]{display:none!important}#filters{position:sticky;top:0;background:#fff;padding:.5em 0;
border-bottom:1px solid #ddd;display:flex;flex-wrap:wrap;gap:1em;align-items:center}
#filters select{max-width:24em}
.why{background:#fff4f4;border-left:3px solid #c33;padding:.2em .8em;margin:.5em 0}
.tags .tag{display:inline-block;background:#eef;border-radius:3px;padding:0 .4em;margin:0 .3em
0 0}.claims{display:grid;grid-template-columns:minmax(0,2fr) minmax(0,3fr);gap:.4em 1em}
.claim-text{border-top:1px solid #eee;padding-top:.3em}.passages{border-top:1px solid #eee;
padding-top:.3em}.passage{margin:0 0 .4em;padding:.2em .6em;background:#f6f8fc;
border-left:3px solid #4a7bd0;white-space:pre-wrap}.passage .pid{font-weight:600}
.missing{color:#a60}.warn{color:#a60}
"""


def _e(text: Any) -> Markup:
    return escape(neutralise(str(text)))


def _json(values: Iterable[str]) -> Markup:
    """A list of strings for a ``data-`` attribute: JSON, escaped for the attribute."""
    return escape(json.dumps([neutralise(v) for v in values], ensure_ascii=False))


def _ratio(value: float | None) -> str:
    return "\u2014" if value is None else f"{value:.3f}"


def why(record: dict[str, Any], name: Callable[[str], str]) -> list[str]:
    """Why a record failed, one line each: its reasons as the run gave them (a refusal
    reason with the rule it breaks); from its error findings, or its status, where the
    results it came from name none.
    """
    reasons = record.get("reasons")
    if reasons:
        return [f"{reason}: {REFUSAL_RULES[reason]}" if reason in REFUSAL_RULES else reason
                for reason in map(str, reasons)]
    errors = [f for f in record.get("findings", []) if f.get("severity") == "error"]
    if errors:
        return [f"{name(f['code'])}: {f['message']}" for f in errors]
    return [f"status {record.get('status')} (the results name no other reason)"]


def _tags(record: dict[str, Any]) -> list[str]:
    return [f"{key}={value}" for key, value in sorted((record.get("tags") or {}).items())]


def _rules(record: dict[str, Any]) -> list[str]:
    """What the rule filter matches on a card: its finding codes, then the reasons that are
    not a finding's (missed thresholds, refusals, evaluators).
    """
    codes = list(dict.fromkeys(str(f["code"]) for f in record.get("findings", [])))
    others = [key for key in record.get("reason_keys", ())
              if key.split(" ", 1)[0] not in codes]
    return codes + others


def _passage(cited: dict[str, Any]) -> str:
    text = cited.get("text")
    marker = f" {_e(cited['marker'])}" if cited.get("marker") else ""
    head = f'<span class="pid">passage {_e(cited["id"])}</span>{marker}: '
    if text is None:
        return (f'<blockquote class="passage missing">{head}no such passage among the'
                " retrieved ones</blockquote>")
    shown = text if len(text) <= PASSAGE_CHARS else text[:PASSAGE_CHARS] + _CUT
    return f'<blockquote class="passage">{head}{_e(shown)}</blockquote>'


def _claims(record: dict[str, Any]) -> str:
    """Each claim beside the passages it cites; what was retrieved and not cited."""
    claims = record.get("claims")
    if claims is None:
        return f'<p class="missing">{_e(NO_PASSAGES)}</p>'
    if not claims:
        out = ['<p class="missing">The answer makes no claim, so cites no passage.</p>']
    else:
        out = ['<h4>Claims and the passages they cite</h4><div class="claims">']
    for claim in claims:
        number = claim.get("number")
        label = f"{number}. " if number is not None else "the answer as a whole: "
        cited = claim.get("cited") or []
        passages = "".join(map(_passage, cited)) or '<p class="missing">cites no passage</p>'
        out.append(f'<div class="claim-text">{_e(label)}{_e(claim.get("text", ""))}</div>'
                   f'<div class="passages">{passages}</div>')
    if claims:
        out.append("</div>")
    uncited = record.get("uncited") or []
    if uncited:
        out.append(f"<p>Retrieved and not cited: {_e(', '.join(map(str, uncited)))}</p>")
    return "".join(out)


def _exempt(record: dict[str, Any]) -> str:
    """The uncited sentences the claim policy did not ask to carry a citation: kind, score
    and the sentence (where the answer's text is at hand).
    """
    exempt = record.get("exempt") or []
    if not exempt:
        return ""
    text = record.get("answer") if isinstance(record.get("answer"), str) else None
    items = []
    for unit in exempt:
        start, end = unit["span"]
        score = "a rule" if unit.get("score") is None else f"score {unit['score']:.2f}"
        shown = f": {_e(text[start:end])}" if text is not None else f" (chars {start}-{end})"
        items.append(f'<li class="exempt"><span class="kind">{_e(unit["kind"])}</span>'
                     f" ({_e(score)}){shown}</li>")
    return ("<h4>Not asked to carry a citation</h4><ul>" + "".join(items) + "</ul>")


def cards(records: Sequence[dict[str, Any]], *, name: Callable[[str], str],
          answer: Callable[[dict[str, Any]], str],
          extra: Callable[[dict[str, Any]], str]) -> str:
    """The failed records' cards (``answer``: the answer marked up; ``extra``: what else a
    card shows, after its claims).
    """
    out = []
    for number, record in enumerate(records):
        metrics = record.get("metrics") or {}
        tags = _tags(record)
        out.append(
            f'<div class="record" id="record-{number}" data-tags="{_json(tags)}"'
            f' data-rules="{_json(_rules(record))}"><h3>{_e(record["id"])}'
            f' <small>({_e(record["place"])}, status {_e(record["status"])}, precision'
            f' {_ratio(metrics.get("precision"))}, recall {_ratio(metrics.get("recall"))})'
            "</small></h3>")
        if tags:
            out.append('<p class="tags">tags: ' + "".join(
                f'<span class="tag">{_e(tag)}</span>' for tag in tags) + "</p>")
        out.append('<div class="why"><h4>Why it failed</h4><ul>' + "".join(
            f'<li class="fail">{_e(line)}</li>' for line in why(record, name)) + "</ul></div>")
        if record.get("findings"):
            out.append("<h4>Findings</h4><ul>" + "".join(
                f'<li class="{"fail" if f["severity"] == "error" else "warn"}">'
                f'{_e(name(f["code"]))} {_e(f["severity"])}: {_e(f["message"])}</li>'
                for f in record["findings"]) + "</ul>")
        if "answer" in record:
            out.append(answer(record))
        out.append(_claims(record))
        out.append(_exempt(record))
        out.append(extra(record))
        out.append("</div>")
    return "".join(out)


def filters(records: Sequence[dict[str, Any]], name: Callable[[str], str]) -> str:
    """The filter form over the cards: hidden until the script shows it."""
    tags = sorted({tag for record in records for tag in _tags(record)})
    rules = list(dict.fromkeys(rule for record in records for rule in _rules(record)))
    rules.sort()

    def options(values: list[str], shown: Callable[[str], str]) -> str:
        return "".join(f'<option value="{_e(v)}">{_e(shown(v))}</option>' for v in values)

    return ('<form id="filters" hidden><label>tag <select name="tag"><option value="">any'
            f"</option>{options(tags, str)}</select></label><label>rule <select name=\"rule\">"
            f'<option value="">any</option>{options(rules, name)}</select></label><label>text'
            ' <input name="text" type="search" placeholder="id, claim, passage, reason">'
            '</label><span id="shown" aria-live="polite"></span></form>')

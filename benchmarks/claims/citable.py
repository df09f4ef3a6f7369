"""Which uncited units need a citation, read from what they say.

A unit (a sentence, a list item, a title line) that carries no marker gets a *citability*:
the probability that a careful reader would ask "says who?" of it (the claim guide,
``CLAIMS.md``, says which units are citable). It is a logistic model over features of the
unit's content, trained on labelled units of real answers (this folder) and kept as data
(``model.json``); the engine will read it from the package once the claim policy is wired
to it:

- its words and its opening words (what it talks about, and how it starts: "I would", "Here
  are", "This report");
- specificity: amounts, capitalised names inside the sentence, numbers, technical words
  (long or mixed-case tokens), quotations;
- person and mood: first and second person, modal verbs, imperatives, questions;
- shape: length, final punctuation, emphasis, title case, a line of its own, a URL, the shape
  of a bibliography entry (``Lee, K.``, ``(2017).``, ``et al.``, ``doi``, ``Available:``);
- place: the first or last unit of the answer, the unit before ending in a colon;
- overlap with the retrieved passages: a unit that restates a passage needs its marker.

A unit that states an amount is always citable (CA302), whatever the model says, unless it
has the shape of a bibliography entry (a year, pages, a URL). An exempted
unit gets the kind the second model of the file finds likeliest (``pleasantry``, ``meta``,
``question``, ``disclaimer``, ``platitude``, ``announcement``, ``heading``, ``fragment``,
``reference``, ``advice``). What it cannot see: whether a claim is true, whether it is common
knowledge to the reader, what the question asked, and anything further away than the units
next to it.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from citeaudit.core._amounts import states_amount

__all__ = ["KINDS", "Citability", "Model", "Unit", "citability", "features", "load_model",
           "states_figure", "unit_at"]

KINDS = ("pleasantry", "meta", "question", "disclaimer", "platitude", "announcement", "heading",
         "fragment", "reference", "advice")

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_TOKEN = re.compile(r"\S+")
_DIGIT = re.compile(r"\d")
_URL = re.compile(r"https?://|www\.|\b[a-z0-9-]+\.(?:com|org|net|gov|edu|io)\b", re.IGNORECASE)
_REFERENCE = re.compile(
    r"\b[A-Z][a-z]+, (?:[A-Z]\.\s?){1,3}|\(\d{4}[a-z]?\)|\bet al\b|\bdoi\b|\bISBN\b|\bpp?\. ?\d"
    r"|\b(?:Available|Retrieved|Accessed)(?: from| at| on)?:?\s|\bVol\. ?\d|\bNo\. ?\d"
    r"|^\s*\[?\d{1,3}[\].]\s+[A-Z][^.]{0,80}\.\s")
_QUOTE = re.compile(r"[\"“”«»]")
_BULLET = re.compile(r"^\s*(?:[-*+•‣◦]|\d{1,3}[.)])\s+")
_EMPHASIS = re.compile(r"^\s*(?:\*\*|__)")
_FIRST = frozenset(("i", "i'm", "i’m", "i've", "i'd", "i'll", "me", "my", "mine", "we", "we're",
                    "we've", "our", "us", "let's"))
_SECOND = frozenset(("you", "your", "you're", "you'll", "you've", "yours", "yourself"))
_MODAL = frozenset(("may", "might", "could", "would", "should", "can", "must", "perhaps",
                    "possibly", "likely", "probably"))
_SMALL = frozenset(("a", "an", "the", "of", "and", "or", "in", "on", "for", "to", "with", "at",
                    "by", "from", "vs", "as", "is", "are"))


class Unit(NamedTuple):
    """One uncited unit with what surrounds it."""

    text: str
    before: str = ""  # the unit before it ("" at the start)
    after: str = ""  # the unit after it ("" at the end)
    alone: bool = False  # the unit is a whole line of the answer
    blank_after: bool = False  # a blank line (or the end) follows its line


def unit_at(answer: str, start: int, end: int, before: str = "", after: str = "") -> Unit:
    """The unit ``answer[start:end]`` with where it stands on its lines."""
    line_start = answer.rfind("\n", 0, start) + 1
    line_end = answer.find("\n", end)
    line_end = len(answer) if line_end < 0 else line_end
    alone = not answer[line_start:start].strip(" \t>-*+#0123456789.)") and \
        not answer[end:line_end].strip()
    rest = answer[line_end + 1:]
    blank_after = line_end >= len(answer) or not rest.split("\n", 1)[0].strip()
    return Unit(answer[start:end], before, after, alone, blank_after)


class Citability(NamedTuple):
    """The decision on one unit: its score, whether it needs a citation, and why."""

    score: float  # the probability that a reader would want it sourced
    citable: bool
    kind: str  # why: "figure", "entity", "passage N", "claim" when citable; else a KINDS kind


def _bucket(value: int, bounds: Sequence[int]) -> int:
    for index, bound in enumerate(bounds):
        if value <= bound:
            return index
    return len(bounds)


def features(unit: Unit, passage_words: Sequence[frozenset[str]] = ()) -> list[str]:
    """The names of the features of ``unit`` that are on (its words and shapes; see the
    module's docstring). ``passage_words``: the content words of each retrieved passage.
    """
    raw = unit.text
    text = _EMPHASIS.sub("", _BULLET.sub("", raw)).strip()
    found: list[str] = ["bias"]
    if _BULLET.match(raw):
        found.append("bullet")
    if _EMPHASIS.match(raw) or (text.endswith(("**", "__")) and len(text) < 120):
        found.append("emphasis")
    tokens = _TOKEN.findall(text)
    words = [w.lower() for w in _WORD.findall(text)]
    found.append(f"len:{_bucket(len(tokens), (1, 2, 4, 7, 12, 20, 35))}")
    found.extend(f"w:{w}" for w in set(words))
    if words:
        found.append(f"o1:{words[0]}")
        if len(words) > 1:
            found.append(f"o2:{words[0]}_{words[1]}")
    last = text.rstrip("*_ )\"'”’")[-1:] if text else ""
    found.append("end:" + {".": "stop", ":": "colon", "?": "question", "!": "bang",
                           ";": "semi", ",": "comma"}.get(last, "none"))
    if "\n" in raw.strip():
        found.append("lines")
    if unit.alone:
        found.append("alone" + (":blank" if unit.blank_after else ""))
    if states_amount(text):
        found.append("amount")
    elif _DIGIT.search(text):
        found.append("digit")
    names = sum(1 for t in tokens[1:] if t[:1].isupper() and t.lower().strip(".,;:()") not in
                _SMALL)
    found.append(f"names:{_bucket(names, (0, 1, 3))}")
    capitalised = sum(1 for t in tokens if t[:1].isupper())
    if len(tokens) >= 2 and capitalised >= 0.6 * len(tokens) and last not in ".!?":
        found.append("title")
    if any(len(t) >= 4 and any(c.isupper() for c in t[1:]) for t in tokens):
        found.append("mixedcase")
    if sum(len(w) >= 11 for w in words) >= 2:
        found.append("longwords")
    pronouns = set(words)
    if pronouns & _FIRST:
        found.append("person:first")
    if pronouns & _SECOND:
        found.append("person:second")
    if pronouns & _MODAL:
        found.append("modal")
    if _URL.search(text):
        found.append("url")
    if _REFERENCE.search(text):
        found.append("reference")
    if _QUOTE.search(text):
        found.append("quote")
    if "|" in text:
        found.append("table")
    before = unit.before.rstrip("*_ ")
    if not unit.before:
        found.append("place:first")
    elif before.endswith(":"):
        found.append("after:colon")
    if not unit.after:
        found.append("place:last")
    if passage_words and words:
        content = {w for w in words if len(w) > 3}
        if content:
            best = max(len(content & p) for p in passage_words) / len(content)
            found.append(f"overlap:{_bucket(int(best * 10), (1, 3, 5, 7))}")
    return found


class Model(NamedTuple):
    """The shipped weights: one logistic model for citability, one softmax over KINDS."""

    weights: dict[str, float]
    kinds: dict[str, tuple[float, ...]]
    threshold: float  # the balanced preset's

    def score(self, names: Iterable[str]) -> float:
        """The probability that a unit with these features is citable."""
        weights = self.weights
        total = sum(weights.get(name, 0.0) for name in names)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))

    def kind(self, names: Iterable[str]) -> str:
        """The not-citable kind likeliest for a unit with these features."""
        sums = [0.0] * len(KINDS)
        kinds = self.kinds
        for name in names:
            row = kinds.get(name)
            if row is not None:
                for index, weight in enumerate(row):
                    sums[index] += weight
        return KINDS[max(range(len(KINDS)), key=sums.__getitem__)]


@functools.cache
def load_model() -> Model:
    """The model shipped with the package."""
    data = json.loads((Path(__file__).with_name("model.json")).read_text(encoding="utf-8"))
    return Model(dict(data["weights"]), {k: tuple(v) for k, v in data["kinds"].items()},
                 float(data["threshold"]))


def citability(unit: Unit, passage_words: Sequence[frozenset[str]] = (),
               threshold: float | None = None, model: Model | None = None) -> Citability:
    """Whether ``unit`` needs a citation (score at least ``threshold``, default the model's
    balanced one), and why. A unit stating an amount always does.
    """
    model = model or load_model()
    names = features(unit, passage_words)
    score = model.score(names)
    if states_figure(names):
        return Citability(score, True, "figure")
    if score >= (model.threshold if threshold is None else threshold):
        return Citability(score, True, _reason(names))
    return Citability(score, False, model.kind(names))


def states_figure(names: Sequence[str]) -> bool:
    """Whether a unit with these features states an amount outside a bibliography entry's
    shape (its year, its pages and its URL state nothing): such a unit is always citable.
    """
    return "amount" in names and "reference" not in names and "url" not in names


def _reason(names: Sequence[str]) -> str:
    overlap = [n for n in names if n.startswith("overlap:")]
    if overlap and overlap[0] >= "overlap:3":
        return "passage"
    if any(n.startswith("names:") and n != "names:0" for n in names):
        return "entity"
    return "claim"

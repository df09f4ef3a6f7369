"""Quantities stated in text, normalised so that the same amount matches however it is written:
``87%`` ~ ``87 percent`` ~ ``0.87``, ``1,200`` ~ ``1200``, ``30 days`` ~ ``thirty days``,
``1.2 million`` ~ ``1,200,000``, ``2 weeks`` ~ ``14 days``, ``$30`` ~ ``30 dollars``,
``March 3, 2024`` ~ ``2024-03-03``.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from typing import Any, NamedTuple

import re2

from citeaudit.core import without_identifiers

__all__ = ["Quantity", "consistent", "contradicted", "matches", "quantities", "value_key"]


class Quantity(NamedTuple):
    """One amount: its value (a percentage as a fraction), kind and unit, as written."""

    value: float
    kind: str  # number, percent, money, date
    unit: str | None  # canonical unit or currency; None when none is written
    text: str
    start: int = -1  # where it is written in the text it was found in (-1: not known)


_ONES = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
         "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
         "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
         "eighteen": 18, "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
           "k": 1e3, "m": 1e6, "mn": 1e6, "bn": 1e9}
_CURRENCIES = {"$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "€": "EUR",
               "eur": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP",
               "pound": "GBP", "pounds": "GBP", "¥": "JPY", "jpy": "JPY", "yen": "JPY"}
# Units, each to a canonical unit and a factor into it.
_UNITS = {
    "second": ("second", 1), "seconds": ("second", 1), "sec": ("second", 1),
    "minute": ("second", 60), "minutes": ("second", 60), "min": ("second", 60),
    "hour": ("second", 3600), "hours": ("second", 3600), "hr": ("second", 3600),
    "hrs": ("second", 3600),
    "day": ("day", 1), "days": ("day", 1), "week": ("day", 7), "weeks": ("day", 7),
    "month": ("month", 1), "months": ("month", 1), "year": ("month", 12),
    "years": ("month", 12),
    "km": ("metre", 1000), "kilometre": ("metre", 1000), "kilometres": ("metre", 1000),
    "kilometer": ("metre", 1000), "kilometers": ("metre", 1000), "m": ("metre", 1),
    "metre": ("metre", 1), "metres": ("metre", 1), "meter": ("metre", 1),
    "meters": ("metre", 1), "cm": ("metre", 0.01), "mm": ("metre", 0.001),
    "kg": ("gram", 1000), "kilogram": ("gram", 1000), "kilograms": ("gram", 1000),
    "g": ("gram", 1), "gram": ("gram", 1), "grams": ("gram", 1),
    "mile": ("mile", 1), "miles": ("mile", 1),
    "employee": ("employee", 1), "employees": ("employee", 1),
}
_MONTHS = {name: number for number, names in enumerate(
    (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
     ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
     ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")), 1) for name in names}

_WORD = "|".join(sorted([*_ONES, *_TENS], key=len, reverse=True))
_ONE = "|".join(sorted(_ONES, key=len, reverse=True))
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
# RE2 (linear, and fast on alternations): the finders run over every cited passage.
# Groups: 1-3 ISO date, 4-6 "March 3, 2024", 7-9 "3 March 2024", 10-11 "March 2024".
_DATE = re2.compile(
    rf"(?i)\b(?:(\d{{4}})-(\d{{1,2}})-(\d{{1,2}})"
    rf"|({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})"
    rf"|(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\.?,?\s+(\d{{4}})"
    rf"|({_MONTH})\.?\s+(\d{{4}}))\b")
# Python's re on digits (a digit-first pattern is fast); RE2 for number words.
# A number ends at a word boundary, or at a scale letter right after it ("$1.5M", "2bn").
# The first digit opens the pattern, and the lookbehind comes after it (a pattern opening with
# a lookbehind is tried at every character: twice as slow on a passage). Group 1 is
# \d{1,3}(?:,\d{3})+ or \d+, not after a word character, a full stop or a comma.
_DIGITS = re.compile(r"(\d(?<![\w.,]\d)(?:\d{0,2}(?:,\d{3})+|\d*))(\.\d+)?"
                     r"(?=(?:[kKmM]|[bBmM][nN])?(?!\w))")
_NUMBER_WORDS = re2.compile(rf"(?i)\b((?:{_WORD})(?:[- ](?:{_ONE}))?)\b")
_SIGNS = "$€£¥"
_AFTER = re.compile(
    r"\s*(?:(?P<percent>%|percent\b|per\s+cent\b)|(?P<scale>hundred|thousand|million|billion|"
    r"trillion|k|mn|m|bn)\b)?\s*(?:(?P<business>business|calendar|working)\s+)?"
    r"(?P<unit>[a-z€£$¥]+)?", re.IGNORECASE)


def _date(match: Any) -> Quantity:
    group = match.group
    if group(1):
        year, month, day = int(group(1)), int(group(2)), int(group(3))
    elif group(4):
        year, month, day = int(group(6)), _MONTHS[group(4).lower()], int(group(5))
    elif group(7):
        year, month, day = int(group(9)), _MONTHS[group(8).lower()], int(group(7))
    else:
        year, month, day = int(group(11)), _MONTHS[group(10).lower()], 0
    return Quantity(year * 10_000 + month * 100 + day, "date", None, group(0), match.start())


def quantities(text: str) -> list[Quantity]:
    """Every amount stated in ``text``, in order of kind (dates, digits, words); digits that
    name something (``GPT-4``, ``Stage 3``: :mod:`citeaudit.core._amounts`) are no amount.
    """
    found: list[Quantity] = []
    text = without_identifiers(text)
    numbers = [(m.start(1), m.end(), m.group(1), m.group(2)) for m in _DIGITS.finditer(text)]
    taken: list[tuple[int, int]] = []
    if any(len(digits) == 4 for _, _, digits, _ in numbers):  # every date has a year
        for match in _DATE.finditer(text):
            found.append(_date(match))
            taken.append(match.span())
    date = 0  # the dates and the numbers are both in text order: one walk over the dates
    for first, end, digits, decimals in numbers:
        while date < len(taken) and taken[date][1] <= first:
            date += 1
        if date < len(taken) and taken[date][0] <= first:
            continue  # a date's digits
        sign = None
        start = first
        before = text[max(first - 2, 0):first].rstrip(" ")
        if before and before[-1] in _SIGNS:
            sign = before[-1]
            start = text.rindex(sign, 0, first)
        value = float(digits.replace(",", "") + (decimals or ""))
        found.append(_quantity(text, start, end, value, sign))
    # RE2 straight away: its scan of a passage (~4 us a kB) costs less than any test for a
    # number word first (20 substring tests, ~20 us a kB).
    for match in _NUMBER_WORDS.finditer(text):
        word_value = _word_value(match.group(1))
        if word_value is not None:
            found.append(_quantity(text, match.start(1), match.end(), word_value, None))
    return found


def _quantity(text: str, start: int, end: int, value: float, sign: str | None) -> Quantity:
    """The amount at ``start:end``, with what follows it: percent, scale, unit, currency."""
    after = _AFTER.match(text, end)
    assert after is not None  # every part of it is optional: it always matches
    percent, scale, _, written = after.groups()
    currency = _CURRENCIES.get(sign or "")
    kind, unit = "number", None
    if percent:
        kind, value = "percent", value / 100
        end = after.end("percent")
    else:
        if scale:
            scale = scale.lower()
            if scale != "m" or sign:  # "5 m" is metres unless it is money
                value *= _SCALES[scale]
            else:
                unit = "metre"
            end = after.end("scale")
        word = (written or "").lower() if unit is None else ""
        if word in _CURRENCIES:
            currency = _CURRENCIES[word]
            end = after.end()
        elif word in _UNITS:
            unit, factor = _UNITS[word]
            value *= factor
            end = after.end()
    if currency is not None:
        kind, unit = "money", currency
    return Quantity(value, kind, unit, text[start:end], start)


def _word_value(words: str) -> float | None:
    parts = re.split(r"[- ]", words.lower())
    total = 0
    for part in parts:
        if part in _TENS:
            total += _TENS[part]
        elif part in _ONES:
            total += _ONES[part]
        else:
            return None
    if len(parts) == 1 and parts[0] == "one":
        return None  # "one of the", "one day": too often not a stated amount
    return float(total)


@functools.lru_cache(maxsize=65_536)  # amounts repeat; formatting one costs ten lookups
def value_key(value: float) -> float:
    """The value to index an amount by: equal amounts (within :func:`matches`'s tolerance,
    but for values that straddle a rounding step) share a key.
    """
    return float(f"{value:.9g}")


def matches(claim: Quantity, stated: Iterable[Quantity]) -> bool:
    """Whether the passage states the claim's amount (same value; compatible kind and unit)."""
    for quantity in stated:
        if not math.isclose(claim.value, quantity.value, rel_tol=1e-9, abs_tol=1e-12):
            continue
        if claim.kind == "date" or quantity.kind == "date":
            if claim.kind == quantity.kind:
                return True
            continue
        if claim.unit is not None and quantity.unit is not None and claim.unit != quantity.unit:
            continue
        if claim.kind == "percent" and quantity.kind not in ("percent", "number"):
            continue
        return True
    return False


def _date_parts(quantity: Quantity) -> tuple[int, int, int] | None:
    """(year, month, day) of a date, or of a plain number that reads as a year; 0: not said."""
    if quantity.kind == "date":
        value = int(quantity.value)
        return value // 10_000, value // 100 % 100, value % 100
    if quantity.kind == "number" and quantity.unit is None and quantity.value.is_integer() \
            and 1000 <= quantity.value <= 2100:
        return int(quantity.value), 0, 0
    return None


def consistent(claim: Quantity, stated: Iterable[Quantity]) -> bool:
    """Whether a passage states the claim's date at least as precisely, and the same (a year
    within a full date, a month within a day of it).
    """
    wanted = _date_parts(claim)
    if wanted is None:
        return False
    for quantity in stated:
        parts = _date_parts(quantity)
        if parts is None or parts[0] != wanted[0]:
            continue
        if all(w in (0, p) for w, p in zip(wanted[1:], parts[1:], strict=True)):
            return True
    return False


def contradicted(claim: Quantity, stated: Iterable[Quantity]) -> bool:
    """Whether a passage states a different amount of the same kind: the same unit or
    currency, a percentage, a date. A plain number with no unit is compared with nothing (a
    passage's other numbers count other things); its absence only weakens the support.
    """
    if claim.kind == "number" and claim.unit is None:
        return False
    for quantity in stated:
        if quantity.kind != claim.kind:
            continue
        if claim.kind == "date" or claim.unit == quantity.unit:
            return True
    return False

"""The layout the claim scorer reads, on answers split by the engine's own segmenter.

    python -m pytest -q benchmarks/claims/test_layout.py
"""

from __future__ import annotations

import pytest

from citeaudit.core import Config, prepare
from citeaudit.core._citable import Unit, citability, features, load_model, unit_at
from citeaudit.core._layout import layout


def _read(text: str) -> dict[str, tuple[str, ...]]:
    """Each unit's text with its layout names, the units as the engine splits ``text``."""
    context = prepare(text, {"1": ""}, config=Config(not_citable=frozenset(), claims="strict"))
    spans = [claim.span for claim in context.answer.claims]
    return {text[start:end]: names for (start, end), names in zip(spans, layout(text, spans),
                                                                   strict=True)}


def _scored(text: str, unit: str) -> tuple[bool, str]:
    """Whether the shipped scorer flags ``unit`` of the answer ``text``, and its kind."""
    context = prepare(text, {"1": ""}, config=Config(not_citable=frozenset(), claims="strict"))
    spans = [claim.span for claim in context.answer.claims]
    names = dict(zip(spans, layout(text, spans), strict=True))
    start = text.index(unit)
    end = start + len(unit)
    decided = citability(unit_at(text, start, end)._replace(layout=names[(start, end)]))
    return decided.citable, decided.kind


@pytest.mark.parametrize("title", [
    "**Report on Harbour Safety**",
    "__Tidal Patterns of the North Sea__",
    "Background literature survey and open datasets",
])
def test_a_title_line_is_a_heading(title: str) -> None:
    text = f"{title}\n\nThe harbour handled 40 ships a day in 2019. Most of them were ferries.\n"
    assert "is:heading" in _read(text)[title]


def test_a_title_run_into_its_text_is_no_heading() -> None:
    # One unit holding the title line and the sentence under it is a sentence.
    text = "**Summary:**\nThe trophy was presented in Bogotá on April 28, 2016.\n"
    names = next(iter(_read(text).values()))
    assert "is:heading" not in names
    assert "lines:spans" in names


def test_cells_of_a_table_that_lost_its_pipes_are_no_headings() -> None:
    text = ("The table below lists the datasets.\n\nDataset\n\nModality\n\nSize\n\n"
            "GrainSet\n\nRGB images of single kernels\n\nabout 350K images\n\n"
            "WheatSeed3D\n\nMulti-view images and point clouds\n\n2964 seeds\n")
    read = _read(text)
    for cell in ("Modality", "RGB images of single kernels", "Multi-view images and point clouds"):
        assert "cell" in read[cell]
        assert "is:heading" not in read[cell]


@pytest.mark.parametrize(("lead", "says"), [
    ("Common symptoms of the disease include:", "lead:says:claim"),
    ("We will first compare:", "lead:says:plan"),
    ("**Symptoms**", "lead:says:title"),
])
def test_a_list_item_reads_its_lead_in(lead: str, says: str) -> None:
    text = f"{lead}\n\n- night sweats\n- a dry cough that lasts for weeks\n"
    read = _read(text)
    for item in ("night sweats", "a dry cough that lasts for weeks"):
        assert "line:item" in read[item]
        assert says in read[item]


def test_a_lead_in_right_above_a_list_is_named() -> None:
    text = "The plan has three parts:\n\n- survey the site\n- build the dam\n"
    assert "leads:list:short" in _read(text)["The plan has three parts:"]


def test_a_bold_item_with_items_under_it_titles_its_group() -> None:
    text = ("- **Air service and traffic**\n  - Passenger numbers rose by a fifth.\n"
            "- **Severe dysphagia**\n")
    read = _read(text)
    assert "is:group" in read["**Air service and traffic**"]
    assert "is:group" not in read["**Severe dysphagia**"]


@pytest.mark.parametrize("heading", ["References", "## Sources", "**Bibliography**"])
def test_lines_under_a_references_heading_are_a_reference_block(heading: str) -> None:
    text = (f"Tides follow the moon.\n\n{heading}\n\n"
            "Lee, K. (2020). Tides and the moon. Ocean Press.\n\n"
            "Moon tables for sailors. Harbour Office.\n")
    read = _read(text)
    assert "refblock" in read["Moon tables for sailors."]
    assert "section:references" in read["Moon tables for sailors."]
    assert "refblock" not in read["Tides follow the moon."]


def test_a_run_of_entries_is_a_reference_block_and_a_sentence_with_a_url_is_not() -> None:
    # The entries stand last: a short line with nothing under it is no title either.
    text = ("Ferry traffic across the strait fell by 12% in 2021 as two operators cut their "
            "winter timetables https://example.org/ferries/2021-report.\n\n"
            "[1] https://example.org/tides\n\n[2] https://example.org/moon\n")
    read = _read(text)
    entries = [names for unit, names in read.items() if unit.startswith("[")]
    assert entries
    assert all("refblock" in names and "is:heading" not in names for names in entries)
    sentence = next(names for unit, names in read.items() if unit.startswith("Ferry"))
    assert "refblock" not in sentence


def test_layout_rules_exempt_and_amounts_still_win() -> None:
    text = ("**Harbour Safety**\n\n**Phase 0 — readiness (2–6 weeks)**\n\n"
            "The harbour handled ships.\n\nReferences\n\n"
            "Lee, K. (2020). Tides, 3rd edition, 240 pages.\n")
    assert _scored(text, "**Harbour Safety**") == (False, "heading")
    assert _scored(text, "**Phase 0 — readiness (2–6 weeks)**")[0]  # it states an amount
    assert _scored(text, "Lee, K. (2020).")[0] is False


def test_the_kind_models_words_are_left_out_of_the_score_only() -> None:
    unit = Unit("I hope this helps you plan the trip!")
    with_words = set(features(unit))
    without = set(features(unit, bag=False))
    assert with_words - without == {n for n in with_words if n.startswith(("w:", "o2:"))}
    assert with_words - without
    model = load_model()
    assert model.score(with_words) == pytest.approx(model.score(without))

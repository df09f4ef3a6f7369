"""Snapshot shapes, validation with JSON paths, numbering and fingerprints."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citeaudit
from citeaudit import Snapshot, SnapshotError, Source, load_snapshot
from thorough import examples


def test_sources_shape() -> None:
    snapshot = load_snapshot({"sources": [
        {"id": "a", "text": "one", "url": "https://x.example", "title": "A", "score": 0.5},
        {"id": "b", "text": "two", "rank": 2, "metadata": {"k": 1}},
    ]})
    assert snapshot.ids == ("a", "b")
    assert snapshot.get("a") == Source("a", "one", "https://x.example", "A", 0.5)
    assert snapshot.get("b") is not None
    assert snapshot.get("b").rank == 2  # type: ignore[union-attr]
    assert snapshot.numbering is None


def test_list_shape_is_numbered_one_based() -> None:
    snapshot = load_snapshot([
        "plain passage",
        {"text": "object passage", "source_url": "https://hr.example/policy",
         "section": "Reimbursement"},
    ])
    assert snapshot.ids == ("1", "2")
    assert snapshot.numbered
    second = snapshot.get("2")
    assert second is not None
    assert (second.url, second.label) == ("https://hr.example/policy", "Reimbursement")


def test_mapping_shape() -> None:
    snapshot = load_snapshot({"1": "a", "2": {"text": "b", "label": "B"}})
    assert snapshot.ids == ("1", "2")
    assert snapshot.numbered


@pytest.mark.parametrize(("ids", "numbering"), [
    (["1", "2", "3"], ("", 3)),
    (["S1", "S2"], ("S", 2)),
    (["doc_1", "doc_2", "doc_3"], ("doc_", 3)),
    (["eval-note-1", "eval-note-2"], ("eval-note-", 2)),
    (["doc_1", "doc_3"], None),
    (["2", "1"], None),
    (["a", "b"], None),
    (["doc_1", "file_2"], None),
])
def test_numbering(ids: list[str], numbering: tuple[str, int] | None) -> None:
    snapshot = load_snapshot({"sources": [{"id": i, "text": i} for i in ids]})
    assert snapshot.numbering == numbering


@pytest.mark.parametrize("count", [5, 1024, 1025, 3000])
def test_numbering_of_large_snapshots(count: int) -> None:
    # Past 1,024 passages the ids are compared without being kept between snapshots.
    strings = load_snapshot([f"passage {n}" for n in range(count)])
    assert strings.numbering == ("", count)
    assert strings.ids[-1] == str(count)
    ids = [f"S{n}" for n in range(1, count + 1)]
    assert load_snapshot({"sources": [{"id": i, "text": i} for i in ids]}).numbering == \
        ("S", count)
    ids[-2] = "S0"
    assert load_snapshot({"sources": [{"id": i, "text": i} for i in ids]}).numbering is None


def test_empty_snapshot_is_allowed() -> None:
    assert len(load_snapshot([])) == 0
    assert len(load_snapshot({"sources": []})) == 0


def test_fingerprint_depends_on_ids_and_texts() -> None:
    base = load_snapshot({"a": "xy", "b": "z"})
    assert base.fingerprint.startswith("sha256:")
    assert base.fingerprint == load_snapshot({"a": "xy", "b": "z"}).fingerprint
    assert base.fingerprint != load_snapshot({"a": "x", "b": "yz"}).fingerprint
    assert base.fingerprint != load_snapshot({"a": "xy", "c": "z"}).fingerprint


class _Text(str):
    """A caller's own string type: a snapshot keeps it as it is given."""


@pytest.mark.parametrize("texts", [("a", "xy"), ("é", "東京 \udfff")], ids=["ascii", "non-ascii"])
def test_fingerprint_of_str_subclasses(texts: tuple[str, str]) -> None:
    given, text = texts
    plain = load_snapshot({"sources": [{"id": given, "text": text}, {"id": "b", "text": ""}]})
    subclassed = load_snapshot({"sources": [{"id": _Text(given), "text": _Text(text)},
                                            {"id": _Text("b"), "text": _Text("")}]})
    assert type(subclassed.sources[0].id) is _Text  # not copied to str on the way in
    assert type(subclassed.sources[0].text) is _Text
    assert subclassed.fingerprint == plain.fingerprint


def test_snapshot_passes_through() -> None:
    snapshot = load_snapshot(["a"])
    assert load_snapshot(snapshot) is snapshot
    assert isinstance(snapshot, Snapshot)
    assert "1" in snapshot
    assert next(iter(snapshot)).text == "a"


@pytest.mark.parametrize(("data", "place", "message"), [
    (42, "$", "not a number"),
    ("text", "$", "not a string"),
    (None, "$", "not null"),
    ({"sources": "x"}, "$.sources", "\"sources\" must be a list"),
    ({"sources": [1]}, "$.sources[0]", "a source must be an object, not a number"),
    ({"sources": [{"text": "a"}]}, "$.sources[0].id", "non-empty string \"id\""),
    ({"sources": [{"id": "", "text": "a"}]}, "$.sources[0].id", "non-empty string \"id\""),
    ({"sources": [{"id": 3, "text": "a"}]}, "$.sources[0].id", "non-empty string \"id\""),
    ({"sources": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}, "$.sources[1].id",
     "duplicate source id 'a'"),
    ({"sources": [{"id": "a"}]}, "$.sources[0].text", "needs a string \"text\", not null"),
    ({"sources": [{"id": "a", "text": 5}]}, "$.sources[0].text", "not a number"),
    ({"sources": [{"id": "a", "text": "x", "url": 5}]}, "$.sources[0].url", "must be a string"),
    ({"sources": [{"id": "a", "text": "x", "score": -1}]}, "$.sources[0].score", "non-negative"),
    ({"sources": [{"id": "a", "text": "x", "score": "high"}]}, "$.sources[0].score",
     "non-negative"),
    ({"sources": [{"id": "a", "text": "x", "score": 10 ** 400}]}, "$.sources[0].score",
     "non-negative"),  # past a float's range: no OverflowError
    ([{"id": "a", "text": "x", "score": float("nan")}], "$[0].score", "non-negative"),
    ({"sources": [{"id": "a", "text": "x", "rank": 0}]}, "$.sources[0].rank", "positive integer"),
    ({"sources": [{"id": "a", "text": "x", "metadata": []}]}, "$.sources[0].metadata",
     "must be an object"),
    (["a", 5], "$[1]", "a passage must be a string or an object"),
    ([{"url": "https://x.example"}], "$[0].text", "needs a string \"text\""),
    ({"1": None}, '$["1"]', "a passage must be a string or an object, not null"),
    ({"": "a"}, "$", "non-empty strings"),
])
def test_broken_snapshots_name_the_json_path(data: Any, place: str, message: str) -> None:
    with pytest.raises(SnapshotError) as caught:
        load_snapshot(data, origin="retrieved.json")
    assert caught.value.place == place
    assert message in caught.value.reason
    assert str(caught.value).startswith(f"retrieved.json: {place}: ")


@pytest.mark.parametrize(("passages", "answer", "ids"), [
    ([{"id": "5", "text": "Rates rose."}, {"id": "4", "text": "Costs fell."}],
     "Rates rose [5]. Costs fell [4].", ("5", "4")),
    ([{"id": 12, "text": "Rates rose."}, {"id": 3, "text": "Costs fell."}],
     "Rates rose [12]. Costs fell [3].", ("12", "3")),
    ([{"id": "ExpertQA_9f#ref1", "text": "Rates rose."}, {"id": "doc_b", "text": "Costs fell."}],
     "Rates rose [ExpertQA_9f#ref1]. Costs fell [doc_b].", ("ExpertQA_9f#ref1", "doc_b")),
    ([{"id": "1", "text": "Rates rose."}, {"id": "2", "text": "Costs fell."}],
     "Rates rose [1]. Costs fell [2].", ("1", "2")),
])
def test_a_list_whose_passages_carry_ids_keeps_them(passages: Any, answer: str,
                                                    ids: tuple[str, ...]) -> None:
    report = citeaudit.audit(answer, passages, grammar=None if "#" not in answer else
                             "regex:\\[([^\\]]+)\\]")
    assert tuple(s.id for s in report.snapshot.sources) == ids
    assert report.snapshot.ids_from == "ids"
    assert report.to_dict()["snapshot"] == {"numbering": "ids", "sources": 2}
    assert [f.code for f in report.findings] == []


def test_a_list_without_ids_is_numbered_by_position() -> None:
    report = citeaudit.audit("Rates rose [2].", ["Costs fell.", {"text": "Rates rose."}])
    assert report.to_dict()["snapshot"] == {"numbering": "positions", "sources": 2}
    assert report.passed


@pytest.mark.parametrize("passages", [["a"], ["a", "", " b ", "c"], [f"p{n}" for n in range(1500)]])
def test_a_list_of_strings_is_the_snapshot_of_its_positions(passages: list[str]) -> None:
    snapshot = load_snapshot(passages)
    general = Snapshot(tuple(Source(str(n), text) for n, text in enumerate(passages, 1)),
                       ids_from="positions")
    assert snapshot == general
    assert (snapshot.ids, snapshot.numbering, snapshot.ids_from, snapshot.fingerprint) == (
        general.ids, general.numbering, general.ids_from, general.fingerprint)
    assert snapshot.get(str(len(passages))) == general.get(str(len(passages)))


@pytest.mark.parametrize(("passages", "place"), [
    ([{"id": "5", "text": "a"}, {"text": "b"}], "$[1]"),
    ([{"text": "b"}, {"id": "5", "text": "a"}], "$[1].id"),
    (["a", {"id": "x", "text": "b"}], "$[1].id"),
    ([{"id": "5", "text": "a"}, {"id": "5", "text": "b"}], "$[1].id"),
    ([{"id": True, "text": "a"}], "$[0].id"),
    ([{"id": "", "text": "a"}], "$[0].id"),
])
def test_mixed_or_broken_list_ids_are_input_errors(passages: Any, place: str) -> None:
    with pytest.raises(citeaudit.SnapshotError) as raised:
        citeaudit.load_snapshot(passages)
    assert raised.value.place == place


ID_PIECES = ["1", "2", "9", "0", "01", "10", "12", "\uff13", "\u0663", "S", "s", "doc_", "-", " ",
             "x", "3.0", "+1", "\u00b2"]


@settings(max_examples=examples(300), deadline=None)
@given(st.integers(min_value=1, max_value=14),
       st.lists(st.lists(st.sampled_from(ID_PIECES), max_size=3).map("".join), max_size=12))
def test_bare_strings_read_lazily_are_the_sources_read_at_once(count: int,
                                                                ids: list[str]) -> None:
    """A list of bare strings makes its sources when first read; until then an id is in it
    exactly where it would be in the sources made at once (a number from 1 to N as written).
    """
    texts = [f"Passage {n}." for n in range(1, count + 1)]
    lazy = load_snapshot(texts)
    eager = Snapshot(tuple(Source(str(n), text) for n, text in enumerate(texts, 1)),
                     ids_from="positions")
    for source_id in ids:
        assert (source_id in lazy) == (source_id in eager), source_id
        assert (type("Id", (str,), {})(source_id) in lazy) == (source_id in eager)
    assert 3 not in lazy
    assert len(lazy) == count
    assert lazy.numbering == eager.numbering == ("", count)
    assert lazy.sources == eager.sources
    assert lazy == eager
    assert lazy.fingerprint == eager.fingerprint
    for source_id in ids:  # and once they are made
        assert (source_id in lazy) == (source_id in eager), source_id

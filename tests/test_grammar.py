"""Marker grammars: a table of shapes, what they expand to, and what stays prose."""

from __future__ import annotations

import pytest

from citeaudit import GrammarError, audit, get_grammar

# (grammar, text, [(raw, ids), ...] markers, [raw, ...] malformed)
CASES: list[tuple[str, str, list[tuple[str, tuple[str, ...]]], list[str]]] = [
    # numeric
    ("numeric", "Refunds take 30 days [1].", [("[1]", ("1",))], []),
    ("numeric", "Claims [1][2].", [("[1]", ("1",)), ("[2]", ("2",))], []),
    ("numeric", "Claims [1] [2].", [("[1]", ("1",)), ("[2]", ("2",))], []),
    ("numeric", "Both [1, 2].", [("[1, 2]", ("1", "2"))], []),
    ("numeric", "Both [1,2].", [("[1,2]", ("1", "2"))], []),
    ("numeric", "Range [1-3].", [("[1-3]", ("1", "2", "3"))], []),
    ("numeric", "Range [1 - 3].", [("[1 - 3]", ("1", "2", "3"))], []),
    ("numeric", "Range [2–4].", [("[2–4]", ("2", "3", "4"))], []),
    ("numeric", "Pair [2 and 4].", [("[2 and 4]", ("2", "4"))], []),
    ("numeric", "List [1, 2, and 3].", [("[1, 2, and 3]", ("1", "2", "3"))], []),
    ("numeric", "List [1; 3].", [("[1; 3]", ("1", "3"))], []),
    ("numeric", "Mixed [1, 3-4].", [("[1, 3-4]", ("1", "3", "4"))], []),
    ("numeric", "Full width ［１］.", [("［１］", ("1",))], []),
    ("numeric", "Full width ［１，２］.", [("［１，２］", ("1", "2"))], []),
    ("numeric", "Ascii brackets, wide digit [２].", [("[２]", ("2",))], []),
    ("numeric", "Zero [0].", [("[0]", ("0",))], []),
    ("numeric", "Negative [-1].", [("[-1]", ("-1",))], []),
    ("numeric", "Large [12].", [("[12]", ("12",))], []),
    ("numeric", "Empty [].", [], ["[]"]),
    ("numeric", "Open range [1-].", [], ["[1-]"]),
    ("numeric", "Dangling comma [1,].", [], ["[1,]"]),
    ("numeric", "Leading zero [01].", [], ["[01]"]),
    ("numeric", "Backwards [3-1].", [], ["[3-1]"]),
    ("numeric", "Huge [1-99999999].", [], ["[1-99999999]"]),
    ("numeric", "Double comma [1,,2].", [], ["[1,,2]"]),
    ("numeric", "A link [1](https://x.example).", [], []),
    ("numeric", "An image ![2](https://x.example/a.png).", [], []),
    ("numeric", "[Accessed: 01-Aug-2021] stays prose.", [], []),
    ("numeric", "[citation needed] stays prose.", [], []),
    ("numeric", "A task box [ ] stays prose.", [], []),
    ("numeric", "Escaped \\[1] stays prose.", [], []),
    ("numeric", "Letters [1a] stay prose.", [], []),
    ("numeric", "S markers [S1] are not numeric.", [], []),
    ("numeric", "Nested [[1]].", [("[1]", ("1",))], []),
    ("numeric", "Across lines [1\n] is prose.", [], []),
    ("numeric", "No markers at all.", [], []),
    # S
    ("S", "Returns take 7 days. [S1]", [("[S1]", ("S1",))], []),
    ("S", "A [S1] [S1]", [("[S1]", ("S1",)), ("[S1]", ("S1",))], []),
    ("S", "Both [S1, S2].", [("[S1, S2]", ("S1", "S2"))], []),
    ("S", "Both [S1][S2].", [("[S1]", ("S1",)), ("[S2]", ("S2",))], []),
    ("S", "Range [S1-S3].", [("[S1-S3]", ("S1", "S2", "S3"))], []),
    ("S", "Range [S2-4].", [("[S2-4]", ("S2", "S3", "S4"))], []),
    ("S", "Pair [S1 and S3].", [("[S1 and S3]", ("S1", "S3"))], []),
    ("S", "Bad marker [S01]", [], ["[S01]"]),
    ("S", "Zero [S0]", [], ["[S0]"]),
    ("S", "Bare [S]", [], ["[S]"]),
    ("S", "Lower [s1]", [], ["[s1]"]),
    ("S", "Empty []", [], ["[]"]),
    ("S", "Numbers [1] are not S.", [], []),
    ("S", "[Summary] stays prose.", [], []),
    ("S", "Full width ［Ｓ２］.", [("［Ｓ２］", ("S2",))], []),
    # id
    ("id", "Cached [doc_3].", [("[doc_3]", ("doc_3",))], []),
    ("id", "Cached [resource_id].", [("[resource_id]", ("resource_id",))], []),
    ("id", "Both [doc_1, doc_2].", [("[doc_1, doc_2]", ("doc_1", "doc_2"))], []),
    ("id", "Hyphen [eval-note-1].", [("[eval-note-1]", ("eval-note-1",))], []),
    ("id", "Path-like [kb/42].", [("[kb/42]", ("kb/42",))], []),
    ("id", "Numbers [7].", [("[7]", ("7",))], []),
    ("id", "Empty [].", [], ["[]"]),
    ("id", "Dangling [doc_1,].", [], ["[doc_1,]"]),
    ("id", "[citation needed] stays prose.", [], []),
    ("id", "[Accessed: 01-Aug-2021] stays prose.", [], []),
    ("id", "Quoted [sic] stays prose.", [], []),
    ("id", "- [x] a done task stays prose.", [], []),
    ("id", "A link [doc_1](https://x.example).", [], []),
    # source
    ("source", "Per the policy [Source: 4].", [("[Source: 4]", ("4",))], []),
    ("source", "Two [Source: 10, Source: 24].", [("[Source: 10, Source: 24]", ("10", "24"))], []),
    ("source", "Plural [Sources: 1, 2].", [("[Sources: 1, 2]", ("1", "2"))], []),
    ("source", "Lower [source: 3].", [("[source: 3]", ("3",))], []),
    ("source", "Named [Source: doc_3].", [("[Source: doc_3]", ("doc_3",))], []),
    ("source", "Empty [Source: ].", [], ["[Source: ]"]),
    ("source", "Bad [Source: two words].", [], ["[Source: two words]"]),
    ("source", "Plain [4] is not a source marker.", [], []),
    # regex (RE2)
    ("regex:\\[([a-zA-Z0-9_]+)\\]", "Seed 003 [doc_3] and [x].",
     [("[doc_3]", ("doc_3",)), ("[x]", ("x",))], []),
    ("regex:\\{\\{(doc_[0-9]+)\\}\\}", "Braces {{doc_1}} {{doc_22}}.",
     [("{{doc_1}}", ("doc_1",)), ("{{doc_22}}", ("doc_22",))], []),
    ("regex:<sup>([0-9]+)</sup>", "Superscript<sup>2</sup>.", [("<sup>2</sup>", ("2",))], []),
    ("regex:\\[([0-9]*)\\]", "Empty id [] is malformed.", [], ["[]"]),
    ("regex:【(\\d+)†[^】]*】", "Chat style 【4†source】.", [("【4†source】", ("4",))], []),
    # chains
    ("numeric,S", "Both [1] and [S2].", [("[1]", ("1",)), ("[S2]", ("S2",))], []),
    ("S,source", "Mixed [S1] [Source: 2].", [("[S1]", ("S1",)), ("[Source: 2]", ("2",))], []),
]


@pytest.mark.parametrize(("grammar", "text", "markers", "malformed"), CASES,
                         ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_scan(grammar: str, text: str, markers: list[tuple[str, tuple[str, ...]]],
              malformed: list[str]) -> None:
    scan = get_grammar(grammar).scan(text)
    assert [(m.raw, m.ids) for m in scan.markers] == markers
    assert [m.raw for m in scan.malformed] == malformed
    for item in (*scan.markers, *scan.malformed):
        assert text[item.start:item.end] == item.raw


def test_table_covers_every_preset() -> None:
    assert len(CASES) >= 60
    assert {"numeric", "S", "id", "source"} <= {c[0] for c in CASES}


def test_s_markers_resolve_to_plain_and_prefixed_keys() -> None:
    assert audit(["Returns take 7 days. [S1]"], {"1": "a"}, grammar="S").passed
    assert audit(["Returns take 7 days. [S1]"], {"S1": "a"}, grammar="S").passed


@pytest.mark.parametrize(("spec", "message"), [
    ("roman", "unknown grammar 'roman'"),
    ("regex:[", "cannot compile grammar regex"),
    ("regex:\\d+", "exactly one capture group (the id), it has 0"),
    ("regex:(a)(b)", "exactly one capture group (the id), it has 2"),
    ([], "an empty list of grammars"),
])
def test_bad_grammars(spec: str | list[str], message: str) -> None:
    with pytest.raises(GrammarError, match=message.replace("(", r"\(").replace(")", r"\)")):
        get_grammar(spec)


def test_regex_grammar_runs_in_linear_time_on_hostile_text() -> None:
    # (a+)+$ backtracks exponentially in Python's re; RE2 answers at once.
    grammar = get_grammar("regex:(a+)+$")
    scan = grammar.scan("a" * 5000 + "!")
    assert scan.markers == []

"""Properties: on arbitrary input nothing escapes but the input-error family, spans stay in
bounds, metrics stay in [0, 1], and results do not depend on check order."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeaudit import CiteauditError, audit, get_grammar, load_snapshot, prepare
from citeaudit.cli import main
from citeaudit.core._checks import BUILTIN
from citeaudit.core._engine import findings_of
from citeaudit.core._loading import decode_json
from thorough import examples

PROFILE = settings(max_examples=examples(300), deadline=None,
                   suppress_health_check=[HealthCheck.too_slow])

PIECES = [
    "Refunds take 30 days", " [1]", "[2]", "[S1]", " [S01]", "[1-3]", "[2 and 4]", "[]",
    "[1, 2, and 3]", "［１］", "[doc_1]", "[Source: 2]", "[citation needed]", ". ", "! ", "? ",
    "。", "\n", "\n\n", "- ", "1. ", "1[1]. ", "# ", "| a | b |\n", "|---|---|\n", "```\n",
    "`x[1]`", "e.g. ", "Dr. ", "3.5% ", '"Quoted." ', "etc.[1] [3].. ", "> ", "[1](http://x)",
    "Not covered by the provided documents.", "[-1]", "[0]", "[1-999999]", "東京", " ",
]
real_answers = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
texts = st.one_of(st.text(max_size=300), real_answers)
json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=5),
    max_leaves=20)
snapshots = st.one_of(
    st.lists(st.text(max_size=40), max_size=6),
    st.dictionaries(st.sampled_from(["1", "2", "S1", "doc_1", "a"]), st.text(max_size=20)),
    json_values,
)
grammars = st.sampled_from([None, "numeric", "S", "id", "source", "numeric,S",
                            "regex:\\[([a-z0-9_]+)\\]"])


def _check_report(answer: Any, sources: Any, grammar: str | None) -> None:
    try:
        report = audit(answer, sources, grammar=grammar)
    except CiteauditError:
        return
    length = len(answer) if isinstance(answer, str) else None
    for finding in report.findings:
        if finding.span is not None:
            start, end = finding.span
            assert 0 <= start <= end
            if length is not None:
                assert end <= length
    for name in ("precision", "recall", "f1", "weighted_coverage", "claim_coverage",
                 "out_of_range_score"):
        value = getattr(report.metrics, name)
        assert value is None or 0.0 <= value <= 1.0, (name, value)
    assert report.status in ("ok", "unverified", "no_evidence")
    json.dumps(report.to_dict())


@PROFILE
@given(texts, snapshots, grammars)
def test_text_answers_never_crash(answer: str, sources: Any, grammar: str | None) -> None:
    _check_report(answer, sources, grammar)


@PROFILE
@given(json_values, snapshots)
def test_arbitrary_json_answers_never_crash(answer: Any, sources: Any) -> None:
    _check_report(answer, sources, None)


@PROFILE
@given(st.lists(real_answers, max_size=5), grammars)
def test_claim_lists_never_crash(answer: list[str], grammar: str | None) -> None:
    _check_report(answer, ["a", "b", "c"], grammar)


@PROFILE
@given(st.binary(max_size=200))
def test_arbitrary_bytes_only_raise_input_errors(data: bytes) -> None:
    with contextlib.suppress(CiteauditError):
        load_snapshot(decode_json(data, origin="x.json"))


@PROFILE
@given(real_answers, st.randoms(use_true_random=False))
def test_findings_do_not_depend_on_check_order(answer: str, rng: random.Random) -> None:
    context = prepare(answer, ["a", "b", "c"])
    order = list(BUILTIN)
    rng.shuffle(order)
    assert findings_of(context, order) == findings_of(context)


@PROFILE
@given(texts, grammars)
def test_marker_spans_are_exact(text: str, grammar: str | None) -> None:
    scan = get_grammar(grammar or "numeric,S").scan(text)
    for item in (*scan.markers, *scan.malformed):
        assert text[item.start:item.end] == item.raw
        assert item.raw
    starts = [m.start for m in scan.markers]
    assert starts == sorted(starts)


@settings(max_examples=examples(150), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(snapshot=st.one_of(st.binary(max_size=120), json_values.map(
           lambda v: json.dumps(v, allow_nan=True).encode())),
       answer=st.one_of(st.binary(max_size=120), real_answers.map(str.encode)),
       suffix=st.sampled_from([".json", ".txt"]))
def test_cli_on_arbitrary_files_exits_0_1_or_2(tmp_path_factory: Any, snapshot: bytes,
                                                 answer: bytes, suffix: str) -> None:
    folder = tmp_path_factory.mktemp("cli")
    snapshot_file = folder / "snapshot.json"
    answer_file = folder / f"answer{suffix}"
    snapshot_file.write_bytes(snapshot)
    answer_file.write_bytes(answer)
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(snapshot_file), str(answer_file)], stdout=out, stderr=err)
    assert code in (0, 1, 2)
    if code == 2:
        assert err.getvalue().startswith("citeaudit: error: ")
        assert err.getvalue().count("\n") == 1
        assert out.getvalue() == ""
    else:
        assert err.getvalue() == ""
        assert out.getvalue().splitlines()[-1].startswith(("PASS", "FAIL"))


@PROFILE
@given(st.one_of(real_answers, texts))
def test_claims_are_ordered_trimmed_and_own_their_markers(answer: str) -> None:
    parsed = prepare(answer, ["a", "b", "c"]).answer
    previous_end = 0
    for claim in parsed.claims:
        start, end = claim.span
        assert previous_end <= start < end <= len(answer)
        assert answer[start:end] == claim.text
        assert claim.text == claim.text.strip()
        assert all(start <= m.start and m.end <= end for m in claim.markers)
        previous_end = end
    for citation in parsed.citations:
        assert citation.span is not None
        owner = [c.number for c in parsed.claims if c.span[0] <= citation.span[0] < c.span[1]]
        assert owner == ([citation.claim] if citation.claim is not None else [])


@PROFILE
@given(real_answers, grammars)
def test_every_marker_becomes_citations_and_metrics_agree(answer: str,
                                                           grammar: str | None) -> None:
    context = prepare(answer, ["a", "b", "c"], grammar=grammar)
    parsed = context.answer
    if parsed.refusal:
        return
    in_claims = [m for claim in parsed.claims for m in claim.markers]
    assert sum(len(m.ids) for m in in_claims) == sum(
        1 for c in parsed.citations if c.claim is not None)
    report = audit(answer, ["a", "b", "c"], grammar=grammar)
    metrics = report.metrics
    assert metrics.citations == len(parsed.citations)
    assert metrics.valid_cited_ids <= metrics.cited_ids <= metrics.citations
    assert metrics.claims_covered <= metrics.claims == len(parsed.claims)
    if metrics.precision is not None and metrics.cited_ids:
        assert metrics.precision == metrics.valid_cited_ids / metrics.cited_ids


records = st.one_of(
    st.binary(max_size=200),
    st.fixed_dictionaries({"id": st.one_of(st.text(max_size=5), st.integers(), st.none()),
                           "sources": snapshots, "answer": st.one_of(texts, json_values)},
                          optional={"tags": json_values, "relevant": json_values,
                                    "grammar": st.one_of(grammars, json_values)})
    .map(lambda r: json.dumps(r, allow_nan=True).encode()),
)


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(lines=st.lists(records, max_size=4), command=st.sampled_from(["eval", "replay"]))
def test_eval_and_replay_on_arbitrary_lines(tmp_path_factory: Any, lines: list[bytes],
                                            command: str) -> None:
    """Whatever the lines: exit 0, 1 or 2, one stderr line per unreadable record plus the
    summary line, never a traceback.
    """
    folder = tmp_path_factory.mktemp("eval")
    data = folder / "data.jsonl"
    data.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")
    out, err = io.StringIO(), io.StringIO()
    argv = [command, str(data)] + (["--jobs", "1", "--no-evaluators", "--support", "lexical",
                                     "--format", "json"] if command == "eval" else [])
    code = main(argv, stdout=out, stderr=err)
    assert code in (0, 1, 2)
    assert "Traceback" not in err.getvalue()
    for line in err.getvalue().splitlines():
        assert line.startswith("citeaudit: error: ")
    if command == "eval" and code != 2:  # a BOM opening the file is not content
        lines = [lines[0].removeprefix(b"\xef\xbb\xbf"), *lines[1:]] if lines else lines
        assert json.loads(out.getvalue())["records"] == sum(1 for x in lines if x.strip())


@settings(max_examples=examples(100), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(snapshot=st.one_of(st.binary(max_size=120), snapshots.map(
           lambda v: json.dumps(v, allow_nan=True).encode())),
       answer=st.one_of(st.binary(max_size=120), real_answers.map(str.encode)),
       to=st.sampled_from(["html", "markdown", "json"]),
       policy=st.sampled_from(["strip", "drop", "withhold"]))
def test_render_on_arbitrary_files(tmp_path_factory: Any, snapshot: bytes, answer: bytes,
                                   to: str, policy: str) -> None:
    folder = tmp_path_factory.mktemp("render")
    (folder / "s.json").write_bytes(snapshot)
    (folder / "a.txt").write_bytes(answer)
    out, err = io.StringIO(), io.StringIO()
    code = main(["render", str(folder / "s.json"), str(folder / "a.txt"), "--to", to,
                 "--policy", policy], stdout=out, stderr=err)
    assert code in (0, 1, 2)
    if code == 2:
        assert err.getvalue().startswith("citeaudit: error: ")
        assert err.getvalue().count("\n") == 1
    else:  # the verdict line, beside the rendering
        assert err.getvalue().startswith("PASS" if code == 0 else "FAIL")
        assert err.getvalue().count("\n") == 1
        assert out.getvalue()


# The fast paths that skip a dict translate() give what translate() gives, on text drawn from
# ASCII, Latin accents, typographic quotes, CJK punctuation and the full-width block.
_MIXED = st.text(st.sampled_from(
    "ab1[] .,\u00e9\u00a0\u201c\u201d\u2018\u2019\u201e\u00ab\u00bb\u3000\u3001\u3002"
    "\uff01\uff0c\uff3b\uff3d\uff11\uff5e\uff5f\u4e2d"), max_size=40)


_OLD_BRACKET = re.compile(r"\[(?<![\\!]\[)([^\[\]\n]{0,200})\](?!\()")
_MARKERISH = st.text(st.sampled_from(
    "a1 ,-\n[]()!\\\u00e9\u201c\u3001\uff3b\uff3d\uff08\uff01\uff3c\uff11\uff0c\uff0d\uff33"),
    max_size=40)


@given(_MARKERISH)
def test_brackets_are_found_as_in_the_folded_text(text: str) -> None:
    """The bracket pattern on the text, contents folded, finds what the ASCII pattern finds
    on the whole text folded (what the scan did before).
    """
    from citeaudit.core._brackets import FULLWIDTH, WIDE_BRACKET  # noqa: PLC0415
    from citeaudit.core._grammar import get_grammar  # noqa: PLC0415

    folded = text.translate(FULLWIDTH)
    assert [(m.span(), m[1].translate(FULLWIDTH)) for m in WIDE_BRACKET.finditer(text)] == \
        [(m.span(), m[1]) for m in _OLD_BRACKET.finditer(folded)]
    grammar = get_grammar("numeric")  # whichever pattern runs, the same spans, ids, reasons
    for scanned, of_folded in zip(grammar.scan(text), grammar.scan(folded), strict=True):
        assert [tuple(m)[1:] for m in scanned] == [tuple(m)[1:] for m in of_folded]


@given(_MIXED)
def test_plain_quotes_are_the_translation(text: str) -> None:
    from citeaudit.support._terms import QUOTES, plain_quotes  # noqa: PLC0415

    assert plain_quotes(text) == text.translate(str.maketrans(dict(QUOTES)))

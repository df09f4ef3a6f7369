"""``audit()`` settles a free-text answer's verdict from where its markers and claims are, and
makes its findings, reasons and metrics only when one of them is first read (see
``Config.settles``). The report must equal the whole audit's, field by field, whatever is read
first; where the configuration or the answer asks for more, the whole audit runs at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeaudit import Config, Report, Severity, audit
from citeaudit.core import _engine
from citeaudit.core._engine import run
from test_properties import PIECES, PROFILE

SNAPSHOTS: list[Any] = [
    ["Refunds take 30 days.", "Cards cost 5 dollars.", "Shipping is free."],
    {"sources": [{"id": "S1", "text": "a"}, {"id": "S2", "text": "b"}]},
    {"sources": [{"id": "doc_1", "text": "a"}, {"id": "doc_2", "text": "b"}]},
    {"sources": [{"id": "policy", "text": "a"}, {"id": "faq", "text": "b"}]},
]
# The bracket grammars settle without making markers; a chain and a user pattern from a scan.
GRAMMARS: list[Any] = [None, "numeric", "S", "id", "source", "numeric,S", ["numeric", "id"],
                       r"regex:\[([A-Za-z0-9_]+)\]"]
CONFIGS = [
    Config(),
    Config(extend_select=("CA403",)),  # an answer without claims fails
    Config(refusal=("Not covered by the provided documents.", "I cannot answer that.")),
    Config(ignore=("CA102",)),
]
MORE = ["I cannot answer that.", "[policy]", "[faq]", "[doc_2]", "[S2]", "[Source: 1]",
        "Thanks for asking! ", "See below:\n", "- item one\n", "Hope this helps.", "[4]",
        "Total: 12 items [1]. ", "It rose 5% in 2023. "]
answers = st.lists(st.sampled_from([*PIECES, *MORE]), max_size=30).map("".join)
texts = st.one_of(answers, st.text(max_size=200))


def _fields(report: Report) -> tuple[Any, ...]:
    return (report.status, report.passed, report.grammar, report.grammar_reason,
            report.shape, report.fingerprint, report.checked, report.not_checked)


@PROFILE
@given(texts, st.sampled_from(SNAPSHOTS), st.sampled_from(GRAMMARS),
       st.sampled_from(CONFIGS), st.sampled_from(["findings", "reasons", "metrics", "dict"]))
def test_settled_report_equals_the_whole_audit(text: str, sources: Any, grammar: Any,
                                               config: Config, first: str) -> None:
    settled = audit(text, sources, grammar=grammar, config=config)
    whole = run(text, sources, grammar=grammar, config=config).report
    assert _fields(settled) == _fields(whole)  # the verdict, before anything else is made
    if first == "dict":
        assert settled.to_dict() == whole.to_dict()
    else:
        assert getattr(settled, first) == getattr(whole, first)
    assert settled == whole
    assert settled.to_dict() == whole.to_dict()
    assert hash(settled) == hash(whole)


@pytest.fixture
def whole_audits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the whole audits made (each runs the checks once)."""
    made: list[int] = []
    findings_of = _engine.findings_of

    def counted(*args: Any, **kwargs: Any) -> Any:
        made.append(1)
        return findings_of(*args, **kwargs)

    monkeypatch.setattr(_engine, "findings_of", counted)
    return made


PASSAGES = ["Refunds take 30 days.", "Cards cost 5 dollars."]
SETTLED = [
    ("Refunds take 30 days [1]. Cards cost 5 dollars [2].", "ok", True),
    ("Refunds take 30 days [1]. Cards cost 5 dollars.", "unverified", False),  # CA302
    ("Refunds take 30 days [3].", "unverified", False),  # CA202
    ("Refunds take 30 days [S1]. Thanks for asking!", "ok", True),  # a pleasantry: no claim
    ("Not covered by the provided documents.", "no_evidence", True),
    ("## Refunds\n", "no_evidence", True),  # a heading only: no claim
    ("Refunds are quick.", "unverified", False),  # CA301 (and no citation at all)
    ("- Refunds take 30 days [1]\n- Cards cost 5 dollars [2]\n", "ok", True),
]


@pytest.mark.parametrize(("text", "status", "passed"), SETTLED)
def test_reading_the_verdict_makes_no_findings(whole_audits: list[int], text: str,
                                               status: str, passed: bool) -> None:
    report = audit(text, PASSAGES)
    assert (report.status, report.passed) == (status, passed)
    assert report.grammar == "numeric,S,source"
    assert report.snapshot.fingerprint
    assert not whole_audits  # settled: nothing made yet
    whole = run(text, PASSAGES).report
    assert len(whole_audits) == 1
    assert report.findings == whole.findings
    assert len(whole_audits) == 2  # made once, when first read
    assert report.metrics == whole.metrics
    assert report.reasons == whole.reasons
    assert report == whole
    assert len(whole_audits) == 2


@pytest.mark.parametrize(("text", "sources"), [
    ("Use `x[1]` here [1].", PASSAGES),  # code spans
    ("Not covered by the provided documents. [1]", PASSAGES),  # a refusal that cites
    ("Refunds take 30 days [1].", []),  # an empty snapshot (CA207)
])
def test_answers_only_the_whole_audit_settles(whole_audits: list[int], text: str,
                                              sources: Any) -> None:
    report = audit(text, sources)
    assert len(whole_audits) == 1  # made at once
    assert report == run(text, sources).report


@pytest.mark.parametrize(("config", "options"), [
    (Config(min_precision=0.9), {}),  # thresholds read the metrics
    (Config(ignore=("CA301",)), {}),  # an uncited claim may pass
    (Config(severity={"CA302": Severity.WARNING}), {}),
    (Config(severity={"CA101": Severity.ERROR}), {}),
    (Config(claim_policy="quantities"), {}),
    (Config(support="lexical"), {}),
    (Config(), {"answerable": True}),
    (Config(), {"relevant": ["1"]}),
    (Config(), {"answer_format": "text"}),
])
def test_configurations_that_do_not_settle(whole_audits: list[int], config: Config,
                                           options: dict[str, Any]) -> None:
    text = "Refunds take 30 days [1]. Cards cost 5 dollars."
    report = audit(text, PASSAGES, config=config, **options)
    assert len(whole_audits) == 1
    assert report == run(text, PASSAGES, config=config, **options).report


def test_settled_reports_pickle_and_compare() -> None:
    import pickle  # noqa: PLC0415

    report = audit("Refunds take 30 days [1]. Cards cost 5 dollars.", PASSAGES)
    copy = pickle.loads(pickle.dumps(report))
    assert copy == report
    assert copy.findings == report.findings
    assert [f.code for f in report.findings] == ["CA302"]
    assert report.reasons == ("CA302 unmarked-quantity",)

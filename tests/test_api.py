"""The public namespace, the basic operation and the metrics."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import pkgutil
import sys
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit import Finding, Severity, audit, iter_findings, prepare
from citeaudit.core._checks import BUILTIN
from citeaudit.core._engine import findings_of
from requires import needs, required


def test_all_matches_the_public_namespace() -> None:
    public = {name for name in dir(citeaudit) if not name.startswith("_")
              and not inspect.ismodule(getattr(citeaudit, name))}
    assert set(citeaudit.__all__) == public | {"__version__"}
    assert citeaudit.__all__ == sorted(citeaudit.__all__, key=lambda n: (not n.isupper(), n))


SUBPACKAGES = ("cli", "core", "eval", "formats", "integrations", "report", "request",
               "service", "support")
INTEGRATIONS = ("deepeval", "dspy", "haystack", "langchain", "llamaindex", "mlflow",
                "promptfoo", "ragas", "spark")
# The integrations documented at a top-level path: a module that is their front door (the
# same names, no warning), not a package of its own.
FRONT_DOORS = ("spark",)
# The subpackages whose framework a heavy part of the tests installs (tests/requires.py):
# without it they are skipped, the rest checked.
HEAVY = {"deepeval": ("deepeval", "evals"), "mlflow": ("mlflow", "evals"),
         "ragas": ("ragas", "evals"), "dspy": ("dspy", "frameworks"),
         "haystack": ("haystack", "frameworks"), "langchain": ("langchain_core", "frameworks"),
         "llamaindex": ("llama_index", "frameworks"), "spark": ("pyspark", "spark")}
PUBLIC_MODULES = ("errors",)  # the exception tree, documented by its module
# The integrations' old paths: modules that warn and forward, until the next release.
MOVED = tuple(f"citeaudit.{name}" for name in INTEGRATIONS if name not in FRONT_DOORS)
# The top-level modules and packages, listed without importing them; __main__ runs the CLI.
TOP = sorted(info.name for info in pkgutil.iter_modules(citeaudit.__path__, "citeaudit.")
             if info.name != "citeaudit.__main__" and info.name not in MOVED)


def _present(name: str) -> bool:
    """Whether the framework of a heavy subpackage is installed (else it is skipped)."""
    if name not in HEAVY:
        return True
    framework, part = HEAVY[name]
    if importlib.util.find_spec(framework) is None:
        if required(part):
            pytest.fail(f"{framework} is missing but its part is required", pytrace=False)
        return False
    return True


def test_the_top_level_packages_are_the_listed_ones() -> None:
    packages = [name for name in TOP if not name.rsplit(".", 1)[1].startswith("_")
                and name.rsplit(".", 1)[1] not in PUBLIC_MODULES + FRONT_DOORS]
    assert packages == [f"citeaudit.{name}" for name in SUBPACKAGES]


@pytest.mark.parametrize("top", TOP)
def test_every_module_is_private_or_a_curated_package(top: str) -> None:
    """A module is private (``_name``) or a package with its own ``__all__``; nothing public
    is shadowed by a top-level name (``citeaudit.guard`` is the function, and no module). The
    integrations are packages of their own inside ``citeaudit.integrations``.
    """
    if not _present(top.split(".")[1]):
        needs(*HEAVY[top.split(".")[1]][:1], part=HEAVY[top.split(".")[1]][1])
    for name in _walk(top):
        pieces = name.split(".")
        last = pieces[-1]
        module = importlib.import_module(name)
        if last.startswith("_") or any(p.startswith("_") for p in pieces[1:-1]):
            continue
        if pieces[1] == "integrations" and len(pieces) == 3:
            assert last in (*INTEGRATIONS, "pytest"), f"{name}: not a listed integration"
            if last != "pytest":
                assert set(module.__all__) == _public(module), f"{name}.__all__"
            continue
        assert name.count(".") == 1, f"{name}: a public module inside a package"
        assert last in SUBPACKAGES + PUBLIC_MODULES + FRONT_DOORS, \
            f"{name}: neither private nor listed"
        if last in FRONT_DOORS:
            assert not hasattr(module, "__path__"), f"{name} is a package, not a front door"
        if last in SUBPACKAGES:
            assert hasattr(module, "__path__"), f"{name} is not a package"
            assert set(getattr(module, "__all__", ())) == _public(module), f"{name}.__all__"
        shadow = getattr(citeaudit, last, None)
        assert shadow is None or shadow is module, f"citeaudit.{last} shadows a module"


def _walk(name: str) -> list[str]:
    """``name`` and every module beneath it, but integrations whose framework is missing."""
    module = importlib.import_module(name)
    found = [name]
    for info in pkgutil.iter_modules(getattr(module, "__path__", []), f"{name}."):
        pieces = info.name.split(".")
        if pieces[1] == "integrations" and len(pieces) == 3 and not _present(pieces[2]):
            continue
        found += _walk(info.name)
    return found


def _public(module: object) -> set[str]:
    return {n for n in dir(module) if not n.startswith("_")
            and not inspect.ismodule(getattr(module, n))}


@pytest.mark.parametrize("name", [m.split(".")[1] for m in MOVED])
def test_an_integration_s_old_path_warns_and_forwards(name: str) -> None:
    if not _present(name):
        needs(HEAVY[name][0], part=HEAVY[name][1])
    new = importlib.import_module(f"citeaudit.integrations.{name}")
    sys.modules.pop(f"citeaudit.{name}", None)
    with pytest.warns(DeprecationWarning, match=f"citeaudit.integrations.{name}"):
        old = importlib.import_module(f"citeaudit.{name}")
    assert old.__all__ == new.__all__
    assert all(getattr(old, n) is getattr(new, n) for n in new.__all__)


@pytest.mark.parametrize("name", FRONT_DOORS)
def test_a_front_door_forwards_without_a_warning(name: str) -> None:
    """``citeaudit.spark`` is the documented path of the integration that lives in
    ``citeaudit.integrations.spark``: the same names, and no warning (``filterwarnings =
    error`` would turn one into a failure of the import).
    """
    if not _present(name):
        needs(HEAVY[name][0], part=HEAVY[name][1])
    home = importlib.import_module(f"citeaudit.integrations.{name}")
    sys.modules.pop(f"citeaudit.{name}", None)
    door = importlib.import_module(f"citeaudit.{name}")
    assert door.__all__ == home.__all__
    assert set(door.__all__) == _public(door)
    assert all(getattr(door, n) is getattr(home, n) for n in home.__all__)
    assert (door.__doc__ or "").strip()


def test_the_functions_are_no_modules() -> None:
    for name in ("audit", "evaluate", "guard", "render", "segment", "stream", "resolve"):
        assert not inspect.ismodule(getattr(citeaudit, name))
        assert f"citeaudit.{name}" not in TOP


def test_the_top_level_names_stay() -> None:
    names = {"DEFAULT_CONTRACT", "DEFAULT_FALLBACK", "DEFAULT_REFUSAL", "POLICIES", "RULES",
             "Answer", "Check", "Chip", "Citation", "CiteauditError", "Claim", "Config",
             "ConfigError", "Context", "EvalResults", "Finding", "Grammar", "GrammarError",
             "Guarded", "InputError", "Malformed", "Marker", "Metrics", "OutputError", "Problem",
             "PromptContext", "Ref", "Report", "Resolution", "Rule", "RunError", "Segmenter",
             "Severity", "Snapshot", "SnapshotError", "Source", "Status", "StreamAuditor",
             "__version__", "audit", "build_context", "canonical_url", "evaluate",
             "findings_of", "get_grammar", "guard", "infer_grammar", "iter_findings",
             "load_config", "load_snapshot", "neutralise", "parse_answer", "prepare", "render",
             "render_html", "render_markdown", "resolve", "segment", "stream"}
    assert names <= set(citeaudit.__all__)


@pytest.mark.parametrize("name", [n for n in citeaudit.__all__ if not n.startswith("_")])
def test_public_names_have_docstrings(name: str) -> None:
    value = getattr(citeaudit, name)
    if inspect.isfunction(value) or inspect.isclass(value):
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_exceptions_share_one_root() -> None:
    for name in ("InputError", "SnapshotError", "ConfigError", "GrammarError"):
        assert issubclass(getattr(citeaudit, name), citeaudit.CiteauditError)


def test_iter_findings_is_what_audit_reports() -> None:
    answer = "Refunds take 14 days [7]. Reimbursements settle in 14 days. Fees [1-]."
    found = list(iter_findings(answer, ["a", "b", "c"]))
    assert all(isinstance(f, Finding) for f in found)
    assert tuple(found) == audit(answer, ["a", "b", "c"]).findings
    assert [f.code for f in found] == ["CA202", "CA302", "CA301", "CA101"]


def test_findings_do_not_depend_on_check_order() -> None:
    context = prepare("One [9]. Two. Three 3. [S01] Four [1, 1-].", ["a", "b"])
    forward = findings_of(context, list(BUILTIN))
    backward = findings_of(context, list(reversed(BUILTIN)))
    assert forward == backward
    assert len(forward) >= 4


def test_findings_are_immutable_values() -> None:
    finding = next(iter_findings("Refunds take 14 days.", ["a"]))
    with pytest.raises(AttributeError):
        finding.code = "CA999"  # type: ignore[misc]
    assert finding.severity is Severity.ERROR


def test_report_to_dict_is_json() -> None:
    report = audit("Refunds take 30 days [1].", ["Refunds take 30 days."])
    data = json.loads(json.dumps(report.to_dict()))
    assert data["version"] == 1
    assert data["status"] == "ok"
    assert data["metrics"]["precision"] == 1.0
    assert data["grammar"] == "numeric,S,source"


def test_metrics_seed003() -> None:
    sources = {"sources": [{"id": f"doc_{n}", "text": "x"} for n in range(1, 6)]}
    answer = "One [doc_1]. Two [doc_2]. Three [doc_12]."
    metrics = audit(answer, sources).metrics
    assert metrics.precision == pytest.approx(2 / 3)
    assert metrics.recall == pytest.approx(0.4)
    assert metrics.f1 == pytest.approx(0.5)
    assert metrics.out_of_range_score == pytest.approx(2 / 3)
    assert metrics.claim_coverage == pytest.approx(2 / 3)
    assert not audit(answer, sources).passed


def test_recall_against_relevant_ids() -> None:
    report = audit("One [1]. Two [2].", ["a", "b", "c", "d"], relevant=["1", "2"])
    assert report.metrics.recall == 1.0
    assert report.metrics.relevant == 2


def test_weighted_coverage_uses_scores_then_ranks() -> None:
    scored = {"sources": [{"id": "a", "text": "x", "score": 3.0},
                          {"id": "b", "text": "y", "score": 1.0}]}
    assert audit("Fact [a].", scored).metrics.weighted_coverage == pytest.approx(0.75)
    ranked = {"sources": [{"id": "a", "text": "x", "rank": 1},
                          {"id": "b", "text": "y", "rank": 2}]}
    assert audit("Fact [b].", ranked).metrics.weighted_coverage == pytest.approx(1 / 3)
    plain = ["x", "y", "z", "w"]
    assert audit("Fact [1].", plain).metrics.weighted_coverage == pytest.approx(0.25)


def test_no_evidence_metrics_are_none_not_nan() -> None:
    report = audit("Not covered by the provided documents.", ["a"])
    assert report.status == "no_evidence"
    assert report.passed
    metrics = report.metrics
    assert (metrics.precision, metrics.recall, metrics.f1, metrics.claim_coverage) == \
        (None, None, None, None)


def test_nothing_cited_gives_precision_one_recall_zero() -> None:
    report = audit("Refunds take 14 days.", ["a"])
    assert (report.metrics.precision, report.metrics.recall) == (1.0, 0.0)
    assert not report.passed


def test_markers_in_code_are_not_citations() -> None:
    report = audit("Use `items[3]` to index [1].\n\n```\nx = a[9]\n```", ["a"])
    assert report.findings == ()


def test_empty_snapshot_fails_any_citation() -> None:
    report = audit("Fact [1].", [])
    assert sorted(f.code for f in report.findings) == ["CA202", "CA207"]  # and it says why
    assert report.metrics.recall == 0.0


def test_inferred_grammars() -> None:
    assert prepare("x", ["a"]).grammar == "numeric,S,source"
    assert prepare("x", {"S1": "a", "S2": "b"}).grammar == "S"
    assert prepare("x", {"doc_1": "a"}).grammar == "prefix:doc_"
    assert prepare("x", {"kb-a": "a"}).grammar == "id"
    assert prepare("x", ["a"], grammar="source").grammar == "source"
    assert prepare("x", ["a"], config=citeaudit.Config(grammar=("S", "id"))).grammar == "S,id"


def test_answers_of_other_types_are_invalid_not_crashes() -> None:
    report = audit(42, ["a"])
    assert [(f.code, f.path) for f in report.findings] == [("CA404", "$")]
    claims = audit(["Fact [1].", 7], ["a"])
    assert [(f.code, f.path) for f in claims.findings] == [("CA404", "$[1]")]


def test_a_custom_segmenter_plugs_in() -> None:
    def lines(text: str, marks: object) -> list[tuple[int, int]]:
        spans, start = [], 0
        for line in text.split("\n"):
            spans.append((start, start + len(line)))
            start += len(line) + 1
        return spans

    report = audit("One. Two [1].\nThree.", ["a"], segmenter=lines,  # type: ignore[arg-type]
                   config=citeaudit.Config(claims="strict"))  # toy sentences: every one a claim
    assert [(f.code, f.claim) for f in report.findings] == [("CA301", 2)]
    assert report.metrics.claims == 2


def test_readme_python_example_runs() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    block = readme.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(block, namespace)
    report = namespace["report"]
    assert isinstance(report, citeaudit.Report)
    assert [(f.code, f.claim, f.span, f.marker) for f in report.findings] == \
        [("CA202", 2, (63, 66), "[7]")]
    assert (report.metrics.precision, report.metrics.recall) == (0.5, 0.5)


def test_a_custom_check_plugs_in() -> None:
    def no_ellipsis(context: citeaudit.Context) -> list[citeaudit.Problem]:
        return [citeaudit.Problem("CA301", "claim trails off", claim.number, claim.span)
                for claim in context.answer.claims if claim.text.endswith("...")]

    context = prepare("It went on... Then it stopped [1].", ["a"])
    found = citeaudit.findings_of(context, [no_ellipsis, *BUILTIN])
    assert [(f.code, f.message, f.claim) for f in found] == [
        ("CA301", 'claim has no citation marker (states a claim): "It went on..."', 1),
        ("CA301", "claim trails off", 1)]


def test_the_request_path_page_example_runs() -> None:
    page = (Path(__file__).parents[1] / "docs" / "request-path.md").read_text()
    block = page.split("```python\n", 1)[1]
    namespace: dict[str, Any] = {}
    exec(block.split("```", 1)[0], namespace)
    served = namespace["served"]
    assert (served.status, served.review) == ("unverified", True)
    assert served.text == "Reports are due in 60 days [1]. Reimbursements settle in 14 days."
    assert [(c.number, c.url, c.label) for c in served.chips] == [
        (1, "https://hr.example/policy", "Filing")]
    assert namespace["shown"] + namespace["auditor"].rest == \
        "Reports are due in 60 days [1]. Done."
    assert namespace["report"] == citeaudit.audit("Reports are due in 60 days [1]. Done.",
                                                  namespace["snapshot"])
    assert "[1] Filing\n" in namespace["context"].prompt
    assert 'href="https://hr.example/policy"' in namespace["html"]


def test_snapshots_reports_and_served_answers_pickle() -> None:
    """Worker processes (and later engines) receive them whole."""
    import pickle  # noqa: PLC0415

    sources = [{"text": "Rates rose.", "url": "https://x.example/a", "metadata": {"k": [1]}},
               "Costs fell."]
    report = citeaudit.audit("Rates rose [1]. Costs fell [3].", sources)
    served = citeaudit.guard("Rates rose [1]. Costs fell [3].", sources)
    for value in (report.snapshot, report, served):
        copy = pickle.loads(pickle.dumps(value))
        assert copy == value
    assert pickle.loads(pickle.dumps(report)).snapshot.sources[0].metadata == {"k": [1]}


def test_bad_policy_or_format_is_a_citeaudit_error() -> None:
    with pytest.raises(citeaudit.ConfigError):
        citeaudit.render("x [1].", ["x"], to="pdf")  # type: ignore[arg-type]
    with pytest.raises(citeaudit.ConfigError):
        citeaudit.guard("x [1].", ["x"], policy="shred")  # type: ignore[arg-type]


def test_a_report_measures_when_its_metrics_are_first_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The request path reads ``passed``; the metrics are worked out only for a reader."""
    import dataclasses  # noqa: PLC0415
    import pickle  # noqa: PLC0415

    from citeaudit.core import _engine  # noqa: PLC0415

    measured: list[object] = []
    real = _engine.compute_metrics

    def counted(*args: Any) -> Any:
        measured.append(args)
        return real(*args)

    monkeypatch.setattr(_engine, "compute_metrics", counted)
    sources = ["Rates rose.", "Costs fell."]
    answer = "Rates rose [1]. Costs fell [3]."
    report = audit(answer, sources, relevant=["2"])
    assert (report.status, report.passed, len(measured)) == ("unverified", False, 0)
    assert (report.metrics.precision, report.metrics.recall) == (0.5, 0.0)
    assert report.metrics is report.metrics
    assert len(measured) == 1
    lazy = audit(answer, sources, relevant=["2"])
    assert lazy == report
    assert hash(lazy) == hash(report)
    assert len(measured) == 2
    assert pickle.loads(pickle.dumps(audit(answer, sources, relevant=["2"]))) == report
    assert lazy != audit(answer, sources)  # other metrics (recall), the same findings
    assert repr(report).startswith("Report(findings=(")
    assert "precision=0.5" in repr(report)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.passed = True  # type: ignore[misc]
    # Its own __init__ (compiled with the module) sets every field the dataclass declares.
    values = {field.name: getattr(report, field.name) for field in dataclasses.fields(report)}
    assert list(values) == ["status", "passed", "checked", "not_checked", "grammar", "snapshot",
                            "shape", "grammar_reason", "support", "later"]
    assert dataclasses.replace(report) == report
    measured.clear()
    gated = audit(answer, sources, config=citeaudit.Config(min_precision=0.9))
    assert len(measured) == 1
    assert gated.reasons[-1] == ("precision 0.50 < min-precision 0.90 (1 of 2 cited ids name a"
                                 " retrieved passage)")


class _Text(str):
    """A subclass of str, as an application may pass an answer (a lazy string, a marked-up
    one)."""

    __slots__ = ()


@pytest.mark.parametrize("answer", [
    "Refunds take 30 days [1]. Cards cost 5 dollars.",
    "Refunds take 30 days [1].",
    "One [1].\n- Two [2].\n- Three.",
    "Refunds take 30 days [1].\n\nReferences:\n[1] Lee, K. (2017). Refunds.",
    "I cannot answer that from the sources.",
])
def test_a_subclass_of_str_is_audited_as_its_text(answer: str) -> None:
    """The compiled build read a subclass of str as a wrong type (a TypeError from the
    segmenter); both builds audit it as the text it is.
    """
    sources = ["Refunds take 30 days.", "Two."]
    assert audit(_Text(answer), sources).to_dict() == audit(answer, sources).to_dict()
    assert citeaudit.segment(_Text(answer)) == citeaudit.segment(answer)

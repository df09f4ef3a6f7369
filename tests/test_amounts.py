"""Amounts, not identifiers: which uncited claims state a quantity (CA302) and which only
name something with digits (CA301 under the default claim policy).
"""

from __future__ import annotations

import pytest

import citeaudit
from citeaudit.core._amounts import states_amount

PASSAGES = ["Refunds take 30 days.", "Reports are due in 60 days."]

IDENTIFIERS = [
    "GPT-4 writes the summaries.",
    "The laptops run Windows 10.",
    "SARS-CoV-2 spreads through the air.",
    "HMOX-1 is expressed in the liver.",
    "The printer makes 3D models.",
    "Fractions are taught in 4th grade.",
    "The trial reached Stage 3.",
    "Article 2.4 governs the refunds.",
    "Book XXIII tells of the games.",
    "As passage 2 explains, refunds need a receipt.",
    "Families save with 529 plans.",
    "Employees may join the 401(k) plan.",
    "COVID-19 changed the office rules.",
    "The H1N1 strain was mild.",
    "Vitamin B12 comes from food.",
    "Release v2.1 fixed the bug.",
    "Version 2.1 fixed the bug.",
    "See Section 5 for the details.",
    "Chapter 12 covers the appeals.",
    "The 21st amendment ended it.",
    "Phase 2 of the rollout starts soon.",
    "Table 3 lists the fees.",
    "Figure 4 shows the trend.",
    "Python 3 is required.",
    "The desk is in Room 204.",
    "Take Route 66 to the office.",
    "It was the 2nd attempt.",
    "Type 2 diabetes is common.",
    "Step 4 asks for a receipt.",
    "The iPhone 15 is supported.",
    "The form is on p. 12.",
    "The rules are on pp 40-41.",
]
AMOUNTS = [
    "Refunds take 14 days.",
    "The fee is $30.",
    "About 87% of staff agreed.",
    "The office opened in 1889.",
    "It closed on March 3, 2023.",
    "The budget grew to $1.5M.",
    "The trail is 5 km long.",
    "Three hundred people came, 40 of them late.",
    "The package weighs 2 kg.",
    "Reports are due within 60 days of purchase.",
    "The team has 12 members.",
    "Interest rose by 0.25 points.",
    "Stage 3 lasted 14 days.",  # an identifier and an amount: the amount counts
    "GPT-4 scored 86% on the test.",
    # written without spaces, a number glued to the words is still an amount
    "销售额在2020年增长了40%。",
    "利用者は3割増えた、約120万人。",
    "매출이 2023년에 15% 증가했다.",
]


@pytest.mark.parametrize("claim", IDENTIFIERS)
def test_digits_in_names_are_not_amounts(claim: str) -> None:
    assert not states_amount(claim)
    strict = citeaudit.Config(claims="strict")
    codes = {f.code for f in citeaudit.audit(claim, PASSAGES, config=strict).findings}
    assert "CA302" not in codes
    assert "CA301" in codes  # still an uncited claim under the policy's rules


@pytest.mark.parametrize("claim", AMOUNTS)
def test_amounts_need_a_citation(claim: str) -> None:
    assert states_amount(claim)
    assert "CA302" in {f.code for f in citeaudit.audit(claim, PASSAGES).findings}


def test_the_quantities_policy_skips_identifiers() -> None:
    config = citeaudit.Config(claim_policy="quantities")
    answer = "GPT-4 writes the summaries. Refunds take 14 days."
    found = [(f.code, f.claim) for f in citeaudit.audit(answer, PASSAGES, config=config).findings]
    assert found == [("CA302", 2)]


@pytest.mark.parametrize(("claim", "passage", "mismatch"), [
    ("GPT-4 writes the summaries [1].", "GPT-3 wrote the summaries.", False),
    ("Stage 3 lasts 14 days [1].", "Stage 2 lasts 14 days.", False),
    ("Article 2.4 sets a fee of $30 [1].", "Article 7 sets a fee of $30.", False),
    ("Refunds take 14 days [1].", "Refunds take 30 days.", True),
    ("Stage 3 lasts 14 days [1].", "Stage 3 lasts 20 days.", True),
])
def test_the_support_judge_compares_amounts_not_names(claim: str, passage: str,
                                                      mismatch: bool) -> None:
    config = citeaudit.Config(support="lexical")
    codes = {f.code for f in citeaudit.audit(claim, [passage], config=config).findings}
    assert ("CA501" in codes) is mismatch


@pytest.mark.parametrize(("claim", "passage", "codes"), [
    # consistent: the same amount, written otherwise or less precisely
    ("The museum opened in 1889 [1].", "The museum opened in March 1889.", set()),
    ("The rule changed in 2023 [1].", "The rule changed on March 3, 2023.", set()),
    ("The rule changed in March 2023 [1].", "The rule changed on March 3, 2023.", set()),
    ("The budget is $1.5M [1].", "The budget is $1,500,000.", set()),
    ("Release v2.1 fixed the bug [1].", "Version 2.1 fixed the bug.", set()),
    # contradicted: another amount of the same kind
    ("Refunds take 14 days [1].", "Refunds take 30 days.", {"CA501"}),
    ("About 15% of staff agreed [1].", "About 20% of staff agreed.", {"CA501"}),
    ("The rule changed in May 2020 [1].", "The rule changed in May 2021.", {"CA501"}),
    ("The fee is $30 [1].", "The fee is $45.", {"CA501"}),
    # not stated at all: weaker support, a warning, no error
    ("Refunds take 14 days [1].", "Refunds need a receipt from the store.", {"CA503"}),
    ("The team has 12 members [1].", "The team has 15 members and 3 managers.", {"CA503"}),
])
def test_ca501_is_a_contradiction(claim: str, passage: str, codes: set[str]) -> None:
    config = citeaudit.Config(support="lexical")
    found = citeaudit.audit(claim, [passage], config=config).findings
    assert {f.code for f in found if f.code.startswith("CA5")} == codes

"""Writes ``support_pairs.jsonl``: labelled (claim, evidence) pairs for calibrating support
judges. Each fact yields nine pairs: the claim as stated (1), a paraphrase (1), the paraphrase
with the sentence buried in a long passage (1), a swapped number (0), the swapped number in
the long passage (0), a swapped entity (0), a negation (0), topic drift (0) and partial
support, the claim plus an unsupported addition (0).

    python3 tests/data/support_pairs.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

# passage sentence | paraphrase | (amount, swapped amount) | (entity, swapped entity) |
# negated claim | unrelated claim | unsupported addition
FACTS = [
    ("Reimbursements are paid within 30 days of approval.",
     "Approved reimbursements get paid inside thirty days.",
     ("30 days", "14 days"), ("Reimbursements", "Bonuses"),
     "Reimbursements are not paid within 30 days of approval.",
     "The cafeteria serves lunch from noon until two.",
     "and they include a travel allowance"),
    ("Expense reports must be filed within 60 days of purchase.",
     "You have sixty days after buying something to file the expense report.",
     ("60 days", "90 days"), ("Expense reports", "Timesheets"),
     "Expense reports need not be filed within 60 days of purchase.",
     "Parking permits are issued by the security office.",
     "and late reports are fined"),
    ("The HR service desk is open from 9 a.m. to 5 p.m. on weekdays.",
     "On weekdays you can reach the HR service desk between 9 a.m. and 5 p.m.",
     ("5 p.m.", "8 p.m."), ("HR service desk", "IT help desk"),
     "The HR service desk is not open on weekdays.",
     "Quarterly results will be published in April.",
     "and on Saturday mornings"),
    ("Employees accrue 25 vacation days per year.",
     "Each year, staff members earn twenty-five days of vacation.",
     ("25 vacation days", "30 vacation days"), ("Employees", "Contractors"),
     "Employees do not accrue vacation days.",
     "The office kitchen is cleaned every evening.",
     "which can be carried over indefinitely"),
    ("The annual conference will take place on March 3, 2025 in Lisbon.",
     "Lisbon hosts the yearly conference on 2025-03-03.",
     ("March 3, 2025", "March 10, 2025"), ("Lisbon", "Madrid"),
     "The annual conference will not take place in Lisbon.",
     "New laptops are ordered through the procurement portal.",
     "with free admission for all staff"),
    ("Customer satisfaction rose to 87% in the last survey.",
     "In the latest survey, 87 percent of customers said they were satisfied.",
     ("87%", "78%"), ("Customer satisfaction", "Employee turnover"),
     "Customer satisfaction did not rise in the last survey.",
     "The gym is closed for renovation in July.",
     "the highest score in the company's history"),
    ("The company employs 1,200 people across four countries.",
     "Across four countries, the firm has a workforce of 1200.",
     ("1,200 people", "2,100 people"), ("four countries", "nine countries"),
     "The company employs no people outside one country.",
     "The library lends books for three weeks.",
     "most of them in engineering"),
    ("The new plant cost $1.5 million to build.",
     "Building the new plant took 1,500,000 dollars.",
     ("$1.5 million", "$5.1 million"), ("new plant", "new warehouse"),
     "The new plant did not cost anything to build.",
     "Visitors must sign in at the front desk.",
     "and was paid for by a government grant"),
    ("Refund requests are processed in 5 business days.",
     "It takes five business days to process a refund request.",
     ("5 business days", "15 business days"), ("Refund requests", "Exchange requests"),
     "Refund requests are never processed.",
     "The newsletter is sent every Friday.",
     "even during the holiday season"),
    ("The battery lasts up to 12 hours on a single charge.",
     "A single charge keeps the battery going for as long as twelve hours.",
     ("12 hours", "20 hours"), ("battery", "charger"),
     "The battery does not last on a single charge.",
     "Orders above $50 ship for free.",
     "even with the screen at full brightness"),
    ("Passwords must be changed every 90 days.",
     "Every ninety days, users have to change their passwords.",
     ("90 days", "30 days"), ("Passwords", "Badges"),
     "Passwords must never be changed.",
     "The cafeteria offers vegetarian options daily.",
     "and cannot reuse the last ten passwords"),
    ("The warranty covers manufacturing defects for 2 years.",
     "Manufacturing defects are covered by the warranty for two years.",
     ("2 years", "5 years"), ("manufacturing defects", "accidental damage"),
     "The warranty does not cover manufacturing defects.",
     "Meeting rooms can be booked online.",
     "including free shipping for replacements"),
    ("Sales grew by 12 percent in the third quarter.",
     "In Q3, sales went up 12%.",
     ("12 percent", "21 percent"), ("Sales", "Costs"),
     "Sales did not grow in the third quarter.",
     "The parking lot is repaved next month.",
     "driven by new markets in Asia"),
    ("The train from Berlin to Munich takes about 4 hours.",
     "Going from Berlin to Munich by train takes roughly four hours.",
     ("4 hours", "7 hours"), ("Munich", "Hamburg"),
     "There is no train from Berlin to Munich.",
     "Interns receive a monthly stipend.",
     "and runs every thirty minutes"),
    ("Interns receive a monthly stipend of 1,000 euros.",
     "Each month, interns are paid a stipend of €1000.",
     ("1,000 euros", "1,500 euros"), ("Interns", "Trainees"),
     "Interns receive no stipend.",
     "The print shop is in building B.",
     "plus free housing"),
    ("The museum is closed on Mondays.",
     "On Mondays the museum does not open its doors.",
     ("Mondays", "Tuesdays"), ("museum", "library"),
     "The museum is open on Mondays.",
     "Tickets for the concert sold out in an hour.",
     "and on public holidays"),
    ("The data centre runs entirely on renewable energy.",
     "Renewable sources supply all of the data centre's power.",
     ("entirely", "entirely"), ("data centre", "head office"),
     "The data centre does not run on renewable energy.",
     "Staff photos are taken every spring.",
     "and has won an efficiency award"),
    ("Applications close on June 30, 2025.",
     "The deadline for applications is 2025-06-30.",
     ("June 30, 2025", "July 30, 2025"), ("Applications", "Nominations"),
     "Applications do not close in June.",
     "The shuttle bus leaves every hour.",
     "and late applications are reviewed case by case"),
    ("The course consists of 8 modules and a final exam.",
     "There are eight modules in the course, followed by a final exam.",
     ("8 modules", "6 modules"), ("final exam", "final project"),
     "The course has no final exam.",
     "The canteen accepts card payments only.",
     "each taught by a different professor"),
    ("Shipping to Canada takes 7 to 10 days.",
     "Orders to Canada arrive within seven to ten days.",
     ("10 days", "21 days"), ("Canada", "Mexico"),
     "Shipping to Canada is not available.",
     "The support chat is staffed around the clock.",
     "and is always free"),
    ("The bridge is 1.2 kilometres long.",
     "The bridge spans 1,200 metres.",
     ("1.2 kilometres", "2.1 kilometres"), ("bridge", "tunnel"),
     "The bridge is not long.",
     "The choir rehearses on Thursday evenings.",
     "and was opened in 1998"),
    ("Membership costs 30 dollars a month.",
     "A monthly membership is $30.",
     ("30 dollars", "45 dollars"), ("Membership", "Parking"),
     "Membership does not cost anything.",
     "The garden is maintained by volunteers.",
     "with the first month free"),
    ("The clinic sees about 200 patients a day.",
     "Roughly two hundred patients visit the clinic daily.",
     ("200 patients", "500 patients"), ("clinic", "pharmacy"),
     "The clinic sees no patients.",
     "The museum shop sells postcards.",
     "most of them without an appointment"),
    ("Remote work is allowed two days per week.",
     "Staff may work from home on two days each week.",
     ("two days", "four days"), ("Remote work", "Overtime"),
     "Remote work is not allowed.",
     "The lobby is decorated for the holidays.",
     "subject to manager approval"),
    ("The software update fixes 14 security vulnerabilities.",
     "Fourteen security holes are patched by the software update.",
     ("14 security vulnerabilities", "41 security vulnerabilities"),
     ("software update", "hardware recall"),
     "The software update does not fix any security vulnerabilities.",
     "The elevator is inspected yearly.",
     "and adds a dark mode"),
    ("The river floods roughly once every 10 years.",
     "About once a decade, the river floods.",
     ("10 years", "50 years"), ("river", "lake"),
     "The river never floods.",
     "The bakery opens at six.",
     "causing major damage each time"),
    ("Tuition fees rose by 3.5% this year.",
     "This year tuition went up 3.5 percent.",
     ("3.5%", "5.3%"), ("Tuition fees", "Housing fees"),
     "Tuition fees did not rise this year.",
     "The choir needs more tenors.",
     "the smallest increase in a decade"),
    ("The hotel has 150 rooms and a rooftop pool.",
     "There are one hundred fifty rooms in the hotel, plus a pool on the roof.",
     ("150 rooms", "250 rooms"), ("rooftop pool", "rooftop bar"),
     "The hotel has no pool.",
     "The council meets on the first Monday.",
     "all with a sea view"),
    ("Loan applications are answered within 48 hours.",
     "You will hear back on a loan application within two days.",
     ("48 hours", "72 hours"), ("Loan applications", "Card applications"),
     "Loan applications are not answered.",
     "The zoo has a new panda.",
     "by a personal advisor"),
    ("The festival attracted 40,000 visitors last summer.",
     "Last summer, forty thousand people visited the festival.",
     ("40,000 visitors", "14,000 visitors"), ("festival", "fair"),
     "The festival attracted no visitors last summer.",
     "The printer on the second floor is broken.",
     "a record for the town"),
    ("The report is due on Friday at noon.",
     "Friday noon is the deadline for the report.",
     ("Friday", "Monday"), ("report", "invoice"),
     "The report is not due on Friday.",
     "The vending machine takes coins.",
     "and must be signed by two managers"),
    ("Our support team answers emails within 24 hours.",
     "Emails to the support team get a reply inside 24 hours.",
     ("24 hours", "48 hours"), ("emails", "letters"),
     "Our support team does not answer emails.",
     "The chess club meets on Wednesdays.",
     "in twelve languages"),
    ("The factory produces 500 cars per day.",
     "Five hundred cars come off the factory line every day.",
     ("500 cars", "800 cars"), ("cars", "trucks"),
     "The factory does not produce cars.",
     "The beach is cleaned every morning.",
     "all of them electric"),
    ("The vaccine is given in two doses four weeks apart.",
     "Two doses of the vaccine are given 28 days apart.",
     ("four weeks", "six weeks"), ("vaccine", "booster"),
     "The vaccine is not given in two doses.",
     "The office moves to a new building in May.",
     "and is free for everyone"),
]

FILLER = [
    "The organisation was founded several decades ago and has grown steadily since then.",
    "Its headquarters are in a renovated building near the central station.",
    "Questions about this page can be sent to the editorial team.",
    "This section was last reviewed by the policy committee.",
    "Other rules apply to temporary staff and are described elsewhere.",
    "For historical figures, see the archive of previous editions.",
    "Translations of this document are available on request.",
    "Employees are encouraged to read the full handbook at least once a year.",
]


def long_passage(sentence: str, rng: random.Random) -> str:
    """The sentence buried among about 800 characters of unrelated text."""
    before = rng.sample(FILLER, 3)
    after = rng.sample([f for f in FILLER if f not in before], 3)
    return " ".join([*before, sentence, *after])


def pairs() -> list[dict[str, object]]:
    rng = random.Random(2025)
    out: list[dict[str, object]] = []
    for sentence, paraphrase, (amount, other_amount), (entity, other_entity), negated, \
            drift, addition in FACTS:
        def add(claim: str, evidence: str, label: int, kind: str) -> None:
            out.append({"claim": claim, "evidence": evidence, "label": label, "kind": kind})

        long = long_passage(sentence, rng)
        add(sentence, sentence, 1, "exact")
        add(paraphrase, sentence, 1, "paraphrase")
        add(paraphrase, long, 1, "long passage")
        if amount != other_amount:
            add(sentence.replace(amount, other_amount), sentence, 0, "number swap")
            add(sentence.replace(amount, other_amount), long, 0, "number swap, long")
        add(sentence.replace(entity, other_entity), sentence, 0, "entity swap")
        add(negated, sentence, 0, "negation")
        add(drift, sentence, 0, "topic drift")
        add(sentence.rstrip(".") + " " + addition + ".", sentence, 0, "partial support")
    return out


def main() -> None:
    path = Path(__file__).with_name("support_pairs.jsonl")
    rows = pairs()
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
                    encoding="utf-8")
    print(f"{len(rows)} pairs written to {path.name}")


if __name__ == "__main__":
    main()

"""The term extractor (core/ingest/terms.py) on sentences written the ways contracts write them, in
English and Chinese, one field at a time, and the question side (core/retrieval/term_questions.py)."""
from __future__ import annotations

from datetime import date

import pytest

from core.ingest.terms import Passage, extract_terms, term_from_value
from core.retrieval.term_questions import read_term_question


def read(text: str, title: str = "") -> dict[str, str]:
    return {t.field: t.value for t in extract_terms([Passage(0, "", "This Agreement is made on 1 March 2023."),
                                                     Passage(1, title, text)])}


@pytest.mark.parametrize("text, field, value", [
    ("This Agreement commences on 1 April 2023 and continues for three (3) years.", "expiration_date", "2026-04-01"),
    ("This Agreement runs for five (5) years from the Effective Date.", "initial_term", "5 years"),
    ("The agreement has a fixed term until 30 June 2027.", "expiration_date", "2027-06-30"),
    ("This Agreement continues until terminated by either party.", "expiration_date", "perpetual"),
    ("本合同有效期为三年，自2024年1月1日起至2026年12月31日止。", "expiration_date", "2026-12-31"),
    ("本合同自2023年3月1日起生效，有效期两年。", "expiration_date", "2025-03-01"),
    ("本协议有效期为三（3）年，自2022年3月15日起计算。", "initial_term", "3 years"),
    ("It renews automatically for successive one (1) year periods unless either party gives notice of non-renewal "
     "at least ninety (90) days before the end of the term.", "renewal_notice", "90 days"),
    ("除非任何一方在期满前九十日书面通知对方不再续约，否则本合同自动续期一年。", "renewal_notice", "90 days"),
    ("除非任何一方在期满前九十日书面通知对方不再续约，否则本合同自动续期一年。", "renewal_term", "1 year"),
    ("期满后如需续约，双方应另行签订书面协议。", "auto_renewal", "no"),
    ("Either party may terminate this Agreement for convenience on sixty (60) days' written notice.",
     "convenience_notice", "60 days"),
    ("Either of us may bring this arrangement to an end by giving the other not less than three months' written "
     "notice, for any reason.", "convenience_notice", "3 months"),
    ("甲方有权提前三十日书面通知乙方解除本合同。", "convenience_notice", "30 days"),
    ("This Agreement is governed by the laws of the State of New York, without regard to conflicts of law.",
     "governing_law", "New York"),
    ("This Agreement shall be governed by English law.", "governing_law", "England and Wales"),
    ("本合同适用中华人民共和国法律。", "governing_law", "People's Republic of China"),
    ("Each party's total liability shall not exceed the fees paid in the twelve (12) months preceding the claim.",
     "liability_cap", "12 months of fees"),
    ("The Supplier's aggregate liability shall not exceed two times the fees paid in the preceding twelve months.",
     "liability_cap", "24 months of fees"),
    ("Liability is limited to EUR 1,000,000 per event and EUR 2,500,000 per contract year in aggregate.",
     "liability_cap", "amount EUR 2500000"),
    ("乙方在本合同项下的累计赔偿责任以合同暂定总价的 30% 为限。", "liability_cap", "0.3x fees"),
    ("赔偿总额以本协议项下前十二个月的货款总额为限。", "liability_cap", "12 months of fees"),
    ("The Service shall be available 99.95% of the time in each calendar month.", "uptime", "99.95"),
    ("服务可用率不低于99.9%。", "uptime", "99.9"),
    ("Invoices are payable within 30 days.", "payment_days", "30"),
    ("Payment terms are net 45 from the invoice date.", "payment_days", "45"),
    ("甲方应在收到合格发票后九十（90）日内支付货款。", "payment_days", "90"),
])
def test_each_field_is_read_as_written(text, field, value):
    assert read(text).get(field) == value, read(text)


def test_an_agreement_date_is_read_from_the_preamble_with_its_evidence():
    terms = extract_terms([Passage(0, "", "This Services Agreement is dated as of the 8th day of June, 2010.")])
    t = next(t for t in terms if t.field == "agreement_date")
    assert (t.value, t.position, t.quote) == ("2010-06-08", 0, "8th day of June, 2010")


def test_a_survival_sentence_is_no_term():
    assert "initial_term" not in read("During the Term and for three (3) years thereafter, neither party shall "
                                      "solicit the other's employees.")


@pytest.mark.parametrize("field, value, shown", [
    ("expiration_date", "2026-03-31", "2026-03-31"), ("expiration_date", "until terminated", "perpetual"),
    ("renewal_notice", "3 months", "3 months"), ("auto_renewal", "Yes", "yes"),
    ("liability_cap", "12 months of fees", "12 months of fees"), ("liability_cap", "EUR 500,000", "amount EUR 500000"),
    ("uptime", "99.9%", "99.9"), ("payment_days", "30", "30"),
])
def test_a_reviewers_value_is_typed_like_a_read_one(field, value, shown):
    assert term_from_value(field, value).value == shown


@pytest.mark.parametrize("field, value", [("renewal_notice", "soon"), ("expiration_date", "next spring"),
                                          ("liability_cap", "a lot"), ("uptime", "high"), ("colour", "red")])
def test_a_bad_reviewers_value_says_what_is_expected(field, value):
    with pytest.raises(ValueError, match=field if field != "colour" else "unknown term field"):
        term_from_value(field, value)


TODAY = date(2026, 12, 8)


@pytest.mark.parametrize("question, field, bounds", [
    ("Which agreements expire in 2025?", "expiration_date", {"date_from": "2025-01-01", "date_to": "2026-01-01"}),
    ("到期日在2025年之前的合同", "expiration_date", {"date_to": "2025-01-01"}),
    ("Which contracts expire in the next 90 days?", "expiration_date",
     {"date_from": "2026-12-08", "date_to": "2027-03-08"}),
    ("Which agreements run until terminated, with no fixed end date?", "expiration_date", {"term_text": "perpetual"}),
    ("Whose liability cap is below 12 months of fees?", "liability_cap", {"term_below": 12.0}),
    ("Which agreements cap liability at twice the annual fees or more?", "liability_cap", {"term_min": 24.0}),
    ("Which contracts can we end for convenience with 30 days' notice or less?", "convenience_notice",
     {"term_max": 30.0}),
    ("Which agreements need more than 100 days' notice to stop the renewal?", "renewal_notice", {"term_above": 100.0}),
    ("Which agreements renew for periods longer than one year?", "renewal_term", {"term_above": 365.0}),
    ("哪些合同约定的付款期限不超过30天？", "payment_days", {"term_max": 30.0}),
])
def test_a_term_question_is_read_as_a_field_and_its_bounds(question, field, bounds):
    ask = read_term_question(question, TODAY)
    assert ask is not None and ask.field == field
    assert {k: getattr(ask, k) for k in bounds} == bounds


@pytest.mark.parametrize("question", ["Which suppliers lack a termination clause?",
                                      "Show me data protection clauses of German healthcare companies",
                                      "What is our total spend in 2024?"])
def test_a_question_about_no_term_is_left_to_the_other_routes(question):
    assert read_term_question(question, TODAY) is None


def test_slashed_dates_follow_how_the_document_writes_its_dates_in_words():
    us = extract_terms([Passage(0, "", "This Agreement is made on March 1, 2024."),
                        Passage(1, "Term", "This Agreement commences on 04/01/2024 and continues for two years.")])
    uk = extract_terms([Passage(0, "", "This Agreement is made on 1 March 2024."),
                        Passage(1, "Term", "This Agreement commences on 04/01/2024 and continues for two years.")])
    assert {t.field: t.value for t in us}["effective_date"] == "2024-04-01"
    assert {t.field: t.value for t in uk}["effective_date"] == "2024-01-04"


@pytest.mark.parametrize("text, expected", [
    ("本合同期满前三十日内，双方均未提出书面终止要求的，本合同自动延续一年，以此类推。",
     {"auto_renewal": "yes", "renewal_term": "1 year", "renewal_notice": "30 days"}),
    ("如任何一方拟不再续签，应于本合同期满前至少六十（60）日书面通知对方，否则本合同自动续期一年。",
     {"auto_renewal": "yes", "renewal_notice": "60 days"}),
    ("合同到期后，如双方无异议，自动顺延一年。", {"auto_renewal": "yes", "renewal_term": "1 year"}),
    ("甲方可随时提前十五日书面通知乙方解除本协议，且无需承担违约责任。", {"convenience_notice": "15 days"}),
    ("乙方对甲方的赔偿总额不超过本合同总金额的百分之三十。", {"liability_cap": "0.3x fees"}),
    ("甲方应于收到发票之日起十五个工作日内付款。", {"payment_days": "15"}),
    ("本合同有效期自2024年1月1日至2026年12月31日。", {"effective_date": "2024-01-01", "expiration_date": "2026-12-31"}),
    ("本合同自双方签字盖章之日起生效，有效期三年。", {"expiration_date": "2026-03-01", "initial_term": "3 years"}),
])
def test_chinese_terms_as_chinese_contracts_write_them(text, expected):
    got = {t.field: t.value for t in extract_terms([Passage(0, "", "本合同于2023年3月1日签订。"), Passage(1, "", text)])}
    assert {k: got.get(k) for k in expected} == expected, got


@pytest.mark.parametrize("preamble, value", [
    ("This OUTSOURCING AGREEMENT is made and entered into as of the 16t h day of May, 2017, by and among A and B.",
     "2017-05-16"),   # the ordinal as EDGAR text splits it
    ("This First Amendment to the Development Agreement entered into on April 15, 2010 is made as of July 18, 2011.",
     "2011-07-18"),   # the amended agreement's date is not the amendment's
    ('This Supply Agreement ("Agreement") was made and entered into on January 11, 2001.', "2001-01-11"),
])
def test_the_agreement_date_is_the_documents_own(preamble, value):
    terms = {t.field: t.value for t in extract_terms([Passage(0, "", preamble)])}
    assert terms["agreement_date"] == value

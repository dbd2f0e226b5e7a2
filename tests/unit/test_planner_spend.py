"""Spend questions through the offline planner and the composer, without a database.

Categories are linked from the vocabulary (the graph's own SpendCategory names), so a category
the data does not hold is never proposed."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.answer.composer import build_evidence, compose_answer
from core.graph.vocabulary import Vocabulary
from tests.unit.vocabularies import AGREEMENTS, two_suppliers
from core.retrieval.planner import extract_facts, plan_question, route
from core.types import Intent, Mode, Plan, PlanParams

VOCAB = two_suppliers(agreements=AGREEMENTS[:1], spend_categories=["Field Engineering", "Freight & Warehousing", "Hosting"],
                      base_currency="EUR")


@pytest.mark.parametrize("question, intent, rule, expect", [
    ("How much did we spend on field engineering in 2024?", "sum_spend", "category_spend",
     {"spend_categories": ["Field Engineering"], "spend_year": 2024}),
    ("2024年在Field Engineering上的支出是多少？", "sum_spend", "category_spend",
     {"spend_categories": ["Field Engineering"], "spend_year": 2024}),
    ("How much did we spend on freight and warehousing with German suppliers?", "sum_spend", "category_spend",
     {"spend_categories": ["Freight & Warehousing"], "countries": ["Germany"], "spend_year": 2024}),
    ("Which suppliers did we pay for hosting in 2023?", "spend_top", "category_spend",
     {"spend_categories": ["Hosting"], "spend_year": 2023}),
    ("Top 5 suppliers by spend", "spend_top", "spend_top", {"top": 5}),
    ("Who are our three biggest suppliers by 2023 spend?", "spend_top", "spend_top", {"top": 3, "spend_year": 2023}),
    ("Which is our biggest supplier?", "spend_top", "spend_top", {"top": 1}),
    ("支出最高的3家供应商是哪些？", "spend_top", "spend_top", {"top": 3}),
    ("Total spend by country in 2024", "spend_by", "spend_by", {"group_by": "country"}),
    ("What was our spend per industry?", "spend_by", "spend_by", {"group_by": "industry"}),
    ("Total 2024 spend by category", "spend_by", "spend_by", {"group_by": "category"}),
    ("2024年按国家统计的总支出", "spend_by", "spend_by", {"group_by": "country"}),
    ("按支出类别统计2024年的支出", "spend_by", "spend_by", {"group_by": "category"}),
    ("How has our spend with Kestrel developed over the years?", "spend_history", "spend_history",
     {"companies": ["Kestrel Logistics GmbH"], "spend_year": None}),
    ("What did we spend with Kestrel in 2023?", "spend_history", "spend_history",
     {"companies": ["Kestrel Logistics GmbH"], "spend_year": 2023}),
    ("Kestrel 各年的支出是多少？", "spend_history", "spend_history", {"companies": ["Kestrel Logistics GmbH"]}),
    ("How much did we spend in 2024?", "sum_spend", "total_spend", {"spend_year": 2024}),
])
def test_spend_questions_route_to_spend_rules(question, intent, rule, expect):
    plan = plan_question(question, VOCAB)
    hit = route(extract_facts(question, VOCAB))
    assert (plan.intent, plan.mode, hit[0].name) == (intent, Mode.ATTRIBUTE, rule), plan.why
    for key, value in expect.items():
        assert getattr(plan.params, key) == value, key
    assert plan.params.currency == "EUR"


def test_categories_come_from_the_graph_not_a_list():
    assert plan_question("How much did we spend on catering in 2024?", VOCAB).params.spend_categories is None
    other = Vocabulary(companies=VOCAB.companies, spend_years=[2024], spend_categories=["Catering"])
    plan = plan_question("How much did we spend on catering in 2024?", other)
    assert plan.params.spend_categories == ["Catering"] and plan.intent == Intent.SUM_SPEND
    assert plan.linked["spend_categories"] == {"Catering": "catering"}


@pytest.mark.parametrize("question, intent, rule", [
    ("Which high-spend suppliers lack a termination clause?", "gap", "type_gap"),
    ("Which suppliers with spend above 500,000 have no termination clause?", "gap", "type_gap"),
    ("Total 2024 spend of all suppliers", "sum_spend", "companies"),
    ("What was the total spend with German healthcare suppliers in 2024?", "sum_spend", "companies"),
    ("What does Kestrel's agreement say about termination?", "document_type", "document_type"),
])
def test_clause_and_threshold_questions_keep_their_routes(question, intent, rule):
    plan = plan_question(question, VOCAB)
    assert (plan.intent, route(extract_facts(question, VOCAB))[0].name) == (intent, rule)


def _plan(intent: str, lang: str = "en", **params) -> Plan:
    return Plan(intent=intent, mode="attribute", params=PlanParams(currency="EUR", spend_year=2024, **params),
                language=lang)


def test_spend_answers_name_the_currency_and_cite():
    p = _plan("sum_spend", spend_categories=["Field Engineering"])
    rows = [{"company": "Kestrel Logistics GmbH", "spend": 230000.0}, {"company": "Belmira Payments SA", "spend": 55000}]
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer == ("The 2024 spend on Field Engineering is 285,000 EUR, across 2 suppliers: "
                      "Kestrel Logistics GmbH (230,000 EUR) [S1]; Belmira Payments SA (55,000 EUR) [S2].")
    top = _plan("spend_top", top=1)
    assert compose_answer(top, rows[:1], build_evidence(rows[:1], top)) == (
        "The 1 supplier with the highest 2024 spend: Kestrel Logistics GmbH (230,000 EUR) [S1].")
    zh = _plan("spend_top", "zh", top=2)
    assert "支出最高的 2 家供应商" in compose_answer(zh, rows, build_evidence(rows, zh))


def test_grouped_and_history_answers():
    p = _plan("spend_by", group_by="country")
    rows = [{"group_name": "Germany", "spend": 500000.0, "companies": 2,
             "largest": [{"company": "Kestrel Logistics GmbH", "spend": 400000.0}]},
            {"group_name": "France", "spend": 100000.0, "companies": 1, "largest": []}]
    ev = build_evidence(rows, p)
    assert [e.ref for e in ev] == ["S1", "S2"] and "Kestrel Logistics GmbH 400,000 EUR" in ev[0].text
    assert compose_answer(p, rows, ev) == ("2024 spend by country: Germany 500,000 EUR (2 suppliers) [S1]; "
                                           "France 100,000 EUR (1 supplier) [S2]. Total: 600,000 EUR.")
    h = _plan("spend_history", companies=["Kestrel Logistics GmbH"])
    rows = [{"company": "Kestrel Logistics GmbH", "year": 2023, "category": "Hosting", "spend": 300000.0},
            {"company": "Kestrel Logistics GmbH", "year": 2024, "category": "Hosting", "spend": 450000.0},
            {"company": "Kestrel Logistics GmbH", "year": 2024, "category": "Field Engineering", "spend": 180000.0}]
    assert compose_answer(h, rows, build_evidence(rows, h)) == (
        "Kestrel Logistics GmbH: 2023: 300,000 EUR (Hosting 300,000); "
        "2024: 630,000 EUR (Hosting 450,000, Field Engineering 180,000); total 2023–2024: 930,000 EUR [S1].")
    assert compose_answer(h, [], []) == "No spend data matches this question."


@pytest.mark.parametrize("question, expect", [
    ("Which suppliers have an SLA uptime below 99.9%?", (None, None)),
    ("Which suppliers respond to incidents within 4 hours?", (None, None)),
    ("Which suppliers have more than 3 agreements?", (None, None)),
    ("可用性低于99.9%的供应商有哪些？", (None, None)),
    ("Which suppliers with spend above 500,000 lack a liability clause?", (500000.0, None)),
    ("Suppliers under 200k EUR", (None, 200000.0)),
    ("支出超过50万的供应商", (500000.0, None)),
])
def test_only_money_is_read_as_a_spend_amount(question, expect):
    """A bare number that is a share, a time or a count of things is no spend filter."""
    from core.retrieval.spend_terms import parse_spend

    assert parse_spend(question, 250_000)[:2] == expect


@pytest.mark.parametrize("question, expect", [
    ("Name the suppliers we spent over half a million with in 2024", (500000.0, None)),
    ("Which suppliers did we pay more than a quarter of a million?", (250000.0, None)),
    ("Suppliers under three hundred thousand euros", (None, 300000.0)),
    ("Vendors with spend above twenty-five thousand", (25000.0, None)),
    ("Suppliers between one million and two million", (1_000_000.0, 2_000_000.0)),
    ("支出超过五十万的供应商", (500000.0, None)),
    ("支出低于一百二十万的供应商", (None, 1_200_000.0)),
    # a spelled number that is no amount is left alone
    ("Which one of the suppliers lacks a liability clause?", (None, None)),
    ("Which suppliers have more than a thousand employees?", (None, None)),
])
def test_amounts_written_in_words_are_read_as_amounts(question, expect):
    from core.retrieval.spend_terms import parse_spend

    assert parse_spend(question, 250_000)[:2] == expect


@pytest.mark.parametrize("question, intent, rule, high_spend", [
    # "our biggest / key suppliers" asked about a clause or an agreement: the high-spend group
    ("Which of our biggest suppliers have no termination clause?", "gap", "type_gap", True),
    ("Which key suppliers have not signed any agreement?", "no_agreement", "no_agreement", True),
    ("主要供应商中哪些缺少终止条款？", "gap", "type_gap", True),
    # alone or with a number it is a ranking, not a filter
    ("Who are our biggest suppliers?", "spend_top", "spend_top", False),
    ("Which of our 3 biggest suppliers lack a termination clause?", "gap", "type_gap", False),
    # absence worded without "lack" / "no"
    ("Show me every supplier whose agreement is silent on termination.", "gap", "type_gap", False),
    ("Which suppliers have not yet signed a contract?", "no_agreement", "no_agreement", False),
])
def test_key_suppliers_and_absence_wordings(question, intent, rule, high_spend):
    plan = plan_question(question, VOCAB)
    assert (plan.intent, route(extract_facts(question, VOCAB))[0].name) == (intent, rule), plan.why
    assert (plan.params.spend_min is not None) == high_spend, plan.params


def test_outlay_is_spend():
    plan = plan_question("What's our total 2024 outlay on German suppliers?", VOCAB)
    assert plan.intent == Intent.SUM_SPEND and plan.params.countries == ["Germany"] and plan.params.spend_year == 2024


def test_several_named_suppliers_in_total_is_one_sum():
    vocab = two_suppliers(spend_years=[2023, 2024])
    total = plan_question("What did we spend in total with Kestrel and Belmira in 2024?", vocab)
    assert total.intent == Intent.SUM_SPEND and set(total.params.companies) == {"Kestrel Logistics GmbH", "Belmira Payments SA"}
    one = plan_question("What did we spend with Kestrel in 2024?", vocab)
    assert one.intent == Intent.SPEND_HISTORY


def test_what_a_supplier_must_pay_is_not_our_spend():
    plan = plan_question("Is there a cap on what Kestrel can be made to pay?", VOCAB)
    assert plan.intent not in (Intent.SPEND_HISTORY, Intent.SUM_SPEND), plan.why
    assert plan_question("How much did we pay Kestrel in 2023?", VOCAB).intent == Intent.SPEND_HISTORY


def test_several_years_named_for_one_supplier_are_those_years():
    vocab = two_suppliers(spend_years=[2022, 2023, 2024])
    both = plan_question("How much did we pay Kestrel over 2023 and 2024 combined?", vocab)
    assert both.intent == Intent.SPEND_HISTORY and both.params.spend_years == [2023, 2024]
    assert both.params.spend_year is None
    ranged = plan_question("Kestrel's spend from 2022 to 2024", vocab)
    assert ranged.params.spend_years == [2022, 2023, 2024]
    one = plan_question("What did we spend with Kestrel in 2023?", vocab)
    assert one.params.spend_year == 2023 and one.params.spend_years is None


@pytest.mark.parametrize("question, intent", [
    ("What is our 2024 spend with German suppliers?", Intent.SUM_SPEND),
    ("What's our 2024 spend with German and French suppliers together?", Intent.SUM_SPEND),
    ("2024年我们在德国供应商上花了多少钱？", Intent.SUM_SPEND),
    # a list, a ranking or a grouping of the group stays one
    ("Which German suppliers did we spend over 100k with?", Intent.COMPANIES),
    ("Spend with German suppliers by industry", Intent.SPEND_BY),
])
def test_the_spend_of_a_group_is_its_sum(question, intent):
    plan = plan_question(question, VOCAB)
    assert plan.intent == intent, plan.why


def test_what_a_supplier_cost_us_is_our_spend():
    total = plan_question("What did Kestrel and Belmira cost us in 2024 altogether?", VOCAB)
    assert total.intent == Intent.SUM_SPEND and total.params.spend_year == 2024
    assert plan_question("What has Kestrel cost us over the years?", VOCAB).intent == Intent.SPEND_HISTORY
    # what something in the contract would cost is a question about the contract
    assert plan_question("What would early termination cost us?", VOCAB).intent not in (
        Intent.SUM_SPEND, Intent.SPEND_HISTORY)


@pytest.mark.parametrize("question, change, years", [
    ("Which suppliers did we spend more with in 2024 than in 2023?", "up", (2023, 2024)),
    ("Whose spend increased?", "up", (2023, 2024)),
    ("Which suppliers saw their spend decline in 2024?", "down", (2023, 2024)),
    ("支出下降的供应商有哪些？", "down", (2023, 2024)),
])
def test_spend_that_went_up_or_down_between_two_years(question, change, years):
    plan = plan_question(question, VOCAB)
    assert plan.intent == Intent.COMPANIES, plan.why
    assert (plan.params.spend_change, plan.params.spend_from_year, plan.params.spend_year) == (change, *years)


def test_a_spend_change_is_no_sum_and_no_clause_question():
    assert plan_question("How many suppliers had higher spend in 2024 than 2023?", VOCAB).intent == Intent.COUNT
    p = plan_question("Which suppliers limit liability to fees paid in the previous 12 months?", VOCAB)
    assert p.params.spend_change is None and p.params.types == ["Liability"]


def test_more_or_less_than_an_amount_is_a_threshold_not_a_change():
    for q in ("Who are the suppliers we spent less than 200k with in 2024?", "Which suppliers did we pay more than €500,000?",
              "Which suppliers have spend higher than 100k?"):
        p = plan_question(q, VOCAB)
        assert p.params.spend_change is None and (p.params.spend_min or p.params.spend_max), (q, p.linked)


def test_a_ranking_from_the_lowest_spend():
    from tests.unit.vocabularies import two_suppliers

    vocab = two_suppliers()
    for q, n in (("Which supplier did we spend the least with in 2024?", 1), ("Who are our 3 smallest suppliers?", 3),
                 ("2024年支出最低的两家供应商", 2)):
        p = plan_question(q, vocab)
        assert p.intent == Intent.SPEND_TOP and p.params.top == n and p.params.spend_order == "lowest", (q, p.why)
    p = plan_question("Who are our 2 biggest suppliers?", vocab)
    assert p.params.top == 2 and p.params.spend_order is None
    p = plan_question("Which of our two smallest suppliers lack a termination clause?", vocab)
    assert p.intent == Intent.GAP and p.params.top == 2 and p.params.spend_order == "lowest"


def test_a_word_naming_a_spend_category_and_a_clause_type_is_the_category_in_a_spend_question():
    from tests.unit.vocabularies import two_suppliers

    vocab = two_suppliers(clause_types=["Termination", "Maintenance"], spend_categories=["Maintenance", "Hosting"])
    p = plan_question("What did we spend on Kestrel's maintenance in 2024?", vocab)
    assert (p.intent, p.params.types, p.params.spend_categories) == (Intent.SPEND_HISTORY, [], ["Maintenance"]), p.why
    # said twice it is both: the suppliers with maintenance spend lacking a maintenance clause
    p = plan_question("Which suppliers with maintenance spend lack a maintenance clause?", vocab)
    assert p.params.types == ["Maintenance"] and p.intent == Intent.GAP, p.why


def test_big_suppliers_inside_a_country_name_are_no_spend_filter():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[1] / "fixtures" / "campus_corpus")
    # 加拿大供应商 is a Canadian supplier, not a 大供应商 (a big one)
    plan = plan_question("哪些加拿大供应商有服务抵扣条款？", vocab)
    assert plan.params.countries == ["Canada"] and plan.params.spend_min is None, plan.params
    plan = plan_question("哪些大供应商没有审计条款？", vocab)
    assert plan.params.spend_min is not None, plan.params


def test_a_word_owned_by_someone_is_no_sector():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[1] / "fixtures" / "campus_corpus")
    plan = plan_question("Which suppliers give us a licence to use their software?", vocab)
    assert plan.params.types == ["License Grant"] and not plan.params.industries, plan.params
    plan = plan_question("Which of our software suppliers lack an audit clause?", vocab)
    assert plan.params.industries == ["Software"], plan.params
    # coordinated sectors before the supplier word are still sectors
    plan = plan_question("Who are our software and catering suppliers?", vocab)
    assert sorted(plan.params.industries) == ["Catering", "Software"], plan.params

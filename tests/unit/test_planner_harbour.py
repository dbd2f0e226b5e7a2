"""Questions of the eighth corpus (tests/fixtures/harbour_corpus) whose first run found general gaps in the
planner: a count of suppliers described by what their contracts grant, a Chinese compound whose first word is
the type, a detail inside the words that ask which law applies, a ranking said as 排名前三, "leaving aside", and
what we paid said with the verb of paying."""
from pathlib import Path

import pytest

from core.retrieval.planner import plan_question
from core.types import Intent
from tests.unit.vocabularies import corpus_vocabulary

VOCAB = corpus_vocabulary(Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "harbour_corpus")


@pytest.mark.parametrize("question", [
    "How many suppliers' contracts give us the right to inspect or audit their books and records?",
    "How many contracts let us audit the supplier's records?",
])
def test_a_count_of_holders_names_the_type_its_words_describe(question):
    p = plan_question(question, VOCAB)
    assert p.intent == Intent.COUNT and p.params.types == ["Audit Rights"], p.why


def test_a_count_of_suppliers_alone_describes_no_clause():
    p = plan_question("How many suppliers do we have?", VOCAB)
    assert p.intent == Intent.COUNT and not p.params.types, p.linked


@pytest.mark.parametrize("question, types, facets", [
    # 不可抗力 (the type's keyword) qualified by 免责 (a related word): a force majeure clause
    ("哪些签了合同的供应商，其合同里没有不可抗力免责条款？", ["Force Majeure"], None),
    # 计划内停机维护 ... 提前通知: maintenance, and the notice is its detail, not a termination word
    ("哪些供应商在做计划内停机维护之前必须提前通知我们？", ["Maintenance"], ["Advance notice"]),
    ("Which suppliers must tell us before planned maintenance?", ["Maintenance"], ["Advance notice"]),
    ("哪些合同有停机维护条款？", ["Maintenance"], None),
    # 赔偿 (a keyword, not a type's name) qualifies 上限: a cap on compensation, a liability clause
    ("哪些高支出供应商的合同里没有关于赔偿上限的约定？", ["Liability"], None),
])
def test_chinese_compounds_and_the_notice_of_maintenance(question, types, facets):
    p = plan_question(question, VOCAB)
    assert p.params.types == types and p.params.facets == facets, p.linked


def test_a_notice_to_terminate_is_no_maintenance_detail():
    p = plan_question("Which suppliers can we terminate with prior notice?", VOCAB)
    assert "Maintenance" not in (p.params.types or []), p.linked


def test_asking_which_jurisdictions_law_applies_asks_for_no_courts_detail():
    p = plan_question("Which agreement doesn't specify which jurisdiction's law governs it?", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Governing Law"] and not p.params.facets, p.linked


def test_a_ranking_said_as_ranked_in_the_top_three_scopes_a_gap():
    p = plan_question("按2025年采购额排名前三的供应商中，哪些合同没有任何质量保证或保修条款？", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Warranty"] and p.params.top == 3, p.linked


@pytest.mark.parametrize("question", [
    "Leaving aside our dredging contractor, which suppliers have a service credit clause?",
    "Setting aside the dredging supplier, which suppliers have a service credit clause?",
])
def test_leaving_aside_leaves_out(question):
    p = plan_question(question, VOCAB)
    assert p.params.industries_left_out == ["Dredging"], p.linked


@pytest.mark.parametrize("question, years", [
    ("2023年至2025年我们向Hjortvig Towage一共支付了多少美元？", [2023, 2024, 2025]),
    ("How much did we pay Hjortvig Towage over 2023 and 2024 combined?", [2023, 2024]),
])
def test_what_we_paid_is_spend_not_a_payment_clause(question, years):
    p = plan_question(question, VOCAB)
    assert p.intent == Intent.SPEND_HISTORY and not p.params.types and p.params.spend_years == years, p.linked


def test_a_negation_inside_a_chinese_condition_and_a_narrowed_termination():
    # 在对方没有违约的情况下 ("where the other side has not breached") is the situation, not a gap; 无理由
    # narrows 终止 to termination for convenience, one type
    p = plan_question("有多少家供应商的合同允许在对方没有违约的情况下无理由提前终止？", VOCAB)
    assert p.intent == Intent.COUNT and p.params.types == ["Termination for Convenience"], p.linked
    assert not p.params.gap, p.linked
    # both named by their names: both asked
    p = plan_question("Which suppliers lack a termination clause and a termination for convenience clause?", VOCAB)
    assert set(p.params.types) == {"Termination", "Termination for Convenience"}, p.linked


def test_contracts_that_contain_no_duty_lack_a_clause():
    p = plan_question("For suppliers we spent more than USD 1 million with in 2025, whose contracts contain no duty "
                      "to keep our information confidential?", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Confidentiality"] and p.params.spend_min == 1_000_000, p.linked


def test_nothing_stopping_either_side_from_poaching_staff_is_a_non_solicitation_gap():
    p = plan_question("Which supplier contracts have nothing stopping either side from poaching the other's staff?", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Non-Solicitation"], p.linked


@pytest.mark.parametrize("question", [
    "Among suppliers we paid more than USD 1 million in 2025, which have no information security obligations?",
    "Among suppliers we paid more than USD 1 million in 2025, which don't have information security obligations?",
])
def test_suppliers_named_before_which_are_what_a_negation_asks_about(question):
    p = plan_question(question, VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Security"], p.linked

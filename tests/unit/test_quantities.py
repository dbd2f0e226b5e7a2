"""Quantities a question asks a clause to state, and the patterns that find them in any spelling."""
import re

import pytest

from core.retrieval.quantities import question_quantities, quantity_patterns
from core.retrieval.type_links import link_clause_types


def _finds(question: str, clause: str) -> bool:
    (quantity,) = question_quantities(question)
    return re.match(quantity.pattern, clause) is not None   # Cypher `=~` matches the whole text, as here


@pytest.mark.parametrize("question, text", [
    ("Who must notify us within 24 hours of a data breach?", "24 hours"),
    ("Which suppliers promise an uptime of 99.9%?", "99.9%"),
    ("Which suppliers must keep records for seven years?", "seven years"),
    ("Which suppliers respond within twenty-four hours?", "twenty-four hours"),
    ("哪家供应商承诺一级故障30分钟内响应？", "30分钟"),
    ("哪些供应商承诺了7×24小时支持？", "7×24小时"),
    ("Which suppliers offer 24/7 support?", "24/7"),
    # a standard named by its number is as exact a detail as a figure
    ("Which suppliers hold ISO 9001 certification?", "ISO 9001"),
    ("哪些供应商通过了ISO 27001认证？", "ISO 27001"),
    ("Is anyone certified to ISO/IEC 27001:2022?", "ISO/IEC 27001:2022"),
    ("Which vendors have a SOC 2 report?", "SOC 2"),
    ("Which vendors comply with PCI DSS?", "PCI DSS"),
])
def test_a_stated_quantity_is_read(question, text):
    assert [x.text for x in question_quantities(question)] == [text]


@pytest.mark.parametrize("question", [
    "Which agreements signed in the last two years have a termination clause?",   # dates the agreement
    "Which contracts were signed 3 years ago?",
    "What did we spend in 2024?",
    "Which suppliers have more than 3 agreements?",
    "2021年生效的合同中关于维护的条款",      # a year
])
def test_dating_and_other_numbers_are_no_detail(question):
    assert question_quantities(question) == []


@pytest.mark.parametrize("question, clause, found", [
    ("within 24 hours", "notify Customer within twenty-four (24) hours after becoming aware", True),
    ("within 24 hours", "应在采集后二十四小时内完成去标识化处理", True),
    ("within 24 hours", "a 24-hour help desk", True),
    ("within 24 hours", "within 124 hours", False),
    ("within 24 hours", "within 2.4 hours", False),
    ("an uptime of 99.9%", "保证平台每月可用率不低于99.9%。", True),
    ("an uptime of 99.9%", "at least 99.9 per cent of each month", True),
    ("an uptime of 99.9%", "99.95% of the time", False),
    ("keep records for seven years", "records of all Payroll Runs for 7 years", True),
    ("keep records for seven years", "for seventy years", False),
    ("30分钟内响应", "respond within thirty minutes", True),
    ("30分钟内响应", "应在三十分钟内响应", True),
    ("30分钟内响应", "应在三十五分钟内响应", False),
    ("24/7 support", "support is available around the clock", True),
    ("24/7 support", "提供7×24小时技术支持", True),
    ("ISO 27001 certified", "certified to ISO/IEC 27001:2013 by an accredited body", True),
    ("ISO 27001 certified", "乙方已通过ISO27001认证", True),
    ("ISO 27001 certified", "ISO 270011", False),
    ("ISO 27001 certified", "certified to ISO 9001", False),
    ("SOC 2 report", "a SOC-2 Type II report", True),
    ("SOC 2 report", "a SOC 1 report", False),
])
def test_the_pattern_finds_every_spelling_and_nothing_else(question, clause, found):
    assert _finds(question, clause) is found


def test_a_plan_keeps_the_text_and_the_query_rebuilds_the_pattern():
    (quantity,) = question_quantities("an uptime of 99.9%")
    assert quantity_patterns([quantity.text]) == [quantity.pattern]


def test_a_clause_word_with_a_quantity_stated_of_it_names_its_type():
    # "uptime" alone describes no clause ("offer uptime"); with a figure it is the clause's promise
    assert link_clause_types("Which suppliers promise an uptime of 99.9%?", by_meaning=False)[0] == ["Availability"]
    assert link_clause_types("Which suppliers guarantee 99.9% uptime?", by_meaning=False)[0] == ["Availability"]


@pytest.mark.parametrize("question, types, quantities", [
    ("Which suppliers promise an uptime of 99.9%?", ["Availability"], ["99.9%"]),
    # the type linked by meaning (the Chinese lexicon), after the shared parameters are read
    ("哪些供应商承诺了7×24小时支持？", ["Support"], ["7×24小时"]),
    ("Which suppliers have a support clause?", ["Support"], None),
])
def test_the_plan_keeps_the_quantities_for_the_type_however_it_was_linked(question, types, quantities):
    from core.retrieval.planner import plan_question
    from tests.unit.vocabularies import two_suppliers

    plan = plan_question(question, two_suppliers())
    assert plan.params.types == types and plan.params.quantities == quantities



def test_a_standard_is_looked_for_in_any_clause_unless_the_type_is_named():
    from core.retrieval.planner import plan_question
    from tests.unit.vocabularies import two_suppliers

    plan = plan_question("Which suppliers hold ISO 9001 certification?", two_suppliers())
    assert plan.params.quantities == ["ISO 9001"] and plan.params.facets_anywhere
    named = plan_question("Which security clauses mention ISO 27001?", two_suppliers())
    assert named.params.quantities == ["ISO 27001"] and not named.params.facets_anywhere


@pytest.mark.parametrize("question, said, clause, found", [
    # a bound: any figure on its side, whichever way the clause writes it
    ("Which suppliers commit to availability of at least 99.9%?", "at least 99.9%", "available 99.95% of the time", True),
    ("Which suppliers commit to availability of at least 99.9%?", "at least 99.9%", "available 99.9 % of each month", True),
    ("Which suppliers commit to availability of at least 99.9%?", "at least 99.9%", "an on-time rate of at least 98%", False),
    ("Which suppliers have uptime below 99.9%?", "below 99.9%", "available 99.9% of each month", False),
    ("Which suppliers have uptime below 99.9%?", "below 99.9%", "available 99.5% of each month", True),
    ("哪些供应商的可用率不低于99.9%？", "不低于99.9%", "保证平台每月可用率不低于99.95%。", True),
    ("哪些供应商的可用率不低于99.9%？", "不低于99.9%", "可用率为99.5%", False),
    # durations compare across units and spellings
    ("Which suppliers must we pay within 30 days or less?", "30 days or less", "within twenty-one (21) days", True),
    ("Which suppliers must we pay within 30 days or less?", "30 days or less", "within 45 days after receipt", False),
    ("Which suppliers must we pay within 30 days or less?", "30 days or less", "验收合格后三十日内支付", True),
    ("Which suppliers must we pay within 30 days or less?", "30 days or less", "within one month", True),
    ("Which suppliers give a warranty of at least two years?", "at least two years", "24 months from delivery", True),
    ("Which suppliers give a warranty of at least two years?", "at least two years", "a warranty of 18 months", False),
    ("Which suppliers give a warranty of at least two years?", "at least two years", "质保期为二十四个月", True),
    ("Which suppliers respond in under 1 hour?", "under 1 hour", "respond within fifteen minutes", True),
    ("Which suppliers respond in under 1 hour?", "under 1 hour", "respond within 1 hour", False),
    ("哪些供应商的付款期限超过30天？", "超过30天", "within 45 days", True),
    ("哪些供应商的付款期限超过30天？", "超过30天", "within 30 days", False),
    # the comparison may follow what the figure measures
    ("Which suppliers can we end the contract with on 90 days' notice or less?", "90 days' notice or less",
     "on three months' written notice", True),
    ("Which suppliers can we end the contract with on 90 days' notice or less?", "90 days' notice or less",
     "without cause on 120 days' notice", False),
    # a time said as later or sooner is a bound as well
    ("Which contracts have us paying later than 30 days?", "later than 30 days", "within 45 days of receipt", True),
    ("Which contracts have us paying later than 30 days?", "later than 30 days", "within 30 days of receipt", False),
    ("Who must we pay no later than 30 days after invoice?", "no later than 30 days", "within 14 days", True),
    ("Who must we pay no later than 30 days after invoice?", "no later than 30 days", "within 60 days", False),
    ("Which suppliers respond sooner than 4 hours?", "sooner than 4 hours", "within one hour", True),
    ("Which suppliers respond sooner than 4 hours?", "sooner than 4 hours", "within four hours", False),
])
def test_a_compared_quantity_is_a_bound(question, said, clause, found):
    (q,) = question_quantities(question)
    assert q.text == said
    assert bool(re.fullmatch(q.pattern, clause)) is found
    # the plan keeps what was said; read back, it is the same bound
    assert [x.pattern for x in question_quantities(q.text)] == [q.pattern]


def test_paying_later_keeps_its_words_for_the_meaning_of_the_question():
    from core.retrieval.quantities import without_comparisons

    # "later than" says what the clause is about (paying late); "or less" only how much
    assert without_comparisons("which contracts have us paying later than 30 days?") == \
        "which contracts have us paying later than 30 days?"
    assert without_comparisons("who must we pay within 30 days or less?") == "who must we pay within 30 days?"

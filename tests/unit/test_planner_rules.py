"""The planner's routing table, the typed plan and the mode/intent enums, without a database.

The planner reads an in-memory `Vocabulary` (the same dataclass the graph fills), so routing
is checked end to end from the question's words; the questions avoid described clause types,
which would need the embedding model.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.config import settings
from core.errors import ClauseGraphError
from core.graph.vocabulary import Vocabulary
from tests.unit.vocabularies import two_suppliers, with_services
from core.retrieval import planner
from core.retrieval.follow_up import SessionContext
from core.retrieval.planner import ROUTES, plan_question
from core.types import ASKABLE_MODES, RESULT_MODES, RETRIEVAL_MODES, Intent, Mode, Plan, PlanParams, Result

VOCAB = two_suppliers()

# The routing policy: the first rule that applies wins, so this order is behaviour.
EXPECTED_ORDER = (
    "follow_up_neighbour", "contract_terms", "no_agreement", "companies_by_agreements", "agreements_by_date",
    "spend_history", "spend_by", "spend_top", "category_spend", "named_location",
    "named_count_agreements", "named_agreements", "named_count_clauses", "named_gap", "named_position", "named_neighbour", "named_presence",
    "document_type", "document_topic", "document",
    "type_gap", "type_presence", "attribute_clauses", "clause_type_topic", "clause_type",
    "filtered_documents", "agreements_not_mentioning", "clauses_mentioning", "hybrid", "filtered_agreements", "companies", "total_spend", "relay",
)


def test_route_table_is_read_in_its_documented_order():
    assert tuple(r.name for r in ROUTES) == EXPECTED_ORDER
    for rule in ROUTES:
        assert rule.reason and rule.mode in RETRIEVAL_MODES, rule.name


@pytest.mark.parametrize("question, intent, mode, rule", [
    ("Which high-spend suppliers lack a termination clause?", "gap", "attribute", "type_gap"),
    ("Show me the liability clauses of Kestrel.", "document_type", "document", "document_type"),
    ("How many agreements does Kestrel have?", "count", "document", "named_count_agreements"),
    ("Which companies have no agreement?", "no_agreement", "attribute", "no_agreement"),
    ("Compare the termination clauses of all suppliers.", "clause_type", "clause_type", "clause_type"),
    ("Which clauses say 'thirty days'?", "hybrid", "hybrid", "hybrid"),
    ("Which clauses mention 'thirty days'?", "hybrid", "hybrid", "clauses_mentioning"),
    ("Does Belmira Payments SA have a termination clause?", "presence", "attribute", "named_presence"),
    ("Which German suppliers have a data protection clause?", "presence", "attribute", "type_presence"),
    ("Total 2024 spend of all suppliers", "sum_spend", "attribute", "companies"),
    ("Which agreements expire in 2026?", "terms", "attribute", "contract_terms"),
    ("Which termination clauses require 30 days' notice?", "clause_type", "clause_type", "clause_type"),
])
def test_questions_take_the_first_rule_that_applies(question, intent, mode, rule):
    plan = plan_question(question, VOCAB)
    assert (plan.intent, plan.mode) == (intent, mode)
    route = next(r for r in ROUTES if r.name == rule)
    assert plan.why == route.reason.format(direction="after")
    facts = planner.inherit_context(planner.extract_facts(question, VOCAB), None)
    assert planner.route(facts)[0].name == rule


def test_route_parameters_are_typed_and_serialise_as_the_old_dict():
    gap = plan_question("Which high-spend suppliers lack a termination clause?", VOCAB)
    assert isinstance(gap.params, PlanParams)
    assert gap.params.gap is True and gap.params.spend_min == settings().high_spend_threshold
    # the JSON shape of the dict the planner built before PlanParams: always-present keys in
    # this order, route-only keys (gap, text, count_unit ...) only when a route set them
    assert gap.to_dict()["params"] == {
        "companies": [], "sla_ids": [], "types": ["Termination"], "countries": [], "industries": [], "cities": [],
        "governing_laws": [], "spend_min": settings().high_spend_threshold, "spend_max": None, "spend_year": 2024,
        "date_from": None, "date_to": None, "type_match": "all", "gap": True}
    assert list(gap.to_dict()["params"])[:13] == ["companies", "sla_ids", "types", "countries", "industries",
                                                   "cities", "governing_laws", "spend_min", "spend_max",
                                                   "spend_year", "date_from", "date_to", "type_match"]
    presence = plan_question("Does Belmira Payments SA have a termination clause?", VOCAB).to_dict()["params"]
    assert presence["gap"] is False, "a False route parameter is kept, only unset ones are left out"
    hybrid = plan_question("Which clauses say 'thirty days'?", VOCAB).to_dict()["params"]
    assert hybrid["text"] == "thirty days" and "gap" not in hybrid and "count_unit" not in hybrid
    count = plan_question("How many agreements does Kestrel have?", VOCAB).to_dict()["params"]
    assert count["count_unit"] == "agreements" and count["companies"] == ["Kestrel Logistics GmbH"]
    for p in (gap, plan_question("Total 2024 spend of all suppliers", VOCAB)):
        assert PlanParams.from_dict(p.params.to_dict()) == p.params


def test_plan_params_reject_unknown_keys():
    with pytest.raises(ValueError, match="unknown plan parameter"):
        PlanParams.from_dict({"companies": [], "colour": "red"})


def test_follow_up_inherits_the_company_and_asks_for_the_neighbouring_clause():
    ctx = SessionContext(companies=["Kestrel Logistics GmbH"], clause_ids=["SLA-001#3", "SLA-001#4"], turns=1)
    plan = plan_question("What comes after it?", VOCAB, ctx)
    assert (plan.intent, plan.mode) == (Intent.NEXT_CLAUSE, Mode.DOCUMENT)
    assert plan.why == "asks for the clause after the clause just shown"
    assert plan.params.anchor_ids == ["SLA-001#3"] and plan.params.direction == "after"
    assert plan.linked["from_session"] == ["companies"]
    # the same words without a session have nothing to refer to
    assert plan_question("What comes after it?", VOCAB).intent != Intent.NEXT_CLAUSE


def test_unmapped_question_gets_suggestions_and_a_forced_search_mode_searches_its_words():
    plan = plan_question("blah blah", VOCAB)
    assert (plan.intent, plan.mode) == (Intent.UNKNOWN, Mode.NONE)
    assert len(plan.suggestions) == 5 and any("Kestrel Logistics GmbH" in s for s in plan.suggestions)
    forced = plan_question("blah blah", VOCAB, forced_mode="relay")
    assert (forced.intent, forced.mode) == (Intent.RELAY, Mode.RELAY)
    assert forced.params.text == "blah blah" and forced.why.startswith("relay mode chosen")


def test_mode_and_intent_round_trip_as_their_plain_strings():
    for enum in (Mode, Intent):
        for member in enum:
            assert enum(member.value) is member
            assert member == member.value and str(member) == member.value and f"{member}" == member.value
            assert json.loads(json.dumps({"x": member})) == {"x": member.value}
    assert [m.value for m in ASKABLE_MODES] == ["auto", "document", "clause_type", "attribute", "relay", "hybrid",
                                                "text2cypher"]
    assert [m.value for m in RESULT_MODES] == ["document", "clause_type", "attribute", "relay", "hybrid",
                                               "text2cypher", "none"]
    plan = Plan(intent="gap", mode="attribute")
    assert plan.intent is Intent.GAP and plan.mode is Mode.ATTRIBUTE
    with pytest.raises(ValueError):
        Plan(intent="guess", mode="attribute")


def test_result_serialises_its_plan_at_the_edge():
    empty = Result(question="", mode=Mode.NONE)
    assert empty.to_dict()["plan"] == {} and empty.to_dict()["mode"] == "none" and empty.intent is None
    plan = plan_question("Which companies have no agreement?", VOCAB)
    result = Result(question="q", mode=plan.mode, plan=plan)
    d = json.loads(json.dumps(result.to_dict()))
    assert d["plan"] == plan.to_dict() and d["plan"]["intent"] == "no_agreement" and d["mode"] == "attribute"
    assert result.plan is plan, "serialising leaves the typed plan in place"


def test_project_errors_share_one_root_and_keep_their_builtin_bases():
    from core.evaluation.questions import QuestionsFormatError
    from core.graph.db import DatabaseUnavailable
    from core.retrieval.retrievers import RetrievalError
    from core.taxonomy import TaxonomyError

    for exc, builtin in ((QuestionsFormatError, ValueError), (TaxonomyError, ValueError),
                         (DatabaseUnavailable, RuntimeError), (RetrievalError, RuntimeError)):
        assert issubclass(exc, ClauseGraphError) and issubclass(exc, builtin), exc


def test_law_words_set_the_law_condition_and_name_no_governing_law_clause():
    p = plan_question("Which suppliers under French law have no clause on termination?", VOCAB)
    assert p.params.types == ["Termination"] and p.params.governing_laws == ["French"]
    p = plan_question("Which suppliers' agreements are governed by German law?", VOCAB)
    assert not p.params.types and p.params.governing_laws == ["German"]
    p = plan_question("Show the governing law clauses of contracts under French law.", VOCAB)
    assert p.params.types == ["Governing Law"]


def test_chinese_compound_keeps_its_head_and_a_value_question_is_no_count():
    p = plan_question("Kestrel的合同对停机维护有什么安排？", VOCAB)
    assert p.params.types == ["Maintenance"]
    p = plan_question("Kestrel合同里的责任上限是多少？", VOCAB)
    assert p.intent == Intent.DOCUMENT_TYPE and p.params.types == ["Liability"]
    assert plan_question("2024年及以后签订的合同有几份？", VOCAB).intent == Intent.COUNT


def test_preceding_words_and_the_anchor_named_by_a_keyword():
    p = plan_question("Which clause precedes the termination clause in Kestrel's agreement?", VOCAB)
    assert p.intent == Intent.NEXT_CLAUSE and p.params.direction == "before"
    p = plan_question("After the uptime commitment in Kestrel's contract, what comes next?", VOCAB)
    assert p.intent == Intent.NEXT_CLAUSE and p.params.types == ["Availability"]


def test_single_word_concepts_name_a_type_only_before_a_clause_word():
    assert plan_question("Show the exit terms of all contracts.", VOCAB).params.types == ["Termination"]
    assert plan_question("Clauses about the exit of staff.", VOCAB).params.types != ["Termination"]


def test_termination_worded_as_at_will_is_termination_for_convenience():
    for q in ["Which suppliers can terminate the agreement at any time without giving a reason?",
              "Which suppliers have a termination clause that lets us exit at any time?",
              "Which suppliers can we not terminate for convenience?"]:
        assert plan_question(q, VOCAB).params.types == ["Termination for Convenience"], q
    p = plan_question("Which suppliers lack a termination clause?", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Termination"]


def test_a_possessive_apostrophe_opens_no_quote():
    p = plan_question("Which German suppliers' clauses contain the phrase 'thirty days'?", VOCAB)
    assert p.intent == Intent.HYBRID and p.params.mentions == ["thirty days"]
    assert p.params.countries == ["Germany"]


def test_value_words_inside_the_topic_are_what_clauses_are_about():
    p = plan_question("Clauses of high-spend suppliers about compensation when power is interrupted.", VOCAB)
    assert not p.params.industries
    p = plan_question("Show clauses about liability for suppliers in Germany.", VOCAB)
    assert p.params.countries == ["Germany"]


def test_a_law_named_like_a_city_is_no_city_filter():
    vocab = Vocabulary(companies=[{"name": "Lion Ltd", "aliases": [], "country": "Singapore", "industry": "Logistics",
                                   "cities": ["Singapore"]}],
                       agreements=[{"id": "A-1", "company": "Lion Ltd", "governing_law": "Singapore"}],
                       clause_types=["Force Majeure"], spend_years=[2024])
    p = plan_question("Show the force majeure clauses of agreements governed by Singapore law.", vocab)
    assert p.params.governing_laws == ["Singapore"] and not p.params.cities and not p.params.countries


def test_a_chinese_type_word_that_is_only_a_detail_of_the_topic_types_nothing():
    # "逾期" (overdue, a payment word) is one detail of "late-delivery penalties", no Payment clause;
    # the penalty for late delivery as a whole is Liability's liquidated-damages detail
    p = plan_question("高支出供应商中关于逾期交货违约金的条款", VOCAB)
    assert p.params.types == ["Liability"] and p.params.facets == ["Liquidated damages"], p.params
    # a type word that is the topic still types it
    assert plan_question("关于付款的条款", VOCAB).params.types == ["Payment"]


@pytest.mark.parametrize("question, negated", [
    ("Which suppliers lack a termination clause?", True),
    ("Which suppliers do not limit their liability?", True),          # any negated verb
    ("Which suppliers can we not terminate?", True),
    ("Which suppliers have contracts without a liability clause?", True),
    ("Which suppliers can terminate without cause?", False),           # "without" qualifies a verb
    ("What does not count against uptime in Kestrel's contract?", False),   # content, not companies
])
def test_negation_is_read_from_what_the_question_asks_about_companies(question, negated):
    facts = planner.inherit_context(planner.extract_facts(question, VOCAB), None)
    assert facts.negated is negated


def test_what_a_contract_says_about_a_topic_is_no_wording_search():
    p = plan_question("What do the agreements of German suppliers say about liability?", VOCAB)
    assert p.intent == Intent.ATTRIBUTE_CLAUSES and p.params.types == ["Liability"]


def test_spending_the_most_ranks_suppliers_and_a_singular_asks_for_one():
    p = plan_question("Which of our suppliers do we spend the most with?", VOCAB)
    assert p.intent == Intent.SPEND_TOP and p.params.top == 5
    assert plan_question("Which supplier did we pay the most in 2023?", VOCAB).params.top == 1


def test_month_dates_filter_agreements():
    p = plan_question("List the suppliers whose contracts started before March 2024.", VOCAB)
    assert (p.params.date_from, p.params.date_to) == (None, "2024-02-29")


def test_a_region_filters_by_its_countries_in_the_graph():
    p = plan_question("Which European suppliers lack a liability clause?", VOCAB)
    assert sorted(p.params.countries) == ["France", "Germany"] and p.intent == Intent.GAP
    empty = plan_question("Which Asian suppliers lack a liability clause?", VOCAB)
    assert empty.params.countries and "Germany" not in empty.params.countries
    assert "no supplier is in Asia" in empty.linked["not_in_graph"]


def test_a_service_word_names_one_of_a_companys_agreements():
    vocab = Vocabulary(companies=[{"name": "Alpenkraft AG", "aliases": ["Alpenkraft"], "country": "Switzerland",
                                   "industry": "Technology", "cities": []}],
                       agreements=[{"id": "A-4", "company": "Alpenkraft AG", "service_name": "Colocation Services"},
                                   {"id": "A-5", "company": "Alpenkraft AG", "service_name": "Managed Backup Service"}],
                       clause_types=["Liability"], spend_years=[2024])
    p = plan_question("What does Alpenkraft's backup agreement say about liability?", vocab)
    assert p.params.sla_ids == ["A-5"] and "backup" in p.linked["agreements"]["A-5"]
    # a word both services share ("service") names neither
    assert plan_question("What does Alpenkraft's service agreement say about liability?", vocab).params.sla_ids == []



def test_an_agreement_named_by_its_service_alone_is_that_agreement():
    vocab = with_services("Laboratory Analytics Platform", "Contract Logistics and Warehousing", "Colocation Services")
    # "lab" abbreviates "laboratory"; the words before "agreement" are read back to the first that is no service word
    p = plan_question("What are the liability terms in the lab analytics platform agreement?", vocab)
    assert p.params.sla_ids == ["SLA-001"] and p.params.types == ["Liability"] and p.intent == Intent.DOCUMENT_TYPE
    assert p.linked["agreements"]["SLA-001"] == "service name 'lab analytics platform'"
    # "and" is read past; "SLA" and "contract" anchor as "agreement" does
    assert plan_question("Show the logistics and warehousing contract", vocab).params.sla_ids == ["SLA-002"]
    # one whole word that is half the service's name or more ("service" is no part of it)
    assert plan_question("What does the colocation agreement say about liability?", vocab).params.sla_ids == ["SLA-003"]
    # under half of the service's words names a kind of agreement, not one of ours; so does "service"
    for question in ("Which suppliers have a platform agreement?", "Show every analytics SLA",
                     "Which suppliers have a liability clause in their agreement?", "Which suppliers have a service agreement?",
                     "Show the colo agreement"):
        assert plan_question(question, vocab).params.sla_ids == [], question


def test_type_words_inside_an_agreement_named_by_its_service_name_the_agreement():
    vocab = with_services("Imaging Systems Maintenance and Service", "Payment Processing Services",
                          "Laboratory Information System Operation and Support")
    # the words before "agreement" name it, type words included; the whole agreement is asked for
    for question, sla in (("Show me the imaging maintenance agreement", "SLA-001"),
                          ("What is in the payment processing contract?", "SLA-002"),
                          ("What does the LIS support agreement say?", "SLA-003")):   # initials stand for words
        p = plan_question(question, vocab)
        assert p.params.sla_ids == [sla] and p.params.types == [] and p.intent == Intent.DOCUMENT, (question, p.linked)
    # "show" an agreement named in the singular opens it; its plural lists the agreements
    assert plan_question("Show the LIS agreement", vocab).intent == Intent.DOCUMENT
    assert plan_question("Show the payment processing contract", vocab).intent == Intent.DOCUMENT
    listed = plan_question("Show all agreements of Kestrel", VOCAB)
    assert listed.intent == Intent.COUNT and listed.params.count_unit == "agreements", listed.why
    # the type's word said again outside the name still names the type
    p = plan_question("What maintenance does the imaging maintenance agreement require?", vocab)
    assert p.params.sla_ids == ["SLA-001"] and p.params.types == ["Maintenance"], p.linked
    # a longer wording of a type is no name of ours: "data processing" is not "Payment Processing"
    p = plan_question("Who hasn't signed a data processing agreement?", vocab)
    assert p.params.sla_ids == [] and p.params.types == ["Data Protection"] and p.intent == Intent.GAP, p.linked


def test_an_agreement_named_by_a_word_of_its_own_or_another_form_of_its_words():
    vocab = with_services("SD-WAN Managed Network", "Hosted ERP Platform", "Laboratory Analytics Platform",
                          "PACS Cloud Image Archive")
    # a word no English word and in one service's name only names it, under half its words as it is
    p = plan_question("Show me the SD-WAN agreement", vocab)
    assert p.params.sla_ids == ["SLA-001"] and p.intent == Intent.DOCUMENT, p.linked
    p = plan_question("What does the PACS agreement say about uptime?", vocab)   # "PACS" is the plural-looking name
    assert p.params.sla_ids == ["SLA-004"] and p.params.types == ["Availability"], p.linked
    # "hosting" is a form of "Hosted"
    p = plan_question("What does the ERP hosting agreement say about upgrades?", vocab)
    assert p.params.sla_ids == ["SLA-002"] and p.params.types == ["Maintenance"], p.linked
    # an English word under half the name still names a kind of agreement, not one of ours
    for q in ("Show every analytics SLA", "Which suppliers have a platform agreement?", "What does the hosting agreement say?"):
        assert plan_question(q, vocab).params.sla_ids == [], q


def test_english_type_words_in_a_chinese_question_about_one_agreement():
    # analysts write the English term inside a Chinese sentence
    p = plan_question("Kestrel的help desk条款", VOCAB)
    assert p.intent == Intent.DOCUMENT_TYPE and p.params.types == ["Support"], p.linked
    p = plan_question("哪些供应商没有force majeure条款？", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Force Majeure"], p.linked


def test_a_negated_verb_about_what_suppliers_promise_is_a_gap():
    facts = planner.inherit_context(planner.extract_facts("Which suppliers don't promise any uptime?", VOCAB), None)
    assert facts.negated


def test_a_place_named_to_be_left_out_filters_by_the_other_countries():
    vocab = two_suppliers(companies=[
        {"name": "Kestrel GmbH", "aliases": [], "country": "Germany", "industry": "Logistics", "cities": ["Singapore"]},
        {"name": "Lion Pte", "aliases": [], "country": "Singapore", "industry": "Finance", "cities": []}])
    assert plan_question("Which suppliers outside the EU lack a liability clause?", vocab).params.countries == ["Singapore"]
    assert plan_question("Which non-European suppliers lack a liability clause?", vocab).params.countries == ["Singapore"]
    assert plan_question("欧盟以外的供应商有哪些？", vocab).params.countries == ["Singapore"]
    # words between the excluding word and the place ("except those from German suppliers")
    for q in ("Show me all confidentiality clauses except those from German suppliers",
              "List suppliers excluding any of the ones based in Germany",
              "Which suppliers have a liability clause, but not the ones in Germany?"):
        assert plan_question(q, vocab).params.countries == ["Singapore"], q
    # a city named like a country already matched adds no second filter
    p = plan_question("Which suppliers are based in Singapore or Germany?", vocab)
    assert sorted(p.params.countries) == ["Germany", "Singapore"] and not p.params.cities


def test_asking_for_a_known_companys_agreements_lists_them():
    for q in ("Which contracts does Kestrel have with us?", "When was Kestrel's agreement signed?"):
        p = plan_question(q, VOCAB)
        assert (p.intent, p.params.count_unit) == (Intent.COUNT, "agreements"), q


def test_a_word_naming_a_type_and_an_industry_is_read_once():
    """"insurance" names the Insurance clause and the insurance (Finance) industry: the industry
    when it qualifies the suppliers, the clause otherwise, both when the question uses it both ways."""
    vocab = two_suppliers(companies=[
        {"name": "Kestrel GmbH", "aliases": [], "country": "Germany", "industry": "Logistics", "cities": []},
        {"name": "Lion Pte", "aliases": [], "country": "Singapore", "industry": "Finance", "cities": []}])
    p = plan_question("Which vendors must carry insurance?", vocab)
    assert (p.params.types, p.params.industries) == (["Insurance"], [])
    p = plan_question("Which insurance companies lack a termination clause?", vocab)
    assert (p.params.types, p.params.industries) == (["Termination"], ["Finance"])
    p = plan_question("哪些保险公司没有终止条款？", vocab)
    assert (p.params.types, p.params.industries) == (["Termination"], ["Finance"])
    p = plan_question("Show insurance clauses of insurance suppliers", vocab)
    assert (p.params.types, p.params.industries) == (["Insurance"], ["Finance"])
    # "技术" is in the type's "技术支持" and names Technology, but "科技供应商" names it again
    tech = two_suppliers(companies=[
        {"name": "Kestrel GmbH", "aliases": [], "country": "Germany", "industry": "Technology", "cities": []},
        {"name": "Lion Pte", "aliases": [], "country": "Singapore", "industry": "Finance", "cities": []}])
    p = plan_question("支出超过20万的科技供应商的技术支持条款", tech)
    assert (p.params.types, p.params.industries) == (["Support"], ["Technology"])


def test_how_many_suppliers_have_a_type_counts_companies():
    for q in ("How many suppliers have a liability clause?", "有多少供应商有责任条款？", "How many suppliers lack a liability clause?"):
        p = plan_question(q, VOCAB)
        assert (p.intent, p.mode) == (Intent.COUNT, Mode.ATTRIBUTE), q


def test_one_word_names_one_type():
    """"audit" is Audit Rights' keyword and Security's related wording: it names Audit Rights
    alone; "合同" (contract) before the verb "规定" names no type, "责任条款" still names one."""
    assert plan_question("Which suppliers lack an audit clause?", VOCAB).params.types == ["Audit Rights"]
    assert plan_question("哪些供应商有审计条款？", VOCAB).params.types == ["Audit Rights"]
    assert plan_question("哪些合同规定了保险要求？", VOCAB).params.types == ["Insurance"]
    assert plan_question("哪些供应商有责任条款？", VOCAB).params.types == ["Liability"]


def test_every_supplier_with_a_relative_clause_lists_companies():
    p = plan_question("List every supplier that has both a liability and a termination clause", VOCAB)
    assert (p.intent, p.params.type_match) == (Intent.PRESENCE, "all")
    assert plan_question("Compare the liability clauses of every supplier", VOCAB).intent == Intent.CLAUSE_TYPE


@pytest.mark.parametrize("question", [
    "Which suppliers have a liability clause but no termination clause?",
    "Suppliers with a liability clause and without a termination clause",
    "Which suppliers lack a termination clause but have a liability clause?",
    "哪些供应商有责任条款但没有终止条款？",
])
def test_a_type_held_and_a_type_lacked_in_one_question(question):
    p = plan_question(question, VOCAB)
    assert (p.intent, p.params.types, p.params.present_types) == (Intent.GAP, ["Termination"], ["Liability"]), question


def test_types_lacked_together_stay_one_gap():
    p = plan_question("Which suppliers lack both a liability and a termination clause?", VOCAB)
    assert p.intent == Intent.GAP and sorted(p.params.types) == ["Liability", "Termination"]
    assert not p.params.present_types


def test_either_of_the_lacked_types_is_read_on_their_side():
    p = plan_question("Which suppliers lack a liability or a termination clause but have a confidentiality clause?", VOCAB)
    assert (sorted(p.params.types), p.params.present_types, p.params.type_match) == (
        ["Liability", "Termination"], ["Confidentiality"], "any")
    p = plan_question("Which suppliers have a liability or a termination clause but no confidentiality clause?", VOCAB)
    assert (p.params.types, sorted(p.params.present_types), p.params.present_match) == (
        ["Confidentiality"], ["Liability", "Termination"], "any")


def test_a_chinese_name_shortened_to_its_first_two_characters_names_the_company():
    from core.retrieval.linking import link_company_spans

    vocab = Vocabulary(companies=[
        {"name": "Lianhua Smart Devices Co., Ltd.", "aliases": ["Lianhua", "莲华智能设备有限公司", "莲华智能"]},
        {"name": "Shenzhen Huaxin Precision Co., Ltd.", "aliases": ["深圳华信精密制造有限公司", "华信精密"]},
        {"name": "Shenzhen Other Co., Ltd.", "aliases": ["深圳其他科技有限公司"]}], spend_years=[2024])
    assert link_company_spans("莲华的合同里有没有保密条款？", vocab)[0] == {
        "Lianhua Smart Devices Co., Ltd.": "first characters '莲华' of '莲华智能'"}
    assert list(link_company_spans("华信合同的最后一条", vocab)[0]) == ["Shenzhen Huaxin Precision Co., Ltd."]
    # before 以外 / 之外 (left out) and 及 / 或 (listed) the two characters are a name too
    assert list(link_company_spans("除了华信以外，还有哪些供应商？", vocab)[0]) == ["Shenzhen Huaxin Precision Co., Ltd."]
    assert len(link_company_spans("华信及莲华的终止条款", vocab)[0]) == 2
    # a city both registered names open with names neither; two characters inside another word name nothing
    assert link_company_spans("深圳的供应商有哪些？", vocab)[0] == {}
    assert link_company_spans("莲华科技园的合同", vocab)[0] == {}


def test_the_clause_to_start_from_may_be_quoted_or_followed_by_at():
    for q in ("Which clause precedes 'Law and Disputes' at Kestrel?", "What comes after \u201cPrices\u201d in Kestrel's agreement?",
              "Which section follows the Charges section at Kestrel?"):
        plan = plan_question(q, VOCAB)
        assert plan.intent == Intent.NEXT_CLAUSE and plan.params.anchor_text in ("Law and Disputes", "Prices", "Charges"), (q, plan)


def test_a_question_about_suppliers_no_rule_fits_searches_the_clauses():
    plan = plan_question("Which vendors offer a free parking space to our engineers?", VOCAB)
    assert (plan.intent, plan.mode) == (Intent.RELAY, Mode.RELAY), plan.why
    assert plan.params.text and "parking" in plan.params.text and plan.why.startswith("no rule or clause type fits")
    # a who-question about what *we* can do or get asks about our counterparties just the same
    plan = plan_question("Who gives us a free parking space for our engineers?", VOCAB)
    assert (plan.intent, plan.mode) == (Intent.RELAY, Mode.RELAY) and "parking" in plan.params.text, plan.why
    assert not plan.params.text.lower().startswith("who"), plan.params.text
    # so does a question about which of our contracts do something
    for q in ("Which of our contracts give our engineers a free parking space?", "Which agreements offer free parking?",
              "Are there contracts where our engineers get free parking?", "Do any of our agreements offer free parking?"):
        plan = plan_question(q, VOCAB)
        assert (plan.intent, plan.mode) == (Intent.RELAY, Mode.RELAY) and "parking" in plan.params.text, (q, plan.why)
    # not about suppliers or their contracts, a place the graph does not know, or Chinese (the
    # English embedder): still "could not map"
    for q in ("What is the airspeed velocity of an unladen swallow", "Which suppliers are located in Timbuktu?",
              "Who won the football world cup in 2014?",
              "位于廷巴克图的供应商有哪些？"):
        assert plan_question(q, VOCAB).intent == Intent.UNKNOWN, q


def test_a_city_is_named_in_chinese_or_another_spelling():
    from tests.unit.vocabularies import COMPANIES

    vocab = two_suppliers(companies=[dict(c, cities=["Munich"]) if c["name"].startswith("Kestrel") else c
                                     for c in COMPANIES])
    assert vocab.cities == ["Munich", "Paris"]
    for q in ("位于慕尼黑的供应商有哪些？", "Which suppliers are based in München?", "巴黎的供应商缺少终止条款吗？"):
        plan = plan_question(q, vocab)
        assert plan.params.cities in (["Munich"], ["Paris"]), (q, plan.params)


def test_a_named_supplier_asked_something_without_a_type_searches_its_agreement():
    plan = plan_question("What do Kestrel and Belmira promise if their platforms go down?", VOCAB)
    assert plan.intent == Intent.DOCUMENT_TOPIC and plan.params.text == "promise platforms down", plan.why
    assert set(plan.params.companies) == {"Kestrel Logistics GmbH", "Belmira Payments SA"}
    # asking for the document itself is still the whole document
    for q in ("Show me Kestrel's agreement.", "Open Kestrel's SLA", "What do we have with Kestrel?",
              "Walk me through the Kestrel contract clause by clause."):
        assert plan_question(q, VOCAB).intent == Intent.DOCUMENT, q


def test_a_place_word_that_describes_the_suppliers_is_no_law():
    p = plan_question("Show the governing law clauses of our German suppliers.", VOCAB)
    assert p.params.types == ["Governing Law"] and p.params.countries == ["Germany"], p.linked
    assert not p.params.governing_laws
    p = plan_question("Which German suppliers' contracts are governed by French law?", VOCAB)
    assert p.params.countries == ["Germany"] and p.params.governing_laws == ["French"], p.linked


def test_a_chinese_topic_asked_how_it_is_provided_for():
    # "关于X是怎么规定的" / "对X有什么规定": X is the topic; a topic that is part of one type's
    # Chinese keywords only ("责任" in 责任限制, 违约责任) names that type
    for q in ("Kestrel的合同里关于责任是怎么规定的？", "Kestrel的合同对责任有什么规定？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.DOCUMENT_TYPE and p.params.types == ["Liability"], (q, p.linked)
    p = plan_question("Kestrel的合同对数据备份是如何约定的？", VOCAB)
    assert p.intent == Intent.DOCUMENT_TOPIC and p.params.text == "数据备份"


def test_a_law_other_than_the_suppliers_own_is_a_condition_not_a_type():
    vocab = Vocabulary(companies=[{"name": "Kaldera Oy", "aliases": ["Kaldera"], "country": "Finland",
                                   "industry": "Technology", "cities": []}],
                       agreements=[{"id": "A-1", "company": "Kaldera Oy", "governing_law": "Sweden"},
                                   {"id": "A-2", "company": "Kaldera Oy", "governing_law": "New York"},
                                   {"id": "A-3", "company": "Kaldera Oy", "governing_law": "Hong Kong"}],
                       clause_types=["Termination", "Governing Law"], spend_years=[2024])
    for q in ("Which suppliers have contracts governed by a law other than their home country's?",
              "Which suppliers have agreements under foreign law?", "哪些供应商的合同适用外国法律？"):
        p = plan_question(q, vocab)
        assert p.intent == Intent.COMPANIES and p.params.law_scope == "foreign" and not p.params.types, (q, p.linked)
    # a state's law is its country's; Hong Kong's a system of its own
    assert p.params.law_countries == {"Sweden": "Sweden", "New York": "United States", "Hong Kong": "Hong Kong"}
    p = plan_question("Which suppliers with foreign-law contracts lack a termination clause?", vocab)
    assert p.intent == Intent.GAP and p.params.types == ["Termination"] and p.params.law_scope == "foreign"
    p = plan_question("Which suppliers are governed by their own country's law?", vocab)
    assert p.params.law_scope == "home" and not p.params.types, p.linked
    p = plan_question("Show the governing law clauses of contracts under foreign law.", vocab)
    assert p.params.types == ["Governing Law"] and p.params.law_scope == "foreign"


def test_a_misspelt_type_word_before_clause_names_the_type():
    for q, t in (("Which suppliers lack a termnation clause?", "Termination"),
                 ("Which suppliers have no confidentality clause?", "Confidentiality"),
                 ("Show the insurence provisions", "Insurance")):
        p = plan_question(q, VOCAB)
        assert p.params.types == [t], (q, p.linked)
        assert "spelling" in p.linked["clause_types"][t]
    # another word that is close to one (a different first letter) is not read as a slip
    p = plan_question("Show the viability clauses", VOCAB)
    assert "spelling" not in str(p.linked.get("clause_types"))


def test_a_misspelt_type_word_elsewhere_names_the_type_when_it_is_no_english_word():
    # "insurence" also came close to the insurance industry: the type reads it, so the filter goes
    for q, t in (("Which suppliers lack insurence?", "Insurance"), ("Which suppliers have no liabilty cap?", "Liability")):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.GAP and p.params.types == [t], (q, p.linked)
        assert not p.params.industries, p.linked
    # a name of several words run together is that name, whatever says "suppliers"
    for q in ("Which suppliers lack a dataprotection clause?", "Which providers lack a dataprotection clause?",
              "suppliers without forcemajeure"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.GAP and len(p.params.types) == 1 and "spelling" in str(p.linked), (q, p.linked)
    # an English word near a type word is another word ("retain" names no Retail, "variability" no type)
    p = plan_question("Which suppliers mention variability?", VOCAB)
    assert "spelling" not in str(p.linked.get("clause_types"))


def test_whether_every_supplier_has_a_type_is_answered_by_those_that_lack_it():
    for q in ("Do all our suppliers have a governing law clause?", "Does every contract include a termination clause?",
              "Do our contracts all include a liability cap?", "所有供应商都有终止条款吗？", "是否每家供应商都有保密条款？",
              "法国供应商都有数据保护条款吗？", "这些合同是否都约定了保密？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.GAP and len(p.params.types) == 1, (q, p.why)
    p = plan_question("Do all of our German suppliers have a data protection clause?", VOCAB)
    assert p.intent == Intent.GAP and p.params.countries == ["Germany"]
    assert plan_question("Which suppliers have a termination clause?", VOCAB).intent == Intent.PRESENCE
    # 都 after 哪些 only marks the plural; without it, a yes/no question about some
    assert plan_question("哪些供应商都有数据保护条款？", VOCAB).intent == Intent.PRESENCE
    assert plan_question("法国供应商有数据保护条款吗？", VOCAB).intent == Intent.PRESENCE


def test_a_gap_report_asks_for_suppliers_lacking_any_of_the_types():
    p = plan_question("Give me a gap report for termination and liability.", VOCAB)
    assert p.intent == Intent.GAP and p.params.type_match == "any" and set(p.params.types) == {"Termination", "Liability"}


def test_which_types_a_named_supplier_is_missing_checks_every_type():
    p = plan_question("What types of clauses are missing from Kestrel's contract?", VOCAB)
    assert p.intent == Intent.GAP and p.params.companies == ["Kestrel Logistics GmbH"]
    assert set(p.params.types) == set(VOCAB.clause_types) - {"Other"} and p.params.type_match == "any"


def test_greetings_lead_ins_and_thanks_do_not_change_the_plan():
    from core.retrieval.planner import without_pleasantries

    assert without_pleasantries("Hi, could you tell me does Kestrel have a liability clause? Thanks!") == \
        "Does Kestrel have a liability clause?"
    assert without_pleasantries("你好，请问哪些供应商缺少终止条款？谢谢") == "哪些供应商缺少终止条款？"
    assert without_pleasantries("Tell me about the termination clause of Kestrel.") == \
        "Tell me about the termination clause of Kestrel."
    for plain in ("Does Kestrel's agreement contain a termination clause?", "Which suppliers lack a termination clause?",
                  "List our logistics vendors."):
        want = plan_question(plain, VOCAB)
        for dressed in (f"Hi, {plain}", f"Quick question: {plain}", f"{plain} Thanks!",
                        "Could you tell me " + plain[0].lower() + plain[1:]):
            got = plan_question(dressed, VOCAB)
            assert (got.intent, got.params.types, got.params.companies) == \
                (want.intent, want.params.types, want.params.companies), dressed


def test_lower_case_us_and_uk_before_suppliers_are_countries():
    vocab = two_suppliers(companies=[
        {"name": "Acme Inc.", "aliases": [], "country": "United States", "industry": "Technology", "cities": []},
        {"name": "Brit Ltd", "aliases": [], "country": "United Kingdom", "industry": "Technology", "cities": []}])
    assert plan_question("list the us technology vendors lacking a termination clause", vocab).params.countries == \
        ["United States"]
    assert plan_question("which uk suppliers lack a termination clause", vocab).params.countries == ["United Kingdom"]
    assert not plan_question("send us all suppliers lacking a termination clause", vocab).params.countries


def test_a_keyword_inside_a_place_name_names_no_type():
    # "euro*" (a payment word) inside "Europe", before a clause another type names
    vocab = two_suppliers(companies=[
        {"name": "Lotus Ltd", "aliases": [], "country": "China", "industry": "Manufacturing", "cities": []},
        {"name": "Kestrel Logistics GmbH", "aliases": ["Kestrel"], "country": "Germany", "industry": "Logistics",
         "cities": []}])
    p = plan_question("Which suppliers outside Europe lack a force majeure clause?", vocab)
    assert p.params.types == ["Force Majeure"] and p.params.countries == ["China"], p.linked


def test_a_misspelt_country_industry_or_city_is_still_a_filter():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "data" / "demo")
    for q, key, value in (("Which suppliers in Germny lack a termination clause?", "countries", "Germany"),
                          ("Which helthcare suppliers lack a data protection clause?", "industries", "Healthcare"),
                          ("Which suppliers are in the Untied States?", "countries", "United States"),
                          ("Which technolgy suppliers lack a security clause?", "industries", "Technology")):
        p = plan_question(q, vocab)
        assert getattr(p.params, key) == [value], (q, p.linked)
    # a real English word one letter from a value is that word ("retain" is not "Retail")
    retail = two_suppliers(companies=[{"name": "Shopco Ltd", "aliases": [], "country": "Germany", "industry": "Retail",
                                       "cities": []}])
    assert plan_question("Which retial suppliers lack a termination clause?", retail).params.industries == ["Retail"]
    assert not plan_question("Which suppliers retain our data after termination?", retail).params.industries


def test_the_united_states_asks_for_no_text():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "data" / "demo")
    p = plan_question("Which suppliers are in the United States?", vocab)
    assert p.intent == Intent.COMPANIES and p.params.countries == ["United States"]
    p = plan_question("Which suppliers are governed by the law of the State of New York?", vocab)
    assert p.intent == Intent.COMPANIES and p.params.governing_laws == ["New York"] and not p.params.types


def test_companies_and_industries_named_to_be_left_out_are_not_asked_about():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "data" / "demo")
    p = plan_question("Which suppliers except GitHub and Brightwave lack a liability clause?", vocab)
    assert p.intent == Intent.GAP and not p.params.companies
    assert set(p.params.exclude_companies) == {"GitHub, Inc.", "Brightwave Software Inc."}
    p = plan_question("Show the termination clauses of suppliers other than Quantix", vocab)
    assert p.intent == Intent.ATTRIBUTE_CLAUSES and p.params.exclude_companies == ["Quantix Systems Inc."]
    p = plan_question("Which non-healthcare suppliers lack a data protection clause?", vocab)
    assert "Healthcare" not in p.params.industries and "Technology" in p.params.industries
    p = plan_question("Compare Quantix and Medivance on liability", vocab)
    assert set(p.params.companies) == {"Quantix Systems Inc.", "Medivance Health GmbH"} and not p.params.exclude_companies


def test_an_industry_no_supplier_is_in_is_applied_and_an_unknown_place_is_said():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "data" / "demo")
    p = plan_question("Which retail suppliers lack a termination clause?", vocab)
    assert p.params.industries == ["Retail"] and "matches none" in p.linked["not_in_graph"]
    p = plan_question("Which suppliers in Lagos lack a termination clause?", vocab)
    assert "'Lagos'" in p.linked["not_recognised"] and p.intent == Intent.GAP
    p = plan_question("位于拉各斯的供应商有哪些没有终止条款？", vocab)
    assert "'拉各斯'" in p.linked["not_recognised"] and p.intent == Intent.GAP, p.linked
    for known in ("位于德国的供应商有哪些没有终止条款？", "总部在汉堡的供应商"):
        assert "not_recognised" not in plan_question(known, vocab).linked, known
    for known in ("Which suppliers in Germany lack a termination clause?", "Which suppliers in London lack a termination clause?",
                  "Which vendors must carry insurance?"):
        assert "not_recognised" not in plan_question(known, vocab).linked, known


def test_more_ways_of_saying_a_supplier_lacks_a_type():
    p = plan_question("Who has a termination clause but not a liability clause?", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Liability"] and p.params.present_types == ["Termination"]
    for q in ("Which suppliers are yet to agree a data protection clause?", "Which suppliers still need a liability clause?"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.GAP, (q, p.why)


def test_a_countrys_law_covers_the_laws_of_its_states():
    vocab = two_suppliers(agreements=[{"id": "A-1", "company": "Kestrel Logistics GmbH", "governing_law": "New York"},
                                      {"id": "A-2", "company": "Belmira Payments SA", "governing_law": "French"}])
    for q in ("Which suppliers have contracts under US law?", "哪些供应商的合同适用美国法律？"):
        p = plan_question(q, vocab)
        assert p.params.governing_laws == ["New York"] and not p.params.countries, (q, p.linked)
    p = plan_question("Which suppliers are under Swiss law?", VOCAB)   # no such agreement: applied, and no type
    assert p.params.governing_laws == ["Switzerland"] and not p.params.types, p.linked


def test_more_chinese_ways_of_saying_a_clause_is_missing():
    for q in ("哪些供应商的合同里找不到终止条款？", "哪些供应商的合同不含责任限制条款？", "合同里没写违约责任的供应商"):
        assert plan_question(q, VOCAB).intent == Intent.GAP, q


def test_a_word_that_named_one_value_is_no_misspelt_other():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "heldout_corpus")
    p = plan_question("Give me the governing law clauses of Chinese and Singaporean suppliers.", vocab)
    assert set(p.params.countries) == {"China", "Singapore"} and not p.params.cities, p.linked


def test_a_gap_in_a_type_the_taxonomy_lacks_is_said():
    p = plan_question("Which suppliers lack an anti-bribery clause?", VOCAB)
    assert not p.params.types and "'anti-bribery' is no clause type" in p.linked["unknown_type"]
    assert "unknown_type" not in plan_question("Which suppliers lack a termination clause?", VOCAB).linked


def test_a_capitals_abbreviation_typed_in_lower_case_when_it_is_no_word():
    vocab = two_suppliers(companies=[
        {"name": "Medivance Health GmbH", "aliases": ["MVH"], "country": "Germany", "industry": "Healthcare", "cities": []},
        {"name": "Itala SpA", "aliases": ["IT"], "country": "Italy", "industry": "Energy", "cities": []}])
    assert plan_question("what does mvh promise about security", vocab).params.companies == ["Medivance Health GmbH"]
    assert not plan_question("does it have a security clause", vocab).params.companies


def test_a_word_before_suppliers_that_names_nothing_is_said():
    p = plan_question("Which mining suppliers lack a termination clause?", VOCAB)
    assert "'mining'" in p.linked["not_recognised"] and p.intent == Intent.GAP
    for q in ("Which German suppliers lack a termination clause?", "Which of our suppliers lack a termination clause?",
              "Among suppliers we spent more than 500k with, who lacks a termination clause?",
              "Which high-spend suppliers lack a termination clause?"):
        assert "not_recognised" not in plan_question(q, VOCAB).linked, q


def test_counting_every_supplier_asks_no_topic():
    for q in ("How many suppliers do we have?", "How many suppliers are there?", "How many vendors do we work with?",
              "我们一共有多少家供应商？", "供应商一共有几家？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.COUNT and not p.params.types and not p.params.text, (q, p.why, p.params.types)
    # a count of suppliers with something still asks for it
    p = plan_question("How many suppliers do we have with a termination clause?", VOCAB)
    assert p.intent == Intent.COUNT and p.params.types == ["Termination"], p.why
    p = plan_question("How many suppliers do we have in Germany?", VOCAB)
    assert p.intent == Intent.COUNT and p.params.countries == ["Germany"], p.why


def test_which_ones_in_chinese_is_no_count_and_a_chinese_total_of_things_no_sum():
    p = plan_question("哪几家供应商的合同里找不到终止条款？", VOCAB)
    assert p.intent == Intent.GAP, p.why
    assert plan_question("供应商一共有几家？", VOCAB).intent == Intent.COUNT
    assert plan_question("2024年我们一共花了多少钱？", VOCAB).intent == Intent.SUM_SPEND


def test_the_dates_of_the_agreements_of_filtered_suppliers():
    for q in ("When did the German supplier's contract take effect?", "When were the French supplier's contracts signed?",
              "德国供应商的合同是哪天生效的？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.COUNT and p.params.count_unit == "agreements" and p.mode == Mode.ATTRIBUTE, (q, p.why)
        assert p.params.countries, q


def test_a_yes_no_question_about_filtered_suppliers_is_answered_supplier_by_supplier():
    for q in ("Do German suppliers have a termination clause?", "德国供应商有没有终止条款？", "德国供应商有终止条款吗？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.PRESENCE and p.params.types == ["Termination"], (q, p.why)


def test_a_question_word_inside_a_chinese_term_still_names_the_type():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "heldout_corpus")
    for q in ("新加坡供应商的合同适用哪国法律？", "新加坡供应商的合同适用什么法律？"):
        p = plan_question(q, vocab)
        assert p.params.types == ["Governing Law"] and p.params.countries == ["Singapore"], (q, p.linked)
    p = plan_question("哪些合同适用中国法律？", vocab)   # a law named: a filter, not a question about the clause
    assert p.params.governing_laws == ["China"] and not p.params.types, p.linked


def test_agreements_ranked_by_effective_date():
    from core.retrieval.conditions import agreement_rank

    assert agreement_rank("哪家供应商的合同最早生效？")[:2] == ("earliest", 1)
    assert agreement_rank("Show our three newest agreements")[:2] == ("latest", 3)
    assert agreement_rank("Which is the most recent contract?")[:2] == ("latest", 1)
    assert agreement_rank("最新签的两份合同是哪些？")[:2] == ("latest", 2)
    for not_ranked in ("What was our latest spend with Kestrel?", "最近两年签的合同有哪些？", "Show the latest clause"):
        assert agreement_rank(not_ranked) is None, not_ranked
    p = plan_question("Which German supplier's contract is the oldest?", VOCAB)
    assert p.intent == Intent.COUNT and p.params.count_unit == "agreements" and p.mode == Mode.ATTRIBUTE
    assert (p.params.agreement_order, p.params.agreement_top, p.params.countries) == ("earliest", 1, ["Germany"])


def test_suppliers_ranked_by_their_number_of_agreements():
    from core.retrieval.conditions import company_agreement_rank

    assert company_agreement_rank("Which supplier has the most agreements with us?")[:2] == ("most", 1)
    assert company_agreement_rank("Who do we have the fewest contracts with?")[:2] == ("fewest", 1)
    assert company_agreement_rank("Top 3 suppliers by number of contracts")[:2] == ("most", 3)
    assert company_agreement_rank("Which vendor holds the largest number of signed contracts?")[:2] == ("most", 1)
    assert company_agreement_rank("哪家供应商的合同最多？")[:2] == ("most", 1)
    assert company_agreement_rank("合同数量最少的前两家供应商")[:2] == ("fewest", 2)
    # a superlative of the agreements themselves, and a bound on their number, rank nothing
    for not_ranked in ("Show the most recent contracts", "最多两份合同的供应商", "Which suppliers have the most termination clauses?"):
        assert company_agreement_rank(not_ranked) is None, not_ranked
    p = plan_question("Which German supplier has the most contracts?", VOCAB)
    assert p.intent == Intent.COUNT and p.params.count_unit == "agreements" and p.mode == Mode.ATTRIBUTE
    assert (p.params.agreement_order, p.params.agreement_top, p.params.countries) == ("most", 1, ["Germany"])
    assert plan_question("Show our three newest agreements", VOCAB).params.agreement_order == "latest"


def test_a_list_of_agreements_picked_by_filters_lists_the_agreements():
    for q in ("List all contracts signed in 2024", "Which agreements were signed after mid-2023?",
              "Show me the contracts governed by German law", "列出所有2024年签订的合同", "2023年签的协议有哪些？",
              "德国供应商的合同有哪些？"):
        p = plan_question(q, VOCAB)
        assert (p.intent, p.params.count_unit, p.mode) == (Intent.COUNT, "agreements", Mode.ATTRIBUTE), (q, p.why)
    # the suppliers asked for stay suppliers
    for q in ("Which suppliers' contracts are governed by German law?", "哪些供应商的合同适用德国法律？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.COMPANIES and p.params.count_unit is None, (q, p.why)


def test_what_the_documents_of_a_group_of_suppliers_contain_reads_them():
    for q in ("What clauses are in the French suppliers' contracts?", "德国供应商的合同有哪些条款？",
              "What do our Japanese suppliers' contracts cover?", "Summarise the agreements of our German suppliers"):
        p = plan_question(q, VOCAB)
        assert (p.intent, p.mode) == (Intent.DOCUMENT, Mode.DOCUMENT) and p.params.countries, (q, p.why)
    p = plan_question("What clauses does the Italian supplier's contract contain?", VOCAB)   # "contain" with no object
    assert (p.intent, p.params.countries) == (Intent.DOCUMENT, ["Italy"]), p.why
    # a topic or wording is still a search, and a type still the type's clauses
    assert plan_question("Do the contracts of Italian suppliers contain a penalty?", VOCAB).intent == Intent.HYBRID
    assert plan_question("What do German suppliers' contracts say about penalties?", VOCAB).intent != Intent.DOCUMENT
    p = plan_question("Which clauses of German suppliers mention penalties?", VOCAB)
    assert (p.intent, p.params.mentions, p.params.countries) == (Intent.HYBRID, ["penalt"], ["Germany"])
    p = plan_question("Do the contracts of German suppliers contain a penalty?", VOCAB)   # a provision meant
    assert p.intent == Intent.HYBRID and not p.params.mentions
    assert plan_question("What termination clauses do German suppliers have?", VOCAB).intent != Intent.DOCUMENT


def test_suppliers_with_a_number_of_agreements():
    from core.retrieval.conditions import agreement_count

    assert agreement_count("Which supplier do we have two contracts with?")[:2] == (2, 2)
    assert agreement_count("suppliers holding exactly 3 agreements")[:2] == (3, 3)
    assert agreement_count("companies with two or more contracts")[:2] == (2, None)
    assert agreement_count("哪家供应商跟我们签了两份协议？")[:2] == (2, 2)
    assert agreement_count("Show the two contracts of Kestrel") is None   # which two: no count of a supplier's
    p = plan_question("Which supplier do we have two contracts with?", VOCAB)
    assert (p.intent, p.params.agreements_min, p.params.agreements_max) == (Intent.COMPANIES, 2, 2), p.why


def test_asking_which_law_applies_asks_for_the_governing_law_clause():
    for q in ("What law governs Kestrel's packaging deal?", "Which law applies to Kestrel's agreement?",
              "Under which jurisdiction are the contracts of German suppliers?"):
        p = plan_question(q, VOCAB)
        assert p.params.types == ["Governing Law"], (q, p.linked)
    # a law named is a condition, not the question
    p = plan_question("Which suppliers' contracts are governed by German law?", VOCAB)
    assert not p.params.types and p.params.governing_laws, p.linked


def test_the_words_of_any_chinese_question_about_contracts_name_no_type():
    from core.retrieval.conditions import type_by_chinese

    # 合同 (a bigram of Termination's 合同解除) and 签的 (of one of its examples) had read as Termination
    p = plan_question("Kestrel的两份合同分别是什么时候签的？", VOCAB)
    assert (p.intent, p.params.count_unit, p.params.types) == (Intent.COUNT, "agreements", []), p.linked
    assert type_by_chinese("这份合同是哪天签的")[0] is None
    assert type_by_chinese("服务中断时的补偿")[0] == "Service Credits"


def test_an_agreement_word_that_qualifies_a_clause_is_no_missing_agreement():
    p = plan_question("Are any high-spend suppliers missing an SLA uptime commitment?", VOCAB)
    assert (p.intent, p.params.types) == (Intent.GAP, ["Availability"]), p.linked
    assert plan_question("Which suppliers lack a contract termination clause?", VOCAB).intent == Intent.GAP
    for q in ("Which suppliers have no contract?", "Which suppliers have no signed contract yet?"):
        assert plan_question(q, VOCAB).intent == Intent.NO_AGREEMENT, q


def test_the_year_of_an_agreement_date_is_no_spend_year():
    p = plan_question("Which suppliers have agreements that started before 2023 and lack a security clause?", VOCAB)
    assert (p.params.date_to, p.params.spend_year) == ("2022-12-31", VOCAB.latest_year), p.linked
    p = plan_question("Total spend in 2024 of suppliers whose contracts were signed in 2023", VOCAB)
    assert (p.intent, p.params.spend_year, p.params.date_from) == (Intent.SUM_SPEND, 2024, "2023-01-01"), p.linked
    p = plan_question("2023年签订合同的供应商2024年的总支出是多少？", VOCAB)
    assert (p.intent, p.params.spend_year, p.params.date_from) == (Intent.SUM_SPEND, 2024, "2023-01-01"), p.linked
    p = plan_question("我们2023年在德国供应商上花了多少钱？", VOCAB)   # a spend year alone stays one
    assert (p.params.spend_year, p.params.date_from) == (2023, None), p.linked
    p = plan_question("2023年生效的合同", VOCAB)   # a bare noun phrase headed by the agreements lists them
    assert (p.intent, p.params.count_unit, p.params.date_from) == (Intent.COUNT, "agreements", "2023-01-01"), p.why
    assert plan_question("帮我概括一下Kestrel的协议", VOCAB).intent == Intent.DOCUMENT   # a request to read it


def test_clauses_of_a_type_that_mention_words():
    p = plan_question("Give me every termination clause that mentions notice", VOCAB)
    assert (p.intent, p.params.types, p.params.mentions) == (Intent.CLAUSE_TYPE, ["Termination"], ["notice"]), p.linked
    p = plan_question("Which German liability clauses mention gross negligence?", VOCAB)
    assert (p.intent, p.params.mentions) == (Intent.ATTRIBUTE_CLAUSES, ["gross", "negligence"]), p.linked
    p = plan_question("Show all payment clauses that mention late payment periods", VOCAB)   # a plural as its singular
    assert p.params.mentions == ["late", "payment", "period"], p.linked
    p = plan_question("Which termination clauses mention notice for German suppliers?", VOCAB)   # the scope ends the words
    assert p.params.mentions == ["notice"] and p.params.countries == ["Germany"], p.linked
    # "wording" as a noun names no words to find ("the termination wording for every supplier outside the EU")
    assert plan_question("I need the termination wording for every supplier in Germany.", VOCAB).params.mentions is None
    # the words naming the type asked for, or nothing after "mention", filter nothing
    assert plan_question("Which clauses mention termination?", VOCAB).params.mentions is None
    assert plan_question("Which termination clauses mention it?", VOCAB).params.mentions is None


def test_suppliers_that_signed_nothing_have_no_agreement():
    for q in ("Which suppliers have signed nothing with us yet?", "Which vendors haven't signed anything?"):
        assert plan_question(q, VOCAB).intent == Intent.NO_AGREEMENT, q


def test_a_bare_list_of_agreements_by_date_or_law():
    for q in ("agreements signed in March 2023", "all contracts under German law", "contracts signed in the past 6 months"):
        p = plan_question(q, VOCAB)
        assert (p.intent, p.params.count_unit) == (Intent.COUNT, "agreements") and not p.params.types, (q, p.linked)
    # the date's words describe no type by meaning ("March 2023" read as a warranty)
    assert "clause_types" not in plan_question("agreements signed in March 2023", VOCAB).linked


def test_before_or_after_a_date_is_no_clause_position():
    facts = planner.inherit_context(planner.extract_facts("Which agreements were signed after mid-2023?", VOCAB), None)
    assert not facts.positional and facts.date_from == "2023-07-01"
    facts = planner.inherit_context(planner.extract_facts("2024年之前签的合同", VOCAB), None)
    assert not facts.positional and facts.date_to == "2023-12-31"
    facts = planner.inherit_context(planner.extract_facts(
        "What comes after the termination clause in contracts signed in 2023?", VOCAB), None)
    assert facts.positional and facts.direction == "after"


def test_where_a_named_supplier_is_based_asks_for_its_address():
    for q in ("Where is Kestrel based?", "Where are Kestrel and Belmira located?", "Kestrel的总部在哪里？"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.COMPANIES and p.params.show_location and p.mode == Mode.ATTRIBUTE, (q, p.why)
    p = plan_question("What does Kestrel's agreement say about termination?", VOCAB)
    assert p.intent == Intent.DOCUMENT_TYPE and not p.params.show_location


def test_a_short_place_name_inside_a_type_word_is_still_a_filter():
    from tests.unit.vocabularies import corpus_vocabulary

    vocab = corpus_vocabulary(Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "paraphrase_corpus")
    p = plan_question("Which suppliers in the EU lack a force majeure clause?", vocab)   # "eu" in "majeure"
    assert p.intent == Intent.GAP and p.params.types == ["Force Majeure"] and "Finland" in p.params.countries, p.linked


def test_a_type_linked_by_meaning_is_narrowed_by_the_questions_wording():
    # the model reads "exit the contract" as Termination; "at any time" is wording only the
    # narrower Termination for Convenience has, as it is for a type named by its keyword
    plan = plan_question("Which vendors let us exit the contract at any time?", VOCAB)
    how = plan.linked["clause_types"]["Termination for Convenience"]
    assert plan.params.types == ["Termination for Convenience"] and "meaning of" in how and "narrowed by 'at any time'" in how
    assert plan_question("Which vendors let us exit the contract?", VOCAB).params.types == ["Termination"]



@pytest.mark.parametrize("question, how", [
    # "<phrase> clause" linked by meaning, and a type keyword inside an "about ..." topic: both are
    # read after the named types, and are narrowed by the question's wording as those are
    ("Which suppliers have a contract ending clause that applies without cause?", "meaning of 'ending'"),
    ("Show clauses about ending the agreement without cause", "topic 'ending the agreement'"),
])
def test_a_type_read_from_a_described_clause_or_a_topic_is_narrowed(question, how):
    plan = plan_question(question, VOCAB)
    assert plan.params.types == ["Termination for Convenience"]
    why = plan.linked["clause_types"]["Termination for Convenience"]
    assert how in why and "narrowed by 'without cause'" in why
    # without the narrowing words, the general type
    plain = plan_question(question.replace(" that applies without cause", "").replace(" without cause", ""), VOCAB)
    assert plain.params.types == ["Termination"]


def test_note_shorthand_w_slash_o_reads_as_without():
    p = plan_question("suppliers w/o termination clause", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Termination"]
    assert plan_question("vendors w/ a liability clause", VOCAB).intent == Intent.PRESENCE


def test_a_negation_typed_without_its_apostrophe_is_a_negation():
    for q in ("which suppliers dont have a help desk", "Which vendors havent agreed to a liability cap?",
              "suppliers that doesnt have termination clauses"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.GAP and len(p.params.types) == 1, (q, p.why)


def test_a_section_number_of_a_named_agreement_asks_for_the_clause_headed_with_it():
    p = plan_question("What's in section 3 of the Kestrel agreement?", VOCAB)
    assert p.intent == Intent.POSITION and p.params.position == 3 and p.params.numbered
    assert "the clause headed 3" in p.linked["position"]
    zh = plan_question("Kestrel合同的第四条是什么？", VOCAB)
    assert zh.intent == Intent.POSITION and zh.params.position == 4 and zh.params.numbered
    # an ordinal counts clauses; "after section 2" starts from a clause, it asks for no number
    ordinal = plan_question("What is the third clause of the Kestrel agreement?", VOCAB)
    assert ordinal.params.position == 3 and not ordinal.params.numbered
    assert not plan_question("What comes after section 2 of the Kestrel agreement?", VOCAB).params.numbered


@pytest.mark.parametrize("question, intent", [
    ("有没有供应商没签数据保护条款？", Intent.GAP),          # 没 before any verb negates; 有没有供应商 asks for suppliers
    ("列出所有没有终止条款的供应商", Intent.GAP),            # the 有 of 所有 is no yes/no 有没有; the suppliers are the head noun
    ("哪些供应商的合同没提到数据保护？", Intent.GAP),
    ("有没有供应商有终止条款？", Intent.PRESENCE),
    ("所有终止条款", Intent.CLAUSE_TYPE),
])
def test_chinese_negation_and_the_suppliers_as_head_noun(question, intent):
    assert plan_question(question, VOCAB).intent == intent, question


def test_a_chinese_question_ending_in_the_suppliers_lists_them_and_which_one_asks_for_one():
    vocab = two_suppliers()
    # "…的德国供应商": the suppliers are the head noun, a place word between 的 and 供应商
    p = plan_question("除Belmira之外的德国供应商", vocab)
    assert p.intent == Intent.COMPANIES and p.params.countries == ["Germany"]
    # 哪家 asks for one supplier, 哪几家 for several
    assert plan_question("哪家供应商的2024年支出最高？", vocab).params.top == 1
    # any word for what we spend before 最多 / 最少 ranks the suppliers by it
    for q, top in (("哪家供应商2024年花费最多？", 1), ("2024年采购额最大的三家供应商", 3), ("我们在哪家供应商花钱最少？", 1)):
        p = plan_question(q, vocab)
        assert p.intent == Intent.SPEND_TOP and p.params.top == top, (q, p.why)
    assert plan_question("哪几家供应商的2024年支出最高？", vocab).params.top == 5
    # "… 是谁 / 是哪家" asks for one too, "有哪些" for several
    assert plan_question("2024年支出最高的供应商是谁？", vocab).params.top == 1
    assert plan_question("支出最高的是哪家公司？", vocab).params.top == 1
    assert plan_question("2024年支出最高的供应商有哪些？", vocab).params.top == 5


def test_a_supplier_asked_for_by_what_it_supplies_lists_that_agreement():
    vocab = with_services("Cosmetic Packaging Supply", "Payment Processing Services", "Pharmacovigilance Case Processing")
    p = plan_question("Which supplier does our cosmetic packaging?", vocab)
    assert p.params.sla_ids == ["SLA-001"] and p.intent == Intent.COUNT and p.params.count_unit == "agreements"
    assert p.linked["agreements"]["SLA-001"] == "supplies 'cosmetic packaging'"
    # the agreement most of whose name the question says ("processing" is half of one name, a third of the other)
    assert plan_question("Who does our pharmacovigilance case processing?", vocab).params.sla_ids == ["SLA-003"]
    # a preposition left at the end names nothing; a word whose plural-looking "s" is its own ("gas")
    gas = with_services("Natural Gas and Power Supply", "Payment Processing Services")
    for question in ("Who do we buy natural gas from?", "Who supplies our natural gas?"):
        assert plan_question(question, gas).params.sla_ids == ["SLA-001"], question
    # a question about clauses, or one that names no service, links none
    for question in ("Which suppliers have a liability clause?", "Which suppliers are in Germany?",
                     "Which clauses cover cosmetic packaging?"):
        assert plan_question(question, vocab).params.sla_ids == [], question


def test_a_presence_question_asked_as_yes_or_no_says_so_in_the_plan():
    asked = plan_question("Do German suppliers have a termination clause?", VOCAB)
    assert asked.intent == Intent.PRESENCE and asked.params.yes_no, asked.why
    listed = plan_question("Which German suppliers have a termination clause?", VOCAB)
    assert listed.intent == Intent.PRESENCE and not listed.params.yes_no, listed.why


def test_where_after_the_suppliers_describes_them_and_a_gap_after_it_is_a_gap():
    p = plan_question("Show me suppliers where we spend over 1 million but no termination clause", VOCAB)
    assert p.intent == Intent.GAP and p.params.types == ["Termination"] and p.params.spend_min == 1_000_000, p.why
    # "where" after what the question asks for still states a situation
    p = plan_question("What applies where the supplier has no liability cap?", VOCAB)
    assert p.intent != Intent.GAP, p.why


def test_words_that_describe_no_clause_link_no_type_by_meaning():
    # conjunctions and "what do they supply?" (their services) are no clause; nor is one vague word
    for q in ("Who are our German suppliers and what do they supply?",
              "List every agreement governed by German law together with its supplier",
              "What does Kestrel promise if its platform goes down?"):
        assert "clause_types" not in plan_question(q, VOCAB).linked or \
            not any("meaning" in why for why in plan_question(q, VOCAB).linked["clause_types"].values()), q
    # one word that names a topic still does
    vocab = two_suppliers(clause_types=["Termination", "Liability", "Availability"])
    linked = plan_question("Which agreements deal with outages?", vocab).linked["clause_types"]
    assert list(linked) == ["Availability"] and "meaning" in linked["Availability"], linked


def test_are_there_suppliers_asks_for_suppliers():
    p = plan_question("Are there suppliers that have both a termination and a liability clause?", VOCAB)
    assert p.intent == Intent.PRESENCE and sorted(p.params.types) == ["Liability", "Termination"], p.why


def test_a_chinese_request_to_list_the_agreements_lists_them():
    for q in ("列出所有在2024年生效的协议", "请列出2024年生效的合同"):
        p = plan_question(q, VOCAB)
        assert (p.intent, p.params.count_unit) == (Intent.COUNT, "agreements") and p.params.date_from == "2024-01-01", \
            (q, p.why)
    # the clauses of a type are still the clauses
    assert plan_question("列出所有法国供应商的终止条款", VOCAB).intent == Intent.ATTRIBUTE_CLAUSES


def test_before_or_after_an_act_is_a_time_not_a_place_in_the_document():
    p = plan_question("How much notice does Kestrel need to give before ending the contract?", VOCAB)
    assert p.intent != Intent.NEXT_CLAUSE and p.params.companies == ["Kestrel Logistics GmbH"], p.why
    p = plan_question("What comes before the liability clause in Kestrel's contract?", VOCAB)
    assert p.intent == Intent.NEXT_CLAUSE and p.params.direction == "before", p.why
    assert plan_question("Which clause is following the termination clause in Kestrel's agreement?",
                         VOCAB).intent == Intent.NEXT_CLAUSE


def test_asking_whether_a_supplier_has_several_agreements_lists_them():
    for q in ("Does Kestrel have more than one agreement?", "Do we have several contracts with Kestrel?"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.COUNT and p.params.count_unit == "agreements", (q, p.why)
    # "other" / "besides" describe no clause
    p = plan_question("Which other contracts do we have besides Kestrel's?", VOCAB)
    assert not p.params.types and p.params.exclude_companies == ["Kestrel Logistics GmbH"], p.linked


def test_chinese_wording_of_a_narrower_type_with_another_verb_of_the_general_type():
    # "随时解除" is a Termination for Convenience phrase; 随时 with Termination's other words narrows too
    for q in ("哪些供应商可以随时解约？", "哪些供应商可以随时终止合同？"):
        assert plan_question(q, VOCAB).params.types == ["Termination for Convenience"], q
    assert plan_question("哪些供应商的合同可以终止？", VOCAB).params.types == ["Termination"]


def test_a_chinese_request_to_list_filtered_suppliers_lists_them():
    for q in ("列出所有物流供应商", "请列出全部德国供应商"):
        p = plan_question(q, VOCAB)
        assert p.intent == Intent.COMPANIES and not p.params.text, (q, p.why)


def test_which_of_a_suppliers_agreements_picks_among_the_agreements():
    p = plan_question("Which of Kestrel's contracts has a liability cap?", VOCAB)
    assert p.intent == Intent.DOCUMENT_TYPE and p.params.types == ["Liability"], p.why
    # among named suppliers it is still asked of each
    p = plan_question("Which of Kestrel and Belmira has a liability cap?", VOCAB)
    assert p.intent == Intent.PRESENCE, p.why
    assert plan_question("Which of our contracts have a liability cap?", VOCAB).intent == Intent.PRESENCE


@pytest.mark.parametrize("question", [
    "Which agreements have no governing law clause?",
    "Which of our contracts lack a termination clause?",
    "Which of Kestrel's contracts lack a termination clause?",
    "How many contracts lack a force majeure clause?",
    "哪些合同没有适用法律条款？",
])
def test_a_gap_of_agreements_is_read_agreement_by_agreement(question):
    p = plan_question(question, VOCAB)
    assert p.params.gap and p.params.count_unit == "agreements", question
    assert p.intent in {Intent.GAP, Intent.COUNT} and p.params.types, question
    assert "agreements" in p.why


@pytest.mark.parametrize("question", [
    "Which suppliers' contracts lack a termination clause?",
    "Which suppliers lack a governing law clause?",
    "哪些供应商的合同没有适用法律条款？",
])
def test_a_gap_of_suppliers_stays_supplier_by_supplier(question):
    p = plan_question(question, VOCAB)
    assert p.intent == Intent.GAP and p.params.count_unit is None, question


def test_a_date_after_which_agreements_were_signed_is_no_condition_of_the_gap():
    p = plan_question("Which contracts signed after 2023 lack a liability clause?", VOCAB)
    assert (p.intent, p.params.types, p.params.date_from) == (Intent.GAP, ["Liability"], "2024-01-01")
    p = plan_question("Which suppliers with contracts signed after March 2022 have no liability clause?", VOCAB)
    assert (p.intent, p.params.date_from) == (Intent.GAP, "2022-04-01")


def test_whose_at_the_start_asks_for_suppliers():
    p = plan_question("Whose governing law does not match where they are based?", VOCAB)
    assert (p.intent, p.params.law_scope) == (Intent.COMPANIES, "foreign"), p.why
    assert plan_question("Whose contracts lack a termination clause?", VOCAB).intent == Intent.GAP


@pytest.mark.parametrize("question, words", [
    ("Show me every clause that mentions arbitration", ["arbitration"]),
    ("Which clauses mention sub-processors?", ["sub-processor"]),
    ("Which contracts contain the words 'exclusive supplier'?", ["exclusive supplier"]),
    ("哪些条款提到了上海？", ["上海"]),
])
def test_clauses_that_mention_words_and_name_no_type_are_listed_word_for_word(question, words):
    p = plan_question(question, VOCAB)
    assert (p.intent, p.mode, p.params.mentions, p.params.types) == (Intent.HYBRID, Mode.HYBRID, words, []), p.why


def test_a_place_among_the_mentioned_words_is_no_filter_unless_named_before_them():
    p = plan_question("Which clauses mention Hamburg?", VOCAB)
    assert p.params.mentions == ["hamburg"] and p.params.cities == [], p.params
    p = plan_question("Which clauses of suppliers in Hamburg mention insolvency?", VOCAB)
    assert p.params.mentions == ["insolvency"] and p.params.cities == ["Hamburg"], p.params


def test_the_words_that_narrowed_a_type_negate_nothing():
    # "无理由" narrows Termination; its 无 is no gap, while 没有 before it is one
    p = plan_question("哪些合同可以无理由解除？", VOCAB)
    assert (p.intent, p.params.types) == (Intent.PRESENCE, ["Termination for Convenience"]), p.why
    assert plan_question("哪些供应商没有约定无理由解除？", VOCAB).intent == Intent.GAP
    # ... also when a keyword (随时解除) named the type by itself
    p = plan_question("哪些供应商的合同可以无理由随时解除？", VOCAB)
    assert (p.intent, p.params.types) == (Intent.PRESENCE, ["Termination for Convenience"]), p.why
    p = plan_question("Which suppliers can we terminate without giving a reason?", VOCAB)
    assert (p.intent, p.params.types) == (Intent.PRESENCE, ["Termination for Convenience"]), p.why
    # ... and describe no type themselves: "walk away" read alone says Termination, the words narrow it
    p = plan_question("Which suppliers can we walk away from without a reason?", VOCAB)
    assert (p.intent, p.params.types) == (Intent.PRESENCE, ["Termination for Convenience"]), p.why
    p = plan_question("Which suppliers can we not walk away from without giving a reason?", VOCAB)
    assert (p.intent, p.params.types) == (Intent.GAP, ["Termination for Convenience"]), p.why


def test_a_keyword_before_what_a_clause_holds_names_its_type_beside_a_named_one():
    from core.retrieval.type_links import link_clause_types

    types, how, _ = link_clause_types("suppliers with both service credits and uptime commitments", by_meaning=False)
    assert types == ["Service Credits", "Availability"] and how["Availability"] == "keyword 'uptime'"
    assert link_clause_types("Which vendors give an uptime guarantee?", by_meaning=False)[0] == ["Availability"]


def test_agreements_that_do_not_mention_words_are_listed_and_a_negated_verb_about_agreements_is_a_gap():
    p = plan_question("Which contracts don't mention penalties?", VOCAB)
    assert (p.intent, p.params.count_unit, p.params.mentions) == (Intent.COUNT, "agreements", ["penalt"]), p.why
    p = plan_question("Which SLAs don't say anything about termination?", VOCAB)
    assert (p.intent, p.params.types, p.params.count_unit) == (Intent.GAP, ["Termination"], "agreements"), p.why
    # a negated verb about content stays content
    assert plan_question("What does not count against termination in the contracts?", VOCAB).intent != Intent.GAP


def test_a_law_named_to_be_left_out_filters_by_the_other_laws():
    vocab = two_suppliers(agreements=[{"id": "SLA-001", "company": "Kestrel Logistics GmbH", "governing_law": "Germany"},
                                      {"id": "SLA-002", "company": "Belmira Payments SA", "governing_law": "France"},
                                      {"id": "SLA-003", "company": "Belmira Payments SA", "governing_law": "Switzerland"}])
    for q in ("Which contracts are not governed by Swiss law?", "Which contracts fall under a law other than Swiss law?",
              "哪些合同不适用瑞士法律？"):
        p = plan_question(q, vocab)
        assert (sorted(p.params.governing_laws), p.params.governing_laws_left_out) == (
            ["France", "Germany"], ["Switzerland"]), (q, p.params)
    assert plan_question("Which contracts are governed by Swiss law?", vocab).params.governing_laws == ["Switzerland"]


@pytest.mark.parametrize("question, types", [
    ("Which manufacturing suppliers must carry product liability insurance?", ["Insurance"]),
    ("Which suppliers carry cyber security insurance?", ["Insurance"]),
    ("Which suppliers have liability and insurance clauses?", ["Liability", "Insurance"]),
    ("Which suppliers have an IP ownership assignment clause?", ["IP Ownership", "Assignment"]),
])
def test_what_an_insurance_covers_is_its_kind_not_a_second_type(question, types):
    from core.retrieval.type_links import link_clause_types

    assert link_clause_types(question, by_meaning=False)[0] == types


@pytest.mark.parametrize("question, gap", [
    # what the supplier may not do without a condition is a duty its contract states
    ("Which suppliers cannot subcontract without our consent?", False),
    ("Which vendors can't transfer personal data outside Europe without standard contractual clauses?", False),
    # what we may not do is a right we lack
    ("Which suppliers don't let us terminate without cause?", True),
    ("Which suppliers can't we terminate for convenience?", True),
    # a negated gerund after a preposition negates that act, not what the question asks
    ("Who can charge us for not buying enough?", False),
    ("Which suppliers can we not terminate for convenience?", True),
])
def test_a_negated_duty_with_its_condition_is_no_gap(question, gap):
    plan = planner.plan_question(question, VOCAB)
    assert bool(plan.params.gap) is gap, plan


@pytest.mark.parametrize("question, countries", [
    ("Which suppliers store our data outside the EU?", []),
    ("Which clauses require patient data to stay in Germany?", []),
    ("How many suppliers are located in Germany?", ["Germany"]),
    ("Which suppliers based in France process data in Germany?", ["France"]),
])
def test_a_place_named_as_where_data_goes_filters_no_supplier(question, countries):
    assert planner.plan_question(question, VOCAB).params.countries == countries


def test_a_sum_a_clause_states_is_no_spend_filter():
    p = plan_question("Which suppliers hold public liability cover of at least 10 million?", VOCAB)
    assert p.params.spend_min is None and p.params.types == ["Insurance"], p.params
    p = plan_question("Which suppliers cap their liability at more than 1 million?", VOCAB)
    assert p.params.spend_min is None and p.params.types == ["Liability"], p.params
    assert plan_question("Which suppliers did we pay more than 200k in 2024?", VOCAB).params.spend_min == 200000


def test_a_listing_of_contracts_by_what_a_clause_grants_names_its_type():
    # "which contracts ..." lists agreements by their clauses, as "which suppliers ..." lists companies
    p = plan_question("Which contracts let us audit the supplier?", VOCAB)
    assert p.params.types == ["Audit Rights"], p.why
    p = plan_question("Which suppliers must notify us of a change of ownership?", VOCAB)
    assert p.params.types == ["Change of Control"], p.why


@pytest.mark.parametrize("question, intent", [
    # the negated verb is the act the type restricts: who is bound by it
    ("Which suppliers cannot subcontract?", Intent.PRESENCE),
    ("Which suppliers cannot assign the contract?", Intent.PRESENCE),
    ("Which suppliers can't poach our staff?", Intent.PRESENCE),
    # any other verb, or our side, still asks who lacks the clause
    ("Which suppliers can't provide 24/7 support?", Intent.GAP),
    ("Which suppliers can't we audit?", Intent.GAP),
    ("Which suppliers can we not terminate for convenience?", Intent.GAP),
    # a promise not to act is the restriction the contract states; a promise not made is a gap
    ("Which suppliers have agreed not to disclose our confidential information?", Intent.PRESENCE),
    ("Which suppliers are obliged not to subcontract the work?", Intent.PRESENCE),
    ("Which suppliers have not agreed to a confidentiality clause?", Intent.GAP),
    ("Which suppliers are not obliged to keep our data confidential?", Intent.GAP),
])
def test_cannot_do_what_the_type_restricts_is_no_gap(question, intent):
    assert plan_question(question, VOCAB).intent == intent


def test_a_type_word_that_says_what_the_suppliers_do_is_no_clause_asked_about():
    # beside another type: "security vendors" are a line of business
    p = plan_question("Which security vendors lack a data protection clause?", VOCAB)
    assert p.params.types == ["Data Protection"], p.linked
    p = plan_question("Which suppliers lack security and data protection clauses?", VOCAB)
    assert sorted(p.params.types) == ["Data Protection", "Security"], p.linked


def test_a_word_settled_as_the_industry_names_no_type_later():
    from tests.unit.vocabularies import two_suppliers

    vocab = two_suppliers(companies=[{"name": "Halvard Assurance", "aliases": [], "country": "Norway",
                                      "industry": "Insurance", "cities": []}], agreements=[],
                          clause_types=["Insurance", "Liability"])
    p = plan_question("Which of our suppliers operate in the insurance industry?", vocab)
    assert p.params.types == [] and p.params.industries == ["Insurance"], p.linked
    p = plan_question("Which suppliers in the insurance industry lack an insurance clause?", vocab)
    assert p.params.types == ["Insurance"] and p.params.industries == ["Insurance"], p.linked


def test_a_question_the_narrower_types_reader_reads_as_that_provision_is_narrowed():
    # the no-cause reader that types contracts reads the question: a right to end with nothing but a notice
    p = plan_question("Which suppliers can we end the contract with by simply giving notice?", VOCAB)
    assert p.params.types == ["Termination for Convenience"], p.linked
    p = plan_question("Which suppliers can we terminate if they breach the contract?", VOCAB)
    assert p.params.types == ["Termination"], p.linked

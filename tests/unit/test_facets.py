"""Facets: details inside a clause type that a question narrows the type to (core.retrieval.facets),
read from the taxonomy; the same patterns find them in questions and in clauses."""
from __future__ import annotations

import json
import re

import pytest

from core.retrieval.facets import clause_pattern, facet_names, facet_patterns, question_facets
from core.taxonomy import TaxonomyError, load_taxonomy


def _names(question: str, types: list[str]) -> list[str]:
    return [h.name for h in question_facets(question, types)]


@pytest.mark.parametrize("question, types, facets", [
    ("Which suppliers have an arbitration clause?", ["Governing Law"], ["Arbitration"]),
    ("哪些合同约定了仲裁？", ["Governing Law"], ["Arbitration"]),
    ("Which contracts renew automatically?", ["Termination"], ["Renewal"]),
    ("哪些合同会自动续期？", ["Termination"], ["Renewal"]),
    ("Which suppliers may raise their prices?", ["Payment"], ["Price changes"]),
    ("Which suppliers must keep our data inside the country?", ["Data Protection"], ["International transfers"]),
    ("Which agreements give us a price freeze?", ["Payment"], ["Fixed prices"]),
    ("Which suppliers offer a discount for paying early?", ["Payment"], ["Early payment discount"]),
    ("Which suppliers could owe us a penalty for delivering late?", ["Liability"], ["Liquidated damages"]),
    ("Which suppliers must tell us before they add a subprocessor?", ["Data Protection"], ["Sub-processors"]),
    ("Which suppliers offer data residency?", ["Data Protection"], ["International transfers"]),
    ("Which suppliers charge interest on late payments?", ["Payment"], ["Late payment"]),
    ("Who has to delete our data when the contract ends?", ["Data Protection"], ["Deletion or return of data"]),
    ("Which agreements allow assignment to a successor after a merger?", ["Assignment"], ["Merger or successor"]),
    ("Which suppliers carry product liability insurance?", ["Insurance"], ["Product liability insurance"]),
    ("Which suppliers exclude liability for lost profits?", ["Liability"], ["Indirect damages"]),
])
def test_a_question_names_a_facet_of_the_asked_type(question, types, facets):
    assert _names(question, types) == facets


@pytest.mark.parametrize("question, types", [
    ("Which suppliers lack a governing law clause?", ["Governing Law"]),    # the type itself
    ("Which suppliers have a termination clause?", ["Termination"]),
    ("哪些供应商有付款条款？", ["Payment"]),
    # a facet of another type than the one asked
    ("Which suppliers have a confidentiality clause that mentions arbitration?", ["Confidentiality"]),
    # two types: the clause filter would apply to both, so no facet
    ("Which suppliers have governing law and termination clauses with arbitration?", ["Governing Law", "Termination"]),
    ("Which suppliers have an arbitration clause?", []),
])
def test_no_facet_when_the_question_asks_for_the_type_itself_or_several_types(question, types):
    assert _names(question, types) == []


def test_the_clause_pattern_matches_the_clause_text_as_neo4j_reads_it():
    # `=~` matches the whole text: the pattern spans it, across lines, in any case
    (pattern,) = facet_patterns(["Arbitration"], ["Governing Law"])
    assert re.fullmatch(pattern, "Any dispute\nshall be finally settled by ARBITRATION in Stockholm.")
    assert re.fullmatch(pattern, "争议应提交上海国际仲裁中心仲裁。")
    assert not re.fullmatch(pattern, "The courts of Lyon shall have exclusive jurisdiction.")
    (prices,) = facet_patterns(["Price changes"], ["Payment"])
    assert re.fullmatch(prices, "Provider may increase its fees once per contract year by no more than CPI.")
    assert not re.fullmatch(prices, "Prices are fixed for each calendar year and listed in Annex 1.")
    # the change said of "them" or of "an adjustment", measured against the price before it
    assert re.fullmatch(prices, "Thereafter the Supplier may adjust them once a year; an adjustment may not "
                                "exceed 3 % of the previous price.")
    assert re.fullmatch(prices, "Fees for any renewal term may increase by no more than 5 % over the fees of the prior term.")
    (fixed,) = facet_patterns(["Fixed prices"], ["Payment"])
    assert re.fullmatch(fixed, "The prices in Annex 1 are fixed until 31 December 2024.")
    (early,) = facet_patterns(["Early payment discount"], ["Payment"])
    assert re.fullmatch(early, "The Customer is entitled to a 2 % discount if it pays within 14 days.")
    assert not re.fullmatch(early, "Volume discounts apply to orders above 1,000 units.")
    (late,) = facet_patterns(["Liquidated damages"], ["Liability"])
    assert re.fullmatch(late, "乙方逾期交付的，每逾期一日按该批次服务费的千分之三向甲方支付违约金。")
    assert re.fullmatch(late, "The Supplier shall pay 0.5% of the price for each day of delay.")
    assert not re.fullmatch(late, "Neither party is liable for indirect or consequential losses.")
    (places,) = facet_patterns(["International transfers"], ["Data Protection"])
    assert re.fullmatch(places, "Quillon stores it in Canada and does not move it outside Canada.")


def test_every_facet_pattern_of_the_taxonomy_compiles_and_names_its_own_facet_in_the_answer():
    for t in load_taxonomy():
        for f in t.facets:
            re.compile(clause_pattern(f))
            assert facet_names([f.name], [t.name], "zh") == [f.name_zh]
            assert facet_patterns([f.name], [t.name]) == [clause_pattern(f)]


def test_a_facet_pattern_that_does_not_compile_names_the_file_the_type_and_the_facet(tmp_path):
    raw = json.loads((load_taxonomy.__globals__["DEFAULT_TAXONOMY_PATH"]).read_text(encoding="utf-8"))
    raw["types"][0]["facets"] = [{"name": "Broken", "patterns": ["(unclosed"]}]
    path = tmp_path / "taxonomy.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(TaxonomyError, match=r"taxonomy\.json.*Availability.*facet 'Broken'.*not a valid regular"):
        load_taxonomy(path)
    raw["types"][0]["facets"] = [{"name": "Empty", "patterns": []}]
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(TaxonomyError, match="non-empty list"):
        load_taxonomy(path)


@pytest.mark.parametrize("question, types, facets", [
    ("Which suppliers have an arbitration clause?", ["Governing Law"], ["Arbitration"]),
    # the type linked by meaning ("renew automatically"), the facet read after it
    ("Which contracts renew automatically?", ["Termination"], ["Renewal"]),
    ("Which suppliers have a governing law clause?", ["Governing Law"], None),
])
def test_the_plan_keeps_the_facets_of_its_type(question, types, facets):
    from core.retrieval.planner import plan_question
    from tests.unit.vocabularies import two_suppliers

    plan = plan_question(question, two_suppliers())
    assert plan.params.types == types and plan.params.facets == facets


def test_the_answer_names_the_facet_it_was_asked_for():
    from core.answer.composer import _stating, _stating_zh
    from core.types import PlanParams

    p = PlanParams(types=["Governing Law"], facets=["Arbitration"])
    assert _stating(p, False) == " on arbitration" and _stating(p, True) == " on arbitration"
    assert _stating_zh(p, False) == "（涉及仲裁）"
    # a gap beside a type held reads types only, and says so elsewhere (a warning)
    p.present_types = ["Termination"]
    assert _stating(p, True) == ""


@pytest.mark.parametrize("question, expected", [
    ("Which suppliers' prices are indexed to inflation?", ["Payment"]),
    ("Which contracts provide for arbitration?", ["Governing Law"]),
    ("哪些合同约定了仲裁？", ["Governing Law"]),
    # a detail two types share names both
    ("Who must tell us about a data breach?", ["Data Protection", "Security"]),
    # details of unrelated types name none
    ("Which contracts provide for arbitration and renew automatically?", []),
    ("Which suppliers are based in Germany?", []),
])
def test_a_question_that_names_only_a_detail_names_its_type(question, expected):
    from core.retrieval.facets import type_by_facet

    assert type_by_facet(question)[0] == expected


def test_a_type_named_by_its_detail_keeps_the_detail():
    from core.retrieval.planner import plan_question
    from tests.unit.vocabularies import two_suppliers

    plan = plan_question("Which suppliers' prices are indexed to inflation?", two_suppliers())
    assert plan.params.types == ["Payment"] and plan.params.facets == ["Price changes"]


def test_a_detail_two_types_share_widens_a_type_read_from_the_meaning():
    from core.retrieval.planner import plan_question
    from tests.unit.vocabularies import two_suppliers

    # the model reads Security; the breach notice sits in Data Protection clauses as often
    plan = plan_question("Which suppliers must notify us of a personal data breach?", two_suppliers())
    assert plan.params.types == ["Data Protection", "Security"] and plan.params.type_match == "any"
    assert plan.params.facets == ["Breach notification"]
    # a type the question names is not widened
    plan = plan_question("Which suppliers have a security clause about data breaches?", two_suppliers())
    assert plan.params.types == ["Security"] and plan.params.facets == ["Breach notification"]


def test_the_type_s_own_name_is_no_detail_but_a_phrase_around_it_is():
    assert _names("Which suppliers have a security clause?", ["Security"]) == []
    assert _names("Which suppliers must report security incidents to us?", ["Security"]) == ["Breach notification"]


def _plan(question: str):
    from core.retrieval.planner import plan_question
    from tests.unit.vocabularies import two_suppliers

    return plan_question(question, two_suppliers())


def test_a_detail_written_anywhere_is_found_in_any_clause_unless_the_type_is_named():
    # "delete the data on termination" sits in termination clauses as often as in data protection ones
    assert _plan("Who has to delete our data when the contract ends?").params.facets_anywhere is True
    assert _plan("Which suppliers have an arbitration clause?").params.facets_anywhere is True
    # the question names the type: its clauses only
    assert _plan("Which data protection clauses require deletion of data?").params.facets_anywhere is None
    # a detail not marked `anywhere` stays inside its type
    assert _plan("Which suppliers may raise their prices?").params.facets_anywhere is None


def test_a_prohibition_is_content_not_a_gap():
    plan = _plan("Which suppliers may not transfer our data outside the country?")
    assert plan.intent.value == "presence" and plan.params.facets == ["International transfers"]
    assert _plan("Which suppliers must not use subcontractors without our consent?").intent.value == "presence"
    # "can we not" and "do not" still ask for a gap
    assert _plan("Which suppliers can we not terminate for convenience?").intent.value == "gap"
    assert _plan("Which suppliers do not protect personal data?").intent.value == "gap"


@pytest.mark.parametrize("question, types, facets", [
    # 终止后 is the time the obligation lasts past, not a second type
    ("哪些供应商的保密义务在合同终止后继续有效？", ["Confidentiality"], ["Survival after the end"]),
    ("哪些供应商在合同结束后需要删除我们的数据？", ["Data Protection"], ["Deletion or return of data"]),
    # a Chinese listing that names only a detail
    ("哪些合同规定了涨价的条件？", ["Payment"], ["Price changes"]),
    # two types asked in so many words stay two
    ("哪些供应商有终止条款和保密条款？", ["Termination", "Confidentiality"], None),
])
def test_chinese_details_and_time_words(question, types, facets):
    plan = _plan(question)
    assert plan.params.types == types and plan.params.facets == facets


def test_anywhere_must_be_true_or_false(tmp_path):
    raw = json.loads((load_taxonomy.__globals__["DEFAULT_TAXONOMY_PATH"]).read_text(encoding="utf-8"))
    raw["types"][0]["facets"] = [{"name": "Odd", "patterns": ["odd"], "anywhere": "yes"}]
    path = tmp_path / "taxonomy.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(TaxonomyError, match="'anywhere' must be true or false"):
        load_taxonomy(path)


@pytest.mark.parametrize("question, types, facets, anywhere", [
    # "termination" is part of Confidentiality's detail, not a second type
    ("Whose confidentiality obligations survive termination?", ["Confidentiality"], ["Survival after the end"], None),
    # "security" inside the detail's words does not name a security clause: the detail is looked for anywhere
    ("Which suppliers must tell us about a breach of data security?", ["Security"], ["Breach notification"], True),
    ("Which suppliers may not move personal data out of the country?", ["Data Protection"], ["International transfers"], None),
    # fixed prices are a detail of their own, not a price change
    ("Which suppliers' prices are fixed for the year?", ["Payment"], ["Fixed prices"], None),
    ("Which contracts can we end immediately if the supplier seriously breaches them?", ["Termination"], ["Breach"], None),
    # a right to end the agreement when the supplier changes hands, wherever the contract says so
    ("Which suppliers can we terminate if a competitor takes them over?", ["Termination"], ["Change of control"], True),
    ("Which agreements can we end if the supplier is bought by a competitor?", ["Termination"], ["Change of control"], True),
    ("哪些合同规定供应商被收购时我们可以解除合同？", ["Termination"], ["Change of control"], True),
    # the detail set aside is not asked for; a negation still asks for a gap of the detail
    ("Which suppliers settle disputes by arbitration rather than in court?", ["Governing Law"], ["Arbitration"], True),
    ("Which suppliers do not have an arbitration clause?", ["Governing Law"], ["Arbitration"], True),
    ("Which agreements continue automatically?", ["Termination"], ["Renewal"], True),
    ("Which suppliers can put their prices up?", ["Payment"], ["Price changes"], None),
    ("Which suppliers can hike their prices every year?", ["Payment"], ["Price changes"], None),
    ("Which suppliers indemnify us against intellectual property infringement claims?", ["Indemnification"],
     ["Intellectual property infringement"], None),
    # kinds of insurance: asked of the insurance clauses when the question says "insurance"
    ("Which suppliers have to carry employer's liability insurance?", ["Insurance"], ["Employer's liability insurance"], None),
    ("Which suppliers carry public liability cover?", ["Insurance"], ["Public liability insurance"], True),
    ("哪些供应商需要为货物投保？", ["Insurance"], ["Goods and property insurance"], None),
    # a data breach in Chinese holds Confidentiality's 泄露; the longer words name the detail
    ("哪些供应商需要在发生数据泄露后限时通知我们？", ["Data Protection", "Security"], ["Breach notification"], True),
    # a duty with its condition, not a gap; the place is where the data goes, not a supplier filter
    ("Which vendors can't transfer personal data outside Europe without standard contractual clauses?",
     ["Data Protection"], ["International transfers"], None),
])
def test_details_read_in_their_own_words(question, types, facets, anywhere):
    plan = _plan(question)
    assert (plan.params.types, plan.params.facets, plan.params.facets_anywhere) == (types, facets, anywhere)


def test_a_termination_for_cause_is_a_termination_for_breach_and_renewable_energy_renews_nothing():
    (breach,) = facet_patterns(["Breach"], ["Termination"])
    assert re.fullmatch(breach, "The right to terminate for good cause remains unaffected.")
    (renewal,) = facet_patterns(["Renewal"], ["Termination"])
    assert not re.fullmatch(renewal, "Voltera supplies electricity from renewable sources.")
    assert re.fullmatch(renewal, "failing which it is extended by one year at a time.")
    assert re.fullmatch(renewal, "Thereafter it continues for successive periods of twelve months.")


def test_editing_a_facet_re_types_nothing(tmp_path):
    from core.taxonomy import DEFAULT_TAXONOMY_PATH, typing_text

    raw = json.loads(DEFAULT_TAXONOMY_PATH.read_text(encoding="utf-8"))
    path = tmp_path / "taxonomy.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    before = typing_text(path)
    raw["types"][0]["facets"] = [{"name": "New", "patterns": ["new detail"]}]
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert typing_text(path) == before
    raw["types"][0]["keywords_en"].append("brand-new keyword")
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert typing_text(path) != before


def test_a_detail_not_needed_is_not_asked_for():
    plan = _plan("Which vendors can we walk away from on notice without having to show a breach?")
    assert not plan.params.facets
    # ... and ending the agreement without having to prove a breach is ending it without cause
    plan = _plan("Which suppliers can we terminate without having to prove a breach?")
    assert (plan.params.types, plan.params.facets) == (["Termination for Convenience"], None)


def test_a_facet_named_like_a_type_is_also_met_by_that_type():
    from core.retrieval.facets import facet_types

    assert facet_types(["Change of control"], ["Termination"]) == ["Change of Control"]
    assert facet_types(["Arbitration"], ["Governing Law"]) == [None]
    assert facet_types(None, ["Termination"]) == []

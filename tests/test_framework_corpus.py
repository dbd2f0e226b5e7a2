"""The fifth corpus (tests/fixtures/framework_corpus), written before any question was asked of it:
a facet that is also a clause type, a service credit named inside a service-level section, a place
named as where data goes, a duty with its condition."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_graph
from core.service import ask

ROOT = Path(__file__).resolve().parent.parent
FRAMEWORK = ROOT / "tests" / "fixtures" / "framework_corpus"
TSUBAKI, SAHYADRI = "Tsubaki Components Co. Ltd.", "Sahyadri Digital Services Pvt. Ltd."


framework = corpus_graph(FRAMEWORK)


def _companies(result) -> set[str]:
    return {e.company for e in result.evidence}


@pytest.mark.parametrize("question", [
    "Which contracts let us end the agreement if the supplier is taken over?",
    "哪些供应商控制权变更时我们可以解除合同？",
])
def test_a_detail_that_is_also_a_type_is_met_by_a_clause_typed_so(framework, question):
    # Tsubaki's termination article says "if control of the other party passes to a third party by
    # merger, share transfer or otherwise": none of the facet's patterns, but the clause is typed
    # Change of Control; Sahyadri's says "change of control" in so many words
    # read as the Termination detail (met by a clause typed Change of Control too) or, as the question
    # bank's writers read it, as the Change of Control type itself: the same suppliers either way
    result = ask(question)
    by_detail = result.plan.params.facets == ["Change of control"]
    assert by_detail or "Change of Control" in result.plan.params.types, result.plan
    assert _companies(result) == {TSUBAKI, SAHYADRI}, result.answer
    if by_detail:
        assert "detail_types" in result.params and "Change of Control" in result.params["detail_types"]


def test_a_service_credit_under_its_own_sub_heading_types_the_service_level_section(framework):
    # "2. SERVICE LEVELS" holds "2.2 Service Credits. If Vendor misses ...": typed Availability
    # as a whole, and Service Credits by the sub-heading read alone
    result = ask("Show me the service credit terms of Indian suppliers")
    assert _companies(result) == {SAHYADRI}, result.answer
    assert [e.clause_id for e in result.evidence] == ["C5-06#2"]


def test_a_place_data_goes_is_no_filter_on_the_suppliers(framework):
    result = ask("Which of our vendors can't transfer personal data outside Europe without standard contractual clauses?")
    assert result.intent == "presence" and not result.plan.params.countries, result.plan
    assert _companies(result) == {SAHYADRI}, result.answer


def test_a_chinese_data_breach_is_a_breach_notice_not_confidentiality(framework):
    result = ask("哪些供应商需要在发生数据泄露后限时通知我们？")
    assert result.plan.params.facets == ["Breach notification"], result.plan
    assert _companies(result) == {"Calder Facilities Services Ltd", "Shanghai Hanhai Logistics Co. Ltd."}, result.answer


def test_a_standard_named_by_its_number_is_found_in_a_clause_of_another_type(framework):
    # Brenner's "Quality and Warranty" clause: "a quality management system certified to ISO 9001"
    result = ask("Which suppliers hold ISO 9001 certification?")
    assert _companies(result) == {"Brenner Präzisionstechnik GmbH"}, result.answer
    assert "ISO 9001" in result.answer

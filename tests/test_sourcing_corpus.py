"""The sixth corpus (tests/fixtures/sourcing_corpus), written before any question was asked of it:
a compared quantity, a service credit worded as a rebate or a deduction, a termination right that
names its cause, a contract without headings cut into its provisions."""
from __future__ import annotations

from pathlib import Path

from conftest import corpus_graph
from core.service import ask

ROOT = Path(__file__).resolve().parent.parent
SOURCING = ROOT / "tests" / "fixtures" / "sourcing_corpus"
ORCHARD, BLUEWATER, VIREO = "Orchard Linen Services Ltd", "Bluewater Networks Inc.", "Vireo Cloud B.V."
KESTREL, PINECREST = "Kestrel Freight Pty Ltd", "Pinecrest Staffing LLC"
QIMING = "Shenzhen Qiming Medical Devices Co. Ltd."


sourcing = corpus_graph(SOURCING)


def _companies(result) -> set[str]:
    return {e.company for e in result.evidence}


def test_a_compared_quantity_takes_every_figure_on_its_side(sourcing):
    # Bluewater promises 99.95 %, Vireo 99.9 %; Orchard's service performance clause (typed
    # Availability) promises an on-time rate "of at least 98%", below the bound
    result = ask("Which suppliers commit to availability of at least 99.9%?")
    assert result.plan.params.quantities == ["at least 99.9%"], result.plan
    assert _companies(result) == {BLUEWATER, VIREO}, result.answer
    # 不低于 ("not below") is at least: only Bluewater's 99.95 % reaches 99.95 %
    result = ask("哪些供应商的可用性不低于99.95%？")
    assert result.plan.params.quantities == ["不低于99.95%"], result.plan
    assert _companies(result) == {BLUEWATER}, result.answer


def test_a_service_credit_worded_as_a_rebate_or_a_deduction_is_one(sourcing):
    # Orchard "may deduct 2% of the monthly charges", Kestrel "shall rebate 3% of that month's
    # freight charges", Bluewater's customer "will receive a credit of 10%", each when a level is
    # missed; Vireo's exhibit has a "Service Credits" heading
    result = ask("Which suppliers owe us a credit or rebate when they miss a service level?")
    assert _companies(result) == {ORCHARD, BLUEWATER, VIREO, KESTREL}, result.answer


def test_a_termination_right_that_names_its_cause_is_no_termination_for_convenience(sourcing):
    # Vireo's client may terminate after a change of control or a fee increase above 5 %: causes
    result = ask("Which suppliers can we terminate for convenience?")
    assert _companies(result) == {ORCHARD, KESTREL, PINECREST}, result.answer
    result = ask("哪些供应商的合同可以无理由随时解除？")
    assert result.intent == "presence", result.plan
    assert _companies(result) == {ORCHARD, KESTREL, PINECREST}, result.answer


def test_a_contract_without_headings_is_cut_into_its_provisions(sourcing):
    # Bluewater's agreement is eleven plain paragraphs; short ones are whole provisions, not
    # captions to glue to the next, so its governing-law paragraph is a clause of its own
    result = ask("Show me the governing law clause of Bluewater")
    assert [e.clause_id for e in result.evidence] == ["C6-02#12"], result.answer
    assert result.evidence[0].text.startswith("This agreement is governed by the laws of the State of New York")


def test_a_supplier_bought_by_a_competitor_is_a_change_of_control(sourcing):
    result = ask("Which agreements can we end if the supplier is bought by a competitor?")
    assert result.plan.params.facets == ["Change of control"] or "Change of Control" in result.plan.params.types, \
        result.plan
    assert _companies(result) == {VIREO, KESTREL}, result.answer


def test_provisions_said_in_so_many_words_are_found_in_any_section(sourcing):
    # Orchard's force majeure has no name ("events beyond its reasonable control") and sits in
    # "General" beside a subcontracting consent: both are types of the clause
    result = ask("Which contracts have a force majeure clause?")
    assert ORCHARD in _companies(result), result.answer
    force_majeure = next(e for e in result.evidence if e.company == ORCHARD)
    assert "beyond its reasonable control" in force_majeure.text, force_majeure
    result = ask("Which suppliers need our consent before subcontracting?")
    assert {ORCHARD, KESTREL, VIREO} <= _companies(result), result.answer
    # Bluewater's and Qiming's response times sit in an availability paragraph and a warranty article
    result = ask("Which suppliers have a support clause?")
    assert {BLUEWATER, QIMING} <= _companies(result), result.answer

"""The fourth corpus (tests/fixtures/msa_corpus), written before any question was asked of it:
quantities a clause must state, checked by Neo4j's own regular expressions (the figures sit in English
and Chinese clauses); termination for convenience in so many words; a type's sure clauses first."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import corpus_graph
from core.service import ask

ROOT = Path(__file__).resolve().parent.parent
MSA = ROOT / "tests" / "fixtures" / "msa_corpus"


msa = corpus_graph(MSA)


def _companies(result) -> set[str]:
    return {r["company"] for r in result.rows if r.get("company")}


@pytest.mark.parametrize("question, expected", [
    # Qiming's Chinese clause states 99.9%; Kvist & Berg's picking accuracy of 99.5% is no uptime
    ("Which suppliers promise an uptime of 99.9%?", {"Qiming Smart Technology Co. Ltd."}),
    ("哪些供应商承诺可用率99.9%？", {"Qiming Smart Technology Co. Ltd."}),
    # "7 years" in words in Oakridge's records clause; Solenne's inspection clause keeps batch records
    ("Which suppliers must keep records for seven years?", {"Oakridge Payroll Solutions LLC"}),
])
def test_a_stated_quantity_keeps_the_suppliers_whose_clause_states_it(msa, question, expected):
    result = ask(question)
    assert result.plan.params.quantities, result.plan
    assert _companies(result) == expected, result.answer
    assert "=~" in result.cypher      # the filter ran in the query shown, not after it


def test_a_cap_in_months_of_fees_is_answered_from_the_terms_read_at_ingest(msa):
    # Oakridge caps at the fees of twelve months; Kvist & Berg at a fixed EUR 500,000 (not comparable)
    result = ask("Which suppliers cap their liability at twelve months of fees?")
    assert result.plan.intent == "terms" and "HAS_TERM" in result.cypher
    assert _companies(result) == {"Oakridge Payroll Solutions LLC"}, result.answer
    assert all(e.text for e in result.evidence)


def test_without_the_quantity_every_holder_of_the_type_is_listed(msa):
    assert len(_companies(ask("Which suppliers have a liability clause?"))) > 1


def test_a_gap_reads_the_quantity_from_the_clauses(msa):
    # Oakridge's liability cap is twelve months of fees; the other suppliers' clauses state no such cap
    result = ask("Which suppliers lack a liability clause capped at twelve months of fees?")
    assert result.plan.params.quantities == ["twelve months"], result.plan
    lacking = _companies(result)
    assert "Oakridge Payroll Solutions LLC" not in lacking and len(lacking) >= 3, result.answer
    assert "$details" in result.cypher and not any("was not checked" in w for w in result.warnings)


@pytest.mark.parametrize("question, expected", [
    # Kvist & Berg's letter and Qiming's Chinese clause provide for arbitration; the others name courts or a law only
    ("Which of our contracts are subject to arbitration?", {"Kvist & Berg AB", "Qiming Smart Technology Co. Ltd."}),
    ("哪些合同约定了仲裁？", {"Kvist & Berg AB", "Qiming Smart Technology Co. Ltd."}),
    # only Oakridge may increase its fees; Solenne's prices are fixed for each year
    ("Which suppliers are allowed to raise their prices?", {"Oakridge Payroll Solutions LLC"}),
    ("Which contracts renew automatically?", {"Solenne Cosmétiques SAS"}),
    ("Which agreements allow assignment to a successor after a merger?", {"Oakridge Payroll Solutions LLC"}),
    # "If the Manufacturer comes under the control of a competitor of the Customer, the Customer may terminate"
    ("Which suppliers can we terminate if a competitor takes them over?", {"Solenne Cosmétiques SAS"}),
])
def test_a_facet_of_the_type_keeps_the_suppliers_whose_clause_has_it(msa, question, expected):
    result = ask(question)
    assert result.plan.params.facets, result.plan
    assert _companies(result) == expected, result.answer
    assert "$details" in result.cypher      # Neo4j's own (Java) regular expressions ran the taxonomy's patterns


def test_a_detail_written_anywhere_is_found_in_a_clause_of_another_type(msa):
    # Oakridge's "On termination Provider shall return all Customer data ... and shall then delete its copies"
    # is in its termination section, not its data protection one
    result = ask("Who has to delete our data when the contract ends?")
    assert result.plan.params.facets_anywhere is True
    assert _companies(result) == {"Oakridge Payroll Solutions LLC"}
    assert [r["clause_id"] for r in result.rows] == ["C4-01#8"] and "a clause on deletion" in result.answer


def test_a_gap_of_a_facet_lists_the_suppliers_whose_clauses_lack_it(msa):
    result = ask("Which suppliers have no arbitration clause?")
    assert result.plan.intent.value == "gap" and result.plan.params.facets == ["Arbitration"]
    assert _companies(result) >= {"Oakridge Payroll Solutions LLC", "Solenne Cosmétiques SAS"}
    assert "Kvist & Berg AB" not in _companies(result)
    assert "on arbitration" in result.answer
    # named by its type, the detail is looked for in that type's clauses only
    typed = ask("Which data protection clauses require the deletion of data?")
    assert typed.plan.params.facets_anywhere is None and "C4-01#8" not in {r["clause_id"] for r in typed.rows}


def test_a_right_to_end_without_cause_in_so_many_words_is_stored_as_termination_for_convenience(msa):
    # Kvist & Berg's letter ("… for any reason") and Brightwater's order ("may cancel … at any time by giving
    # … 30 days' notice") were below the provision model's threshold; Solenne says "without having to give reasons"
    result = ask("Which suppliers can we terminate for convenience?")
    assert _companies(result) == {"Kvist & Berg AB", "Solenne Cosmétiques SAS", "Brightwater Cleaning Company Limited"}
    gap = ask("Which high-spend suppliers lack a termination for convenience clause?")
    assert _companies(gap) == {"Oakridge Payroll Solutions LLC", "Qiming Smart Technology Co. Ltd."}


def test_an_agreements_clauses_of_a_type_are_its_sure_ones_when_it_has_any(msa):
    # "Orders and Forecasts" is only weakly read as Payment (a section verdict under the review bar)
    result = ask("What are the payment terms in the Solenne contract?")
    assert [r["clause_id"] for r in result.rows] == ["C4-03#3"]
    assert "NOT EXISTS" in result.cypher


def test_a_search_by_meaning_keeps_the_clauses_that_state_the_quantity(msa):
    # "fix errors": the question reader reads Support (as the question bank's writers label fix times); without a
    # sure type the relay searches by meaning. Either way only the clauses stating "one business day" are kept
    result = ask("Which suppliers promise to fix errors within one business day?")
    assert result.plan.params.quantities == ["one business day"], result.plan
    assert result.plan.mode.value in {"relay", "attribute", "clause_type"}, result.plan
    assert [r["clause_id"] for r in result.rows][:1] == ["C4-01#4"], result.rows
    assert 'stating "one business day"' in result.answer


def test_a_search_by_meaning_over_filtered_suppliers_keeps_the_clauses_with_the_detail(msa):
    # the pool is sized by the filtered agreements' clause count; the detail narrows the search itself
    # (the count query once took the detail as an agreement filter and failed: `make bench` found it)
    result = ask("Clauses of logistics suppliers about arbitration", mode="relay")
    assert result.plan.params.facets == ["Arbitration"], result.plan
    assert {r["company"] for r in result.rows} == {"Kvist & Berg AB"}
    assert all("arbitration" in r["text"].lower() for r in result.rows)

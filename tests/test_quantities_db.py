"""Quantities a question asks a clause to state, checked by Neo4j's own regular expressions on a
corpus written for it (tests/fixtures/msa_corpus: the figures sit in English and Chinese clauses)."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.service import ask

ROOT = Path(__file__).resolve().parent.parent
MSA = ROOT / "tests" / "fixtures" / "msa_corpus"


@pytest.fixture(scope="module")
def msa(db, embedder):
    from conftest import load_corpus

    report = load_corpus(db, MSA, embedder)
    assert report.ok, report.errors
    return db


def _companies(result) -> set[str]:
    return {r["company"] for r in result.rows if r.get("company")}


@pytest.mark.parametrize("question, expected", [
    # Qiming's Chinese clause states 99.9%; Kvist & Berg's picking accuracy of 99.5% is no uptime
    ("Which suppliers promise an uptime of 99.9%?", {"Qiming Smart Technology Co. Ltd."}),
    ("哪些供应商承诺可用率99.9%？", {"Qiming Smart Technology Co. Ltd."}),
    # "7 years" in words in Oakridge's records clause; Solenne's inspection clause keeps batch records
    ("Which suppliers must keep records for seven years?", {"Oakridge Payroll Solutions LLC"}),
    ("Which suppliers cap their liability at twelve months of fees?", {"Oakridge Payroll Solutions LLC"}),
])
def test_a_stated_quantity_keeps_the_suppliers_whose_clause_states_it(msa, question, expected):
    result = ask(question)
    assert result.plan.params.quantities, result.plan
    assert _companies(result) == expected, result.answer
    assert "=~" in result.cypher      # the filter ran in the query shown, not after it


def test_without_the_quantity_every_holder_of_the_type_is_listed(msa):
    assert len(_companies(ask("Which suppliers have a liability clause?"))) > 1


def test_a_gap_says_it_did_not_check_the_quantity(msa):
    result = ask("Which suppliers lack a liability clause capped at twelve months of fees?")
    assert any("was not checked" in w for w in result.warnings), result.warnings

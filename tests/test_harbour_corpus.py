"""The eighth corpus (tests/fixtures/harbour_corpus), written by someone who had not seen the product's code,
with a question set written from its README alone (eval/questions/probe-harbour.jsonl): provisions worded
without their type's name, a Chinese contract whose boilerplate sits in 其他, a purchase order whose only ending
is a right to end it for any reason."""
from __future__ import annotations

from pathlib import Path

from conftest import corpus_graph
from core.service import ask

ROOT = Path(__file__).resolve().parent.parent
HARBOUR = ROOT / "tests" / "fixtures" / "harbour_corpus"
HANEUL, BOHAN = "Haneul Portcrane Engineering Co. Ltd.", "Tianjin Bohan Dredging Engineering Co. Ltd."
KADEBORG, WARDHAVEN = "Kadeborg Port Systems B.V.", "Wardhaven Maritime Security Ltd"
FRASERLINE, GREENMOOR = "Fraserline Marine Fuels Inc.", "Greenmoor Environmental Services LLC"


harbour = corpus_graph(HARBOUR)


def _companies(result) -> set[str]:
    return {e.company for e in result.evidence}


def test_a_right_to_end_on_an_event_is_no_exit_for_convenience(harbour):
    # Haneul may be terminated on notice "if the availability of any STS crane falls below 92%", Kadeborg
    # "if monthly availability is below 99.0%": rights for cause; Greenmoor's order may be ended "for any
    # reason, or for no reason", which is also its only termination clause
    result = ask("Which suppliers can we end the contract with for any reason?")
    assert _companies(result) == {BOHAN, WARDHAVEN, GREENMOOR}, result.answer
    result = ask("Which suppliers lack a termination clause?")
    assert GREENMOOR not in _companies(result), result.answer


def test_a_count_of_suppliers_by_what_their_contracts_grant(harbour):
    result = ask("How many suppliers' contracts give us the right to inspect or audit their books and records?")
    assert result.plan.params.types == ["Audit Rights"], result.plan
    assert "3" in result.answer, result.answer
    result = ask("有多少家供应商的合同允许在对方没有违约的情况下无理由提前终止？")
    assert result.plan.params.types == ["Termination for Convenience"] and not result.plan.params.gap, result.plan


def test_the_notice_of_planned_maintenance_and_a_chinese_force_majeure_compound(harbour):
    result = ask("哪些供应商在做计划内停机维护之前必须提前通知我们？")
    assert _companies(result) == {HANEUL, KADEBORG}, result.answer
    result = ask("哪些签了合同的供应商，其合同里没有不可抗力免责条款？")
    assert result.plan.params.types == ["Force Majeure"], result.plan
    assert _companies(result) == {KADEBORG, GREENMOOR}, result.answer

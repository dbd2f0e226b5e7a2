"""The seventh corpus (tests/fixtures/campus_corpus), written before any question was asked of it:
a letter with numbered paragraphs and an address, setext headings, a Chinese country name that
holds 大, a price change said of "them", a time said as "later than"."""
from __future__ import annotations

from pathlib import Path

from conftest import corpus_graph
from core.service import ask

ROOT = Path(__file__).resolve().parent.parent
CAMPUS = ROOT / "tests" / "fixtures" / "campus_corpus"
HANSEATIC, QUILLON, CORVID = "Hanseatic Lab Supplies GmbH", "Quillon Software Inc.", "Corvid Security Pte. Ltd."
BRIGHTWATER = "Brightwater Catering Ltd"


campus = corpus_graph(CAMPUS)


def _companies(result) -> set[str]:
    return {e.company for e in result.evidence}


def test_a_letter_is_read_paragraph_by_paragraph_and_its_law_is_found(campus):
    # the address line "14 Quayside, ..." is no heading: the letter's numbered paragraphs are its
    # clauses, so "This letter is governed by English law." is a Governing Law clause of its own
    result = ask("Which suppliers lack a governing law clause?")
    assert BRIGHTWATER not in _companies(result), result.answer
    result = ask("Which suppliers are governed by English law?")
    assert _companies(result) == {BRIGHTWATER}, result.answer


def test_a_country_name_holding_da_is_no_big_supplier(campus):
    result = ask("哪些加拿大供应商有服务抵扣条款？")
    assert result.plan.params.spend_min is None, result.plan
    assert _companies(result) == {QUILLON}, result.answer


def test_a_price_change_said_of_them_and_a_time_said_as_later(campus):
    result = ask("Which suppliers can raise their prices by at most 5%?")
    assert {HANSEATIC, QUILLON} <= _companies(result), result.answer
    # Quillon's "net 60 days" sits in the order form above its first heading (the preamble, no clause)
    result = ask("Which contracts have us paying later than 30 days?")
    assert result.plan.params.types == ["Payment"], result.plan
    assert _companies(result) == {HANSEATIC}, result.answer


def test_their_software_is_what_the_licence_covers_not_a_sector(campus):
    result = ask("Which suppliers give us a licence to use their software?")
    assert not result.plan.params.industries, result.plan
    assert _companies(result) == {QUILLON, CORVID}, result.answer


def test_provisions_said_in_so_many_words_are_found_in_a_letter_and_in_final_provisions(campus):
    # Hanseatic's "This Agreement is subject to the law of the Federal Republic of Germany" sits in
    # "Final Provisions" beside amendments; the models score it low, its words are plain
    result = ask("Which suppliers lack a governing law clause?")
    assert not {HANSEATIC, BRIGHTWATER} & _companies(result), result.answer
    # Brightwater's letter: "approach any of our catering staff with an offer of employment" and
    # "We may check your till records"
    result = ask("Which suppliers have a non-solicitation clause?")
    assert {BRIGHTWATER, CORVID} <= _companies(result), result.answer
    result = ask("Which suppliers have an audit clause?")
    assert BRIGHTWATER in _companies(result), result.answer

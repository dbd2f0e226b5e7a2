"""Conditions a question puts on agreements (core/retrieval/conditions.py), without a database."""
from __future__ import annotations

import datetime as dt
import re

import pytest

from core.retrieval import conditions as cond

TODAY = dt.date(2026, 12, 3)


def window(q):
    d = cond.parse_agreement_dates(q, today=TODAY)
    return (d.date_from, d.date_to) if d else None


def test_agreement_dates_in_english_and_chinese():
    assert window("Which suppliers signed their agreement in 2024?") == ("2024-01-01", "2024-12-31")
    assert window("How many agreements did we sign before 2023?") == (None, "2022-12-31")
    assert window("How many contracts were signed after 2022?") == ("2023-01-01", None)
    assert window("Contracts in force since 2021") == ("2021-01-01", None)
    assert window("agreements signed between 2020 and 2022") == ("2020-01-01", "2022-12-31")
    assert window("Which contracts did we sign last year?") == ("2025-01-01", "2025-12-31")
    assert window("2020年之前签订的合同有几份？") == (None, "2019-12-31")
    assert window("2024年及以后签订的合同有几份？") == ("2024-01-01", None)
    assert window("哪些供应商的合同是2022年到2023年之间签的？") == ("2022-01-01", "2023-12-31")
    assert window("去年签的合同") == ("2025-01-01", "2025-12-31")


def test_a_spend_year_is_no_agreement_date():
    assert window("What did we spend with French suppliers in 2024?") is None
    assert window("Total 2024 spend of suppliers whose contracts started before 2023") == (None, "2022-12-31")


def test_positions():
    assert cond.parse_position("What is the first clause of the Medivance agreement?")[0] == 1
    assert cond.parse_position("Show me the final section of Solenne's contract.")[0] == -1
    assert cond.parse_position("What's the 3rd clause?")[0] == 3
    assert cond.parse_position("天河云合同的第一条是什么？")[0] == 1
    assert cond.parse_position("华信精密合同的最后一条讲了什么？")[0] == -1
    assert cond.parse_position("What comes after the payment clause?") is None
    # counted from the end
    assert cond.parse_position("Show me the penultimate clause of the Kestrel agreement.")[0] == -2
    assert cond.parse_position("What is the second-to-last section?")[0] == -2
    assert cond.parse_position("the last but one clause")[0] == -2
    assert cond.parse_position("合同的倒数第二条是什么？")[0] == -2
    assert cond.parse_position("倒数第3条")[0] == -3


@pytest.mark.parametrize("question, expect", [
    ("What's in section 3 of the Vitaro agreement?", 3),
    ("Show Article IV of Kestrel's contract", 4),
    ("Show Article I of Kestrel's contract", 1),
    ("§ 5 of the Medivance SLA", 5),
    ("What does clause 12 say?", 12),
    ("天河云合同的第四条是什么？", 4),
    ("莲华合同的第6条", 6),
    ("第十二条讲了什么", 12),
    ("What does section 120 say?", 120),
    # a sub-number names a part of a section; a lower-case or lone "I" is no Roman numeral; no number at all
    ("What does section 12.3 say?", None),
    ("Which section I should read?", None),
    ("article vi", None),
    ("Which sections mention uptime?", None),
    ("合同的倒数第二条是什么？", None),
])
def test_section_numbers(question, expect):
    got = cond.parse_section_number(question)
    assert (got[0] if got else None) == expect


def test_heading_number_pattern_matches_every_numbering_style_and_nothing_else():
    from core.graph.queries.retrieval import heading_number_pattern
    from core.numerals import roman_numeral, zh_numeral

    def headed(n: int, heading: str) -> bool:   # Python's re reads the pattern as Neo4j's Java regex does here
        return re.match(heading_number_pattern(n, roman_numeral(n), zh_numeral(n)), heading) is not None

    for heading in ("3. Fees", "## 3. Fees", "**3. Term**", "3 Support", "Section 3 Remote Hands", "ARTICLE III - TERM",
                    "§ 3 Fees", "第三条 技术支持", "第3条 维修与保养"):
        assert headed(3, heading), heading
    for heading in ("3.1 Priority levels", "13. Taxes", "Section 30", "ARTICLE XIII", "第十三条 其他", "Fees", "IIIa"):
        assert not headed(3, heading), heading
    assert headed(12, "第十二条 其他") and headed(1, "I. Definitions") and not headed(1, "In witness whereof")
    assert headed(120, "Section 120 Notices") and headed(120, "第120条 其他")


def test_governing_law_phrases_reach_values_through_country_synonyms():
    phrases = cond.law_phrases(["England and Wales", "Switzerland", "New York"])
    assert phrases["english"] == "England and Wales" and phrases["英国"] == "England and Wales"
    assert phrases["swiss"] == "Switzerland" and phrases["瑞士"] == "Switzerland"
    assert cond.unmatched_law("contracts under irish law", {}) == "Ireland"
    assert cond.unmatched_law("contracts under swiss law", {"Switzerland": "swiss"}) is None


def test_subject_versus_condition():
    q = "What penalties apply when the uptime target is missed?"
    split = cond.split_subject(q, {"Service Credits": q.index("penalties"), "Availability": q.index("uptime")})
    assert split and split[0] == "Service Credits" and split[1] == ["Availability"]
    assert cond.main_clause(q) == "What penalties apply "
    assert cond.split_subject("termination and liability clauses", {"Termination": 0, "Liability": 16}) is None


def test_meaning_text_drops_scaffolding():
    assert cond.meaning_text("How can we get out of the Kaldera contract?", ["Kaldera"]) == "get out"


def test_chinese_lexicon_is_calibrated_on_the_taxonomys_own_examples():
    """Leave-one-out on the taxonomy's Chinese examples: the chosen thresholds must keep
    precision well above the share a first guess gets without them (no question set used)."""
    loose = cond.calibrate_chinese(min_score=0.0, min_ratio=1.0)
    chosen = cond.calibrate_chinese()
    assert chosen["examples"] >= 40
    assert chosen["precision"] > loose["precision"] + 0.1
    assert chosen["recall"] > 0.3


def test_types_by_their_words_in_both_languages():
    assert cond.type_by_words("which high-spend suppliers don't promise any uptime")[0] == "Availability"
    assert cond.type_by_words("penalties and uptime and liability")[0] is None   # several types: no guess
    assert cond.type_by_words("停机维护有什么安排")[0] == "Maintenance"
    assert cond.type_by_words("哪些合同可以提前退出")[0] == "Termination"
    assert cond.type_by_chinese("今天天气怎么样")[0] is None


def test_meaning_threshold_is_calibrated_on_the_taxonomys_own_examples():
    """The embedding threshold and margin must buy precision over taking the nearest type."""
    chosen, loose = cond.calibrate_meaning(), cond.calibrate_meaning(0.0, 0.0)
    assert chosen["examples"] >= 60
    assert chosen["precision"] > loose["precision"] + 0.1 and chosen["recall"] > 0.2


def test_meaning_keeps_the_measure_a_question_asks_for():
    """'How fast' says a time is asked for (a response time): only the bare 'how' is scaffolding;
    'under what circumstances' frames the question and says nothing about the clause."""
    assert cond.meaning_text("How fast must the vendor respond to our tickets?", []) == "How fast must respond tickets"
    assert cond.meaning_text("How can we get out of the Kaldera contract?", ["Kaldera"]) == "get out"
    assert cond.meaning_text("Under what circumstances may we exit the arrangement?", []) == "exit"
    assert cond.type_by_meaning("How fast must respond tickets")[0] == "Support"


def test_a_clear_lead_links_at_a_lower_similarity():
    assert cond._linked(0.50, 0.36, cond.MEANING_THRESHOLD, cond.MEANING_MARGIN)       # far ahead
    assert not cond._linked(0.50, 0.45, cond.MEANING_THRESHOLD, cond.MEANING_MARGIN)   # neither near nor ahead
    assert cond._linked(0.60, 0.55, cond.MEANING_THRESHOLD, cond.MEANING_MARGIN)


def test_what_is_asked_for_links_when_the_whole_question_does_not():
    """The whole question is read first; when it links nothing, what it asks for before "when"
    ("money recover") still can; an empty text is skipped."""
    q = "What money do we recover when the platform is down?"
    assert cond.meaning_text(cond.main_clause(q), []) == "money recover"
    assert cond.type_by_meaning_first(["receive if system goes offline", "money recover"])[0] == "Service Credits"
    assert cond.type_by_meaning("receive if system goes offline")[0] is None
    assert cond.type_by_meaning_first(["", "exit"])[0] == "Termination"
    assert cond.type_by_meaning_first([]) == (None, 0.0, "")


def test_days_months_and_quarters_are_points_with_a_first_and_last_day():
    assert window("List the contracts that started before March 2024.") == (None, "2024-02-29")
    assert window("contracts signed after Feb 2023") == ("2023-03-01", None)
    assert window("agreements effective since 15 March 2023") == ("2023-03-15", None)
    assert window("contracts signed on or after March 1, 2024") == ("2024-03-01", None)
    assert window("contracts effective after 2024-03-01") == ("2024-03-02", None)
    assert window("agreements signed in Q1 2024") == ("2024-01-01", "2024-03-31")
    assert window("contracts signed between March 2023 and June 2024") == ("2023-03-01", "2024-06-30")
    assert window("contracts signed by the end of 2024") == (None, "2024-12-31")
    assert window("2024年3月以后签订的合同") == ("2024-04-01", None)
    assert window("2023年第二季度签的合同") == ("2023-04-01", "2023-06-30")
    assert window("contracts signed on 2024-02-31") is None      # no such day: no condition, not a wrong one


def test_seasons_and_working_relationships_are_agreement_dates():
    assert window("Which agreements started in autumn 2022?") == ("2022-09-01", "2022-11-30")
    assert window("contracts signed in winter 2023") == ("2023-12-01", "2024-02-29")
    assert window("2022年秋季签的合同") == ("2022-09-01", "2022-11-30")
    assert window("Which suppliers have we been working with since before 2020?") == (None, "2019-12-31")


def test_early_mid_and_late_in_a_year():
    # in: the year's first, middle and last four months; before / after the middle: its halves
    assert window("agreements signed in early 2024") == ("2024-01-01", "2024-04-30")
    assert window("contracts that took effect in mid-2023") == ("2023-05-01", "2023-08-31")
    assert window("contracts that took effect in late 2022") == ("2022-09-01", "2022-12-31")
    assert window("agreements signed at the beginning of 2024") == ("2024-01-01", "2024-04-30")
    assert window("Which agreements were signed after mid-2023?") == ("2023-07-01", None)
    assert window("contracts signed before the middle of 2023") == (None, "2023-06-30")
    assert window("2023年年中以后签订的合同") == ("2023-07-01", None)
    assert window("2024年初签的合同") == ("2024-01-01", "2024-04-30")
    assert window("2022年底之前签的合同") == (None, "2022-12-31")     # by the end of the year, as "by the end of"
    assert window("2023年中签的合同") == ("2023-01-01", "2023-12-31")   # "in 2023", not its middle


def test_an_agreement_by_its_age():
    today = dt.date(2026, 12, 4)
    d = cond.parse_agreement_dates("Which agreements are older than five years?", today)
    assert (d.date_from, d.date_to) == (None, "2021-12-04")
    d = cond.parse_agreement_dates("contracts signed more than 2 years ago", today)
    assert (d.date_from, d.date_to) == (None, "2024-12-04")
    d = cond.parse_agreement_dates("agreements less than a year old", today)
    assert (d.date_from, d.date_to) == ("2025-12-04", None)
    # a duration alone is no age ("more than 2 years" of notice)
    assert cond.parse_agreement_dates("contracts with a notice period of more than 2 years", today) is None


def test_one_point_or_another():
    assert window("List the agreements that started in late 2024 or 2025") == ("2024-09-01", "2025-12-31")
    d = cond.parse_agreement_dates("contracts signed in 2022 or 2024")
    assert (d.date_from, d.date_to) == ("2022-01-01", "2024-12-31") and "between them included" in d.how
    assert window("2023年或2024年签的合同") == ("2023-01-01", "2024-12-31")


def test_a_rolling_window_back_from_today():
    today = dt.date(2026, 12, 4)
    for q, start in (("Which contracts were signed in the last two years?", "2024-12-04"),
                     ("agreements signed over the past 6 months", "2026-06-04"),
                     ("contracts that started in the past year", "2025-12-04"),
                     ("近两年签订的合同", "2024-12-04"), ("过去12个月生效的协议", "2025-12-04")):
        d = cond.parse_agreement_dates(q, today)
        assert (d.date_from, d.date_to) == (start, "2026-12-04"), q
    # "last year" alone stays the calendar year; words that are no count are no window
    assert cond.parse_agreement_dates("contracts signed last year", today).date_from == "2025-01-01"
    assert cond.parse_agreement_dates("Which contracts were signed in the last payment cycle?", today) is None
    # month ends: 31 May minus 3 months is 28/29 February
    assert cond.parse_agreement_dates("agreements signed in the last 3 months", dt.date(2025, 5, 31)).date_from == "2025-02-28"


def test_date_words_name_no_clause_type():
    from core.retrieval.planner import plan_question
    from tests.unit.test_planner_rules import VOCAB

    p = plan_question("Which suppliers signed agreements in the past 6 months?", VOCAB)
    assert not p.params.types and p.params.date_from and p.params.date_to == dt.date.today().isoformat(), p.linked


def test_suppliers_filtered_by_how_many_agreements_they_have():
    assert cond.agreement_count("Which suppliers have more than one agreement?")[:2] == (2, None)
    assert cond.agreement_count("How many suppliers have at least 3 contracts?")[:2] == (3, None)
    assert cond.agreement_count("suppliers with several contracts")[:2] == (2, None)
    assert cond.agreement_count("哪些供应商有多份合同？")[:2] == (2, None)
    assert cond.agreement_count("Which suppliers have only one contract?")[:2] == (1, 1)
    assert cond.agreement_count("How many agreements does Kestrel have?") is None


def test_a_narrower_type_named_by_its_own_wording_wins_over_the_general_one():
    # derived from the taxonomy: "Termination for Convenience" contains "Termination" in its name
    assert cond.type_by_words("Which suppliers can terminate the agreement at any time without a reason?") == (
        "Termination for Convenience", "keyword 'terminate', narrowed by 'at any time'")
    assert cond.type_by_words("Which suppliers can we not terminate for convenience?")[0] == "Termination for Convenience"
    assert cond.type_by_words("Which suppliers lack a termination clause?")[0] == "Termination"
    assert cond.narrow_type("Termination", "a termination clause for material breach") == ("Termination", None)
    assert cond.narrow_type("Liability", "at any time") == ("Liability", None)


def test_chinese_wording_of_the_narrower_type_narrows_too():
    """The narrower type's Chinese keywords and phrases of three or more characters narrow a
    Chinese question as its English phrases narrow an English one; the general type's own
    two-character words (解除) do not."""
    assert cond.narrow_type("Termination", "哪些供应商的合同可以提前通知解除？") == ("Termination for Convenience", "提前通知")
    assert cond.narrow_type("Termination", "哪些合同可以无需理由解除？")[0] == "Termination for Convenience"
    assert cond.narrow_type("Termination", "哪些供应商没有终止条款？") == ("Termination", None)
    assert cond.narrow_type("Termination", "哪些合同可以解除？") == ("Termination", None)


def test_a_narrowing_an_analyst_adds_to_the_taxonomy_is_derived_too(tmp_path, monkeypatch):
    import json

    from core import taxonomy

    data = json.loads(taxonomy.DEFAULT_TAXONOMY_PATH.read_text(encoding="utf-8"))
    types = data["types"] if isinstance(data, dict) else data
    types.insert(-1, {"name": "Cap on Liability", "name_zh": "责任上限", "description": "Caps a party's liability.",
                      "description_zh": "责任上限。", "keywords_en": ["liability cap"], "keywords_zh": ["责任上限"],
                      "concepts": ["aggregate liability shall not exceed"], "examples": []})
    path = tmp_path / "clause_types.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setenv("CLAUSEGRAPH_TAXONOMY", str(path))
    cond._specialisations.cache_clear()
    try:
        assert cond.narrow_type("Liability", "clauses where the aggregate liability shall not exceed the fees") == (
            "Cap on Liability", "aggregate liability shall not exceed")
    finally:
        monkeypatch.delenv("CLAUSEGRAPH_TAXONOMY")
        cond._specialisations.cache_clear()


def test_after_a_point_in_time_is_a_date_and_after_an_event_a_condition():
    assert cond.main_clause("Which contracts signed after 2023 lack X?") == "Which contracts signed after 2023 lack X?"
    assert cond.main_clause("Who signed after March 2022 or after the end of Q3?").endswith("Q3?")
    assert cond.main_clause("What credits apply after an outage?") == "What credits apply "


@pytest.mark.parametrize("question", [
    "Which suppliers are governed by a law different from their home country?",
    "Whose governing law does not match where they are based?",
    "Which contracts are under a jurisdiction other than the supplier's own country?",
    "哪些供应商的适用法律与其所在国不同？",
])
def test_a_law_said_to_differ_from_the_suppliers_own_country_is_foreign(question):
    assert cond.law_scope(question)[0] == "foreign"


def test_the_suppliers_own_country_without_a_law_word_or_a_mismatch_is_no_law_scope():
    assert cond.law_scope("Which suppliers in their home country lack a governing law clause?") is None
    assert cond.law_scope("Which suppliers outside the EU have a termination clause?") is None


@pytest.mark.parametrize("text, said", [
    ("哪些供应商可以不说明理由就解除合同？", "不说明理由"),
    ("哪些供应商的合同无需任何理由即可解除？", "无需任何理由"),
    ("which suppliers can we terminate without giving a reason?", "without giving a reason"),
    ("which contracts can we end for no reason?", "for no reason"),
])
def test_without_a_reason_in_other_words_narrows_termination_to_convenience(text, said):
    assert cond.narrow_type("Termination", text) == ("Termination for Convenience", said)


def test_a_reason_not_negated_narrows_nothing():
    assert cond.narrow_type("Termination", "因不可抗力原因解除合同的") == ("Termination", None)
    assert cond.narrow_type("Termination", "terminate for the reasons listed in section 4") == ("Termination", None)

"""The offline answer composer on hand-built rows and plans: evidence, subgraph and cited answer.

Rows here have the shape the retrievers return, written by hand, so every expected sentence
is derived from the rows alone; the retrievers producing such rows from the graph are tested
against the real Neo4j in tests/test_service.py.
"""
from __future__ import annotations

import re

from core.answer.composer import MAX_EVIDENCE, build_evidence, build_subgraph, compose_answer, compose_presence_rest
from core.types import Evidence, Plan, PlanParams

CLAUSE_ROWS = [
    {"company": "Acme Cloud GmbH", "sla_id": "ACME-1", "clause_id": "ACME-1#2", "clause_title": "Privacy",
     "clause_type": "Data Protection", "text": "Personal data is processed only on documented instructions.",
     "score": 0.912345678, "confidence": 0.8, "position": 2},
    {"company": "Acme Cloud GmbH", "sla_id": "ACME-1", "clause_id": "ACME-1#3", "clause_title": "Records",
     "clause_type": "Data Protection", "text": "Records of processing are kept for five years.",
     "score": 0.5, "confidence": 0.7, "position": 3},
    {"company": "Cedar Health Ltd", "sla_id": "CED-1", "clause_id": "CED-1#5", "clause_title": "Patient data",
     "clause_type": "Data Protection", "text": "Patient data never leaves the United Kingdom.",
     "score": None, "confidence": "n/a", "position": 5},
]


def plan(intent: str, mode: str = "attribute", language: str = "en", suggestions=(), **params) -> Plan:
    return Plan(intent=intent, mode=mode, params=PlanParams(**params), language=language,
                suggestions=list(suggestions))


def cited(answer: str) -> set[str]:
    return set(re.findall(r"\[(S\d+)\]", answer))


# ---------------------------------------------------------------------------------------
# evidence

def test_clause_evidence_keeps_full_text_in_row_order_without_duplicates():
    rows = CLAUSE_ROWS + [dict(CLAUSE_ROWS[0])]                  # the same clause twice
    ev = build_evidence(rows, plan("attribute_clauses", types=["Data Protection"]))
    assert [e.ref for e in ev] == ["S1", "S2", "S3"]
    assert [e.clause_id for e in ev] == ["ACME-1#2", "ACME-1#3", "CED-1#5"]
    assert ev[0] == Evidence(ref="S1", company="Acme Cloud GmbH", sla_id="ACME-1", clause_id="ACME-1#2",
                             clause_title="Privacy", clause_type="Data Protection",
                             text="Personal data is processed only on documented instructions.",
                             score=0.9123, confidence=0.8, position=2)
    assert ev[2].score is None and ev[2].confidence is None     # unreadable numbers are dropped, not guessed


def test_company_intents_give_one_evidence_per_company():
    rows = [{"company": "Acme Cloud GmbH", "spend": "300000"}, {"company": "Borealis Data Oy", "spend": None},
            {"company": "Acme Cloud GmbH", "spend": 1}]
    for intent in ("gap", "no_agreement", "companies", "count", "sum_spend"):
        ev = build_evidence(rows, plan(intent))
        assert [(e.ref, e.company) for e in ev] == [("S1", "Acme Cloud GmbH"), ("S2", "Borealis Data Oy")], intent
        assert ev[0].score == 300000.0 and ev[1].score is None
        assert all(e.clause_id is None and e.text is None for e in ev)
    # a count of clauses cites the clauses themselves
    clauses = build_evidence(CLAUSE_ROWS, plan("count", count_unit="clauses"))
    assert [e.clause_id for e in clauses] == ["ACME-1#2", "ACME-1#3", "CED-1#5"]
    # a row without a clause id is company-level whatever the intent
    assert build_evidence([{"company": "Acme Cloud GmbH"}], plan("attribute_clauses"))[0].clause_id is None


def test_evidence_is_capped():
    rows = [dict(CLAUSE_ROWS[0], clause_id=f"ACME-1#{i}") for i in range(MAX_EVIDENCE + 10)]
    ev = build_evidence(rows, plan("clause_type", mode="clause_type"))
    assert len(ev) == MAX_EVIDENCE and ev[-1].ref == f"S{MAX_EVIDENCE}"


# ---------------------------------------------------------------------------------------
# subgraph

def test_subgraph_links_company_agreement_clause_type_and_reading_order():
    p = plan("attribute_clauses", types=["Data Protection"])
    g = build_subgraph(CLAUSE_ROWS, build_evidence(CLAUSE_ROWS, p))
    ids = {n["id"] for n in g["nodes"]}
    assert ids == {"company:Acme Cloud GmbH", "company:Cedar Health Ltd", "sla:ACME-1", "sla:CED-1",
                   "clause:ACME-1#2", "clause:ACME-1#3", "clause:CED-1#5", "type:Data Protection"}
    edges = {(e["source"], e["target"], e["type"]) for e in g["edges"]}
    assert ("company:Acme Cloud GmbH", "sla:ACME-1", "HAS_SLA") in edges
    assert ("sla:CED-1", "clause:CED-1#5", "HAS_CLAUSE") in edges
    assert ("clause:ACME-1#2", "type:Data Protection", "OF_TYPE") in edges
    assert ("clause:ACME-1#2", "clause:ACME-1#3", "NEXT") in edges           # positions 2 and 3 are adjacent
    assert sum(t == "NEXT" for *_, t in edges) == 1
    assert len(g["edges"]) == len(edges)                                      # no edge twice
    assert all(e["source"] in ids and e["target"] in ids for e in g["edges"])


def test_subgraph_of_a_gap_answer_shows_what_is_missing():
    rows = [{"company": "Borealis Data Oy", "missing": ["Termination", "Force Majeure"]}]
    g = build_subgraph(rows, build_evidence(rows, plan("gap", types=["Termination", "Force Majeure"])))
    assert {(e["source"], e["target"], e["type"]) for e in g["edges"]} == {
        ("company:Borealis Data Oy", "type:Termination", "MISSING"),
        ("company:Borealis Data Oy", "type:Force Majeure", "MISSING")}


# ---------------------------------------------------------------------------------------
# the answer text

def test_gap_answer_lists_each_company_with_spend_and_citation():
    p = plan("gap", types=["Termination"], spend_min=200000)
    rows = [{"company": "Acme Cloud GmbH", "spend": 300000.0}, {"company": "Cedar Health Ltd", "spend": 250000}]
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer == ("2 suppliers with latest spend above 200,000 lacking a Termination clause: "
                      "Acme Cloud GmbH (spend 300,000) [S1]; Cedar Health Ltd (spend 250,000) [S2].")


def test_gap_over_several_types_names_what_each_company_misses():
    p = plan("gap", types=["Termination", "Liability"], type_match="any")
    rows = [{"company": "Borealis Data Oy", "missing": ["Liability"]}]
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert "lacking any of a Termination and Liability clause" in answer      # "any": or, not and
    assert answer.endswith(": Borealis Data Oy (missing Liability) [S1].")


def test_nothing_found_is_said_plainly_without_evidence():
    assert compose_answer(plan("gap", types=["Termination"]), [], []) == \
        "None of the suppliers lacks a Termination clause (no company matched)."
    assert compose_answer(plan("presence", types=["Liability"], companies=["Acme Cloud GmbH"]), [], []) == \
        "No: Acme Cloud GmbH has no Liability clause (0 found)."
    assert compose_answer(plan("relay", mode="relay", text="power outage", industries=["Healthcare"]), [], []) == \
        'No clause of suppliers in Healthcare is about "power outage".'
    assert compose_answer(plan("attribute_clauses", types=["Security"]), [], []) == \
        "No Security clauses found for suppliers."


def test_clause_answer_groups_by_company_and_cites_every_clause():
    p = plan("attribute_clauses", types=["Data Protection"], industries=["Healthcare", "Technology"])
    ev = build_evidence(CLAUSE_ROWS, p)
    answer = compose_answer(p, CLAUSE_ROWS, ev)
    assert answer.splitlines() == [
        "3 Data Protection clauses from 2 suppliers in Healthcare/Technology:",
        "- Acme Cloud GmbH: Privacy (Data Protection) [S1], Records (Data Protection) [S2]",
        "- Cedar Health Ltd: Patient data (Data Protection) [S3]"]
    assert cited(answer) == {e.ref for e in ev}


def test_single_clause_answer_quotes_its_text():
    p = plan("document_type", mode="document", types=["Data Protection"], companies=["Cedar Health Ltd"])
    rows = CLAUSE_ROWS[2:]
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer == ("Cedar Health Ltd's agreement has 1 Data Protection clause:\n"
                      'Cedar Health Ltd, CED-1 "Patient data" [S1]: Patient data never leaves the United Kingdom.')


def test_an_agreement_named_by_its_service_or_id_is_called_by_its_owner_and_id():
    p = plan("document_type", mode="document", types=["Data Protection"], sla_ids=["CED-1"])
    rows = CLAUSE_ROWS[2:]
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer.startswith("Cedar Health Ltd's agreement CED-1 has 1 Data Protection clause:"), answer
    assert "CED-1's agreement" not in answer
    assert compose_answer(p, [], []) == "No Data Protection clause found in agreement CED-1."


def test_one_company_with_several_agreements_gets_a_line_per_agreement():
    rows = [dict(CLAUSE_ROWS[0], sla_id="ACME-1"), dict(CLAUSE_ROWS[1], sla_id="ACME-2")]
    p = plan("document", mode="document", companies=["Acme Cloud GmbH"])
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer.splitlines()[0] == "Acme Cloud GmbH's 2 agreements have 2 clauses, in order:", answer
    assert answer.splitlines()[1].startswith("- Acme Cloud GmbH, ACME-1: ")
    assert answer.splitlines()[2].startswith("- Acme Cloud GmbH, ACME-2: ")


def test_the_rest_of_a_yes_or_no_presence_answer():
    p = plan("presence", types=["Termination"], countries=["Germany"])
    assert compose_presence_rest(p, ["Acme Cloud GmbH"], 2) == \
        "Not all of them: 1 supplier lacks a Termination clause: Acme Cloud GmbH."
    assert compose_presence_rest(p, [], 2) == "No supplier in scope lacks one."
    # a supplier listed with only low-confidence evidence is no "yes" without review
    assert compose_presence_rest(p, [], 2, review=True).startswith("None lacks one outright")
    assert compose_presence_rest(plan("presence", language="zh", types=["Termination"]), ["Acme Cloud GmbH"], 1) == \
        "并非全部：1 家缺少终止条款：Acme Cloud GmbH。"
    # none has it: the answer said so, so the rest names them without "not all of them"
    assert compose_presence_rest(p, ["Acme Cloud GmbH", "Borealis Co., Ltd."], 0) == \
        "The 2 suppliers in scope without one: Acme Cloud GmbH and Borealis Co., Ltd."
    assert compose_presence_rest(plan("presence", language="zh", types=["Termination"]), ["Acme Cloud GmbH"], 0) == \
        "范围内的 1 家均缺少终止条款：Acme Cloud GmbH。"


def test_search_answer_names_the_search_text():
    p = plan("hybrid", mode="hybrid", text="processing records")
    answer = compose_answer(p, CLAUSE_ROWS[:2], build_evidence(CLAUSE_ROWS[:2], p))
    assert answer.splitlines()[0] == '2 clauses of suppliers match "processing records" (closest first):'


def test_counts_and_sums():
    rows = [{"company": "Acme Cloud GmbH", "spend": 300000}, {"company": "Acme Cloud GmbH", "spend": 300000},
            {"company": "Borealis Data Oy", "spend": 150000.4}]
    count = plan("count", types=["Force Majeure"], gap=True)
    assert compose_answer(count, rows, build_evidence(rows, count)) == \
        "2 suppliers lacking a Force Majeure clause. [S1] [S2]"
    total = plan("sum_spend", spend_year=2024, countries=["Germany", "Finland"])
    assert compose_answer(total, rows, build_evidence(rows, total)) == \
        "The total 2024 spend of the 2 suppliers in Germany/Finland is 450,000. [S1] [S2]"
    agreements = plan("count", count_unit="agreements", companies=["Acme Cloud GmbH"])
    assert compose_answer(agreements, CLAUSE_ROWS, []) == \
        "2 agreements (Acme Cloud GmbH).\n- Acme Cloud GmbH, ACME-1\n- Cedar Health Ltd, CED-1"
    # each agreement counted, with what identifies it (service, date, law)
    row = {"company": "Acme Cloud GmbH", "sla_id": "ACME-2", "service_name": "Backup", "effective_date": "2024-03-01",
           "governing_law": "Germany"}
    assert compose_answer(agreements, [row], []) == \
        "1 agreement (Acme Cloud GmbH).\n- Acme Cloud GmbH, ACME-2: Backup; effective 2024-03-01; Germany law"


def test_chinese_question_gets_a_chinese_answer():
    p = plan("count", language="zh")
    rows = [{"company": "Acme Cloud GmbH"}, {"company": "Borealis Data Oy"}]
    assert compose_answer(p, rows, build_evidence(rows, p)) == "共有 2 家符合条件的供应商。 [S1] [S2]"
    located = plan("companies", language="zh", countries=["Germany"])
    answer = compose_answer(located, rows[:1], build_evidence(rows[:1], located))
    assert answer == "1 家位于德国的供应商：Acme Cloud GmbH [S1]。"


def test_unmapped_question_offers_suggestions_and_cites_nothing():
    p = plan("unknown", mode="none", suggestions=["Which suppliers lack a termination clause?", "b", "c", "d"])
    answer = compose_answer(p, [], [])
    assert answer.startswith("I could not map this question")
    assert answer.endswith("Which suppliers lack a termination clause? / b / c") and cited(answer) == set()


# ---------------------------------------------------------------------------------------
# every named company, agreement and type accounted for (issue 18)

LIABILITY_ROWS = [
    {"company": "Acme Cloud GmbH", "sla_id": "ACME-1", "clause_id": "ACME-1#7", "clause_title": "Liability cap",
     "clause_type": "Liability", "text": "Liability is capped at fees paid.", "position": 7},
    {"company": "Acme Cloud GmbH", "sla_id": "ACME-1", "clause_id": "ACME-1#8", "clause_title": "Exclusions",
     "clause_type": "Liability", "text": "No liability for indirect loss.", "position": 8},
    {"company": "Borealis Data Oy", "sla_id": "BOR-1", "clause_id": "BOR-1#4", "clause_title": "Liability",
     "clause_type": "Liability", "text": "Each party is liable for direct damage.", "position": 4},
]
THREE = ["Acme Cloud GmbH", "Borealis Data Oy", "Cedar Health Ltd"]


def test_follow_up_over_three_companies_names_the_one_without_such_a_clause():
    pl = plan("document_type", mode="document", companies=THREE, types=["Liability"])
    ev = build_evidence(LIABILITY_ROWS, pl)
    answer = compose_answer(pl, LIABILITY_ROWS, ev)
    assert "Cedar Health Ltd" in answer and "No Liability clause was found for Cedar Health Ltd." in answer
    assert "'s agreement has" not in answer          # never "A, B, and C's agreement has 3 ..."
    assert answer.startswith("The agreements of Acme Cloud GmbH and Borealis Data Oy have 3 Liability clauses:")
    assert cited(answer) == {e.ref for e in ev}
    zh = compose_answer(plan("document_type", mode="document", language="zh", companies=THREE, types=["Liability"]),
                        LIABILITY_ROWS, ev)
    assert "未找到Cedar Health Ltd的" in zh and "（Acme Cloud GmbH、Borealis Data Oy）" in zh
    # one company, all found: the singular sentence, no "nothing found" note
    one = plan("document_type", mode="document", companies=["Borealis Data Oy"], types=["Liability"])
    single = compose_answer(one, LIABILITY_ROWS[2:], build_evidence(LIABILITY_ROWS[2:], one))
    assert single.startswith("Borealis Data Oy's agreement has 1 Liability clause:") and "No " not in single


def test_several_types_say_which_type_a_company_or_the_whole_answer_lacks():
    pl = plan("document_type", mode="document", companies=["Acme Cloud GmbH"], types=["Liability", "Termination"])
    ev = build_evidence(LIABILITY_ROWS[:2], pl)
    answer = compose_answer(pl, LIABILITY_ROWS[:2], ev)
    assert "no Termination clause" in answer and "No Termination clause was found." in answer


def test_presence_and_gap_account_for_named_companies_not_listed():
    rows = [{"company": "Acme Cloud GmbH", "sla_id": "ACME-1", "clause_id": "ACME-1#7", "clause_title": "Cap",
             "clause_type": "Liability", "text": "Capped."}]
    pres = plan("presence", companies=THREE[:2], types=["Liability"], gap=False)
    answer = compose_answer(pres, rows, build_evidence(rows, pres))
    assert "Borealis Data Oy has no Liability clause (0 found)." in answer
    gap = plan("gap", companies=THREE, types=["Liability"], gap=True)
    gap_rows = [{"company": "Cedar Health Ltd", "spend": 10}]
    answer = compose_answer(gap, gap_rows, build_evidence(gap_rows, gap))
    assert "Acme Cloud GmbH and Borealis Data Oy do not lack a Liability clause." in answer
    nothing = compose_answer(plan("presence", companies=THREE[:2], types=["Liability"]), [], [])
    assert nothing == "No: Acme Cloud GmbH and Borealis Data Oy have no Liability clause (0 found)."


def test_gap_rows_pair_with_their_own_company_and_every_card_is_cited():
    rows = [{"company": "Acme Cloud GmbH", "spend": 300}, {"company": "Acme Cloud GmbH", "spend": 300},
            {"company": "Borealis Data Oy", "spend": 5}]
    pl = plan("gap", types=["Termination"], gap=True)
    answer = compose_answer(pl, rows, build_evidence(rows, pl))
    assert "Borealis Data Oy (spend 5) [S2]" in answer
    # an intent whose sentence cites only the first card still cites the rest
    nxt = plan("next_clause", mode="document", direction="after")
    two = [dict(LIABILITY_ROWS[0], anchor_title="Fees"), dict(LIABILITY_ROWS[1], anchor_title="Fees")]
    ev = build_evidence(two, nxt)
    assert cited(compose_answer(nxt, two, ev)) == {"S1", "S2"}


def test_presence_and_count_mark_companies_with_only_low_confidence_evidence():
    """A company whose clauses of the asked type are all low-confidence is listed (a clause is
    typed so) but said apart, as the gap answer counts it a gap for review."""
    rows = [dict(r, review_only=["Data Protection"] if r["company"] == "Cedar Health Ltd" else [])
            for r in CLAUSE_ROWS]
    p = plan("presence", types=["Data Protection"])
    ev = build_evidence(rows, p)
    answer = compose_answer(p, rows, ev)
    assert answer.startswith("2 suppliers with a Data Protection clause: Acme Cloud GmbH ([S1], [S2]); "
                             "Cedar Health Ltd ([S3]).")
    assert "Cedar Health Ltd has only low-confidence evidence of Data Protection (for review: CED-1#5)" in answer
    assert "Acme Cloud GmbH has only" not in answer
    zh = compose_answer(plan("presence", language="zh", types=["Data Protection"]), rows, ev)
    assert "Cedar Health Ltd：数据保护仅有低置信度证据，待复核（CED-1#5）" in zh
    count = plan("count", types=["Data Protection"])
    counted = compose_answer(count, rows, build_evidence(rows, count))
    assert counted.startswith("2 suppliers with a Data Protection clause. 1 of them has only low-confidence "
                              "evidence (for review).")
    plain = compose_answer(p, CLAUSE_ROWS, build_evidence(CLAUSE_ROWS, p))
    assert "low-confidence" not in plain


def test_a_ranked_scope_is_said_and_one_supplier_is_singular():
    rows = [{"company": "Acme Cloud GmbH", "spend": 300000, "missing": ["Termination"]}]
    p = plan("gap", types=["Termination"], top=3, spend_year=2024)
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer.startswith("1 supplier among the 3 with the highest 2024 spend lacking a Termination clause: "
                             "Acme Cloud GmbH"), answer
    zh = compose_answer(plan("gap", language="zh", types=["Termination"], top=3, spend_year=2024), rows,
                        build_evidence(rows, p))
    assert "2024年支出排名前 3 的" in zh, zh


def test_filters_are_said_as_the_question_said_them():
    from core.answer.composer import describe_filters, describe_filters_zh

    # places left out are said as left out, not as the list of all the others the query filters by
    p = plan("attribute_clauses", types=["Confidentiality"], countries=["China", "France", "Japan"],
             countries_left_out=["Germany"])
    assert describe_filters(p) == "outside Germany" and describe_filters_zh(p) == "位于德国以外的"
    # a whole year, a month: said as one; any other window from-to
    assert describe_filters(plan("count", date_from="2024-01-01", date_to="2024-12-31"), of_agreements=True) == \
        "effective in 2024"
    assert describe_filters(plan("count", date_from="2023-03-01", date_to="2023-03-31")) == \
        "with agreements effective in 2023-03"
    assert describe_filters(plan("count", date_from="2023-05-01", date_to="2023-08-31")) == \
        "with agreements effective 2023-05-01 to 2023-08-31"
    assert describe_filters_zh(plan("count", date_from="2024-01-01", date_to="2024-12-31")) == "2024年生效的"


def test_a_gap_of_agreements_names_each_agreement_with_its_owner():
    rows = [{"company": "Acme Cloud GmbH", "sla_id": "ACME-2", "service_name": "Backup", "spend": 300000,
             "missing": ["Governing Law"], "review_only": ["Governing Law"], "review_clause_ids": ["ACME-2#4"]},
            {"company": "Acme Cloud GmbH", "sla_id": "ACME-3", "service_name": None, "spend": 300000,
             "missing": ["Governing Law"], "review_only": [], "review_clause_ids": []}]
    p = plan("gap", types=["Governing Law"], gap=True, count_unit="agreements")
    ev = build_evidence(rows, p)
    assert [(e.ref, e.company, e.sla_id) for e in ev] == [("S1", "Acme Cloud GmbH", "ACME-2"),
                                                        ("S2", "Acme Cloud GmbH", "ACME-3")]
    answer = compose_answer(p, rows, ev)
    assert answer.startswith("2 agreements lacking a Governing Law clause: ACME-2 (Acme Cloud GmbH, Backup) [S1]; "
                             "ACME-3 (Acme Cloud GmbH) [S2].")
    assert "ACME-2#4" in answer and cited(answer) == {"S1", "S2"}
    one = compose_answer(p, rows[1:], build_evidence(rows[1:], p))
    assert one.startswith("1 agreement lacking a Governing Law clause: ACME-3")
    zh = compose_answer(plan("gap", language="zh", types=["Governing Law"], gap=True, count_unit="agreements"), rows, ev)
    assert zh.startswith("2 份缺少适用法律条款的协议：ACME-2")
    counted = compose_answer(plan("count", types=["Governing Law"], gap=True, count_unit="agreements"), rows, ev)
    assert counted.startswith("2 agreements lacking a Governing Law clause.")
    none = compose_answer(p, [], [])
    assert none.startswith("None of the agreements of suppliers lacks a Governing Law clause")


def test_one_clause_is_quoted_from_the_sentence_that_carries_the_type_when_it_lies_past_the_opening():
    notices = "Section 6.1 Notices. All notices shall be in writing and delivered by courier. " * 6
    law = "Section 6.3 Governing Law. This Agreement is governed by the laws of the State of New York."
    text = f"MISCELLANEOUS {notices}{law} Section 6.4 Entire Agreement. This is the entire agreement."
    row = {"company": "Halvorsen AS", "sla_id": "H-1", "clause_id": "H-1#6", "clause_title": "MISCELLANEOUS",
           "clause_type": "Governing Law", "text": text, "confidence": 0.99, "position": 6,
           "span_start": text.index(law), "span_end": text.index(law) + len(law)}
    p = plan("document_type", mode="document", types=["Governing Law"], companies=["Halvorsen AS"])
    answer = compose_answer(p, [row], build_evidence([row], p))
    assert '"MISCELLANEOUS" [S1]: … Section 6.3 Governing Law. This Agreement is governed by the laws of the State of New York.' in answer
    # a sentence within the opening: the clause is quoted from its start
    short = dict(row, text=f"MISCELLANEOUS {law}", span_start=14, span_end=14 + len(law))
    assert '[S1]: MISCELLANEOUS Section 6.3' in compose_answer(p, [short], build_evidence([short], p))


def test_a_count_ending_in_a_name_that_ends_in_a_stop_gets_no_second_one():
    rows = [dict(r, company="Hairui Medical Technology Co., Ltd.") for r in CLAUSE_ROWS[:2]]
    p = plan("count", mode="document", count_unit="clauses", companies=["Hairui Medical Technology Co., Ltd."])
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert answer.startswith("2 clauses in the agreements of Hairui Medical Technology Co., Ltd. [S1]"), answer


def test_a_clause_listed_for_the_words_it_mentions_is_quoted_from_the_sentence_holding_them():
    text = "Notices go to the addresses above. " * 15 + "Any dispute is settled by arbitration in Paris. Signed."
    row = {"company": "Acme Cloud GmbH", "sla_id": "A-1", "clause_id": "A-1#9", "clause_title": "General",
           "clause_type": "Governing Law", "text": text, "position": 9}
    p = plan("hybrid", mode="hybrid", mentions=["arbitration"])
    answer = compose_answer(p, [row], build_evidence([row], p))
    assert answer.startswith('1 clause mentioning "arbitration" from 1 supplier:'), answer
    assert '[S1]: … Any dispute is settled by arbitration in Paris.' in answer


def test_subgraph_of_a_gap_of_agreements_draws_the_missing_type_from_the_agreement():
    rows = [{"company": "Acme Cloud GmbH", "sla_id": "ACME-2", "spend": 1, "missing": ["Governing Law"]}]
    p = plan("gap", types=["Governing Law"], gap=True, count_unit="agreements")
    g = build_subgraph(rows, build_evidence(rows, p))
    edges = {(e["source"], e["target"], e["type"]) for e in g["edges"]}
    assert edges == {("company:Acme Cloud GmbH", "sla:ACME-2", "HAS_SLA"), ("sla:ACME-2", "type:Governing Law", "MISSING")}


def test_a_law_named_by_a_jurisdiction_is_said_in_chinese_too():
    rows = [{"company": "Cloudbridge Data Ltd", "sla_id": "SLA-009", "service_name": "Data Platform",
             "effective_date": "2023-06-01", "governing_law": "England and Wales", "spend": 1}]
    p = plan("count", language="zh", count_unit="agreements", governing_laws=["England and Wales"])
    answer = compose_answer(p, rows, build_evidence(rows, p))
    assert "适用英格兰法律的供应商" in answer and "；适用英格兰法律" in answer and "England" not in answer


def test_a_law_left_out_is_said_as_left_out():
    p = plan("count", count_unit="agreements", governing_laws=["France", "Germany"], governing_laws_left_out=["Switzerland"])
    rows = [{"company": "Acme Cloud GmbH", "sla_id": "A-1", "governing_law": "Germany", "spend": 1}]
    assert compose_answer(p, rows, build_evidence(rows, p)).startswith("1 agreement not governed by Switzerland law.")

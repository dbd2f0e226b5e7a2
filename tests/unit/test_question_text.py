"""Finding the question in pasted text (issue 18): the last interrogative sentence, else the
sentence naming the most graph entities; short input is the question as typed."""
from __future__ import annotations

from core.answer.composer import compose_answer
from core.graph.vocabulary import Vocabulary
from core.retrieval.question_text import EXCERPT_CHARS, excerpt, find_question, sentences
from core.types import Plan, PlanParams

VOCAB = Vocabulary(
    companies=[{"name": "Kestrel Logistics GmbH", "aliases": ["Kestrel"], "country": "Germany",
                "industry": "Logistics", "cities": ["Hamburg"]}],
    agreements=[{"id": "SLA-001", "company": "Kestrel Logistics GmbH", "governing_law": "German"}],
    clause_types=["Termination", "Liability", "Data Protection"],
    spend_years=[2024],
)
EMAIL = ("Hi team, following up on the audit meeting. Our auditor mentioned that Kestrel had an incident with "
         "personal data last spring, and legal reviewed the liability caps for the logistics vendors in "
         "Germany. Procurement will send the renewal calendar next week, please keep it handy for the board "
         "pack that is due at the end of the month. Thanks for all the hard work on this so far. "
         "Which suppliers lack a termination clause? Best regards, Ana")


def test_short_input_is_the_question_as_typed():
    q = "Which suppliers lack a termination clause?"
    pick = find_question(q, VOCAB)
    assert pick.question == q and not pick.extracted


def test_an_email_is_planned_on_its_last_question_not_its_opening_lines():
    pick = find_question(EMAIL, VOCAB)
    assert pick.question == "Which suppliers lack a termination clause?" and pick.reason == "last question"
    assert EMAIL[pick.start:pick.end] == pick.question
    zh = ("您好，上周的审计会议上提到了多家供应商的数据保护问题，法务部也检查了德国物流供应商的责任上限条款。"
          "采购部下周会发送续约日历，请为董事会材料做好准备，材料月底到期，谢谢大家一直以来的努力和支持，辛苦了。"
          "这些工作非常重要，请大家务必按时完成，如有任何问题请随时联系我，我们会尽快处理并给出答复。"
          "哪些供应商缺少终止条款？谢谢。")
    assert find_question(zh, VOCAB).question == "哪些供应商缺少终止条款？"


def test_without_a_question_the_sentence_naming_most_entities_is_used():
    text = ("Some background first, about the quarterly review and the people involved in it this time. " * 3
            + "Termination and Liability clauses of Kestrel in Germany. The weather was fine.")
    pick = find_question(text, VOCAB)
    assert pick.reason == "most linked entities" and pick.question.startswith("Termination and Liability")
    assert len(sentences("One. Two? 三。")) == 3


def test_an_answer_quotes_only_a_short_excerpt_of_the_search_text():
    plan = Plan(intent="hybrid", mode="hybrid", params=PlanParams(text=EMAIL * 5))
    answer = compose_answer(plan, [], [])
    assert len(answer) < 250 and EMAIL[:40] in answer
    assert len(excerpt(EMAIL * 5)) <= EXCERPT_CHARS + 2

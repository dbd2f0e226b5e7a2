"""What a question inherits from the conversation (issue 18): only what a follow-up leaves
out; a complete new question starts a new topic; the plan says what was carried over."""
from __future__ import annotations

from tests.unit.vocabularies import two_suppliers
from core.retrieval.follow_up import SessionContext, is_follow_up
from core.retrieval.planner import plan_question
from core.types import Intent

VOCAB = two_suppliers()
AFTER_DP = SessionContext(companies=["Kestrel Logistics GmbH", "Belmira Payments SA"], clause_types=["Data Protection"],
                          filters={"countries": ["Germany"], "spend_min": 200000.0}, turns=2)


def test_follow_up_wording_is_told_from_a_pronoun_about_the_question_itself():
    assert is_follow_up("and their liability clauses?") and is_follow_up("那它的责任条款呢？")
    assert is_follow_up("What comes after it?")
    assert not is_follow_up("Which suppliers have no clause about what happens if they go bankrupt?")
    assert not is_follow_up("哪些供应商在其破产时没有相关条款？")
    assert not is_follow_up("Which suppliers lack a termination clause?")


def test_a_complete_new_question_after_a_data_protection_exchange_inherits_nothing():
    q = "Which suppliers have no clause about what happens if they go bankrupt?"
    fresh, after = plan_question(q, VOCAB), plan_question(q, VOCAB, AFTER_DP)
    assert after.intent == fresh.intent and after.params.types == fresh.params.types
    assert "Data Protection" not in after.params.types
    assert after.params.companies == [] and "from_session" not in after.linked
    assert "new_topic" in after.linked
    # its own type and subject: nothing from the previous topic either
    own = plan_question("Which suppliers lack a termination clause?", VOCAB, AFTER_DP)
    assert own.params.types == ["Termination"] and own.params.countries == [] and own.params.spend_min is None


def test_a_follow_up_inherits_only_what_it_leaves_out_and_the_plan_shows_it():
    follow = plan_question("and their liability clauses?", VOCAB, AFTER_DP)
    assert follow.params.companies == ["Kestrel Logistics GmbH", "Belmira Payments SA"]
    assert follow.params.types == ["Liability"]                 # named: not the previous Data Protection
    assert follow.linked["from_session"] == ["companies"]
    assert follow.linked["inherited"] == {"companies": "Kestrel Logistics GmbH, Belmira Payments SA"}
    # a filter of its own replaces only that filter: the country changes, the threshold stays
    ctx = SessionContext(clause_types=["Termination"], filters={"countries": ["Germany"], "spend_min": 200000.0},
                         turns=1)
    other = plan_question("what about suppliers in France?", VOCAB, ctx)
    assert other.params.countries == ["France"] and other.params.spend_min == 200000.0
    assert other.params.types == ["Termination"] and other.intent != Intent.UNKNOWN
    assert other.linked["inherited"]["clause types"] == "Termination"
    assert "countries" not in other.linked["inherited"]


def test_a_follow_up_that_narrows_a_gap_answer_stays_a_gap():
    # "which suppliers lack a termination clause?" then "and which of them are German?": those that lack it
    after_gap = SessionContext(companies=["Kestrel Logistics GmbH"], clause_types=["Termination"], last_intent="gap",
                               turns=1)
    for q in ("and which of them are German?", "其中哪些是德国的？", "其中有哪些是德国的？"):
        p = plan_question(q, VOCAB, after_gap)
        assert p.intent == Intent.GAP and p.params.types == ["Termination"] and p.params.countries == ["Germany"], (q, p.why)
        assert "the gap" in p.linked["from_session"]
    # one that says whether the clause is had asks that instead
    p = plan_question("and which of them have a termination clause?", VOCAB, after_gap)
    assert p.intent != Intent.GAP
    # after a presence question nothing turns into a gap
    after_presence = SessionContext(clause_types=["Termination"], last_intent="presence", turns=1)
    assert plan_question("and which of them are German?", VOCAB, after_presence).intent != Intent.GAP


def test_a_follow_up_naming_other_suppliers_by_their_country_replaces_the_country():
    ctx = SessionContext(clause_types=["Data Protection"], filters={"countries": ["Germany"]}, last_intent="presence",
                         turns=1)
    for q in ("what about French ones?", "what about the French ones?", "what about France?"):
        p = plan_question(q, VOCAB, ctx)
        assert p.params.countries == ["France"] and p.params.types == ["Data Protection"], (q, p.linked)
        # the question asked of the German suppliers is asked of the French ones
        assert p.intent == Intent.PRESENCE, (q, p.why)
    # after a list of clauses, the French suppliers' clauses
    after_clauses = SessionContext(clause_types=["Data Protection"], filters={"countries": ["Germany"]},
                                   last_intent="attribute_clauses", turns=1)
    assert plan_question("what about France?", VOCAB, after_clauses).intent == Intent.ATTRIBUTE_CLAUSES

"""The union rule of core/ingest/typing.py: section verdict + provision labels -> a clause's types."""
from __future__ import annotations

import pytest

import dataclasses

from core.ingest.classifier import REVIEW_THRESHOLD, Classification
from core.ingest.pipeline import type_edge_rows
from core.ingest.provisions import ProvisionLabel
from core.ingest.typing import ClauseTypes, combine


def _section(type_: str, confidence: float, method: str = "heading") -> Classification:
    return Classification(type_, confidence, method, {}, runner_up="Other")


def _prov(type_: str, confidence: float, start: int, end: int, confident: bool = True) -> ProvisionLabel:
    return ProvisionLabel(type_, confidence, start, end, "x" * (end - start), "sentence", confident)


def test_misc_section_typed_other_gets_every_confident_provision():
    got = combine(_section("Other", 0.7), [_prov("Governing Law", 0.92, 120, 240), _prov("Assignment", 0.81, 0, 119)])
    assert got.types == ["Governing Law", "Assignment"] and got.type == "Governing Law"
    assert got.primary.span == (120, 240) and not got.review


def test_type_found_by_both_keeps_higher_confidence_and_the_provision_span():
    got = combine(_section("Termination", 0.9), [_prov("Termination", 0.6, 10, 80)])
    assert got.types == ["Termination"]
    lab = got.primary
    assert lab.confidence == 0.9 and lab.method == "heading" and lab.span == (10, 80)


def test_weak_evidence_is_review_only_and_nothing_confident_means_other():
    got = combine(_section("Other", 0.4), [_prov("Insurance", 0.3, 5, 50, confident=False)])
    assert got.types == ["Other"] and got.primary.confidence == 0.4
    assert [r.type for r in got.review] == ["Insurance"] and got.needs_review


def test_a_weak_section_verdict_stays_the_type_but_asks_for_review():
    weak = REVIEW_THRESHOLD - 0.1
    got = combine(_section("Liability", weak), [_prov("Payment", 0.9, 0, 30)])
    assert got.types == ["Liability", "Payment"] and got.needs_review


def test_an_abstained_section_leaning_is_review_evidence():
    """Typed Other below the assignment floor, leaning to Availability: a gap in Availability
    has low-confidence evidence here, not none; a confident Other leaves no such evidence."""
    leaning = Classification("Other", 0.14, "abstain", {"Availability": 0.23, "Other": 0.15}, runner_up="Availability")
    got = combine(leaning, [])
    assert got.types == ["Other"] and got.needs_review
    assert [(r.type, r.confidence, r.method) for r in got.review] == [("Availability", 0.14, "abstain")]
    # found confidently by a sentence: a type, not review evidence
    assert combine(leaning, [_prov("Availability", 0.8, 0, 40)]).review == []
    plain = Classification("Other", 0.7, "embedding", {"Other": 0.7}, runner_up="Payment")
    assert combine(plain, []).review == []


def test_review_candidate_of_a_confident_type_is_dropped():
    got = combine(_section("Payment", 0.8), [_prov("Payment", 0.2, 0, 30, confident=False)])
    assert got.types == ["Payment"] and got.review == [] and not got.needs_review


def test_manual_types_replace_everything_and_mark_one_primary():
    manual = ClauseTypes.manual_types(["Payment", "Termination", "Payment"])
    assert manual.types == ["Payment", "Termination"] and manual.manual and not manual.needs_review
    of_type, may_be = type_edge_rows("A#1", manual)
    assert [e["primary"] for e in of_type] == [True, False] and may_be == []
    assert {e["method"] for e in of_type} == {"manual"}


def test_the_sections_confident_verdict_stays_primary():
    got = combine(_section("Termination", 0.7), [_prov("Termination for Convenience", 0.95, 0, 40)])
    assert got.types == ["Termination", "Termination for Convenience"] and got.type == "Termination"


# --- a weakly learned second type must overrule its section's reading of the sentence (typing.py)

def test_a_sentence_overrules_its_section_only_when_it_leads_clearly():
    from core.ingest.typing import SECTION_CONTEXT_ODDS, _overrules_the_section

    def reading(scores: dict) -> Classification:
        return Classification(max(scores, key=scores.get), 0.5, "hybrid", scores)

    assert _overrules_the_section(reading({"Payment": 0.9, "Termination": 0.05}), "Payment", "Termination")
    # about as close to the section's type: the section's context decides
    close = {"Payment": 0.48, "Service Credits": 0.48 / SECTION_CONTEXT_ODDS + 0.01, "Availability": 0.2}
    assert not _overrules_the_section(reading(close), "Payment", "Service Credits")
    # another type leads the sentence: not the provision's type either
    assert not _overrules_the_section(reading({"Availability": 0.4, "Payment": 0.3, "Other": 0.3}),
                                      "Payment", "Service Credits")


CREDITS = ("If monthly uptime falls below 99.9 %, the Client receives a credit against the next invoice equal to "
           "10 % of the monthly service fee. Credits are deducted from the following invoice and must be claimed "
           "within thirty days.")
TERM = ("This Agreement runs for two years and may be ended by either party on ninety days' written notice. "
        "The Customer shall pay each invoice within thirty days of receipt by bank transfer.")


def test_a_credit_against_the_invoice_stays_with_its_service_credits_section(embedder):
    from core.ingest.typing import get_clause_typer

    typer = get_clause_typer()
    # the provision model alone does read the credit sentence as Payment (fee and invoice words) ...
    found = {p.type: p for p in typer.provisions.label("Service Credits", CREDITS)}
    assert found["Payment"].confident and found["Payment"].confidence >= REVIEW_THRESHOLD
    # ... the clause is typed Service Credits only, Payment kept as evidence for review
    got = typer.type_one("Service Credits", CREDITS)
    assert got.types == ["Service Credits"]
    assert "Payment" in [r.type for r in got.review] and got.needs_review


def test_a_payment_sentence_in_a_termination_section_is_still_a_second_type(embedder):
    from core.ingest.typing import get_clause_typer

    got = get_clause_typer().type_one("Term and Termination", TERM)
    assert got.type == "Termination" and "Payment" in got.types
    pay = next(lab for lab in got.labels if lab.type == "Payment")
    assert pay.span is not None and TERM[pay.start:pay.end].startswith("The Customer shall pay")


ZH_MISC = ("本协议一式两份，双方各执一份。未经对方事先书面同意，任何一方不得转让本协议项下的权利和义务。"
           "本协议适用中华人民共和国法律，因本协议引起的争议提交上海仲裁委员会仲裁。")
ZH_TERMINATION = ("一方严重违约且在收到书面通知后三十日内未能纠正的，另一方有权解除本协议。"
                  "本协议解除后，双方应在十五日内结清已发生的费用。")


def test_a_chinese_miscellaneous_section_carries_each_provision_it_holds(embedder):
    """The provision model reads English only; a Chinese "其他" section is read sentence by
    sentence by the bilingual section classifier, so it holds governing law and assignment at
    once, as its English twin does, each on its own sentence."""
    from core.ingest.typing import get_clause_typer

    typer = get_clause_typer()
    got = typer.type_one("其他", ZH_MISC)
    assert {"Governing Law", "Assignment"} <= set(got.types)
    assign = next(lab for lab in got.labels if lab.type == "Assignment")
    assert assign.span is not None and ZH_MISC[assign.start:assign.end].startswith("未经对方事先书面同意")
    assert assign.confidence >= REVIEW_THRESHOLD
    english = typer.type_one("Miscellaneous", "This Agreement is made in two counterparts. Neither party may assign "
                             "this Agreement without the prior written consent of the other party. This Agreement is "
                             "governed by the laws of the People's Republic of China.")
    assert {"Governing Law", "Assignment"} <= set(english.types)


def test_a_chinese_section_about_one_thing_stays_one_type(embedder):
    from core.ingest.typing import get_clause_typer

    got = get_clause_typer().type_one("第九条 协议的解除", ZH_TERMINATION)
    assert got.types == ["Termination"]


def test_a_chinese_notice_period_termination_is_a_second_type_of_its_termination_section(embedder):
    """Read alone, a notice-period termination leans to Termination for Convenience over its
    section's Termination, but not clearly (not SECTION_CONTEXT_ODDS times as likely), which made it
    review evidence only; its wording (a right to end on notice, no cause named) makes it the type,
    with that sentence as its evidence, beside the section's Termination."""
    from core.ingest.typing import get_clause_typer
    from core.ingest.wording import METHOD_WORDING

    got = get_clause_typer().type_one(
        "第五条 合同的解除", "任何一方可提前三十日书面通知对方解除本合同。一方严重违约的，守约方有权立即解除本合同。")
    assert got.type == "Termination" and "Termination for Convenience" in got.types
    tfc = next(lab for lab in got.labels if lab.type == "Termination for Convenience")
    assert tfc.method == METHOD_WORDING and tfc.end <= len("任何一方可提前三十日书面通知对方解除本合同。")


def test_an_uncorroborated_low_confidence_verdict_is_review_evidence():
    """A section verdict below the review bar counts as a type only when a sentence of the same
    clause is read as that type too (even only at its review floor); otherwise a gap report lists
    the clause for review. A confident verdict stands alone."""
    from core.ingest.typing import _uncorroborated_to_review

    weak = _section("Liability", REVIEW_THRESHOLD - 0.2)
    got = combine(_uncorroborated_to_review(weak, []), [])
    assert got.types == ["Other"] and got.needs_review
    assert [(r.type, r.confidence, r.method) for r in got.review] == [("Liability", weak.confidence, "abstain")]
    backed = [_prov("Liability", 0.1, 0, 40, confident=False)]
    assert _uncorroborated_to_review(weak, backed) is weak
    assert combine(weak, backed).types == ["Liability"]
    sure = _section("Governing Law", REVIEW_THRESHOLD + 0.1)
    assert _uncorroborated_to_review(sure, []) is sure


def test_a_confident_verdict_on_the_body_alone_needs_the_provision_readers_backing():
    """A confident verdict stands alone only under a heading that names its type (its name, a
    keyword or a concept: heading_lexical > 0). One resting on the body alone needs a sentence of
    the clause read as that type; a classifier that does not tell headings apart (None) is
    trusted as before."""
    from core.ingest.typing import _uncorroborated_to_review

    body_only = Classification("Exclusivity", 0.71, "hybrid", {}, runner_up="Other", heading_lexical=0.0)
    got = combine(_uncorroborated_to_review(body_only, []), [])
    assert got.types == ["Other"] and got.needs_review
    assert [(r.type, r.method) for r in got.review] == [("Exclusivity", "abstain")]
    backed = [_prov("Exclusivity", 0.2, 0, 40, confident=False)]
    assert _uncorroborated_to_review(body_only, backed) is body_only
    by_concept = Classification("Governing Law", 0.9, "hybrid", {}, heading_lexical=0.6)
    assert _uncorroborated_to_review(by_concept, []) is by_concept
    unknown = Classification("Governing Law", 0.9, "keyword", {}, heading_lexical=None)
    assert _uncorroborated_to_review(unknown, []) is unknown


def test_a_non_exclusive_appointment_is_not_an_exclusivity_clause(embedder):
    """End to end through the real readers: a distributor appointment sounds like an exclusive one
    to the clause embedding, so the section classifier leans to Exclusivity, but its heading does
    not name the type and the provision reader finds no exclusivity in it. The exclusive
    appointment is found; a terse governing-law clause under a heading naming a related concept
    still stands on the section verdict."""
    from core.ingest.typing import get_clause_typer

    typer = get_clause_typer()
    non, sole, law = typer.type_many([
        ("1. APPOINTMENT", "The Supplier appoints Borealis Instruments AB as its non-exclusive distributor of the "
                           "Products in the Territory, and may appoint other distributors at its discretion."),
        ("1. APPOINTMENT", "The Supplier appoints Aster Optics Ltd as its exclusive distributor of the Products in "
                           "the Territory, and shall not appoint any other distributor in the Territory."),
        ("9 Applicable Law", "Dutch law applies to this agreement."),
    ], embedder=embedder)
    assert "Exclusivity" not in non.types and "Exclusivity" in [r.type for r in non.review]
    assert "Exclusivity" in sole.types
    assert law.types == ["Governing Law"]
    assert typer.section.classify("9 Applicable Law", "Dutch law applies.").heading_lexical > 0
    assert typer.section.classify("1. APPOINTMENT", "The Supplier appoints X.").heading_lexical == 0


def test_provisions_said_in_so_many_words_in_a_miscellaneous_section_are_its_types(embedder):
    """A filing's catch-all section holding an exclusive supply, a warranty with its period, an assignment of the
    work product and a covenant not to compete: each is a type of the clause, its sentence the evidence."""
    from core.ingest.typing import get_clause_typer
    from core.ingest.wording import METHOD_WORDING

    text = ("During the Term the Hotel shall use Lindqvist Foods as the sole caterer for all banqueting events. "
            "Lindqvist warrants that for twelve (12) months after delivery the kitchen equipment will be free from "
            "defects in materials and workmanship. "
            "Lindqvist hereby assigns to the Hotel all right, title and interest in the menus and recipes it creates "
            "for the Hotel. "
            "While this Agreement is in force Lindqvist shall not operate any restaurant that competes with the "
            "Hotel within five miles of it.")
    got = get_clause_typer().type_one("27. Miscellaneous", text)
    for type_name, words in (("Exclusivity", "sole caterer"), ("Warranty", "twelve (12) months"),
                             ("IP Ownership", "right, title and interest"), ("Non-Compete", "competes with")):
        assert type_name in got.types, (type_name, got.types)
        evidence = next(lab for lab in got.labels if lab.type == type_name)
        assert words in text[evidence.span[0]:evidence.span[1]]
        assert evidence.method in (METHOD_WORDING, "sentence")


class _FixedSection:
    """A section classifier that gives every clause one verdict (the typer's rule under test is
    what follows the verdict, not the verdict itself)."""

    def __init__(self, type_: str, confidence: float):
        self.verdict = Classification(type_, confidence, "hybrid", {type_: confidence, "Other": 1 - confidence},
                                      runner_up="Other")

    def classify_many(self, items, embeddings=None):
        return [self.verdict for _ in items]


COMPENSATION = ("As compensation for the Consultant's services, the Company shall issue to the Consultant "
                "3,000,000 shares of its restricted common stock at the closing.")


def test_only_lawyer_trained_types_need_the_provision_readers_backing(embedder):
    """Liability's provision model learned from lawyers' labels, so its silence on a clause is
    evidence: a weak Liability verdict on a compensation clause becomes review evidence. Service
    Credits has no lawyer labels: its weak verdict stands as before."""
    from core.ingest.typing import ClauseTyper, get_clause_typer

    provisions = get_clause_typer().provisions
    liability = ClauseTyper(_FixedSection("Liability", REVIEW_THRESHOLD - 0.2), provisions)
    assert "Liability" in liability.supervised and "Service Credits" not in liability.supervised
    got = liability.type_one("Compensation", COMPENSATION)
    assert "Liability" not in got.types and "Liability" in [r.type for r in got.review]
    credits = ClauseTyper(_FixedSection("Service Credits", REVIEW_THRESHOLD - 0.2), provisions)
    assert "Service Credits" in credits.type_one("Compensation", COMPENSATION).types


def test_the_section_verdict_is_marked_as_such_on_its_edge():
    """Only the section classifier's verdict must reach the review bar to meet a requirement
    (core.gaps.meets_requirement); a provision label passed its own type's threshold."""
    from core.gaps import meets_requirement

    other = combine(_section("Other", 0.7), [_prov("Governing Law", 0.3, 0, 40)])
    assert [(lab.type, lab.by_section) for lab in other.labels] == [("Governing Law", False)]
    rows, _ = type_edge_rows("c1", other)
    assert rows[0]["primary"] and rows[0]["by_section"] is False
    assert meets_requirement(True, rows[0]["method"], rows[0]["confidence"], rows[0]["by_section"])
    weak = combine(_section("Liability", 0.3), [_prov("Payment", 0.9, 0, 30)])
    assert [(lab.type, lab.by_section) for lab in weak.labels] == [("Liability", True), ("Payment", False)]
    rows, _ = type_edge_rows("c2", weak)
    assert [meets_requirement(r["primary"], r["method"], r["confidence"], r["by_section"]) for r in rows] == [False, True]
    # found by both: the provision's higher confidence and evidence win, and with them its standing
    both = combine(_section("Termination", 0.3), [_prov("Termination", 0.6, 10, 80)])
    assert both.primary.by_section is False and both.primary.span == (10, 80)
    # ... and where the section's verdict is the more confident, a confident provision still backs it
    backed = combine(_section("Termination", 0.3), [_prov("Termination", 0.2, 10, 80)])
    assert backed.primary.confidence == 0.3 and backed.primary.by_section is False
    unbacked = combine(_section("Termination", 0.3), [_prov("Termination", 0.1, 10, 80, confident=False)])
    assert unbacked.primary.by_section is True
    assert meets_requirement(True, "manual", 0.1, True) and meets_requirement(False, "hybrid", 0.1, True)


def test_a_termination_for_convenience_read_in_a_non_renewal_sentence_is_review_evidence():
    from core.ingest.provisions import ProvisionLabel
    from core.ingest.typing import _not_convenience

    def label(sentence):
        return ProvisionLabel("Termination for Convenience", 0.3, 0, len(sentence), sentence, "sentence")

    renewal = label("The agreement then continues for successive periods of two years unless terminated with "
                    "twelve months' notice before the end of a period.")
    zh = label("合同期满后自动续期一年，除非一方提前三十日书面通知不再续约。")
    at_will = label("Either party may terminate this Agreement during the initial term or any renewal term on "
                    "30 days' notice.")
    out = _not_convenience([renewal, zh, at_will])
    assert [(lab.type, lab.confident) for lab in out] == [
        ("Termination for Convenience", False), ("Termination for Convenience", False),
        ("Termination for Convenience", True), ("Termination", True)]   # a non-renewal ends the agreement
    assert out[-1].sentence == renewal.sentence and (out[-1].start, out[-1].end) == (renewal.start, renewal.end)
    weak = ProvisionLabel("Termination", 0.1, 0, 5, "Term.", "sentence", confident=False)
    assert _not_convenience([renewal, weak])[-1] == dataclasses.replace(renewal, type="Termination")


def test_a_termination_for_convenience_read_in_a_sentence_that_names_the_cause_is_review_evidence():
    from core.ingest.provisions import ProvisionLabel
    from core.ingest.typing import _not_convenience
    from core.ingest.wording import names_a_cause

    def label(sentence):
        return ProvisionLabel("Termination for Convenience", 0.4, 0, len(sentence), sentence, "sentence")

    after_control = label("Vendor shall notify the Client within 10 days of any change of control of Vendor, and "
                          "the Client may then terminate this Agreement on 60 days' notice.")
    on_breach = label("Either party may terminate on 30 days' notice if the other commits a material breach.")
    both = label("Either party may terminate this Agreement for convenience on 90 days' notice or immediately "
                 "upon a material breach by the other.")
    any_reason = label("Either party may terminate for any reason, including a change of control, on 60 days' "
                       "notice.")
    out = _not_convenience([after_control, on_breach, both, any_reason])
    assert [(lab.type, lab.confident) for lab in out] == [
        ("Termination for Convenience", False), ("Termination for Convenience", False),
        ("Termination for Convenience", True), ("Termination for Convenience", True), ("Termination", True)]
    assert not names_a_cause("Customer may terminate this Agreement on 90 days' written notice.")
    assert not names_a_cause("Either party may terminate this agreement with three months' notice after the minimum "
                             "term of all sites has expired.")
    assert not names_a_cause("Either party may terminate this Schedule on six months' written notice, or immediately "
                             "if the other party commits a material breach that is not remedied within 30 days.")


@pytest.mark.parametrize("sentence, ends", [
    # a right to end, with no cause named, in so many words
    ("Either of us may bring this arrangement to an end by giving the other not less than three months' written "
     "notice, for any reason.", True),
    ("Either party may cancel this order at any time by giving the other 30 days' notice in writing.", True),
    ("Either party may terminate this agreement with nine months' written notice.", True),
    ("The Company may terminate this Agreement for convenience upon thirty (30) days' prior written notice.", True),
    ("甲方可以提前三十日书面通知乙方解除本协议。", True),
    ("任何一方可提前三个月书面通知对方解除本协议。", True),
    # a redacted period, as filings print it; a proviso after the right; the right's time between "right" and "to"
    ("The Buyer may terminate this Agreement upon [*] month's written notice to the Seller.", True),
    ("The Licensee may terminate this Agreement by giving [***] prior written notice to the Licensor.", True),
    ("The Distributor may terminate this Agreement on sixty (60) days' written notice, provided that if it does so "
     "within the first year it shall pay the set-up fee.", True),
    ("The Customer shall have the right at any time before the third anniversary to terminate this Agreement by "
     "written notice.", True),
    # nothing but a notice is needed
    ("Either party may terminate this Agreement solely by giving written notice to the other party.", True),
    # no fixed term: it lasts until a party ends it on notice
    ("The arrangement runs until either of us brings it to an end with four months' notice in writing.", True),
    ("This Agreement shall remain in force until terminated by either party upon ninety (90) days' prior written "
     "notice.", True),
    ("本协议长期有效，直至任何一方提前六十日书面通知对方终止。", True),
    # a cause, a condition, a non-renewal, an evergreen term after a fixed one, or no right to end at all
    ("This Agreement shall continue for five years and thereafter until terminated by either Party on 180 days' "
     "notice.", False),
    ("This Agreement shall remain in force until terminated in accordance with Section 12.", False),
    ("Either party may terminate this Agreement only by giving notice if the other party breaches it.", False),
    ("Either party may terminate this Agreement by written notice if the other party commits a material breach.", False),
    ("This Agreement may be terminated by either Party at any time by notice if the other becomes bankrupt.", False),
    ("This Agreement renews for successive one-year terms unless either party gives 90 days notice of "
     "non-renewal.", False),
    ("Upon termination of this Agreement for any reason, Supplier shall return all Confidential Information.", False),
    ("The captions are for convenience of reference only.", False),
    ("一方严重违反本协议，经书面催告后十五日内仍未改正的，另一方可以书面通知解除本协议。", False),
    ("本协议有效期届满前三十日，任何一方可以书面通知对方终止续约。", False),
])
def test_a_right_to_end_without_cause_is_read_in_so_many_words(sentence, ends):
    from core.ingest.wording import ends_without_cause

    assert ends_without_cause(sentence) is ends


def test_a_termination_for_convenience_in_so_many_words_is_a_type_of_the_clause(embedder):
    from core.ingest.typing import get_clause_typer
    from core.ingest.wording import METHOD_WORDING

    # the CUAD-trained reader scores this 0.10 against its threshold of 0.11, the section reader Termination
    text = ("6. Either of us may bring this arrangement to an end by giving the other not less than three "
            "months' written notice, for any reason.")
    got = get_clause_typer().type_one("Either of us may bring this arrangement to an end", text)
    tfc = next(lab for lab in got.labels if lab.type == "Termination for Convenience")
    assert tfc.method == METHOD_WORDING and text[tfc.start:tfc.end].startswith("6. Either of us")
    zh = get_clause_typer().type_one("合同解除", "甲方可以提前三十日书面通知乙方解除本协议。")
    assert "Termination for Convenience" in zh.types


@pytest.mark.parametrize("sentence, credits", [
    ("If availability falls below that level, Customer will receive a credit of 10% of the monthly fee for the "
     "affected month, which is Customer's sole remedy for the shortfall.", True),
    ("For each month in which the Carrier delivers less than 97% of consignments on time, the Carrier shall rebate "
     "3% of that month's freight charges.", True),
    ("If the on-time delivery rate falls below 98% in any month, the Customer may deduct 2% of the monthly charges "
     "for each percentage point of shortfall.", True),
    ("当月订单准确率未达到上述标准的，甲方有权按当月服务费的3%扣减费用。", True),
    # money without a missed level, a level without money, a definition, a volume discount
    ("Customer shall pay invoices within 30 days; late amounts bear interest at 1% per month.", False),
    ("Vendor shall keep availability at or above 99.9% in each month.", False),
    ('"Service Credit" means a credit of 5% of the monthly fee if availability falls below 99.9%.', False),
    ("Prices are reduced by 2% of the list price if an order is for less than 100 units.", False),
])
def test_a_service_credit_is_read_in_so_many_words(sentence, credits):
    from core.ingest.wording import credits_a_missed_level

    assert credits_a_missed_level(sentence) is credits


def test_a_service_credit_in_so_many_words_is_a_second_type_of_a_service_level_clause(embedder):
    from core.ingest.typing import get_clause_typer
    from core.ingest.wording import METHOD_WORDING

    text = ("The Platform will be available 99.9% of the time in each calendar month. If availability falls below "
            "that level, Customer will receive a credit of 10% of the monthly fee for the affected month.")
    got = get_clause_typer().type_one("SERVICE LEVELS", text)
    credit = next(lab for lab in got.labels if lab.type == "Service Credits")
    assert got.type == "Availability" and credit.method == METHOD_WORDING
    assert text[credit.start:credit.end].startswith("If availability falls below")


SERVICE_LEVELS = ("2.1 Response Times. Vendor shall acknowledge Priority 1 incidents within 15 minutes and resolve "
                  "them within 4 hours, around the clock.\n2.2 Service Credits. If Vendor misses the Priority 1 "
                  "resolution time more than twice in a month, Customer shall receive a credit of 5% of that month's "
                  "support fees.")
DEFINITIONS = ('1.1 "Downtime" means any period during which the Service is not reachable.\n'
               '1.2 "Service Credit" means the amount credited under clause 8.')


def test_an_english_sentence_that_names_a_weakly_learned_type_is_a_second_type(embedder):
    from core.ingest.typing import get_clause_typer

    got = get_clause_typer().type_one("SERVICE LEVELS", SERVICE_LEVELS)
    assert got.type == "Availability" and "Service Credits" in got.types
    # a run-in sub-heading names its type by a keyword too, as a section heading does
    assert "Support" in got.types
    credits = next(lab for lab in got.labels if lab.type == "Service Credits")
    assert SERVICE_LEVELS[credits.start:credits.end].startswith("2.2 Service Credits")


def test_a_definition_adds_no_type_of_what_it_defines(embedder):
    from core.ingest.typing import get_clause_typer

    assert get_clause_typer().type_one("Definitions", DEFINITIONS).types == ["Other"]


def test_a_general_section_holds_what_its_sentences_say_in_so_many_words(embedder):
    """A boilerplate section whose provisions the models score low: each is a type of the clause, with its
    sentence as evidence."""
    from core.ingest.typing import get_clause_typer
    from core.ingest.wording import METHOD_WORDING

    text = ("(a) The Contractor shall not subcontract any of the Works without the Employer's prior written consent.\n"
            "(b) Neither party is liable for a failure to perform caused by events outside its reasonable control.\n"
            "(c) This contract is subject to the laws of the Republic of Austria.\n"
            "(d) Neither party shall solicit the other party's site engineers during the term.")
    got = get_clause_typer().type_one("General", text)
    found = {lab.type: text[lab.start:lab.end] for lab in got.labels if lab.span}
    for type_name, opening in [("Subcontracting", "(a)"), ("Force Majeure", "(b)"), ("Governing Law", "(c)"),
                               ("Non-Solicitation", "(d)")]:
        assert found[type_name].startswith(opening), (type_name, got.labels)
    assert any(lab.method == METHOD_WORDING for lab in got.labels)


def test_a_right_to_end_without_cause_is_a_termination_clause_and_one_on_a_condition_is_no_convenience(embedder):
    from core.ingest.typing import get_clause_typer

    got = get_clause_typer().type_one("", "Either of us may end this order for any reason, or for no reason, on 30 "
                                          "days' written notice to the other.")
    assert {"Termination for Convenience", "Termination"} <= set(got.types), got.labels
    got = get_clause_typer().type_one("TERM AND TERMINATION", "The Buyer may terminate this Agreement on 30 days' "
                                      "written notice if the availability of the cranes falls below 92% in any three "
                                      "months within a rolling twelve-month period.")
    assert "Termination for Convenience" not in got.types and "Termination" in got.types, got.labels

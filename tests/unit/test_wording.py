"""What a sentence says in so many words (core.ingest.wording): each reader's parts, and what is no such term."""
import pytest

from core.ingest import wording


@pytest.mark.parametrize("sentence, governs", [
    ("Contractor may not subcontract the Works or any part of them without the Authority's written approval.", True),
    ("The Processor shall not appoint another processor (a sub-processor) without prior specific authorisation.", True),
    ("Sub-processors may only be engaged after the Controller has had 14 days to object.", True),
    ("The Vendor remains responsible for the acts and omissions of its subcontractors as for its own.", True),
    ("Neither party may delegate the performance of its obligations to a third party.", True),
    ("乙方不得将本合同项下的任何工作转包给第三方。", True),
    # subcontractors mentioned beside others, or defined
    ("The Vendor shall ensure that its employees, agents and subcontractors comply with the site rules.", False),
    ('"Subcontractor" means any person engaged by the Vendor to perform part of the Services.', False),
])
def test_subcontracting_in_so_many_words(sentence, governs):
    assert wording.governs_subcontracting(sentence) is governs


@pytest.mark.parametrize("sentence, times", [
    ("Severity 1 tickets are acknowledged within 15 minutes and a workaround is provided within 4 hours.", True),
    ("The engineer shall be on site within two hours of any breakdown being reported.", True),
    ("For a critical incident the Supplier will restore the service in no more than 6 hours.", False),
    ("系统发生故障时，乙方应在2小时内响应，8小时内恢复。", True),
    # a notice within hours, a payment within days, a fix without a time
    ("The Processor shall notify the Controller of a personal data breach within 24 hours.", False),
    ("Invoices are payable within 30 days of receipt.", False),
    ("The Supplier shall repair any defect promptly.", False),
])
def test_a_time_to_answer_a_fault_is_support(sentence, times):
    assert wording.times_a_fault_answer(sentence) is times


@pytest.mark.parametrize("sentence, announced", [
    ("Planned maintenance is notified to the Customer at least 72 hours in advance.", True),
    ("Routine maintenance takes place on Sundays between 02:00 and 05:00.", True),
    ("计划维护应提前三个工作日通知甲方。", True),
    ("The Supplier is responsible for maintenance of the vehicles.", False),
])
def test_notice_or_window_of_maintenance_is_maintenance(sentence, announced):
    assert wording.announces_maintenance(sentence) is announced


@pytest.mark.parametrize("sentence, excused", [
    ("A party is excused from performing for as long as it is prevented by circumstances outside its reasonable "
     "control.", True),
    ("Neither party is responsible for any failure caused by flood, fire, war or other causes beyond its control.", True),
    ("因不可抗力不能履行合同的，受影响一方不承担责任。", True),
    ("The Customer shall keep its passwords under its control.", False),
])
def test_an_excuse_for_what_no_one_controls_is_force_majeure(sentence, excused):
    assert wording.excuses_what_no_one_controls(sentence) is excused


@pytest.mark.parametrize("sentence, forbids", [
    ("For one year after the end of the Services, the Consultant shall not recruit any employee of the Client.", True),
    ("The Agency agrees not to entice away the Hospital's nurses or other staff.", True),
    ("Neither party will hire the other party's personnel engaged in the project without consent.", True),
    ("在合同期内及终止后一年内，乙方不得招揽甲方的员工。", True),
    # no one's staff, or not a prohibition
    ("The Supplier shall not employ any person under the age of sixteen.", False),
    ("The Supplier shall not engage any subcontractor without the Customer's consent.", False),
    ("The Client may hire the Agency's workers after paying a conversion fee.", False),
])
def test_no_soliciting_of_the_other_sides_staff_is_non_solicitation(sentence, forbids):
    assert wording.forbids_soliciting(sentence) is forbids


@pytest.mark.parametrize("sentence, chooses", [
    ("This contract shall be construed in accordance with the laws of the State of Victoria.", True),
    ("These Terms are subject to Irish law and the laws of Ireland.", True),
    ("The laws of Singapore govern this Agreement.", True),
    ("本协议受香港特别行政区法律管辖。", True),
    # a duty to comply with laws, a reference to them
    ("Each party shall comply with the laws of every country in which it operates.", False),
    ("乙方应遵守适用的法律法规。", False),
])
def test_a_chosen_law_is_governing_law(sentence, chooses):
    assert wording.chooses_the_law(sentence) is chooses


@pytest.mark.parametrize("sentence, handles", [
    ("The Supplier shall process personal data only on the Customer's documented instructions.", True),
    ("乙方不得将客户的个人信息传输至境外。", True),
    ('"Personal Data" has the meaning given in the GDPR.', False),
    ("The Supplier shall keep the price list confidential.", False),
    ("For breaches of the personal data clause the limit is three times that amount.", False),
])
def test_a_duty_on_personal_data_is_data_protection(sentence, handles):
    assert wording.handles_personal_data(sentence) is handles


def test_a_reader_adds_its_type_once_and_not_beside_a_confident_label():
    from core.ingest.provisions import ProvisionLabel

    text = ("The Supplier shall not subcontract the Services without consent. Sub-processors may only be engaged "
            "with consent.")
    got = wording.in_so_many_words(text, "Other", [])
    assert [lab.type for lab in got] == ["Subcontracting"]
    assert got[0].method == wording.METHOD_WORDING and text[got[0].start:got[0].end].startswith("The Supplier")
    held = [ProvisionLabel("Subcontracting", 0.95, 0, 10, text[:10], "sentence")]
    assert wording.in_so_many_words(text, "Other", held) == held


@pytest.mark.parametrize("sentence, grants", [
    ("The Licensor shall have the right to examine the Licensee's books of account once in each calendar year.", True),
    ("The Customer may, on reasonable notice, inspect the Supplier's facilities and quality systems.", True),
    ("采购方有权查阅供应商与本合同有关的账簿和记录。", True),
    # a duty to keep records, a review of a report
    ("The Supplier shall keep complete and accurate records for six years.", False),
    ("The parties may review the service levels once a year.", False),
])
def test_a_right_to_audit_records_or_premises_is_audit_rights(sentence, grants):
    assert wording.grants_an_audit(sentence) is grants


@pytest.mark.parametrize("sentence", [
    "The Provider may use third parties to perform parts of the Services, and remains responsible for them.",
    "乙方可以委托第三方履行本合同项下的部分服务，但应事先通知甲方。",
    "未经甲方书面同意，乙方不得委托第三方处理上述个人信息。",
])
def test_third_parties_used_to_perform_the_services_is_subcontracting(sentence):
    assert wording.governs_subcontracting(sentence)


def test_an_exclusion_that_points_elsewhere_or_maintenance_records_are_no_maintenance_term():
    assert not wording.announces_maintenance("Unavailability caused by scheduled maintenance announced in accordance "
                                             "with clause 3 is excluded.")
    assert not wording.announces_maintenance("The Customer may examine the Supplier's maintenance logs on five working "
                                             "days' notice.")
    assert not wording.excuses_what_no_one_controls("Excluded from the uptime calculation are failures resulting from "
                                                    "events beyond the Provider's reasonable control.")


@pytest.mark.parametrize("sentence, conditional", [
    ("The Buyer may terminate this Agreement on 30 days' written notice if on-time delivery falls below 90% in "
     "three consecutive months.", True),
    ("If the suspension lasts longer than two months, either party may terminate the contract by notice.", True),
    ("如乙方连续两个月未达到服务水平，甲方可以提前三十日书面通知解除本合同。", True),
    # no condition, a no-cause phrase, a proviso after the right
    ("The Buyer may terminate this Agreement on 30 days' written notice.", False),
    ("Either party may terminate for any reason on 60 days' notice, even if the other party objects.", False),
    ("Either party may terminate this Schedule on six months' written notice expiring no earlier than 31 May 2025, or "
     "immediately if the other party commits a material breach.", False),
    ("Licensee may terminate this Agreement on 90 days' notice, provided that if it does so in the first year it "
     "pays the setup fee.", False),
])
def test_a_right_to_end_that_waits_on_an_event_is_for_cause(sentence, conditional):
    assert wording.ends_on_a_condition(sentence) is conditional


@pytest.mark.parametrize("sentence, exclusive", [
    ("The Manufacturer appoints the Reseller as its exclusive reseller of the Devices in Scandinavia.", True),
    ("During the Term the Hotel shall use the Caterer as the sole caterer for all banqueting events.", True),
    ("Licensor grants Licensee the exclusive right to sell the Licensed Goods in the Field.", True),
    ("The rights are granted on an exclusive basis for the Territory.", True),
    ("乙方为甲方在华东地区的独家经销商。", True),
    ("The Airline shall buy from the Caterer, and from no other supplier, all of the meals it serves on its Oslo flights.",
     True),
    # non-exclusive, negated, defined, recited, or exclusive something else
    ("The Supplier appoints the Distributor as a non-exclusive distributor in the Territory.", False),
    ("Nothing in this Agreement makes the Carrier the exclusive carrier of the Shipper.", False),
    ("The Customer is not obliged to use the Provider as its sole provider.", False),
    ('"Exclusive Supplier" means the supplier named in Schedule 2.', False),
    ("WHEREAS, the Buyer wishes to acquire the exclusive right to market the Products;", False),
    ("The courts of Paris have exclusive jurisdiction; this remedy is the Buyer's sole remedy.", False),
])
def test_an_exclusive_appointment_or_right_is_exclusivity(sentence, exclusive):
    assert wording.grants_exclusivity(sentence) is exclusive


@pytest.mark.parametrize("sentence, period", [
    ("The Vendor warrants that for eighteen (18) months after installation the Equipment will be free from defects in "
     "materials and workmanship.", True),
    ("Any goods that do not conform to the specifications must be reported to the Seller within ten business days of "
     "delivery.", True),
    ("Defects notified within the warranty period of twelve months will be repaired free of charge.", True),
    ("The warranty shall remain in effect for [***] months following acceptance of each system.", True),
    # a warranty period only mentioned: repairs after it, a retention paid after it
    ("Repairs after the warranty period are charged at the rates in Schedule 3.", False),
    ("质保期满后，维修按附件三的价格收费。", False),
    ("设备质保期为交付之日起二十四个月。", True),
    # a warranty without a time, a survival clause, a payment within days
    ("The Consultant warrants that the Services will be performed in a professional and workmanlike manner.", False),
    ("All representations and warranties survive for a period of two years after closing.", False),
    ("The Buyer shall pay each invoice within 30 days of receipt.", False),
])
def test_a_warranty_with_its_period_is_warranty(sentence, period):
    assert wording.warrants_for_a_period(sentence) is period


@pytest.mark.parametrize("sentence, passes", [
    ("The Developer hereby assigns to the Client all right, title and interest in the Deliverables.", True),
    ("The Agency shall own all work product created by its staff under this Agreement.", True),
    ("Contractor agrees to assign to Owner any inventions conceived in performing the Services.", True),
    ("本项目产生的工作成果及其知识产权归甲方所有。", True),
    # keeping its own, disclaiming a transfer, successors
    ("Nothing in this Agreement shall be construed as an assignment of any trade mark of the Licensor.", False),
    ("This Agreement binds the parties and their successors and assigns.", False),
    ("Each party retains all right, title and interest in its own pre-existing materials.", False),
])
def test_a_transfer_of_created_rights_is_ip_ownership(sentence, passes):
    assert wording.passes_ownership_of_work(sentence) is passes


@pytest.mark.parametrize("sentence, forbids", [
    ("While this Agreement is in force the Franchisee shall not operate any restaurant that competes with the "
     "System within ten miles of the Premises.", True),
    ("The Consultant agrees not to provide services to any business in competition with the Company for one year.",
     True),
    ("乙方在合作期间不得从事与甲方相竞争的业务。", True),
    ("The Baker shall not, while this Agreement lasts and for two years after, own or operate any bakery within five (5) "
     "miles of the Mall.", True),
    # a freedom to compete, non-solicitation, a court's competence
    ("Nothing in this Agreement shall prevent either party from developing competing products.", False),
    ("The Reseller shall not solicit any customer of the Company to buy a competitive product.", False),
    ("Disputes shall not be brought before any court other than a court of competent jurisdiction.", False),
])
def test_a_covenant_not_to_compete_is_non_compete(sentence, forbids):
    assert wording.forbids_competing(sentence) is forbids


def test_every_readers_hint_is_in_each_sentence_it_reads():
    """A reader is only run on a clause its hint matches, so a sentence it reads without the hint would be lost at
    ingest; the labelled sentences of eval/sentences are the test bed."""
    from pathlib import Path

    from core.jsonl import read_jsonl

    folder = Path(__file__).resolve().parents[2] / "eval" / "sentences"
    texts = [obj["text"] for path in sorted(folder.glob("*.jsonl")) for _, obj in read_jsonl(path)]
    assert len(texts) >= 400
    for rule in wording.RULES:
        lost = [t for t in texts if rule.reads(t) and not rule.hint.search(t)]
        assert not lost, (rule.type, lost[:3])

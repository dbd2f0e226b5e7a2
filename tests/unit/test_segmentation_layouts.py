"""Segmentation of the layouts real filings use (EDGAR / CUAD style), on small synthetic texts.

No database: these exercise core.ingest.splitter / headings / cleaning directly. Every text
here is written for the test; none is copied from a contract.
"""
from __future__ import annotations

from core.ingest.headings import plain_heading
from core.ingest.splitter import split_contract


def titles(text: str) -> list[str]:
    return [c.title for c in split_contract(text).clauses]


FILLER = "The parties shall act in good faith and keep records of what they do under it. "


def page_line(*parts: str) -> str:
    """One page of a filing on a single line, as EDGAR text exports often have it."""
    line = " ".join(parts)
    assert len(line) > 800, "a page line must be far longer than a paragraph"
    return line


# --------------------------------------------------------------------------- heading styles

def test_all_caps_headings_without_numbers():
    text = ("SUPPLY AGREEMENT\n\nThis agreement is made between A and B.\n\nDELIVERY\n\n" + FILLER +
            "\n\nPAYMENT TERMS\n\n" + FILLER + "\n\nGOVERNING LAW\n\nThe laws of New York apply.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["DELIVERY", "PAYMENT TERMS", "GOVERNING LAW"]
    assert result.title == "SUPPLY AGREEMENT" and result.segmentation == "headings"


def test_section_keyword_with_dotted_numbers_and_run_in_titles():
    text = ("Section 12.1 Fees. Customer pays the fees.\nSection 12.2 Taxes. Customer pays taxes.\n"
            "Section 12.3 Governing Law. This Agreement is governed by Delaware law.\n")
    assert [(c.title, c.text) for c in split_contract(text).clauses] == [
        ("Fees", "Customer pays the fees."), ("Taxes", "Customer pays taxes."),
        ("Governing Law", "This Agreement is governed by Delaware law.")]


def test_roman_articles_keep_their_sections_inside():
    text = ("ARTICLE XI FEES\nSection 11.1 Invoices. Monthly invoices.\nSection 11.2 Late Payment. Interest.\n\n"
            "ARTICLE XII TERMINATION\nSection 12.1 Term. Two years.\nSection 12.2 Breach. On notice.\n")
    clauses = split_contract(text).clauses
    assert [c.title for c in clauses] == ["FEES", "TERMINATION"]
    assert "Section 11.2 Late Payment. Interest." in clauses[0].text


def test_bare_numbered_headings_as_in_filings():
    text = ("1 Supply of Goods\n\n1.1 The Supplier will deliver the goods ordered.\n\n"
            "1.2 The Buyer will inspect each delivery.\n\n2 Prices\n\n2.1 Prices are fixed for a year.\n\n"
            "3 Governing Law\n\n3.1 The laws of Ohio apply.\n")
    clauses = split_contract(text).clauses
    assert [c.title for c in clauses] == ["Supply of Goods", "Prices", "Governing Law"]
    assert "1.2 The Buyer will inspect each delivery." in clauses[0].text


def test_a_lone_bare_number_line_is_not_a_heading():
    text = "1. Delivery\nGoods arrive within:\n30 Days\nof the order.\n\n2. Payment\nNet 30.\n"
    assert titles(text) == ["Delivery", "Payment"]


def test_point_zero_numbering_is_the_section_level():
    text = ("1.0 DEFINITIONS.\n1.1 \"Goods\" means the products.\n\n2.0 SCOPE. This covers supply.\n"
            "2.1 The Supplier supplies.\n\n3.0 PAYMENT. Net 30.\n3.1 Invoices are monthly.\n")
    clauses = split_contract(text).clauses
    assert [c.title for c in clauses] == ["DEFINITIONS", "SCOPE", "PAYMENT"]
    assert [c.level for c in clauses] == [1, 1, 1]


def test_lettered_roman_and_deep_numbered_sub_clauses_stay_inside():
    text = ("1. Obligations\n1.1 Supplier Duties. The Supplier shall:\n(a) deliver on time;\n"
            "(b) keep stock, including:\n(i) spare parts; and\n(ii) consumables;\n"
            "1.1.2 Reports. Monthly.\n\n2. Payment\n(a) Net 30.\n(b) In euros.\n")
    clauses = split_contract(text).clauses
    assert [c.title for c in clauses] == ["Obligations", "Payment"]
    for line in ("(a) deliver on time;", "(ii) consumables;", "1.1.2 Reports. Monthly."):
        assert line in clauses[0].text


# --------------------------------------------------------------------------- page-long lines (EDGAR)

def test_run_in_headings_inside_page_long_lines():
    page1 = page_line("SERVICES AGREEMENT This agreement is made by A and B. The parties agree as follows:",
                      "1. Services. The Supplier provides the services.", FILLER * 5,
                      "2. Payment. The Customer pays within thirty days.", FILLER * 5)
    page2 = page_line("3. Term. This Agreement runs for two years.", FILLER * 6,
                      "4. Governing Law. This Agreement is governed by the laws of Ohio.", FILLER * 3)
    clauses = split_contract(page1 + "\n\n" + page2 + "\n").clauses
    assert [c.title for c in clauses] == ["Services", "Payment", "Term", "Governing Law"]
    assert clauses[3].text.startswith("This Agreement is governed by the laws of Ohio.")


def test_all_caps_run_in_section_followed_by_numbered_paragraph():
    page = page_line("The parties agree as follows:", "1. SUPPLY 1.1 The Supplier supplies the goods.", FILLER * 4,
                     "2. SALES AND MARKETING 2.1 The Buyer markets the goods.", FILLER * 4,
                     "3. TERMINATION 3.1 Either party may terminate on notice.", FILLER * 2)
    clauses = split_contract(page).clauses
    assert [c.title for c in clauses] == ["SUPPLY", "SALES AND MARKETING", "TERMINATION"]
    assert clauses[1].text.startswith("2.1 The Buyer markets the goods.")


def test_folded_headings_whose_title_ends_in_a_run_of_spaces():
    """EDGAR pages on one line where only a run of spaces ends a heading's title ("   3. Referral
    Fee   For each account ..."): the run is kept as the end of the title; an address number and a
    contents entry with its page number are no headings."""
    sep = "   "
    page1 = sep.join(["AFFILIATE AGREEMENT", "Acme Ltd", "20 Harbour Street East", "Leeds", "The parties agree as follows:",
                      "1. Enrollment in the Program; Restricted Content", "To enroll you submit a form. " + FILLER * 4,
                      "2. Referral Fee", "For each approved account the affiliate earns a fee. " + FILLER * 4])
    page2 = sep.join(["3. Confidentiality", "Each party keeps the other's information secret. " + FILLER * 6,
                      "4. Governing Law", "This Agreement is governed by the laws of Delaware. " + FILLER * 3])
    clauses = split_contract(page_line(page1) + "\n\n" + page_line(page2) + "\n").clauses
    assert [c.title for c in clauses] == ["Enrollment in the Program; Restricted Content", "Referral Fee",
                                          "Confidentiality", "Governing Law"]
    assert clauses[3].text.startswith("This Agreement is governed by the laws of Delaware.")
    toc = sep.join(["CONTENTS", "1.1 Definitions 4", "4.1 Development Program 10 -ii-", "ARTICLE 1 DEFINITIONS",
                    "1.1 Terms. " + FILLER * 6, "ARTICLE 2 DEVELOPMENT", "2.1 Program. " + FILLER * 6])
    assert titles(page_line(toc)) == ["DEFINITIONS", "DEVELOPMENT"]


def test_section_references_inside_a_page_line_do_not_split():
    page = page_line("1. Payment. Fees are due as set out in Section 4.2 below and Exhibit 10.1 PRICES.",
                     FILLER * 5, "2. Term. Two years.", FILLER * 5)
    clauses = split_contract(page).clauses
    assert [c.title for c in clauses] == ["Payment", "Term"]
    assert "Section 4.2 below and Exhibit 10.1 PRICES." in clauses[0].text


def test_running_head_glued_to_page_lines_is_removed_and_reported():
    pages = [page_line("CONFIDENTIAL", f"{n}. Part {n}. The {n}th part of the agreement.", FILLER * 10)
             for n in range(1, 6)]
    text = "\n\nSource: ACME CORP, 10-K, 1/2/2020\n\n".join(pages) + "\n"
    result = split_contract(text)
    assert titles(text) == ["Part 1", "Part 2", "Part 3", "Part 4", "Part 5"]
    assert "CONFIDENTIAL" in result.furniture_removed
    assert all("CONFIDENTIAL" not in c.text and "Source:" not in c.text for c in result.clauses)


# --------------------------------------------------------------------------- exhibits, contents, furniture

def test_exhibits_and_schedules_end_the_last_section():
    text = ("Exhibit 10.1\n\nSUPPLY AGREEMENT\n\n1. Supply\nThe Supplier supplies.\n\n2. Notices\nIn writing.\n\n"
            "EXHIBIT A\nPRICE LIST\nWidgets cost ten dollars.\n\nSchedule 2 - Delivery Locations\nOhio and Texas.\n")
    clauses = split_contract(text).clauses
    assert [c.title for c in clauses] == ["Supply", "Notices", "EXHIBIT A", "Schedule 2 Delivery Locations"]
    assert clauses[1].text == "In writing."
    assert "Widgets cost ten dollars." in clauses[2].text


def test_a_list_of_exhibits_is_not_clauses():
    text = ("1. Supply\nThe Supplier supplies.\n\n2. Exhibits\nThe following are attached:\n\nExhibit A\n"
            "Exhibit B\n\nThe exhibits form part of this agreement.\n")
    assert titles(text) == ["Supply", "Exhibits"]


def test_filing_style_table_of_contents_is_not_clauses():
    text = ("TABLE OF CONTENTS\n\nARTICLE I DEFINITIONS 1\nARTICLE II SUPPLY 4\nARTICLE III TERM 9\n\n"
            "ARTICLE I DEFINITIONS\nWords.\n\nARTICLE II SUPPLY\nGoods.\n\nARTICLE III TERM\nTime.\n")
    result = split_contract(text)
    assert [(c.title, c.text) for c in result.clauses] == [
        ("DEFINITIONS", "Words."), ("SUPPLY", "Goods."), ("TERM", "Time.")]


def test_redaction_marker_lines_are_furniture_but_inline_markers_stay():
    text = "1. Prices\nThe price is [***] per unit.\n\n[***]\n\n2. Volumes\n[ * * * ]\nAt least 100 units.\n"
    result = split_contract(text)
    assert [c.text for c in result.clauses] == ["The price is [***] per unit.", "At least 100 units."]
    assert "[***]" in result.furniture_removed


# --------------------------------------------------------------------------- paragraph fallback

def test_paragraph_fallback_merges_short_blocks_and_splits_long_ones():
    long_block = " ".join(f"Sentence number {i} says the supplier keeps its promise number {i}." for i in range(80))
    text = ("LETTER AGREEMENT\n\nDear Sirs,\n\n" + long_block + "\n\nThis letter is governed by the laws of "
            "Texas and any dispute goes to the courts of Austin, which the parties accept for all purposes "
            "connected with it and with the services described above in this letter agreement.\n\n"
            "Yours,\n\nA. Buyer\n")
    result = split_contract(text)
    assert result.segmentation == "paragraphs" and result.title == "LETTER AGREEMENT"
    assert "paragraph block" in result.warning
    clauses = result.clauses
    assert [c.position for c in clauses] == list(range(1, len(clauses) + 1))
    assert len(clauses) >= 3 and all(len(c.text) <= 2600 for c in clauses)
    assert clauses[0].text.startswith("Dear Sirs,")              # the short greeting joins the next block
    assert clauses[-1].text.endswith("A. Buyer")                  # short closing lines join the last one
    assert all(c.heading == "" and c.level == 1 and c.title for c in clauses)
    assert any("laws of Texas" in c.text for c in clauses)
    assert all("LETTER AGREEMENT" not in c.text for c in clauses)
    # nothing is lost
    joined = " ".join(" ".join(c.text.split()) for c in clauses)
    assert "Sentence number 79 says" in joined and "Sentence number 0 says" in joined


def test_numbered_paragraphs_without_headings_stay_apart():
    # a letter of numbered provisions: "8. This letter is governed by Swedish law." is a clause of its
    # own, so the section reader sees the law alone and not joined to the confidentiality before it
    items = ["We will store and dispatch your goods as instructed through our portal.",
             "We will pick at least 99.5% of order lines correctly in each calendar month.",
             "Either of us may end this arrangement on three months' written notice, for any reason.",
             "This letter is governed by Swedish law."]
    text = ("Dear Sirs,\n\n" + "\n\n".join(f"{i}. {item}" for i, item in enumerate(items, 1)) +
            "\n\nYours faithfully,\n\nA. Seller\n")
    clauses = split_contract(text).clauses
    assert [c.text.split("\n\n")[-1 if i == 0 else 0] for i, c in enumerate(clauses)] == \
        [f"{i}. {item}" for i, item in enumerate(items, 1)]
    assert clauses[0].text.startswith("Dear Sirs,")               # the greeting still joins the first
    assert clauses[-1].text.endswith("A. Seller")                  # the closing lines join the last
    assert clauses[-1].title == "This letter is governed by Swedish law"


def test_headings_that_cover_little_of_a_long_text_fall_back_to_paragraphs():
    prose = "\n\n".join(f"Paragraph {i}. " + FILLER * 6 for i in range(12))
    text = prose + "\n\n1. Signatures\nSigned.\n\n2. Witnesses\nWitnessed.\n"
    result = split_contract(text)
    assert result.segmentation == "paragraphs"
    assert "cover only" in result.warning
    assert any("Paragraph 0." in c.text for c in result.clauses)


# --------------------------------------------------------------------------- run-in titles without a full stop


def test_unevenly_indented_headings_of_one_sequence_are_one_level():
    # EDGAR exports indent some section headings and not others; the numbering never restarts
    body = " of this agreement applies to both parties for its whole term and beyond it.\n\n"
    text = ("1. SCOPE\nThe scope" + body + "   2. INVESTMENT\nThe investment" + body +
            "   3. TERM\nThe term" + body + "4. COORDINATION\nThe coordination" + body +
            "   5. REMEDIES\nThe remedies" + body)
    assert titles(text) == ["SCOPE", "INVESTMENT", "TERM", "COORDINATION", "REMEDIES"]

# --------------------------------------------------------------------------- inline headings


def test_run_in_title_ended_by_its_first_sub_clause_is_a_heading():
    # EDGAR page-long lines: the title has no full stop, only "N.1" repeating its number ends it
    names = ["Definitions", "Term of Employment", "Place of Work", "Payment in Lieu of Notice", "Garden Leave"]
    page = "AGREED TERMS " + " ".join(
        f"{i}. {name} {i}.1 The {name.lower()} terms apply to the Executive from the start date onwards. "
        f"{i}.2 The Company may vary the {name.lower()} terms by notice in writing to the Executive."
        for i, name in enumerate(names, 1))
    assert len(page) > 800 and "\n" not in page
    assert titles(page) == names
    clause = split_contract(page).clauses[0]
    assert clause.text.startswith("1.1 The definitions terms apply")



def test_run_in_title_ended_by_its_first_sub_clause_on_ordinary_lines():
    tail = " and the sentence goes on long enough to read as the body of a real clause in a contract."
    text = (f"1. Definitions 1.1 In this Agreement words have their meanings{tail}\n1.2 Headings are ignored{tail}\n"
            f"2. Services 2.1 The Supplier provides the services{tail}\n3. Fees 3.1 The Customer pays the fees{tail}\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Definitions", "Services", "Fees"]
    assert result.clauses[1].text.startswith("2.1 The Supplier provides the services")


def test_point_zero_section_numbers_with_run_in_titles():
    body = " ".join(f"{i}.0 {name} {i}.1. The {name.lower()} of this agreement apply to both parties. {i}.2. "
                    f"Either party may raise a question about the {name.lower()} in writing at any time."
                    for i, name in enumerate(["Services", "Payment", "Period of the Agreement", "Termination",
                                              "Notices", "General Provisions"], 1))
    text = 'This Master Service Agreement is entered into by CRO and Client ("Client"). ' + body
    assert titles(text) == ["Services", "Payment", "Period of the Agreement", "Termination", "Notices",
                            "General Provisions"]


def test_all_caps_heading_glued_to_the_end_of_the_paragraph_before_it():
    names = ["SCOPE", "PARTIES OBLIGATIONS", "JV FUND", "DURATION", "GOVERNING LAW AND DISPUTES"]
    lines = ["NOW, THEREFORE, the Parties agree as follows: 1. SCOPE"]
    for i, name in enumerate(names[1:], 2):
        lines.append(f"The {names[i - 2].lower()} provisions bind both Parties for the whole term of this "
                     f"joint venture agreement. {i}. {name}")
    lines.append("All disputes go to the courts of Milan.")
    result = split_contract("\n".join(lines) + "\n")
    assert [c.title for c in result.clauses] == names
    assert result.clauses[-1].text == "All disputes go to the courts of Milan."


def test_a_reference_before_a_capitalised_line_end_is_not_a_heading():
    text = ("1. Fees\nThe fees are listed in Schedule 2. PRICE LIST\nThey are payable monthly.\n\n"
            "2. Term\nThe term is one year.\n")
    assert titles(text) == ["Fees", "Term"]


def test_sub_number_of_another_section_or_a_sentence_does_not_cut_a_title():
    text = ("1. Services\nThe supplier provides services described in 2.1 below.\n\n"
            "2. Fees and expenses are payable as set out in 3.1 of the schedule.\n\n3. Term\nOne year.\n")
    result = split_contract(text)
    assert "Fees and expenses are payable" not in [c.title for c in result.clauses]
    assert "The supplier provides services described in 2.1 below." in result.clauses[0].text


def test_run_in_title_told_from_its_body_by_the_sentence_that_opens_it():
    sections = [("Business of Distributor", "Distributor is and shall remain an independent contractor"),
                ("Term", "The term of this Agreement shall commence on the Effective Date"),
                ("Expenses", "The Company shall reimburse reasonable travel expenses"),
                ("Benefits", "During the course of employment the Executive may join benefit plans")]
    text = page_line(*(f"{i}. {t} {b} and this goes on. {FILLER * 2}" for i, (t, b) in enumerate(sections, 1)))
    result = split_contract(text)
    assert [c.title for c in result.clauses] == [t for t, _ in sections]
    assert result.clauses[1].text.startswith("The term of this Agreement shall commence")


def test_numbered_sentences_and_all_caps_disclaimers_are_not_run_in_titles():
    text = ("1. Services\n" + FILLER + "\n2. Sakura Systems will provide the support services described in the "
            "schedule to the customer at all times.\n3. Each Party shall keep the other informed of all material "
            "developments in the program and its results.\n4. EXCEPT IN THE CASE OF A BREACH OF SECTION 3, IN NO "
            "EVENT WILL EITHER PARTY BE LIABLE FOR ANY INDIRECT DAMAGES WHATSOEVER.\n\n2. Fees\n" + FILLER + "\n")
    assert titles(text) == ["Services", "Fees"]


def test_numbered_terms_in_a_late_attachment_do_not_hide_all_caps_sections():
    caps = ["PRODUCTS", "PRICING", "QUALITY", "AUDIT", "TERMINATION", "GOVERNING LAW"]
    body = "\n\n".join(f"{name}\n\n{FILLER * 3}" for name in caps)
    terms = "\n".join(f"{i}. {t} The buyer and the seller agree that {t.lower()} follows the order and {FILLER}"
                      for i, t in enumerate(["Payment", "Taxes", "Credit"], 1))
    text = "MASTER SUPPLY AGREEMENT\n\n" + body + "\n\nATTACHMENT B\n\nStandard terms\n" + terms + "\n"
    assert titles(text)[:len(caps)] == caps



# --------------------------------------------------------------------------- Chinese layouts

ZH_BODY = "双方应按照本合同约定履行各自的义务，任何一方违约的，应承担相应的违约责任并赔偿对方损失。"


def test_chinese_articles_run_together_on_one_line():
    # text pulled out of a PDF: the articles on one line, a reference to an article inside a sentence
    text = ("服务合同 第一条 服务范围 " + ZH_BODY * 3 + " 第二条 服务费用 " + ZH_BODY * 3 +
            " 第三条 适用法律 本合同适用中华人民共和国法律。依照第二条的规定，" + ZH_BODY * 3)
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["服务范围", "服务费用", "适用法律"]
    assert "依照第二条的规定" in result.clauses[2].text


def test_chinese_list_headings_run_together_on_one_line():
    text = "服务合同。一、服务范围：" + ZH_BODY * 3 + "二、服务费用：" + ZH_BODY * 3 + "三、适用法律：本合同适用中华人民共和国法律。" + ZH_BODY * 3
    assert titles(text) == ["服务范围", "服务费用", "适用法律"]


def test_chinese_titles_after_bare_numbers():
    text = ("服务合同\n\n1 服务范围\n1.1 " + ZH_BODY + "\n1.2 " + ZH_BODY + "\n2 服务费用\n2.1 " + ZH_BODY +
            "\n30 天内付款\n3 适用法律\n3.1 本合同适用中华人民共和国法律。\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["服务范围", "服务费用", "适用法律"]
    assert "30 天内付款" in result.clauses[1].text


# --------------------------------------------------------------------------- other common layouts

def test_chinese_headings_in_lenticular_brackets():
    body = "双方应当按照本协议的约定履行各自的义务，并对履行过程中知悉的对方信息承担保密责任。" * 2
    text = "技术服务协议\n\n" + "".join(f"【{t}】\n{body}\n\n" for t in ["服务内容", "服务费用", "争议解决"])
    assert titles(text) == ["服务内容", "服务费用", "争议解决"]


def test_section_sign_headings_as_in_german_drafted_contracts():
    text = (f"§ 1 Subject Matter\n{FILLER}\n§ 2 Services\n{FILLER}\n§3. Liability\n{FILLER}\n"
            f"§ 4 Governing Law\nGerman law applies. § 5 of the Framework Agreement stays in force.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Subject Matter", "Services", "Liability", "Governing Law"]
    assert "§ 5 of the Framework Agreement" in result.clauses[3].text


def test_roman_and_lettered_section_headings():
    assert titles(f"I. Definitions\n{FILLER}\nII. Services\n{FILLER}\nIII. Fees\n{FILLER}") == [
        "Definitions", "Services", "Fees"]
    assert titles(f"A. Services\n{FILLER}\nB. Fees\n{FILLER}\nC. Governing Law\n{FILLER}") == [
        "Services", "Fees", "Governing Law"]


def test_title_case_letters_under_numbered_sections_and_lettered_recitals_stay_inside():
    text = (f"SUPPLY AGREEMENT\nA. The Company is a supplier of goods.\nB. The Buyer wishes to buy goods.\n"
            f"1. Services\n{FILLER}\nA. Hardware\n{FILLER}\nB. Software\n{FILLER}\n2. Fees\n{FILLER}\n3. Term\n{FILLER}")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Services", "Fees", "Term"]
    assert "B. Software" in result.clauses[0].text


def test_markdown_setext_headings():
    text = (f"Cloud Agreement\n===============\n\nServices\n--------\n{FILLER}\n\nFees\n----\n{FILLER}\n\n"
            f"Term\n----\n{FILLER}\n\n---\n\nSigned.\n")
    result = split_contract(text)
    assert result.title == "Cloud Agreement"
    assert [c.title for c in result.clauses] == ["Services", "Fees", "Term"]
    assert "----" not in result.clauses[0].text


def test_bold_title_lines_as_word_exports_them():
    text = (f"**Cloud Agreement**\n\nThis agreement is made between A and B.\n\n**Services**\n{FILLER}\n"
            f"**Fees**\n{FILLER}\n**Governing Law**\nThe laws of Ireland apply.\n")
    assert titles(text) == ["Services", "Fees", "Governing Law"]


# --------------------------------------------------------------------------- hard-wrapped text filings


def test_bare_section_lines_are_headings_not_running_heads():
    # "Section 1" repeats (digits aside) on every section: furniture removal must leave headings alone
    text = "MASTER SERVICES AGREEMENT\n\n" + "\n\n".join(
        f"Section {i}\n\n{FILLER}Topic {i} is settled here." for i in range(1, 6))
    result = split_contract(text)
    assert result.segmentation == "headings" and result.furniture_removed == []
    assert [c.heading for c in result.clauses] == [f"Section {i}" for i in range(1, 6)]


def test_underlined_signature_lines_do_not_make_a_markdown_document():
    sections = "".join(f"{i}. {t}\n\n{FILLER * 3}\n\n" for i, t in enumerate(["Services", "Fees", "Term"], 1))
    signatures = ("IN WITNESS WHEREOF the parties have signed.\n\nACME LTD\n\n/s/ Jane Roe\n"
                  "------------------------\n\nBETA GMBH\n\n/s/ John Doe\n------------------------\n")
    assert titles(sections + signatures) == ["Services", "Fees", "Term"]


def test_a_wrapped_line_opening_with_a_cross_reference_is_not_a_heading():
    # a hard-wrapped sentence may put "Section 8.3(a)" at the start of a line
    assert plain_heading("Section 8.3(a)(i) or Section 8.3(a)(ii).") is None
    assert plain_heading("Section 2.2(a)(i) of this Agreement.") is None
    assert plain_heading("Section 8.3 Suits for Infringement.").title.startswith("Suits for Infringement")


def test_uneven_indentation_still_one_level_where_an_exhibit_restarts_numbering():
    # unfolded EDGAR pages indent some headings; the exhibit's "1." restarts the numbering
    body = " of this agreement applies to both parties for its whole term and beyond it.\n\n"
    text = ("1. Scope. The scope" + body + "    2. Fees. The fees" + body + "3. Term. The term" + body +
            "    4. Notices. Notices" + body + "EXHIBIT A\n\nPRICES\n\n1. Hardware. The hardware" + body +
            "2. Software. The software" + body)
    assert titles(text)[:4] == ["Scope", "Fees", "Term", "Notices"]


def test_articles_numbered_in_words_and_abbreviated_keywords():
    sections = [("ONE", "DEFINITIONS"), ("TWO", "SERVICES"), ("THREE", "FEES"), ("TWENTY-ONE", "GOVERNING LAW")]
    text = "".join(f"ARTICLE {n}\n{t}\n\n{FILLER * 2}\n\n" for n, t in sections)
    assert titles(text) == ["DEFINITIONS", "SERVICES", "FEES", "GOVERNING LAW"]
    text = "".join(f"Article {n} - {t.title()}\n\n{FILLER * 2}\n\n" for n, t in [("First", "Scope"), ("Second", "Fees")])
    assert titles(text) == ["Scope", "Fees"]
    text = "".join(f"Sec. {i}. {t}. {FILLER * 2}\n\n" for i, t in enumerate(["Definitions", "Services", "Fees"], 1))
    assert titles(text) == ["Definitions", "Services", "Fees"]
    text = "".join(f"Art. {i} {t}\n\n{FILLER * 2}\n\n" for i, t in enumerate(["Gegenstand", "Vergütung", "Gerichtsstand"], 1))
    assert titles(text) == ["Gegenstand", "Vergütung", "Gerichtsstand"]


def test_a_word_after_section_is_not_a_number():
    assert plain_heading("Section Headings") is None
    assert plain_heading("Part Time Staff") is None
    assert plain_heading("Section Three of the Agreement is amended to read as follows.") is None


def test_a_number_on_its_own_line_above_its_title():
    # text pulled out of a PDF often leaves "1." and its title on separate lines
    text = "".join(f"{i}.\n{t}\n\n{FILLER * 2}\n\n" for i, t in enumerate(["Definitions", "Services", "Fees"], 1))
    assert titles(text) == ["Definitions", "Services", "Fees"]
    text = f"1. Delivery\n\nThe supplier delivers:\n\n1.\nThe supplier shall deliver the goods on time.\n\n{FILLER}"
    assert "The supplier shall deliver the goods on time." in split_contract(text).clauses[0].text


def test_english_numbers_cardinal_and_ordinal():
    from core.numerals import english_number

    assert [english_number(w) for w in ("ONE", "Twenty-One", "third", "TWENTY-FIRST", "twentieth", "ninety-nine")] == \
        [1, 21, 3, 21, 20, 99]
    assert english_number("Services") is None and english_number("zero") is None


def test_words_broken_at_line_ends_are_joined_and_compounds_keep_their_hyphen():
    text = ("1. Termination\n\nEither party may end this Agreement on written notice; the termi-\n"
            "nation takes effect after thirty days. The indemni-\nfication in Section 2 survives.\n\n"
            "2. Sub-processors\n\nThe Supplier may engage a sub-\nprocessor with consent, on a non-\n"
            "exclusive basis; each sub-processor is bound in writing.\n")
    first, second = split_contract(text).clauses
    assert "the termination takes effect" in " ".join(first.text.split())
    assert "The indemnification in Section 2" in " ".join(first.text.split())
    flat = " ".join(second.text.split())
    assert "engage a sub-processor with consent, on a non-exclusive basis;" in flat


def test_a_word_broken_over_a_page_break_is_joined():
    body = "\n".join(["The Supplier keeps the Services running and reports on them."] * 30)
    text = (f"1. Service Levels\n\n{body}\nThe Supplier pays service cred-\n\n- 2 -\n\f\n"
            "its when availability falls below the target.\n\n2. Fees\n\nFees are due monthly.\n")
    first = split_contract(text).clauses[0]
    assert "pays service credits when availability" in " ".join(first.text.split())


def test_a_contents_entry_wrapped_over_two_lines_is_no_section():
    text = ("TABLE OF CONTENTS\n\n1. Definitions 1\n2. Confidentiality and Protection of Trade\nSecrets 3\n"
            "3. Governing Law 5\n\n1. Definitions\n\n" + FILLER + "\n\n2. Confidentiality and Protection of Trade Secrets\n\n"
            + FILLER + "\n\n3. Governing Law\n\nThe laws of New York apply.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Definitions", "Confidentiality and Protection of Trade Secrets",
                                                 "Governing Law"], [(c.title, c.text[:30]) for c in result.clauses]

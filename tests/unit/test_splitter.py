"""Clause splitting, cleaning and dedupe (pure Python: no database needed)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.ingest.cleaning import dedupe_clauses, normalize_text, remove_page_furniture
from core.ingest.splitter import ClauseDraft, split_contract

# real agreement texts (CC BY 4.0 / CC0; provenance in the folder's README), copied from the shared data
PUBLIC = Path(__file__).resolve().parent.parent / "fixtures" / "public-agreements"


def titles(text: str) -> list[str]:
    return [c.title for c in split_contract(text).clauses]


# --------------------------------------------------------------------------- heading styles

@pytest.mark.parametrize("text, expected", [
    ("# Title\n\n## Availability\nUp.\n\n## Support\nHelp.\n", ["Availability", "Support"]),
    ("1. Availability\nUp 99.9%.\n\n2. Support\nHelp desk.\n", ["Availability", "Support"]),
    ("1) Scope\nThe scope.\n2) Fees\nThe fees.\n", ["Scope", "Fees"]),
    ("2.1 Fees\nPay.\n2.2 Taxes\nAlso pay.\n", ["Fees", "Taxes"]),
    ("Section 4 Payment\nPay now.\nSection 5 Term\nOne year.\n", ["Payment", "Term"]),
    ("SECTION 4. PAYMENT\nPay now.\nSECTION 5. TERM\nOne year.\n", ["PAYMENT", "TERM"]),
    ("Article 12 Termination\nEnd it.\nArticle 13 Notices\nWrite.\n", ["Termination", "Notices"]),
    ("Clause 7 Liability\nCapped.\nClause 8 Law\nGerman law.\n", ["Liability", "Law"]),
    ("ARTICLE XI – FEES\nPay.\n\nARTICLE XII – TERMINATION\nEnd.\n", ["FEES", "TERMINATION"]),
    ("第一条 服务可用性\n乙方保证可用性。\n第二条 服务费用\n甲方支付费用。\n", ["服务可用性", "服务费用"]),
    ("第十一条 保密\n双方保密。\n第十二条 争议解决\n协商解决。\n", ["保密", "争议解决"]),
    ("一、服务内容\n提供服务。\n二、付款方式\n按月付款。\n", ["服务内容", "付款方式"]),
    ("## 3. Fees\nPay.\n## 4. Term\nLong.\n", ["Fees", "Term"]),
    ("## 1 Services\nWe serve.\n## 2 Fees\nPay.\n", ["Services", "Fees"]),
    ("**1. Scope**\nThe scope.\n**2. Fees**\nPay.\n", ["Scope", "Fees"]),
    ("1.PROMOTION OFFER:\nOffer.\n2.FEES:\nPay.\n", ["PROMOTION OFFER", "FEES"]),
    ("1、服务内容\n提供服务。\n2、付款方式\n按月付款。\n", ["服务内容", "付款方式"]),
    ("PRODUCTS, QUANTITY, PRICE\nSome text.\n\nPAYMENT TERMS\nNet 30.\n", ["PRODUCTS, QUANTITY, PRICE", "PAYMENT TERMS"]),
    ("A. AUTHORITY OF AGENCY\nMay sell.\n\nB. BILLED POLICIES\nBilled.\n", ["AUTHORITY OF AGENCY", "BILLED POLICIES"]),
])
def test_heading_styles(text, expected):
    result = split_contract(text)
    assert [c.title for c in result.clauses] == expected
    assert all(c.text for c in result.clauses)
    assert [c.position for c in result.clauses] == list(range(1, len(expected) + 1))


def test_clause_text_excludes_heading_and_keeps_full_body():
    text = "1. Availability\nThe service is available.\nDowntime is measured monthly.\n\n2. Support\nHelp.\n"
    first = split_contract(text).clauses[0]
    assert first.text == "The service is available.\nDowntime is measured monthly."
    assert first.heading == "1. Availability"
    assert first.level == 1


def test_chinese_article_without_words_takes_title_from_body():
    text = "第5条\n乙方应保证服务可用性达到百分之九十九点九，否则应予以赔偿。\n第6条\n甲方应按月支付服务费用。\n"
    clauses = split_contract(text).clauses
    assert len(clauses) == 2
    assert clauses[0].title.startswith("乙方应保证服务可用性")
    assert len(clauses[0].title) <= 21
    assert clauses[0].heading == "第5条"


def test_markdown_clause_number_without_words_uses_bold_line_as_title():
    text = "# SCC\n\n## Clause 1\n\n**Purpose and scope**\n\nThese clauses apply.\n\n## Clause 2\n\n**Invariability**\n\nNo changes.\n"
    assert titles(text) == ["Purpose and scope", "Invariability"]


# --------------------------------------------------------------------------- levels and preamble


def test_title_and_preamble_are_not_clauses():
    text = ("# Master Services Agreement\n\nThis agreement is made between A and B.\n\n"
            "## Definitions\nTerms.\n\n## Fees\nMoney.\n")
    result = split_contract(text)
    assert result.title == "Master Services Agreement"
    assert result.preamble == "This agreement is made between A and B."
    assert [c.title for c in result.clauses] == ["Definitions", "Fees"]
    assert [c.level for c in result.clauses] == [2, 2]


def test_section_level_is_shallowest_repeated_and_deeper_headings_stay_inside():
    text = ("ARTICLE 1 DEFINITIONS\n1.1 Affiliate. Any controlled entity.\n1.2 Service. The hosting.\n\n"
            "ARTICLE 2 FEES\n2.1 Invoices. Monthly.\n2.2 Late Payment. Interest applies.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["DEFINITIONS", "FEES"]
    assert "1.2 Service. The hosting." in result.clauses[0].text
    assert result.clauses[1].text.startswith("2.1 Invoices. Monthly.")


def test_chinese_chapters_are_higher_and_sub_items_deeper():
    text = ("第一章 总则\n第一条 定义\n本协议术语定义如下。\n（一）服务：指乙方提供的服务。\n（二）费用：指服务费。\n"
            "第二条 范围\n适用于全部服务。\n第二章 服务\n第三条 可用性\n乙方保证可用性。\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["总则", "服务"]
    assert "（一）服务：指乙方提供的服务。" in result.clauses[0].text
    assert "第二条 范围" in result.clauses[0].text


def test_single_chapter_heading_goes_to_preamble_and_articles_split():
    text = "第一章 总则\n第一条 定义\n术语。\n第二条 范围\n范围。\n（一）服务\n子项。\n"
    result = split_contract(text)
    assert result.title == "总则"
    assert [c.title for c in result.clauses] == ["定义", "范围"]
    assert "（一）服务" in result.clauses[1].text


def test_single_heading_level_above_repeated_level_is_title_even_when_repeated_later():
    text = ("# Data Protection Agreement\n\n## Introduction\nIntro text that is long enough. " + "x" * 200 +
            "\n\n## Definitions\nDefined terms. " + "y" * 200 + "\n\n# Appendix A\nSecurity.\n\n# Appendix B\nTransfers.\n")
    result = split_contract(text)
    assert result.title == "Data Protection Agreement"
    assert [c.title for c in result.clauses] == ["Introduction", "Definitions", "Appendix A", "Appendix B"]


def test_indented_numbered_items_are_nested_inside():
    text = ("# Service Level Agreement\n\n1. **Uptime**\n    1. **Target.** Provider will aim for 99.9%.\n"
            "    2. **Calculation.** Minutes divided by minutes.\n\n2. **Remedies**\n    1. **Credit.** Customer gets credit.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Uptime", "Remedies"]
    assert "2. **Calculation.**" in result.clauses[0].text



def test_inline_headings_split_title_from_text():
    text = ("7. Termination. Either party may terminate this agreement on notice.\n"
            "8. Notices. Notices must be in writing.\n")
    clauses = split_contract(text).clauses
    assert [(c.title, c.text) for c in clauses] == [
        ("Termination", "Either party may terminate this agreement on notice."),
        ("Notices", "Notices must be in writing.")]


def test_inline_heading_with_colon():
    text = "12.1 Fees: Customer shall pay all fees.\n12.2 Taxes: Customer pays taxes.\n"
    assert [(c.title, c.text) for c in split_contract(text).clauses] == [
        ("Fees", "Customer shall pay all fees."), ("Taxes", "Customer pays taxes.")]


def test_run_in_headings_on_one_huge_line_are_unfolded():
    body = "The parties agree as follows: " + " ".join(
        f"{i}. {name}. The {name.lower()} provisions apply here and continue for a while {'x' * 300}."
        for i, name in enumerate(["Services", "Payment", "Termination", "Confidentiality", "Notices"], 1))
    assert titles(body) == ["Services", "Payment", "Termination", "Confidentiality", "Notices"]


# --------------------------------------------------------------------------- false heading traps


def test_numbered_list_items_inside_a_clause_are_not_headings():
    text = ("1. Obligations\nThe Provider shall:\n1. Maintain backups\n2. Restore data\n3. Report incidents\n\n"
            "2. Payment\nThe customer pays:\n1. the monthly fee;\n2. the setup fee, and\n3. taxes.\n\n3. Term\nOne year.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Obligations", "Payment", "Term"]
    assert "2. Restore data" in result.clauses[0].text


def test_sentences_amounts_and_dates_are_not_headings():
    text = ("1. Service Levels\n"
            "2.5 hours of maintenance are allowed per month.\n"
            "1. the Customer shall notify the Provider in writing within five days of the incident;\n"
            "2024. This year is a year.\n"
            "12.31.2024 is the end date.\n"
            "3. Provider shall refund the fees paid in the affected month.\n"
            "Section 4.2 of the Master Agreement is amended.\n\n"
            "2. Fees\nPay.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Service Levels", "Fees"]
    assert "Section 4.2 of the Master Agreement is amended." in result.clauses[0].text


def test_numbering_restart_inside_clause_is_not_a_new_clause():
    text = ("1. Scope\nIntro.\n\n2. Definitions\nText.\n\n1. Extra Item\nstray list item.\n\n3. Fees\nPay.\n")
    assert titles(text) == ["Scope", "Definitions", "Fees"]


def test_no_headings_gives_one_flagged_paragraph_clause():
    result = split_contract("Just a letter.\nWith two lines of prose, no structure.\n")
    assert result.segmentation == "paragraphs"
    assert "no section headings found" in result.warning
    assert [(c.title, c.text) for c in result.clauses] == [
        ("Just a letter", "Just a letter.\nWith two lines of prose, no structure.")]


def test_headed_contract_is_flagged_as_headings():
    result = split_contract("1. Scope\nThe scope.\n\n2. Fees\nThe fees.\n")
    assert result.segmentation == "headings" and result.warning is None


# --------------------------------------------------------------------------- tables of contents


def test_table_of_contents_with_page_numbers_is_not_clauses():
    text = ("SERVICES AGREEMENT\n\nTABLE OF CONTENTS\n1. Definitions ........ 1\n2. Services ......... 3\n"
            "3. Fees ............. 5\n\n1. Definitions\nTerms used.\n\n2. Services\nWhat we do.\n\n3. Fees\nMoney.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Definitions", "Services", "Fees"]
    assert all(c.text for c in result.clauses)


def test_table_of_contents_without_page_numbers_is_not_clauses():
    text = ("CONTENTS\nARTICLE 1 DEFINITIONS\nARTICLE 2 SERVICES\nARTICLE 3 FEES\nARTICLE 4 TERM\n\n"
            "ARTICLE 1 DEFINITIONS\nTerms.\nARTICLE 2 SERVICES\nWork.\nARTICLE 3 FEES\nMoney.\nARTICLE 4 TERM\nTime.\n")
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["DEFINITIONS", "SERVICES", "FEES", "TERM"]
    assert [c.text for c in result.clauses] == ["Terms.", "Work.", "Money.", "Time."]


# --------------------------------------------------------------------------- cleaning


def test_normalize_text():
    raw = "Ｆｅｅｓ：ＵＳＤ １００\u00a0 per\tmonth  \r\n“quoted” ‘x’\r\n服务费用：每月支付（含税）。  \n\n\n\nend"
    out = normalize_text(raw)
    lines = out.split("\n")
    assert lines[0] == "Fees:USD 100 per month"
    assert lines[1] == '"quoted" \'x\''
    assert lines[2] == "服务费用：每月支付（含税）。"   # Chinese punctuation kept in Chinese text
    assert lines[3] == "" and lines[4] == "end"        # runs of blank lines collapse
    assert "\r" not in out


def test_normalize_keeps_indentation():
    assert normalize_text("1. A\n    1. nested  item") == "1. A\n    1. nested item\n"


def test_page_furniture_removed_and_reported():
    pages = []
    for n in range(1, 5):
        pages.append(f"ACME CORP CONFIDENTIAL\n\n{n}. Section {n}\nBody of section {n} with real words.\n"
                     f"More text for the section number {n}.\n\nPage {n} of 4\n")
    text = "\f".join(pages)
    result = split_contract(text)
    assert [c.title for c in result.clauses] == ["Section 1", "Section 2", "Section 3", "Section 4"]
    joined = "\n".join(c.text for c in result.clauses)
    assert "Page" not in joined and "CONFIDENTIAL" not in joined
    assert "Page 2 of 4" in result.furniture_removed
    assert "ACME CORP CONFIDENTIAL" in result.furniture_removed


@pytest.mark.parametrize("line", ["- 3 -", "第 2 页 共 5 页", "Page 7", "共5页 第2页"])
def test_page_number_styles(line):
    cleaned, removed = remove_page_furniture(f"First para.\n\n{line}\n\nSecond para.")
    assert line not in cleaned and removed == [line]


def test_furniture_keeps_single_headings_and_sentences():
    text = ("Confidential\n\n1. Scope\nThe scope.\n\nConfidential\n\n" + "filler line\n" * 12 +
            "Confidential\n\n2. Fees\nThe fees are due.\n\nConfidential\n\n3. Term\nThe scope.\n")
    cleaned, removed = remove_page_furniture(text)
    assert "Confidential" not in cleaned
    assert "1. Scope" in cleaned and "2. Fees" in cleaned and "The fees are due." in cleaned
    assert set(removed) == {"Confidential"}


def test_repeated_address_block_without_page_evidence_is_kept():
    block = "Acme GmbH\n\nHauptstrasse 1\n\n10115 Berlin\n"
    text = ("## Notices\n" + block + "\n" + "text\n" * 20 + "## Contacts\n" + block + "\n" + "more\n" * 20
            + "## Annex\n" + block)
    cleaned, removed = remove_page_furniture(text)
    assert removed == [] and cleaned.count("Hauptstrasse 1") == 3


# --------------------------------------------------------------------------- dedupe


def test_dedupe_drops_identical_and_near_identical_and_renumbers():
    drafts = [
        ClauseDraft(1, "Fees", "The Customer pays the monthly fee within 30 days of the invoice date.", "1. Fees", 1),
        ClauseDraft(2, "Term", "One year, renewed automatically.", "2. Term", 1),
        ClauseDraft(3, "Fees", "The Customer pays the monthly fee within 30 days of the invoice date.", "3. Fees", 1),
        ClauseDraft(4, "Fees", "The Customer pays the monthly fee within 30 days of the invoice date!", "4. Fees", 1),
        ClauseDraft(5, "Notices", "In writing.", "5. Notices", 1),
    ]
    kept, dropped = dedupe_clauses(drafts)
    assert [c.title for c in kept] == ["Fees", "Term", "Notices"]
    assert [c.position for c in kept] == [1, 2, 3]
    assert [(k, d) for k, d, _ in dropped] == [(1, 3), (1, 4)]
    assert dropped[0][2] == 1.0 and 0.95 <= dropped[1][2] < 1.0


def test_dedupe_keeps_different_short_clauses():
    drafts = [ClauseDraft(1, "Term", "Term: 1 year", "1.", 1), ClauseDraft(2, "Term", "Term: 2 years", "2.", 1)]
    kept, dropped = dedupe_clauses(drafts)
    assert len(kept) == 2 and dropped == []


# --------------------------------------------------------------------------- real agreements

EXPECTED_PUBLIC = {  # file -> (minimum clauses, a title that must be present)
    "commonpaper-cloud-service-agreement.md": (10, "Term & Termination"),
    "commonpaper-data-processing-agreement.md": (8, "Restricted Transfers"),
    "commonpaper-professional-services-agreement.md": (10, "Confidentiality"),
    "commonpaper-service-level-agreement.md": (4, "Remedies"),
    "github-data-protection-agreement.md": (8, "Definitions"),
    "github-enterprise-service-level-agreement.md": (3, "Service Credits Redemption"),
    "github-enterprise-subscription-agreement.md": (3, "GENERAL TERMS AND CONDITIONS"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_PUBLIC))
def test_public_agreements_split_reasonably(name):
    minimum, must_have = EXPECTED_PUBLIC[name]
    text = (PUBLIC / name).read_text(encoding="utf-8")
    result = split_contract(text)
    assert minimum <= len(result.clauses) <= 60
    assert must_have in [c.title for c in result.clauses]
    assert result.title
    for clause in result.clauses:
        assert clause.title.strip() and clause.text.strip()
        assert not re.search(r"\bPage \d+ of \d+\b", clause.text)
    # nothing is lost: every clause text occurs in the cleaned document
    assert sum(len(c.text) for c in result.clauses) > 0.8 * len(text) - len(result.preamble) - 2000


def test_public_agreements_are_all_covered():
    assert {p.name for p in PUBLIC.glob("*.md")} - {"README.md"} == set(EXPECTED_PUBLIC)


def test_a_lone_bare_number_of_an_address_is_no_heading():
    # a letter: "14 Quayside, ..." of the address and "1 August 2022" read as bare-numbered
    # headings; only one survives the numbering, so none is used and the numbered paragraphs
    # are the clauses
    text = ("Northbridge University\n\nTo: Brightwater Catering Ltd\n14 Quayside, Newcastle upon Tyne NE1 3DX\n\n"
            "1 August 2022\n\nDear Sirs\n\n"
            "1. You will be the only operator permitted to sell hot food on the campus for three years.\n\n"
            "2. You will pay the University a commission of 12 % of net turnover each quarter.\n\n"
            "3. This letter is governed by English law.\n")
    result = split_contract(text)
    titles = [c.title for c in result.clauses]
    assert not any("Quayside" in t for t in titles), titles
    assert any(c.text.startswith("3. This letter is governed by English law") for c in result.clauses), titles


def test_two_bare_numbered_headings_still_split():
    text = "1 Services\nThe supplier provides the services.\n\n2 Governing Law\nEnglish law applies.\n"
    assert [c.title for c in split_contract(text).clauses] == ["Services", "Governing Law"]

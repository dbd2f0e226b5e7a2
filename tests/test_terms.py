"""Contract terms end to end on a real Neo4j: extracted at ingest with their evidence, asked in
English and Chinese, calendared (CSV, iCalendar), corrected by a reviewer (kept on re-ingest) and
checked against the playbook. The corpus is written here, so every expected value is visible."""
from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from core.service import ask
from core.service.terms import (agreement_terms, correct_term, playbook_deviations, renewal_calendar, renewals_csv,
                                renewals_ics, term_disagreements)
from core.ingest.pipeline import ingest_corpus
from tests.conftest import load_corpus

CONTRACTS = {
    "alpha.md": """# Alpha hosting agreement

This Hosting Agreement is made on 1 March 2023 between Alpha Cloud GmbH and the Customer.

## 1. Term
This Agreement commences on 1 April 2023 and continues for an initial term of three (3) years. It renews
automatically for successive one (1) year periods unless either party gives written notice of non-renewal at
least ninety (90) days before the end of the then-current term.

## 2. Termination for convenience
The Customer may terminate this Agreement for convenience at any time on thirty (30) days' written notice.

## 3. Liability
Each party's total aggregate liability shall not exceed the fees paid in the twelve (12) months preceding the claim.

## 4. Service levels
The Supplier shall make the Service available 99.9% of the time in each month.

## 5. Payment
Invoices are payable within forty-five (45) days of receipt.

## 6. Governing law
This Agreement is governed by the laws of Germany.
""",
    "beta.md": """# Beta logistics agreement

This Logistics Agreement is dated 15 June 2022.

## 1. Duration
This Agreement shall remain in force until 31 December 2025 and may be renewed by mutual written agreement.

## 2. Liability
The Supplier's aggregate liability under this Agreement shall not exceed EUR 250,000.

## 3. Governing law
This Agreement shall be governed by English law.
""",
    "gamma.md": """# 伽马云服务协议

本协议于2024年1月10日签订。

## 第一条 期限
本协议有效期为两年，自2024年2月1日起生效。期满前六十日任何一方未书面通知不续约的，本协议自动续期一年。

## 第二条 责任限制
任何一方在本协议项下的累计赔偿责任总额不超过本协议项下前六个月已支付的服务费用。

## 第三条 付款
甲方应在收到发票后30日内支付服务费。

## 第四条 法律适用
本协议适用中华人民共和国法律。
""",
}
COMPANIES = "name,country,industry,aliases\nAlpha Cloud GmbH,Germany,Technology,\nBeta Freight Ltd,United Kingdom,Logistics,\n" \
            "伽马云科技有限公司,China,Technology,Gamma Cloud\n"
AGREEMENTS = "sla_id,company,file,effective_date,service_name,governing_law\n" \
             "T-001,Alpha Cloud GmbH,alpha.md,2023-04-01,Hosting,Germany\n" \
             "T-002,Beta Freight Ltd,beta.md,2022-06-15,Logistics,France\n" \
             "T-003,伽马云科技有限公司,gamma.md,2024-02-01,Cloud,China\n"
SPEND = "company,year,amount,currency\nAlpha Cloud GmbH,2025,500000,EUR\nBeta Freight Ltd,2025,200000,EUR\n" \
        "伽马云科技有限公司,2025,300000,EUR\n"


def write_corpus(root: Path) -> Path:
    (root / "contracts").mkdir(parents=True, exist_ok=True)
    for name, text in CONTRACTS.items():
        (root / "contracts" / name).write_text(text, encoding="utf-8")
    (root / "companies.csv").write_text(COMPANIES, encoding="utf-8")
    (root / "addresses.csv").write_text("company,street,city,postal_code,country\n", encoding="utf-8")
    (root / "agreements.csv").write_text(AGREEMENTS, encoding="utf-8")
    (root / "spend.csv").write_text(SPEND, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def terms_graph(db, embedder, tmp_path_factory):
    root = write_corpus(tmp_path_factory.mktemp("terms"))
    load_corpus(db, root, embedder)
    return root


def _values(sla_id: str) -> dict[str, str]:
    return {r["field"]: r["value"] for r in agreement_terms(sla_id)}


def test_terms_are_read_at_ingest_with_their_evidence(terms_graph):
    alpha = _values("T-001")
    assert alpha["agreement_date"] == "2023-03-01"
    assert alpha["effective_date"] == "2023-04-01"
    assert alpha["expiration_date"] == "2026-04-01"        # three years from 1 April 2023
    assert alpha["initial_term"] == "3 years"
    assert alpha["auto_renewal"] == "yes" and alpha["renewal_term"] == "1 year"
    assert alpha["renewal_notice"] == "90 days"
    assert alpha["convenience_notice"] == "30 days"
    assert alpha["liability_cap"] == "12 months of fees"
    assert alpha["uptime"] == "99.9" and alpha["payment_days"] == "45"
    assert alpha["governing_law"] == "Germany"
    for r in agreement_terms("T-001"):
        assert r["quote"], r
        if r["clause_id"]:
            assert r["clause_id"].startswith("T-001#")
    beta = _values("T-002")
    assert beta["expiration_date"] == "2025-12-31" and beta["auto_renewal"] == "no"
    assert beta["liability_cap"] == "amount EUR 250000" and beta["governing_law"] == "England and Wales"
    gamma = _values("T-003")
    assert gamma["expiration_date"] == "2026-02-01" and gamma["auto_renewal"] == "yes"
    assert gamma["renewal_notice"] == "60 days" and gamma["liability_cap"] == "6 months of fees"
    assert gamma["payment_days"] == "30" and gamma["governing_law"] == "People's Republic of China"


def test_term_questions_in_english_and_chinese_cite_their_evidence(terms_graph):
    r = ask("Which agreements expire in 2026?")
    assert r.plan.intent == "terms"
    assert {e.sla_id for e in r.evidence} == {"T-001", "T-003"}
    assert "HAS_TERM" in r.cypher
    r = ask("到期日在2026年之前的合同")
    assert {e.sla_id for e in r.evidence} == {"T-002"}
    r = ask("Whose liability cap is below 12 months of fees?")
    assert {e.sla_id for e in r.evidence} == {"T-003"}
    r = ask("Which contracts can we end for convenience with 30 days' notice or less?")
    assert {e.sla_id for e in r.evidence} == {"T-001"}
    r = ask("Which agreements renew automatically unless we give notice, and by when must we give it?")
    assert {e.sla_id for e in r.evidence} == {"T-001", "T-003"}
    assert "give notice by 2026-01-01" in r.answer          # 1 April 2026 less 90 days
    assert all(e.text for e in r.evidence)


def test_renewals_calendar_and_its_exports(terms_graph):
    rows = renewal_calendar(today=date(2025, 11, 1))
    by_id = {r.sla_id: r for r in rows}
    assert by_id["T-001"].notice_deadline == "2026-01-01" and by_id["T-001"].action_date == "2026-01-01"
    assert by_id["T-002"].notice_deadline is None and by_id["T-002"].action_date == "2025-12-31"
    assert [r.sla_id for r in rows] == ["T-003", "T-002", "T-001"]   # soonest action first (T-003: 2025-12-03)
    assert {r.sla_id for r in renewal_calendar(today=date(2025, 11, 1), within_days=45)} == {"T-003"}
    assert renewals_csv(rows).splitlines()[0].startswith("company,sla_id")
    ics = renewals_ics(rows)
    assert ics.startswith("BEGIN:VCALENDAR") and ics.count("BEGIN:VEVENT") == 5 and "DTSTART;VALUE=DATE:20260101" in ics


def test_a_reviewers_value_replaces_the_read_one_and_survives_reingest(db, embedder, terms_graph):
    with pytest.raises(ValueError, match="expected a duration"):
        correct_term("T-002", "renewal_notice", "soon")
    correct_term("T-002", "convenience_notice", "60 days")
    (terms_graph / "contracts" / "beta.md").write_text(CONTRACTS["beta.md"] + "\n## 4. Notices\nIn writing.\n",
                                                       encoding="utf-8")
    try:
        report = ingest_corpus(terms_graph, db=db, embedder=embedder)   # no reset: T-002 is replaced
        assert [a.status for a in report.agreements if a.sla_id == "T-002"] == ["replaced"]
        rows = {r["field"]: r for r in agreement_terms("T-002")}
        assert rows["convenience_notice"]["value"] == "60 days" and rows["convenience_notice"]["method"] == "manual"
    finally:
        (terms_graph / "contracts" / "beta.md").write_text(CONTRACTS["beta.md"], encoding="utf-8")


def test_playbook_deviations_and_table_disagreements(terms_graph):
    report = playbook_deviations()
    checks = {(a.sla_id, c.position_id): c.status for a in report.agreements for c in a.checks}
    assert checks[("T-001", "liability-cap")] == "meets"
    assert checks[("T-003", "liability-cap")] == "deviates"           # 6 months of fees < 12
    assert checks[("T-002", "liability-cap")] == "uncertain"          # a fixed amount: not comparable with fees
    assert checks[("T-001", "convenience-exit")] == "meets"
    suppliers = {s["company"]: s for s in report.suppliers()}
    assert suppliers["伽马云科技有限公司"]["spend_at_risk"] == 300000
    assert report.to_csv().splitlines()[0].startswith("company,sla_id")
    disagreements = {(d["sla_id"], d["field"]) for d in term_disagreements()}
    assert ("T-002", "governing_law") in disagreements                  # the table says France, the text England
    assert ("T-001", "governing_law") not in disagreements


def test_the_command_line_mirrors_the_pages(terms_graph, capsys):
    from core.cli import main

    assert main(["terms", "T-001"]) == 0
    out = capsys.readouterr().out
    assert "Alpha Cloud GmbH · T-001" in out and "Notice to prevent renewal" in out and "90 days" in out
    assert main(["renewals", "--today", "2025-11-01", "--within", "45"]) == 0
    out = capsys.readouterr().out
    assert "T-003" in out and "give notice by 2025-12-03" in out and "T-001" not in out
    assert main(["renewals", "--ics"]) == 0
    assert capsys.readouterr().out.startswith("BEGIN:VCALENDAR")
    assert main(["playbook"]) == 0
    assert "Spend at risk" in capsys.readouterr().out
    assert main(["terms", "T-001", "--set", "uptime", "high"]) == 2
    assert "uptime: expected a number" in capsys.readouterr().err


def test_an_agreement_that_renews_by_itself_rolls_past_an_expiry_behind_it(terms_graph):
    row = {r.sla_id: r for r in renewal_calendar(today=date(2027, 6, 1))}["T-001"]
    # initial term to 2026-04-01, yearly renewals, 90 days' notice: the term running on 1 June 2027 ends 2028-04-01
    assert (row.initial_expiration, row.expiration_date, row.notice_deadline) == ("2026-04-01", "2028-04-01", "2028-01-02")
    beta = {r.sla_id: r for r in renewal_calendar(today=date(2027, 6, 1))}["T-002"]
    assert beta.expiration_date == "2025-12-31" and beta.initial_expiration is None and beta.days_left < 0

"""Spend as procurement systems export it, end to end on a real Neo4j: several rows per supplier
and year, categories, a second currency with and without a rate, duplicates; then thresholds,
the gap report's spend at risk, spend questions (English and Chinese) and the Explore chart."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.graph import vocabulary as graph_cache
from core.service import ask, company_spend, gap_report

COMPANIES = """name,country,industry,aliases
Acme Cloud GmbH,Germany,Technology,Acme
Borealis Data Oy,Finland,Technology,
Cedar Health Ltd,United Kingdom,Healthcare,
"""
SPEND = """company,year,amount,currency,category,business_unit
Acme Cloud GmbH,2024,450000,EUR,Hosting,Group IT
Acme Cloud GmbH,2024,180000,EUR,Field Engineering,Plant Leipzig
Acme Cloud GmbH,2024,180000,EUR,Field Engineering,Plant Leipzig
Acme Cloud GmbH,2023,300000,EUR,Hosting,Group IT
Borealis Data Oy,2024,400000,EUR,Hosting,
Borealis Data Oy,2024,50000,USD,Hosting,
Cedar Health Ltd,2024,200000,GBP,Field Engineering,
Cedar Health Ltd,2024,100000,EUR,Hosting,
"""
RATES = "currency,year,rate\nGBP,2024,1.2\n"
CONTRACT = "# {name} services agreement\n\n## 1. Services\nThe supplier provides hosting.\n\n{extra}"
TERMINATION = ("## 2. Termination\nEither party may terminate this agreement for convenience on ninety days' "
               "written notice.\n")


def write_corpus(root: Path, spend: str = SPEND) -> Path:
    (root / "contracts").mkdir(parents=True, exist_ok=True)
    (root / "companies.csv").write_text(COMPANIES, encoding="utf-8")
    (root / "addresses.csv").write_text("company,street,city,postal_code,country\n", encoding="utf-8")
    (root / "spend.csv").write_text(spend, encoding="utf-8")
    (root / "rates.csv").write_text(RATES, encoding="utf-8")
    rows = []
    for i, (name, extra) in enumerate((("Acme Cloud GmbH", ""), ("Borealis Data Oy", TERMINATION),
                                       ("Cedar Health Ltd", "")), start=1):
        (root / "contracts" / f"c{i}.md").write_text(CONTRACT.format(name=name, extra=extra), encoding="utf-8")
        rows.append(f"AGR-{i},{name},c{i}.md,2024-01-01,Hosting,Germany\n")
    # an agreement whose governing law is not on file: under neither the supplier's own law nor a foreign one
    (root / "contracts" / "c4.md").write_text(CONTRACT.format(name="Acme Cloud GmbH", extra=""), encoding="utf-8")
    rows.append("AGR-4,Acme Cloud GmbH,c4.md,2024-06-01,Backup,\n")
    (root / "agreements.csv").write_text("sla_id,company,file,effective_date,service_name,governing_law\n"
                                         + "".join(rows), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def spend_graph(db, embedder, tmp_path_factory):
    from conftest import load_corpus

    report = load_corpus(db, write_corpus(tmp_path_factory.mktemp("spend")), embedder)
    return db, report


def test_rows_are_summed_converted_and_broken_down(spend_graph):
    db, report = spend_graph
    problems = [(p.file, p.line, p.severity) for p in report.problems]
    assert ("spend.csv", 4, "warning") in problems                      # exact duplicate, counted once
    assert ("spend.csv", 7, "error") in problems                        # USD without a rate: left out
    no_rate = next(p for p in report.problems if p.line == 7)
    assert "no exchange rate from USD" in no_rate.message
    assert report.spend_rows == 6
    rows = {r["name"]: r for r in db.read(
        "MATCH (c:Company) RETURN c.name AS name, c.spend_2024 AS s24, c.spend_2023 AS s23, "
        "c.spend_currency AS cur, c.spend_latest AS latest")}
    assert rows["Acme Cloud GmbH"]["s24"] == 630000.0 and rows["Acme Cloud GmbH"]["s23"] == 300000.0
    assert rows["Borealis Data Oy"]["s24"] == 400000.0                  # the USD row is not added as EUR
    assert rows["Cedar Health Ltd"]["s24"] == 340000.0                  # 200,000 GBP x 1.2 + 100,000 EUR
    assert {r["cur"] for r in rows.values()} == {"EUR"} and rows["Acme Cloud GmbH"]["latest"] == 630000.0
    edges = db.read("MATCH (c:Company {name: 'Acme Cloud GmbH'})-[s:SPENT]->(k:SpendCategory) "
                    "RETURN s.year AS year, k.name AS category, s.amount AS amount, s.rows AS n, "
                    "s.business_units AS units ORDER BY year, category")
    assert [(e["year"], e["category"], e["amount"], e["n"], e["units"]) for e in edges] == [
        (2023, "Hosting", 300000.0, 1, ["Group IT"]), (2024, "Field Engineering", 180000.0, 1, ["Plant Leipzig"]),
        (2024, "Hosting", 450000.0, 1, ["Group IT"])]
    vocab = graph_cache.vocabulary(db)
    assert vocab.spend_categories == ["Field Engineering", "Hosting"] and vocab.base_currency == "EUR"


def test_thresholds_and_sums_read_the_summed_totals(spend_graph):
    db, _ = spend_graph
    above = ask("Which suppliers have spend above 500,000?", db=db, log=False)
    assert set(above.evidence_companies) == {"Acme Cloud GmbH"}           # 630,000: understated before
    total = ask("What is the total 2024 spend with technology suppliers?", db=db, log=False)
    assert "1,030,000 EUR" in total.answer


def test_gap_report_spend_at_risk_is_in_the_base_currency(spend_graph):
    db, _ = spend_graph
    rep = gap_report(["Termination"], db=db)
    assert {r.company for r in rep.companies_with_gaps} == {"Acme Cloud GmbH", "Cedar Health Ltd"}
    assert rep.spend_at_risk == 630000.0 + 340000.0 and rep.currency == "EUR"
    lines = rep.to_csv().splitlines()   # scope and gap definition first, as # comments
    assert lines[0].startswith("# Compliance gaps.") and lines[2].startswith("company,country,industry,spend_latest (EUR),")
    assert "spend at risk (latest year on file, EUR): 970,000 EUR" in rep.to_markdown()
    assert gap_report(["Termination"], db=db, year=2024).to_csv().splitlines()[2].startswith(
        "company,country,industry,spend_2024 (EUR),")
    assert rep.to_dict()["currency"] == "EUR"


@pytest.mark.parametrize("question, needles", [
    ("How much did we spend on field engineering in 2024?",
     ["420,000 EUR", "Cedar Health Ltd (240,000 EUR)", "Acme Cloud GmbH (180,000 EUR)"]),
    ("2024年在Field Engineering上的支出是多少？", ["420,000 EUR", "2 家供应商"]),
    ("Top 2 suppliers by spend", ["Acme Cloud GmbH (630,000 EUR) [S1]", "Borealis Data Oy (400,000 EUR) [S2]"]),
    # the other end of the ranking
    ("Which supplier did we spend the least with in 2024?", ["lowest 2024 spend", "Cedar Health Ltd (340,000 EUR) [S1]"]),
    ("2024年支出最低的两家供应商", ["支出最低", "Cedar Health Ltd (340,000 EUR) [S1]", "Borealis Data Oy (400,000 EUR) [S2]"]),
    ("Total spend by country in 2024", ["Germany 630,000 EUR", "Finland 400,000 EUR", "Total: 1,370,000 EUR"]),
    ("Total 2024 spend by category", ["Hosting 950,000 EUR (3 suppliers)", "Field Engineering 420,000 EUR"]),
    ("2024年按行业统计的总支出", ["合计 1,370,000 EUR"]),
    ("How has our spend with Acme developed over the years?",
     ["2023: 300,000 EUR (Hosting 300,000)", "2024: 630,000 EUR (Hosting 450,000, Field Engineering 180,000)"]),
    # several named years: only those, and their sum
    ("How much did we pay Acme over 2023 and 2024 combined?", ["2023: 300,000 EUR", "total 2023–2024: 930,000 EUR"]),
    # the spend of a group named by attributes is its sum, even without "total"
    ("What is our 2024 spend with German and Finnish suppliers?", ["1,030,000 EUR", "the 2 suppliers in Finland/Germany"]),
])
def test_spend_questions_end_to_end(spend_graph, question, needles):
    db, _ = spend_graph
    r = ask(question, db=db, log=False)
    assert r.mode == "attribute" and r.evidence, r.answer
    for needle in needles:
        assert needle in r.answer, (needle, r.answer)
    assert r.cypher.startswith("MATCH") and "$" in r.cypher   # the parameterized query is shown


def test_explore_chart_data(spend_graph):
    db, _ = spend_graph
    s = company_spend("Acme Cloud GmbH", db=db)
    assert s.currency == "EUR" and s.years == [2023, 2024]
    assert s.series() == {"Hosting": [300000.0, 450000.0], "Field Engineering": [0.0, 180000.0]}
    assert s.totals() == {2023: 300000.0, 2024: 630000.0}
    assert company_spend("Nobody", db=db).rows == []


def test_agreements_under_a_law_other_than_the_suppliers_own(spend_graph):
    """Every agreement here is under German law: foreign law for the Finnish and British
    suppliers, their own for the German one; the condition runs in the query. Acme's second
    agreement has no law on file, which makes it neither."""
    db, _ = spend_graph
    foreign = ask("Which suppliers have contracts governed by a law other than their home country's?", db=db, log=False)
    assert foreign.plan.params.law_scope == "foreign" and "$law_countries[s.governing_law]" in foreign.cypher
    assert set(foreign.evidence_companies) == {"Borealis Data Oy", "Cedar Health Ltd"}, foreign.answer
    assert "a law other than the supplier's own country" in foreign.answer
    home = ask("Which suppliers' agreements are under their own country's law?", db=db, log=False)
    assert set(home.evidence_companies) == {"Acme Cloud GmbH"}, home.answer
    gap = ask("Which suppliers with foreign-law contracts lack a termination clause?", db=db, log=False)
    assert gap.plan.intent == "gap" and set(gap.evidence_companies) == {"Cedar Health Ltd"}, gap.answer


def test_suppliers_whose_spend_went_up_or_down(spend_graph):
    """Acme is the one supplier with spend in both years (2023: 300,000, 2024: 630,000)."""
    db, _ = spend_graph
    up = ask("Which suppliers did we spend more with in 2024 than in 2023?", db=db, log=False)
    assert set(up.evidence_companies) == {"Acme Cloud GmbH"}, up.answer
    assert "2023: 300,000 EUR → 2024: 630,000 EUR" in up.answer and "co[$spend_from_key]" in up.cypher
    down = ask("Whose spend decreased in 2024?", db=db, log=False)
    assert down.plan.params.spend_change == "down" and not down.evidence, down.answer
    rows = db.read(up.cypher, up.params)
    assert [r["company"] for r in rows] == ["Acme Cloud GmbH"]


# last in the module: it re-ingests the shared graph with other spend
def test_reingest_replaces_a_suppliers_spend_whole(spend_graph, tmp_path, embedder):
    db, _ = spend_graph
    from core.ingest.pipeline import ingest_corpus

    changed = SPEND.replace("Acme Cloud GmbH,2024,180000,EUR,Field Engineering,Plant Leipzig\n", "") \
                   .replace("Acme Cloud GmbH,2023,300000,EUR,Hosting,Group IT\n", "")
    ingest_corpus(write_corpus(tmp_path, changed), db=db, embedder=embedder)
    graph_cache.invalidate()
    row = db.read("MATCH (c:Company {name: 'Acme Cloud GmbH'}) RETURN c.spend_2024 AS s24, c.spend_2023 AS s23, "
                  "[(c)-[s:SPENT]->(k) | k.name] AS cats")[0]
    assert row["s24"] == 450000.0 and row["s23"] is None and row["cats"] == ["Hosting"]
    assert graph_cache.vocabulary(db).spend_categories == ["Field Engineering", "Hosting"]   # Cedar still has it

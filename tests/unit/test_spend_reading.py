"""spend.csv as procurement systems export it: several rows per supplier and year, categories,
business units and currencies (rates.csv), read without a database."""
from __future__ import annotations

from pathlib import Path

from core.ingest.reading import read_corpus

COMPANIES = "name,country,industry,aliases\nAcme Cloud GmbH,Germany,Technology,\nBorealis Data Oy,Finland,Technology,\n"


def corpus(tmp_path: Path, spend: str, rates: str | None = None) -> Path:
    (tmp_path / "contracts").mkdir(parents=True, exist_ok=True)
    (tmp_path / "companies.csv").write_text(COMPANIES, encoding="utf-8")
    (tmp_path / "agreements.csv").write_text("sla_id,company,file\n", encoding="utf-8")
    (tmp_path / "addresses.csv").write_text("company,street,city,postal_code,country\n", encoding="utf-8")
    (tmp_path / "spend.csv").write_text(spend, encoding="utf-8")
    if rates is not None:
        (tmp_path / "rates.csv").write_text(rates, encoding="utf-8")
    return tmp_path


def totals(c) -> dict[tuple[str, int], float]:
    out: dict[tuple[str, int], float] = {}
    for r in c.spend:
        out[(r.company, r.year)] = out.get((r.company, r.year), 0.0) + r.base_amount
    return out


def problems(c, file="spend.csv"):
    return [(p.line, p.severity, p.message) for p in c.problems if p.file == file]


def test_several_rows_per_supplier_and_year_are_added_up(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount,currency,category\n"
                                      "Acme Cloud GmbH,2024,450000,EUR,Hosting\n"
                                      "Acme Cloud GmbH,2024,180000,EUR,Field Engineering\n"
                                      "Acme Cloud GmbH,2023,300000,EUR,Hosting\n"
                                      "Borealis Data Oy,2024,90000,EUR,Hosting\n"), max_file_bytes=10**6)
    assert problems(c) == []
    assert totals(c) == {("Acme Cloud GmbH", 2024): 630000.0, ("Acme Cloud GmbH", 2023): 300000.0,
                         ("Borealis Data Oy", 2024): 90000.0}
    assert [r.category for r in c.spend] == ["Hosting", "Field Engineering", "Hosting", "Hosting"]
    assert c.base_currency == "EUR"


def test_exact_duplicates_count_once_with_a_warning_naming_the_line(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount,currency,category,business_unit\n"
                                      "Acme Cloud GmbH,2024,100,EUR,Hosting,Group IT\n"
                                      "Acme Cloud GmbH,2024,100,eur,hosting,Group IT\n"     # same row, other case
                                      "Acme Cloud GmbH,2024,100,EUR,Hosting,Plant Leipzig\n"  # another unit: counted
                                      "Acme Cloud GmbH,2024,100,EUR,Support,Group IT\n"),     # another category
                    max_file_bytes=10**6)
    assert problems(c) == [(3, "warning", "duplicate of line 2 (same supplier, year, category, amount and "
                                          "currency); counted once")]
    assert totals(c) == {("Acme Cloud GmbH", 2024): 300.0}
    assert [(r.category, r.business_unit) for r in c.spend] == [
        ("Hosting", "Group IT"), ("Hosting", "Plant Leipzig"), ("Support", "Group IT")]


def test_malformed_rows_keep_their_errors_and_lose_nothing_valid(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount,currency,category\n"
                                      "Acme Cloud GmbH,2024,100,EUR,Hosting\n"
                                      "Acme Cloud GmbH,2024,lots,EUR,Hosting\n"
                                      "Ghost Ltd,2024,5,EUR,Hosting\n"
                                      "Acme Cloud GmbH,2024,50,EUR,Support\n"), max_file_bytes=10**6)
    assert [(line, sev) for line, sev, _ in problems(c)] == [(3, "error"), (4, "error")]
    assert "'lots' is not a number" in problems(c)[0][2] and "unknown company 'Ghost Ltd'" in problems(c)[1][2]
    assert totals(c) == {("Acme Cloud GmbH", 2024): 150.0}


def test_other_currencies_are_converted_with_rates(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount,currency,category\n"
                                      "Acme Cloud GmbH,2024,100000,EUR,Hosting\n"
                                      "Acme Cloud GmbH,2024,64000,GBP,Hosting\n"
                                      "Borealis Data Oy,2023,1000,GBP,Support\n",
                           "currency,year,rate\nGBP,2024,1.25\nGBP,,1.1\n"), max_file_bytes=10**6)
    assert c.base_currency == "EUR"          # the only currency rates.csv does not convert
    assert problems(c) == [] and problems(c, "rates.csv") == []
    assert totals(c) == {("Acme Cloud GmbH", 2024): 180000.0, ("Borealis Data Oy", 2023): 1100.0}


def test_a_row_without_a_rate_is_reported_and_left_out_never_added_as_base(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount,currency,category\n"
                                      "Acme Cloud GmbH,2024,100000,EUR,Hosting\n"
                                      "Acme Cloud GmbH,2024,100000,EUR,Support\n"
                                      "Acme Cloud GmbH,2024,64000,GBP,Hosting\n"
                                      "Borealis Data Oy,2024,5000,GBP,Hosting\n",
                           "currency,year,rate\nGBP,2023,1.2\n"), max_file_bytes=10**6)
    assert c.base_currency == "EUR"
    assert [(line, sev) for line, sev, _ in problems(c)] == [(4, "error"), (5, "error")]
    assert "no exchange rate from GBP to the base currency EUR for 2024" in problems(c)[0][2]
    assert "left out of the totals" in problems(c)[0][2]
    assert totals(c) == {("Acme Cloud GmbH", 2024): 200000.0}


def test_a_configured_base_currency_wins_and_bad_rates_are_named(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount,currency,category\n"
                                      "Acme Cloud GmbH,2024,100,EUR,Hosting\n"
                                      "Acme Cloud GmbH,2024,10,USD,Hosting\n",
                           "currency,year,rate\nEUR,2024,1.1\nEUR,2024,1.2\nGBP,2024,-1\nUSD,2024,1\n"),
                    max_file_bytes=10**6, base_currency="usd")
    assert c.base_currency == "USD"
    assert totals(c) == {("Acme Cloud GmbH", 2024): 120.0}
    rate_problems = problems(c, "rates.csv")
    assert (3, "error") in [(line, sev) for line, sev, _ in rate_problems]        # EUR 2024 given twice
    assert any(line == 4 and "not a positive number" in msg for line, _, msg in rate_problems)
    assert any(line == 5 and "base currency" in msg and sev == "warning" for line, sev, msg in rate_problems)


def test_one_currency_or_none_needs_no_rates(tmp_path):
    c = read_corpus(corpus(tmp_path, "company,year,amount\nAcme Cloud GmbH,2024,100\nAcme Cloud GmbH,2024,5\n"),
                    max_file_bytes=10**6)
    assert c.base_currency is None and problems(c) == []
    assert totals(c) == {("Acme Cloud GmbH", 2024): 105.0}
    mixed = read_corpus(corpus(tmp_path / "m", "company,year,amount,currency\nAcme Cloud GmbH,2024,100,CHF\n"
                                                "Acme Cloud GmbH,2024,5,\n"), max_file_bytes=10**6)
    assert mixed.base_currency == "CHF"
    assert problems(mixed) == [(3, "warning", "no currency given; taken as the base currency CHF")]
    assert totals(mixed) == {("Acme Cloud GmbH", 2024): 105.0}

"""Reading a corpus folder: validation, problems with file and line, encodings (no database)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.ingest.reading import decode_bytes, parse_date, read_corpus

BAD = Path(__file__).resolve().parent.parent / "fixtures" / "bad_corpus"

CONTRACT = "# Hosting SLA\n\n## 1. Availability\nUp 99.9%.\n\n## 2. Support\nBusiness hours.\n"
CHINESE = "# 服务协议\n\n第一条 服务可用性\n乙方保证服务可用性不低于99.9%。\n\n第二条 服务费用\n甲方按月支付费用。\n"


def problems_for(corpus, file):
    return [(p.line, p.severity, p.message) for p in corpus.problems if p.file == file]


def find(corpus, file, line, *words, severity="error"):
    """The one problem at file:line whose message contains all words."""
    hits = [p for p in corpus.problems if p.file == file and p.line == line and p.severity == severity
            and all(w in p.message for w in words)]
    assert len(hits) == 1, (file, line, words, problems_for(corpus, file))
    return hits[0]


def make_corpus(tmp_path: Path, agreements: list[tuple[str, str]], files: dict[str, bytes] | None = None) -> Path:
    """A minimal valid corpus with one company and the given (sla_id, file) agreements."""
    (tmp_path / "contracts").mkdir(parents=True, exist_ok=True)
    (tmp_path / "companies.csv").write_text("name,country,industry,aliases\nAcme,Germany,Cloud,\n", encoding="utf-8")
    (tmp_path / "addresses.csv").write_text("company,street,city,postal_code,country\n", encoding="utf-8")
    (tmp_path / "spend.csv").write_text("company,year,amount,currency,category\n", encoding="utf-8")
    rows = "".join(f"{sla},Acme,{file},2024-01-01,Hosting,Germany\n" for sla, file in agreements)
    (tmp_path / "agreements.csv").write_text(
        "sla_id,company,file,effective_date,service_name,governing_law\n" + rows, encoding="utf-8")
    for name, data in (files or {}).items():
        path = tmp_path / "contracts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return tmp_path


# --------------------------------------------------------------------------- the bad fixture corpus

@pytest.fixture(scope="module")
def bad():
    return read_corpus(BAD, max_file_bytes=1_000_000)


def test_valid_rows_are_kept(bad):
    assert [c.name for c in bad.companies] == ["Acme Cloud GmbH", "Beta Hosting SA", "Delta AG", "Epsilon Inc", "Eta LLC"]
    assert bad.companies[0].aliases == ["Acme", "ACME Cloud"]
    assert bad.companies[2].industry == "Security\nand Compliance"     # quoted multi-line field
    assert bad.companies[3].line == 9 and bad.companies[4].line == 11  # physical lines after it
    assert [(a.company, a.line) for a in bad.addresses] == [
        ("Acme Cloud GmbH", 2), ("Delta AG", 4), ("Epsilon Inc", 7)]
    assert bad.addresses[1].street == "Bahnhofstrasse 1\nPostfach 12"
    # line 7 repeats line 2 exactly (counted once); line 8 is in USD with no rate (left out)
    assert [(s.company, s.year, s.amount, s.currency, s.base_amount) for s in bad.spend] == [
        ("Acme Cloud GmbH", 2023, 120000.5, "EUR", 120000.5)]
    assert bad.base_currency == "EUR"
    assert [(a.sla_id, a.effective_date, a.line) for a in bad.agreements] == [
        ("SLA-001", "2024-01-15", 2), ("SLA-002", "2023-03-15", 3), ("SLA-007", "2024-01-01", 8),
        ("SLA-010", "2024-03-05", 12)]
    assert set(bad.texts) == {"SLA-001", "SLA-002", "SLA-007", "SLA-010"}
    assert [c.title for c in bad.texts["SLA-010"].clauses] == ["服务范围", "服务可用性", "合同解除"]
    assert bad.texts["SLA-001"].file == "contracts/acme.md"


def test_companies_problems(bad):
    find(bad, "companies.csv", 1, "unknown column", "notes", severity="warning")
    find(bad, "companies.csv", 3, "empty company name")
    p = find(bad, "companies.csv", 5, "Acme Cloud GmbH", "line 2", "first row kept")
    assert "Austria" in p.message
    find(bad, "companies.csv", 6, "duplicate of line 4", severity="warning")
    find(bad, "companies.csv", 10, "malformed CSV")


def test_addresses_problems(bad):
    find(bad, "addresses.csv", 3, "unknown company 'Acme Cloud Gmbh'", "did you mean 'Acme Cloud GmbH'")
    find(bad, "addresses.csv", 6, "6 fields", "header has 5")


def test_spend_problems(bad):
    find(bad, "spend.csv", 3, "'lots' is not a number")
    find(bad, "spend.csv", 4, "implausible year 1850")
    find(bad, "spend.csv", 5, "'20x4'")
    find(bad, "spend.csv", 6, "unknown company 'Ghost Ltd'")
    find(bad, "spend.csv", 7, "duplicate of line 2", "counted once", severity="warning")
    find(bad, "spend.csv", 8, "no exchange rate from USD", "EUR", "2024", "left out of the totals")
    find(bad, "spend.csv", None, "several currencies (EUR, USD)", "CLAUSEGRAPH_BASE_CURRENCY", severity="warning")


def test_agreement_problems(bad):
    find(bad, "agreements.csv", 4, "contracts/missing.md not found")
    find(bad, "agreements.csv", 5, "'..'")
    find(bad, "agreements.csv", 6, "absolute")
    find(bad, "agreements.csv", 9, "duplicate sla_id 'SLA-001'", "line 2")
    find(bad, "agreements.csv", 10, "unknown company 'Nobody GmbH'")
    find(bad, "agreements.csv", 11, "2024-02-30")
    find(bad, "contracts/empty.md", None, "empty file", "SLA-006", "line 7")
    # a layout is never a reason to reject: the letter is loaded by paragraphs, with a warning
    p = find(bad, "contracts/noheadings.md", None, "SLA-007", "no section headings found", "paragraph",
             severity="warning")
    assert not [q for q in bad.errors if q.file == "contracts/noheadings.md"], p
    assert bad.texts["SLA-007"].split.segmentation == "paragraphs"
    assert bad.texts["SLA-007"].clauses[0].text.startswith("This document is a letter")
    find(bad, "contracts/orphan.md", None, "not referenced", severity="warning")


def test_every_error_names_a_file_and_no_valid_item_is_reported(bad):
    assert all(p.file and p.message and p.severity in ("error", "warning") for p in bad.problems)
    assert not [p for p in bad.problems if p.file == "contracts/acme.md"]


# --------------------------------------------------------------------------- whole-file problems

def test_missing_required_column_rejects_file(tmp_path):
    root = make_corpus(tmp_path, [("S1", "a.md")], {"a.md": CONTRACT.encode()})
    (root / "spend.csv").write_text("company,amount\nAcme,100\n", encoding="utf-8")
    corpus = read_corpus(root, max_file_bytes=10_000)
    p = find(corpus, "spend.csv", 1, "missing required column(s): year")
    assert "not loaded" in p.message
    assert corpus.spend == [] and len(corpus.agreements) == 1


def test_missing_companies_file_rejects_references(tmp_path):
    root = make_corpus(tmp_path, [("S1", "a.md")], {"a.md": CONTRACT.encode()})
    (root / "companies.csv").unlink()
    corpus = read_corpus(root, max_file_bytes=10_000)
    find(corpus, "companies.csv", None, "not found")
    find(corpus, "agreements.csv", 2, "unknown company 'Acme'")
    assert corpus.agreements == []


def test_missing_corpus_folder_does_not_raise(tmp_path):
    corpus = read_corpus(tmp_path / "nope", max_file_bytes=10)
    assert corpus.problems and corpus.problems[0].file == "."


def test_unterminated_quote_is_reported_and_later_rows_survive(tmp_path):
    root = make_corpus(tmp_path, [])
    (root / "companies.csv").write_text(
        'name,country,industry,aliases\nAcme,Germany,Cloud,\n"Broken,France,Hosting,\n', encoding="utf-8")
    corpus = read_corpus(root, max_file_bytes=10_000)
    find(corpus, "companies.csv", 3, "unterminated quoted field")
    assert [c.name for c in corpus.companies] == ["Acme"]


def test_csv_with_bom_and_crlf(tmp_path):
    root = make_corpus(tmp_path, [])
    (root / "companies.csv").write_bytes("\ufeffname,country,industry,aliases\r\nAcme,Germany,Cloud,A|B\r\n".encode())
    corpus = read_corpus(root, max_file_bytes=10_000)
    assert [(c.name, c.aliases) for c in corpus.companies] == [("Acme", ["A", "B"])]
    assert not corpus.errors


# --------------------------------------------------------------------------- contract files

def test_binary_and_large_and_symlinked_contracts(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text(CONTRACT, encoding="utf-8")
    root = make_corpus(tmp_path / "corpus",
                       [("BIN", "image.md"), ("BIG", "big.md"), ("LINK", "link.md"), ("DIRLINK", "sub/x.md"),
                        ("OK", "ok.md")],
                       {"image.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
                        "big.md": (CONTRACT + "x" * 5000).encode(), "ok.md": CONTRACT.encode()})
    os.symlink(outside, root / "contracts" / "link.md")
    os.symlink(tmp_path, root / "contracts" / "sub")
    corpus = read_corpus(root, max_file_bytes=2000)
    assert [a.sla_id for a in corpus.agreements] == ["OK"]
    find(corpus, "contracts/image.md", None, "binary", "BIN")
    find(corpus, "contracts/big.md", None, "over the limit of 2,000")
    find(corpus, "agreements.csv", 4, "symbolic link")
    find(corpus, "agreements.csv", 5, "symbolic link")


def test_max_file_bytes_defaults_to_settings(tmp_path, monkeypatch):
    from core import config

    root = make_corpus(tmp_path, [("S1", "a.md")], {"a.md": CONTRACT.encode()})
    monkeypatch.setenv("CLAUSEGRAPH_MAX_FILE_BYTES", "10")
    config.settings.cache_clear()
    try:
        corpus = read_corpus(root)
    finally:
        config.settings.cache_clear()
    find(corpus, "contracts/a.md", None, "over the limit of 10")


@pytest.mark.parametrize("encoding, data", [
    ("utf-8", CHINESE.encode("utf-8")),
    ("utf-8-sig", CHINESE.encode("utf-8-sig")),
    ("utf-16-le", b"\xff\xfe" + CHINESE.encode("utf-16-le")),
    ("utf-16-be", b"\xfe\xff" + CHINESE.encode("utf-16-be")),
    ("utf-16-le", CONTRACT.encode("utf-16-le")),      # no BOM: found by NUL positions
    ("utf-16-be", CONTRACT.encode("utf-16-be")),
    ("gb18030", CHINESE.encode("gb18030")),
])
def test_decode_bytes(encoding, data):
    text, found = decode_bytes(data)
    assert found == encoding
    assert text in (CHINESE, CONTRACT)


@pytest.mark.parametrize("text", [
    "M\u00fcller GmbH, Stra\u00dfe 5, 50667 K\u00f6ln. Es gilt deutsches Recht.",
    "The \u201cSupplier\u201d shall pay \u20ac100 \u2013 see Soci\u00e9t\u00e9 G\u00e9n\u00e9rale\u2019s terms.",
])
def test_windows_1252_latin_text_is_not_read_as_chinese(text):
    # GB18030 decodes these bytes too, swallowing the letter after each accented one ("M黮ler")
    decoded, found = decode_bytes(text.encode("cp1252"))
    assert (decoded, found) == (text, "cp1252")


def test_chinese_with_english_words_stays_gb18030():
    text = "第一条 服务范围 Supplier 提供 SLA 99.9% 的可用性。"
    assert decode_bytes(text.encode("gbk")) == (text, "gb18030")


@pytest.mark.parametrize("data", [b"\x00\x01\x02\x03binary\x00\xff", bytes(range(256)) * 4])
def test_decode_bytes_rejects_binary(data):
    with pytest.raises(ValueError):
        decode_bytes(data)


def test_encoded_contracts_load_and_hash_decoded_text(tmp_path):
    files = {"u16.md": b"\xff\xfe" + CHINESE.encode("utf-16-le"), "gb.txt": CHINESE.encode("gb18030"),
             "bom.md": CHINESE.encode("utf-8-sig")}
    root = make_corpus(tmp_path, [("A", "u16.md"), ("B", "gb.txt"), ("C", "bom.md")], files)
    corpus = read_corpus(root, max_file_bytes=10_000)
    assert not corpus.errors
    shas = {t.sha256 for t in corpus.texts.values()}
    assert len(shas) == 1                       # same decoded text, same hash
    assert {t.encoding for t in corpus.texts.values()} == {"utf-16-le", "gb18030", "utf-8-sig"}
    assert [c.title for c in corpus.texts["B"].clauses] == ["服务可用性", "服务费用"]


def test_contract_in_subfolder_and_duplicate_clauses_warned(tmp_path):
    text = CONTRACT + "\n## 3. Availability\nUp 99.9%.\n"
    root = make_corpus(tmp_path, [("S1", "eu/a.md")], {"eu/a.md": text.encode()})
    corpus = read_corpus(root, max_file_bytes=10_000)
    contract = corpus.texts["S1"]
    assert contract.file == "contracts/eu/a.md"
    assert [c.title for c in contract.clauses] == ["Availability", "Support"]
    assert contract.duplicates == [(1, 3, 1.0)]
    find(corpus, "contracts/eu/a.md", None, "clause 3 repeats clause 1", severity="warning")


# --------------------------------------------------------------------------- dates

@pytest.mark.parametrize("raw, iso", [
    ("2024-03-05", "2024-03-05"), ("2024/3/5", "2024-03-05"), ("20240305", "2024-03-05"),
    ("05.03.2024", "2024-03-05"), ("March 5, 2024", "2024-03-05"), ("5 March 2024", "2024-03-05"),
    ("Mar 5th 2024", "2024-03-05"), ("2024年3月5日", "2024-03-05"), ("13/03/2024", "2024-03-13"),
    ("2024-03-05T00:00:00", "2024-03-05"), ("", None),
])
def test_parse_date(raw, iso):
    assert parse_date(raw)[0] == iso


def test_parse_date_warns_on_ambiguous_and_rejects_bad():
    assert parse_date("03/05/2024") == ("2024-03-05", "ambiguous date '03/05/2024' read as month/day/year")
    for bad in ("2024-13-01", "31.02.2024", "next year", "1850-01-01"):
        with pytest.raises(ValueError):
            parse_date(bad)


# --------------------------------------------------------------------------- the demo corpus

def test_demo_corpus_reads_cleanly_with_expected_titles():
    import json

    demo = Path(__file__).resolve().parents[2] / "data" / "demo"
    corpus = read_corpus(demo, max_file_bytes=5_000_000)
    assert corpus.problems == []
    expected = json.loads((demo / "expected.json").read_text(encoding="utf-8"))
    for sla_id, clauses in expected.items():
        assert [c.title for c in corpus.texts[sla_id].clauses] == [c["title"] for c in clauses], sla_id


# --------------------------------------------------------------------------- layouts are never rejected

def test_contract_without_headings_is_accepted_by_paragraphs_and_unreadable_ones_are_rejected(tmp_path):
    letter = ("Dear Sir or Madam,\n\nthis letter confirms our understanding of the services. "
              "It is governed by the laws of the State of Texas.\n\nYours faithfully,\nA. Buyer\n")
    root = make_corpus(tmp_path, [("LETTER", "letter.txt"), ("EMPTY", "blank.txt"), ("JUNK", "pages.txt"),
                                  ("OK", "ok.md")],
                       {"letter.txt": letter.encode(), "blank.txt": b"  \n\n ",
                        "pages.txt": b"Page 1 of 2\n\n- 2 -\n", "ok.md": CONTRACT.encode()})
    corpus = read_corpus(root, max_file_bytes=10_000)
    assert sorted(corpus.texts) == ["LETTER", "OK"]
    letter_text = corpus.texts["LETTER"]
    assert letter_text.split.segmentation == "paragraphs"
    assert any("laws of the State of Texas" in c.text for c in letter_text.clauses)
    find(corpus, "contracts/letter.txt", None, "LETTER", "paragraph", severity="warning")
    assert corpus.texts["OK"].split.segmentation == "headings"
    assert not [p for p in corpus.problems if p.file == "contracts/ok.md"]
    find(corpus, "contracts/blank.txt", None, "only whitespace", "EMPTY")
    find(corpus, "contracts/pages.txt", None, "no text left", "JUNK")


def test_an_html_filing_is_read_as_its_rendered_text(tmp_path):
    """EDGAR filings are mostly .htm: tags, entities and styles are no clause text, and the
    headings inside <p><b>…</b></p> are found as in a .txt filing."""
    html = (Path(__file__).resolve().parent.parent / "fixtures" / "edgar-style-filing.htm").read_bytes()
    root = make_corpus(tmp_path, [("H1", "filing.htm"), ("H2", "sniffed.txt")],
                       {"filing.htm": html, "sniffed.txt": html})
    corpus = read_corpus(root, max_file_bytes=100_000)
    assert not corpus.errors and not problems_for(corpus, "contracts/filing.htm")
    for sla in ("H1", "H2"):   # by its name, or by its content whatever the name
        contract = corpus.texts[sla]
        assert contract.split.segmentation == "headings"
        assert [c.title for c in contract.clauses] == ["TERM AND TERMINATION", "MISCELLANEOUS"]
        body = " ".join(c.text for c in contract.clauses)
        assert "governed by the laws of the State of Delaware" in body and "on ninety (90) days" in body
        assert "<" not in body and "&nbsp;" not in body and "margin" not in body


def test_html_to_text_lays_out_blocks_cells_and_hidden_parts():
    from core.ingest.html_text import html_to_text, looks_like_html

    html = ("<html><head><script>var x = 1;</script></head><body><div>One&nbsp;two<br>three</div>"
            "<table><tr><td>a</td><td>b</td></tr></table><pre>  kept   spaces</pre></body></html>")
    assert html_to_text(html) == "One two\nthree\n\na  b\n\nkept   spaces\n"
    assert looks_like_html("<!DOCTYPE html><html>") and looks_like_html("  <html lang='en'>")
    assert not looks_like_html("1. Scope <b>bold</b> text") and not looks_like_html("# Title\n<html> mentioned")

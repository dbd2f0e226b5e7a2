"""Read a corpus folder (format: docs/DATA_MODEL.md) into validated rows and decoded contract texts.

Pure Python, no database: the ingest orchestration writes what this returns. Bad input
never raises; each rejected or repaired item becomes a `Problem` naming the file and line,
so a user can fix the folder, and everything valid is still loaded.
"""
from __future__ import annotations

import codecs
import csv
import difflib
import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath, PureWindowsPath

from core.ingest.cleaning import dedupe_clauses
from core.ingest.drafts import ClauseDraft, SplitResult
from core.ingest.html_text import HTML_SUFFIXES, html_to_text, looks_like_html
from core.ingest.splitter import split_contract


@dataclass
class Problem:
    file: str                 # path relative to the corpus root
    line: int | None          # 1-based; CSV: physical line where the row starts
    message: str
    severity: str = "error"   # "error": item rejected; "warning": loaded, something fixed/ignored


@dataclass
class CompanyRow:
    name: str
    country: str
    industry: str
    aliases: list[str]
    line: int


@dataclass
class AddressRow:
    company: str
    street: str
    city: str
    postal_code: str
    country: str
    line: int


@dataclass
class SpendRow:
    company: str
    year: int
    amount: float
    currency: str
    category: str
    line: int
    business_unit: str = ""
    base_amount: float | None = None   # `amount` in the corpus's base currency (set by the reader)


@dataclass
class RateRow:
    currency: str
    year: int | None      # None: the rate for every year that has no rate of its own
    rate: float           # 1 unit of `currency` = `rate` units of the base currency
    line: int


@dataclass
class AgreementRow:
    sla_id: str
    company: str
    file: str
    effective_date: str | None   # ISO yyyy-mm-dd
    service_name: str
    governing_law: str
    line: int


@dataclass
class ContractText:
    sla_id: str
    file: str                    # relative to the corpus root, e.g. "contracts/acme.md"
    text: str                    # decoded, BOM removed, otherwise as in the file
    encoding: str
    sha256: str                  # of `text` encoded as UTF-8
    split: SplitResult | None = None                       # split_contract(text)
    clauses: list[ClauseDraft] = field(default_factory=list)   # split clauses, deduplicated
    duplicates: list[tuple[int, int, float]] = field(default_factory=list)


@dataclass
class Corpus:
    root: Path
    companies: list[CompanyRow] = field(default_factory=list)
    addresses: list[AddressRow] = field(default_factory=list)
    spend: list[SpendRow] = field(default_factory=list)   # rows counted in the totals (base_amount set)
    rates: list[RateRow] = field(default_factory=list)
    base_currency: str | None = None     # the currency of every spend total; None: the data names none
    agreements: list[AgreementRow] = field(default_factory=list)
    texts: dict[str, ContractText] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]


# --------------------------------------------------------------------------- decoding

def _control_ratio(text: str) -> float:
    if not text:
        return 0.0
    bad = sum(1 for c in text if (ord(c) < 32 and c not in "\t\n\r\f") or 0x7F <= ord(c) < 0xA0)
    return bad / len(text)


def _utf16_without_bom(data: bytes) -> str | None:
    """Guess UTF-16 byte order from where the NUL bytes of ASCII characters fall."""
    if len(data) < 4 or len(data) % 2:
        return None
    even, odd = data[0::2], data[1::2]
    even_nul, odd_nul = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nul > 0.3 and even_nul < 0.05:
        return "utf-16-le"
    if even_nul > 0.3 and odd_nul < 0.05:
        return "utf-16-be"
    return None


def _plausible_cjk(text: str) -> bool:
    """GB18030 decodes many byte strings; accept it only when the result reads as Chinese."""
    others = [c for c in text if ord(c) > 0x7F]
    if not others:
        return True
    common = sum(1 for c in others if 0x4E00 <= ord(c) <= 0x9FFF or 0x3000 <= ord(c) <= 0x303F
                 or 0xFF00 <= ord(c) <= 0xFFEF or 0x2000 <= ord(c) <= 0x206F)
    return common / len(others) >= 0.9


def _double_byte_trails(data: bytes) -> tuple[int, int]:
    """(ASCII, high) second bytes of GB18030's two-byte characters. Chinese text pairs high bytes
    (GB2312 puts both in 0xA1-0xFE); Windows-1252 Latin text read as GB18030 swallows the ASCII
    letter after each accented one ("M\\xfcller" as "M黮ler")."""
    ascii_trail = high_trail = i = 0
    while i < len(data) - 1:
        b = data[i]
        if b < 0x81 or b == 0xFF:
            i += 1
            continue
        nxt = data[i + 1]
        if 0x30 <= nxt <= 0x39:
            i += 4   # a four-byte sequence
            continue
        if nxt >= 0x80:
            high_trail += 1
        else:
            ascii_trail += 1
        i += 2
    return ascii_trail, high_trail


_WESTERN_PUNCTUATION = set("\u00a0\u2018\u2019\u201a\u201c\u201d\u201e\u2013\u2014\u2022\u2026\u20ac\u2122"
                           "\u00a9\u00ae\u00b0\u00a7\u00b7\u00ab\u00bb\u00a3\u00a5\u00b5\u00bd\u00bc\u00be"
                           "\u00ad\u00b1\u00b6\u2020\u2021\u2030\u00ba\u00aa\u00a1")


def _western(text: str) -> bool:
    """Every non-ASCII character is a Latin-1 letter or common typographic punctuation, as
    English, German, French, Spanish or Dutch text in Windows-1252 reads."""
    return all(c in _WESTERN_PUNCTUATION or ("\u00c0" <= c <= "\u00ff" and c not in "\u00d7\u00f7")
               or c in "\u0152\u0153\u0160\u0161\u0178\u017d\u017e"
               for c in text if ord(c) > 0x7F)


def decode_bytes(data: bytes) -> tuple[str, str]:
    """Decode a contract or CSV: (text without BOM, encoding name).

    Strict decodes in order of how unambiguous they are (BOMs, UTF-16 NUL patterns, UTF-8,
    GB18030, Windows-1252 when it reads as Western text); charset-normalizer only as the last
    resort, because its guesses on short texts are unstable. Raises ValueError for binary or
    undecodable data.
    """
    for bom, name in ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                      (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                      (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(name.replace("-sig", "")), name
            except UnicodeDecodeError as exc:
                raise ValueError(f"starts with a {name} byte-order mark but is not valid {name}: {exc.reason}") from None
    guess = _utf16_without_bom(data)
    if guess:
        try:
            text = data.decode(guess)
            if _control_ratio(text) < 0.01:
                return text, guess
        except UnicodeDecodeError:
            pass
    if b"\x00" in data:
        raise ValueError("binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    ascii_trail, high_trail = _double_byte_trails(data)
    try:
        text = data.decode("gb18030")
        if _plausible_cjk(text) and _control_ratio(text) < 0.01 and ascii_trail <= high_trail:
            return text, "gb18030"
    except UnicodeDecodeError:
        pass
    try:
        text = data.decode("cp1252")
        if _western(text) and _control_ratio(text) < 0.01:
            return text, "cp1252"
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    if best is None:
        raise ValueError("undecodable text (not UTF-8, UTF-16 or GB18030)")
    text = str(best)
    if _control_ratio(text) >= 0.01:
        raise ValueError("binary file (control characters)")
    return text, best.encoding


# --------------------------------------------------------------------------- CSV reading

_SCHEMAS = {  # file -> (required columns, optional columns)
    "companies.csv": (("name", "country", "industry"), ("aliases",)),
    "addresses.csv": (("company", "street", "city", "country"), ("postal_code",)),
    "spend.csv": (("company", "year", "amount"), ("currency", "category", "business_unit")),
    "rates.csv": (("currency", "year", "rate"), ()),
    "agreements.csv": (("sla_id", "company", "file"), ("effective_date", "service_name", "governing_law")),
}
_REQUIRED_FILES = ("companies.csv", "agreements.csv")


class _Csv:
    """Rows of one CSV file as dicts with their starting line, problems collected."""

    def __init__(self, root: Path, name: str, problems: list[Problem]):
        self.name, self.problems = name, problems
        self.rows: list[tuple[int, dict[str, str]]] = []
        path = root / name
        if not path.is_file():
            severity = "error" if name in _REQUIRED_FILES else "warning"
            what = "nothing can be loaded from it" if severity == "error" else "no rows loaded"
            self._problem(None, f"{name} not found in the corpus folder; {what}", severity)
            return
        try:
            text, encoding = decode_bytes(path.read_bytes())
        except (OSError, ValueError) as exc:
            self._problem(None, f"cannot read {name}: {exc}")
            return
        if encoding not in ("utf-8", "utf-8-sig"):
            self._problem(None, f"{name} is {encoding}, not UTF-8; read anyway", "warning")
        self._parse(text)

    def _problem(self, line: int | None, message: str, severity: str = "error") -> None:
        self.problems.append(Problem(self.name, line, message, severity))

    def _records(self, text: str):
        """(start line, fields) per record; a malformed record is reported and skipped.

        After a quoting error, reading restarts on the line after the one where the bad
        record began, so one stray quote does not swallow the rest of the file.
        """
        lines = text.splitlines(keepends=True)
        offset = 0
        while offset < len(lines):
            reader = csv.reader(iter(lines[offset:]), strict=True)
            consumed = 0
            try:
                for fields in reader:
                    yield offset + consumed + 1, fields
                    consumed = reader.line_num
            except csv.Error as exc:
                bad = offset + consumed + 1
                reason = str(exc)
                if "unexpected end of data" in reason or "EOF" in reason:
                    reason = "unterminated quoted field"
                self._problem(bad, f"malformed CSV record: {reason}; row skipped")
                offset = bad
                continue
            return

    def _parse(self, text: str) -> None:
        required, optional = _SCHEMAS[self.name]
        records = self._records(text)
        header = None
        for line, fields in records:
            if any(f.strip() for f in fields):
                header = [f.strip().lower() for f in fields]
                break
        if header is None:
            self._problem(None, f"{self.name} is empty (no header row)")
            return
        missing = [c for c in required if c not in header]
        if missing:
            self._problem(line, f"missing required column(s): {', '.join(missing)} "
                                f"(header is: {', '.join(header)}); file not loaded")
            return
        extra = [c for c in header if c and c not in required + optional]
        if extra:
            self._problem(line, f"unknown column(s) ignored: {', '.join(extra)}", "warning")
        dupes = sorted({c for c in header if c and header.count(c) > 1})
        if dupes:
            self._problem(line, f"duplicate column(s) {', '.join(dupes)}: the first one is used", "warning")
        for line, fields in records:
            if not any(f.strip() for f in fields):
                continue  # blank line
            if len(fields) != len(header):
                hint = " (unquoted comma in a value?)" if len(fields) > len(header) else ""
                self._problem(line, f"row has {len(fields)} fields but the header has "
                                    f"{len(header)}{hint}; row skipped")
                continue
            row: dict[str, str] = {}
            for col, value in zip(header, fields):
                row.setdefault(col, value.strip())
            for col in optional:
                row.setdefault(col, "")
            self.rows.append((line, row))


# --------------------------------------------------------------------------- value parsing

_MONTHS = {m: i for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1)}


def parse_date(value: str) -> tuple[str | None, str | None]:
    """(ISO date, warning) for the common ways people write dates; raises ValueError.

    Slashes are read month/day/year (US) and dots day.month.year (European), with a warning
    when the day and month could be swapped.
    """
    s = value.strip()
    if not s:
        return None, None
    warning = None
    m = re.fullmatch(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ][\d:.]+Z?)?", s) \
        or re.fullmatch(r"(\d{4})(\d{2})(\d{2})", s) \
        or re.fullmatch(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*日?", s)
    if m:
        y, mo, d = map(int, m.groups())
    elif m := re.fullmatch(r"(\d{1,2})([/.\-])(\d{1,2})\2(\d{4})", s):
        a, sep, b, y = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
        if sep == "/":
            mo, d = (a, b) if a <= 12 else (b, a)
            if a <= 12 and b <= 12 and a != b:
                warning = f"ambiguous date '{s}' read as month/day/year"
        else:
            d, mo = (a, b) if b <= 12 else (b, a)
    else:
        text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", s.replace(",", " ")).lower()
        parts = text.split()
        y = mo = d = None
        for p in parts:
            if p[:3] in _MONTHS and p.isalpha():
                mo = _MONTHS[p[:3]]
            elif p.isdigit() and len(p) == 4:
                y = int(p)
            elif p.isdigit() and len(p) <= 2:
                d = int(p)
            else:
                raise ValueError(f"invalid date '{s}'")
        if None in (y, mo, d):
            raise ValueError(f"invalid date '{s}'")
    if not 1900 <= y <= 2100:
        raise ValueError(f"implausible year in date '{s}'")
    try:
        return date(y, mo, d).isoformat(), warning
    except ValueError:
        raise ValueError(f"invalid date '{s}' (no such day)") from None


def parse_amount(value: str) -> float:
    s = value.strip().replace(" ", "").replace("_", "")
    s = re.sub(r"^[$€£¥]|(?<=\d)[$€£¥]$", "", s)
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+(\.\d+)?", s):
        s = s.replace(",", "")
    try:
        amount = float(s)
    except ValueError:
        raise ValueError(f"amount '{value}' is not a number") from None
    if not math.isfinite(amount):
        raise ValueError(f"amount '{value}' is not a finite number")
    if amount < 0:
        raise ValueError(f"amount '{value}' is negative")
    return amount


def parse_year(value: str) -> int:
    s = value.strip()
    if not re.fullmatch(r"\d{4}(\.0+)?", s):
        raise ValueError(f"year '{value}' is not a four-digit year")
    year = int(float(s))
    if not 1900 <= year <= 2100:
        raise ValueError(f"implausible year {year} (expected 1900..2100)")
    return year


# --------------------------------------------------------------------------- the reader

class _Reader:
    def __init__(self, root: Path, max_file_bytes: int):
        self.root, self.max_file_bytes = root, max_file_bytes
        self.corpus = Corpus(root=root)
        self.problems = self.corpus.problems
        self.company_names: set[str] = set()
        self.referenced: set[str] = set()   # contract files named by any agreement row

    def problem(self, file: str, line: int | None, message: str, severity: str = "error") -> None:
        self.problems.append(Problem(file, line, message, severity))

    def unknown_company(self, file: str, line: int, name: str) -> None:
        close = difflib.get_close_matches(name, sorted(self.company_names), n=1, cutoff=0.8)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        if not name:
            self.problem(file, line, "empty company name; row skipped")
        else:
            self.problem(file, line, f"unknown company '{name}' (not in companies.csv){hint}; row skipped")

    # ---- tables

    def companies(self) -> None:
        seen: dict[str, CompanyRow] = {}
        for line, row in _Csv(self.root, "companies.csv", self.problems).rows:
            name = row["name"]
            if not name:
                self.problem("companies.csv", line, "empty company name; row skipped")
                continue
            aliases = []
            for alias in row["aliases"].split("|"):
                alias = alias.strip()
                if alias and alias != name and alias not in aliases:
                    aliases.append(alias)
            company = CompanyRow(name, row["country"], row["industry"], aliases, line)
            if name in seen:
                first = seen[name]
                diffs = [f"{f} '{getattr(company, f)}' vs '{getattr(first, f)}'"
                         for f in ("country", "industry", "aliases")
                         if getattr(company, f) != getattr(first, f)]
                if diffs:
                    self.problem("companies.csv", line,
                                 f"company '{name}' already defined on line {first.line} with "
                                 f"different values ({'; '.join(diffs)}); first row kept")
                else:
                    self.problem("companies.csv", line,
                                 f"duplicate of line {first.line} (company '{name}'); ignored", "warning")
                continue
            if not company.country:
                self.problem("companies.csv", line, f"company '{name}' has no country", "warning")
            seen[name] = company
        self.corpus.companies = list(seen.values())
        self.company_names = set(seen)

    def addresses(self) -> None:
        seen: dict[tuple, int] = {}
        for line, row in _Csv(self.root, "addresses.csv", self.problems).rows:
            if row["company"] not in self.company_names:
                self.unknown_company("addresses.csv", line, row["company"])
                continue
            address = AddressRow(row["company"], row["street"], row["city"], row["postal_code"],
                                 row["country"], line)
            key = (address.company, address.street, address.city, address.postal_code, address.country)
            if key in seen:
                self.problem("addresses.csv", line, f"duplicate of line {seen[key]}; ignored", "warning")
                continue
            if not (address.street or address.city):
                self.problem("addresses.csv", line, "address has neither street nor city; row skipped")
                continue
            seen[key] = line
            self.corpus.addresses.append(address)

    def spend(self) -> None:
        """Every valid row is kept: a supplier's yearly spend is the sum of its rows (categories,
        business units); only a row repeated exactly is counted once, as an export glitch."""
        seen: dict[tuple, int] = {}
        spelling: dict[str, str] = {}   # one spelling per category, the first one met
        for line, row in _Csv(self.root, "spend.csv", self.problems).rows:
            if row["company"] not in self.company_names:
                self.unknown_company("spend.csv", line, row["company"])
                continue
            try:
                year = parse_year(row["year"])
                amount = parse_amount(row["amount"])
            except ValueError as exc:
                self.problem("spend.csv", line, f"{exc}; row skipped")
                continue
            category = spelling.setdefault(" ".join(row["category"].split()).lower(), " ".join(row["category"].split()))
            item = SpendRow(row["company"], year, amount, row["currency"].upper(), category, line,
                            business_unit=row["business_unit"])
            key = (item.company, year, category, amount, item.currency, item.business_unit)
            if key in seen:
                self.problem("spend.csv", line, f"duplicate of line {seen[key]} (same supplier, year, category, "
                                                "amount and currency); counted once", "warning")
                continue
            seen[key] = line
            self.corpus.spend.append(item)

    def rates(self) -> None:
        """rates.csv is optional: without it only base-currency rows can be added up."""
        if not (self.root / "rates.csv").is_file():
            return
        seen: dict[tuple[str, int | None], RateRow] = {}
        for line, row in _Csv(self.root, "rates.csv", self.problems).rows:
            currency = row["currency"].strip().upper()
            try:
                if not currency:
                    raise ValueError("empty currency")
                year = parse_year(row["year"]) if row["year"] else None
                try:
                    rate = parse_amount(row["rate"])
                except ValueError:
                    rate = 0.0
                if rate <= 0:
                    raise ValueError(f"rate '{row['rate']}' is not a positive number")
            except ValueError as exc:
                self.problem("rates.csv", line, f"{exc}; row skipped")
                continue
            item = RateRow(currency, year, rate, line)
            first = seen.get((currency, year))
            if first is not None:
                same = first.rate == rate
                self.problem("rates.csv", line, f"duplicate of line {first.line}; ignored" if same else
                             f"rate for {currency} in {year or 'every year'} already given on line {first.line} "
                             f"({first.rate:g} vs {rate:g}); first row kept", "warning" if same else "error")
                continue
            seen[(currency, year)] = item
            self.corpus.rates.append(item)

    def _choose_base_currency(self, configured: str | None) -> str | None:
        """The configured base currency, else the data's only currency, else the only currency
        rates.csv does not convert, else the currency of most rows (with a warning)."""
        if configured:
            return configured.upper()
        rows = self.corpus.spend
        currencies = sorted({r.currency for r in rows if r.currency})
        if len(currencies) <= 1:
            return currencies[0] if currencies else None
        converted = {r.currency for r in self.corpus.rates}
        unconverted = [c for c in currencies if c not in converted]
        if len(unconverted) == 1:
            return unconverted[0]
        base = max(currencies, key=lambda c: sum(1 for r in rows if r.currency == c))
        self.problem("spend.csv", None, f"several currencies ({', '.join(currencies)}) and no base currency "
                                        f"set (CLAUSEGRAPH_BASE_CURRENCY); totals are in {base}, the currency "
                                        "of most rows", "warning")
        return base

    def convert_spend(self, configured: str | None) -> None:
        """Every total is in one base currency: other currencies go through rates.csv, and a row
        without a rate is reported and left out, never added as if it were the base currency."""
        base = self.corpus.base_currency = self._choose_base_currency(configured)
        rates = {(r.currency, r.year): r.rate for r in self.corpus.rates}
        for r in self.corpus.rates:
            if r.currency == base:
                self.problem("rates.csv", r.line, f"{base} is the base currency; its rate is ignored", "warning")
        named = any(r.currency for r in self.corpus.spend)
        kept = []
        for row in self.corpus.spend:
            if not row.currency or row.currency == base:
                if not row.currency and named and base:
                    self.problem("spend.csv", row.line, f"no currency given; taken as the base currency {base}",
                                 "warning")
                row.base_amount = row.amount
            else:
                rate = rates.get((row.currency, row.year), rates.get((row.currency, None)))
                if rate is None:
                    self.problem("spend.csv", row.line,
                                 f"no exchange rate from {row.currency} to the base currency {base} for {row.year} "
                                 f"(add '{row.currency},{row.year},<rate>' to rates.csv); row left out of the totals")
                    continue
                row.base_amount = round(row.amount * rate, 2)
            kept.append(row)
        self.corpus.spend = kept

    def agreements(self) -> None:
        seen: dict[str, AgreementRow] = {}
        for line, row in _Csv(self.root, "agreements.csv", self.problems).rows:
            sla_id = row["sla_id"]
            if not sla_id:
                self.problem("agreements.csv", line, "empty sla_id; row skipped")
                continue
            if row["company"] not in self.company_names:
                self.unknown_company("agreements.csv", line, row["company"])
                continue
            if not row["file"]:
                self.problem("agreements.csv", line, f"agreement '{sla_id}' names no contract file; row skipped")
                continue
            try:
                effective, warning = parse_date(row["effective_date"])
            except ValueError as exc:
                self.problem("agreements.csv", line, f"{exc} for agreement '{sla_id}'; row skipped")
                continue
            if warning:
                self.problem("agreements.csv", line, warning, "warning")
            item = AgreementRow(sla_id, row["company"], row["file"], effective, row["service_name"],
                                row["governing_law"], line)
            if sla_id in seen:
                first = seen[sla_id]
                same = (first.company, first.file, first.effective_date, first.service_name,
                        first.governing_law) == (item.company, item.file, item.effective_date,
                                                 item.service_name, item.governing_law)
                if same:
                    self.problem("agreements.csv", line, f"duplicate of line {first.line} ('{sla_id}'); ignored", "warning")
                else:
                    self.problem("agreements.csv", line,
                                 f"duplicate sla_id '{sla_id}' (first on line {first.line}); first row kept")
                continue
            seen[sla_id] = item
        for item in seen.values():
            text = self.contract(item)
            if text is not None:
                self.corpus.agreements.append(item)
                self.corpus.texts[item.sla_id] = text
        self.unreferenced_contracts()

    # ---- contract files

    def _safe_path(self, agreement: AgreementRow) -> Path | None:
        """The contract path inside contracts/, or None (reported) if it may not be read."""
        raw = agreement.file
        where = f"contract '{raw}' of agreement '{agreement.sla_id}'"
        contracts = self.root / "contracts"
        if PurePosixPath(raw).is_absolute() or PureWindowsPath(raw).anchor:
            self.problem("agreements.csv", agreement.line, f"{where}: absolute paths are not allowed "
                         "(give a path relative to contracts/); row skipped")
            return None
        parts = PurePosixPath(raw.replace("\\", "/")).parts
        self.referenced.add(PurePosixPath("contracts", *parts).as_posix())
        if ".." in parts:
            self.problem("agreements.csv", agreement.line,
                         f"{where}: '..' would leave the contracts/ folder; row skipped")
            return None
        if not contracts.is_dir():
            self.problem("agreements.csv", agreement.line,
                         f"{where}: the corpus has no contracts/ folder; row skipped")
            return None
        path = contracts
        for part in parts:
            path = path / part
            if path.is_symlink():
                self.problem("agreements.csv", agreement.line,
                             f"{where}: 'contracts/{PurePosixPath(*parts)}' is or passes through a "
                             "symbolic link, which is not followed; row skipped")
                return None
        try:
            resolved, base = path.resolve(), contracts.resolve()
        except OSError as exc:
            self.problem("agreements.csv", agreement.line, f"{where}: cannot resolve path ({exc}); row skipped")
            return None
        if base != resolved and base not in resolved.parents:
            self.problem("agreements.csv", agreement.line, f"{where}: path leaves contracts/; row skipped")
            return None
        if not path.exists():
            self.problem("agreements.csv", agreement.line,
                         f"{where}: file contracts/{PurePosixPath(*parts)} not found; row skipped")
            return None
        if not path.is_file():
            self.problem("agreements.csv", agreement.line, f"{where}: not a regular file; row skipped")
            return None
        return path

    def contract(self, agreement: AgreementRow) -> ContractText | None:
        path = self._safe_path(agreement)
        if path is None:
            return None
        rel = path.relative_to(self.root).as_posix()
        ref = f"agreement '{agreement.sla_id}' (agreements.csv line {agreement.line}) rejected"
        if path.suffix.lower() not in (".md", ".txt", *HTML_SUFFIXES):
            self.problem(rel, None, f"unexpected file type '{path.suffix}' (expected .md, .txt or .htm); read as text",
                         "warning")
        size = path.stat().st_size
        if size > self.max_file_bytes:
            self.problem(rel, None, f"file is {size:,} bytes, over the limit of {self.max_file_bytes:,} "
                                    f"(CLAUSEGRAPH_MAX_FILE_BYTES); {ref}")
            return None
        if size == 0:
            self.problem(rel, None, f"empty file; {ref}")
            return None
        try:
            text, encoding = decode_bytes(path.read_bytes())
        except OSError as exc:
            self.problem(rel, None, f"cannot read file ({exc}); {ref}")
            return None
        except ValueError as exc:
            self.problem(rel, None, f"{exc}; {ref}")
            return None
        markup = path.suffix.lower() in HTML_SUFFIXES or looks_like_html(text)
        if markup:
            text = html_to_text(text)   # an EDGAR .htm filing: its text as a browser lays it out
        if not text.strip():
            self.problem(rel, None, f"file contains only {'markup and ' if markup else ''}whitespace; {ref}")
            return None
        split = split_contract(text)
        if not split.clauses:   # only page numbers and running heads: nothing to read
            self.problem(rel, None, f"no text left after removing page numbers and running heads; {ref}")
            return None
        if split.warning:   # loaded all the same: a layout is never a reason to turn a contract away
            self.problem(rel, None, f"agreement '{agreement.sla_id}': {split.warning}", "warning")
        clauses, duplicates = dedupe_clauses(split.clauses)
        for kept, dropped, score in duplicates:
            self.problem(rel, None, f"clause {dropped} repeats clause {kept} "
                                    f"(similarity {score:.2f}); dropped", "warning")
        sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return ContractText(agreement.sla_id, rel, text, encoding, sha, split, clauses, duplicates)

    def unreferenced_contracts(self) -> None:
        contracts = self.root / "contracts"
        if not contracts.is_dir():
            return
        for dirpath, dirnames, filenames in os.walk(contracts):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith("."):
                    continue
                rel = (Path(dirpath) / name).relative_to(self.root).as_posix()
                if rel not in self.referenced:
                    self.problem(rel, None, "not referenced by agreements.csv; ignored", "warning")


def split_file(path: Path | str) -> tuple[SplitResult, list[ClauseDraft]]:
    """One contract file read as ingestion reads it (decoded, an HTML filing laid out as text, split,
    repeated clauses dropped), for the evaluations that need no corpus folder; raises ValueError."""
    text, _ = decode_bytes(Path(path).read_bytes())
    if Path(path).suffix.lower() in HTML_SUFFIXES or looks_like_html(text):
        text = html_to_text(text)
    split = split_contract(text)
    return split, dedupe_clauses(split.clauses)[0]


def read_corpus(root: Path | str, max_file_bytes: int | None = None, base_currency: str | None = None) -> Corpus:
    """Read and validate a corpus folder; never raises for bad input (see `Corpus.problems`).
    `base_currency` None: the configured one (CLAUSEGRAPH_BASE_CURRENCY), else taken from the data."""
    root = Path(root)
    if max_file_bytes is None or base_currency is None:
        from core.config import settings

        max_file_bytes = settings().max_file_bytes if max_file_bytes is None else max_file_bytes
        base_currency = base_currency or settings().base_currency
    reader = _Reader(root, max_file_bytes)
    if not root.is_dir():
        reader.problem(".", None, f"corpus folder {root} not found")
        return reader.corpus
    reader.companies()
    reader.addresses()
    reader.spend()
    reader.rates()
    reader.convert_spend(base_currency)
    reader.agreements()
    return reader.corpus

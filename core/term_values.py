"""Dates, durations, percentages and amounts as contracts and questions write them, found in running
text with their spans: "the 8th day of June, 2010", "June 8, 2010", "2010年6月8日", "thirty (30) days",
"三年", "twelve (12) months". These are exact things, so they are read by rule; both the term extractor
of ingestion and the planner's term questions use the same readers, so a question's "30 days" is
the contract's "thirty (30) days"."""
from __future__ import annotations

import calendar
import contextvars
import re
from dataclasses import dataclass
from datetime import date

from core.numerals import english_number, zh_number

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | \
    {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m} | {"sept": 9}
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December|" \
         r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.?"
_DAY = r"(?:\d{1,2}|_{1,}|\[\s*_*\s*\]|\[\*+\])"
_ZH_DIGIT = "〇零一二两三四五六七八九十"
_ZH_NUM = f"[{_ZH_DIGIT}0-9０-９]"

# English number words to 99 as one alternation ("twenty-four", "thirty", "one")
_UNIT_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|" \
              "sixteen|seventeen|eighteen|nineteen"
_TEN_WORDS = "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
NUMBER_WORD = rf"(?:(?:{_TEN_WORDS})(?:[\s-](?:{_UNIT_WORDS}))?|{_UNIT_WORDS}|hundred|a|an)"
# "thirty (30)", "30", "thirty", "(30)", "one hundred twenty (120)", "1.5"
COUNT = rf"(?:(?:{NUMBER_WORD}(?:\s+hundred(?:\s+and)?(?:\s+{NUMBER_WORD})?)?|{_ZH_NUM}+)\s*\(\s*\d+\s*\)|\d+(?:\.\d+)?|" \
        rf"{NUMBER_WORD}(?:\s+hundred(?:\s+and)?(?:\s+{NUMBER_WORD})?)?|{_ZH_NUM}+)"
UNIT = r"(?:business\s+days?|working\s+days?|calendar\s+days?|days?|weeks?|months?|years?|yrs?|mos?|mths?|" \
       r"个?工作日|个?自然日|日历日|天|日|周|星期|个月|月|年)"

# The fields of an agreement's terms, in the order they are shown (core/ingest/terms.py reads them)
TERM_FIELDS = ("agreement_date", "effective_date", "expiration_date", "initial_term", "auto_renewal", "renewal_term",
               "renewal_notice", "convenience_notice", "governing_law", "liability_cap", "uptime", "payment_days")
DURATION_FIELDS = ("initial_term", "renewal_term", "renewal_notice", "convenience_notice")
TERM_REVIEW_CONFIDENCE = 0.6   # a value read with less goes to the review queue

_DAY_UNITS = {"day": 1, "week": 7, "month": 365 / 12, "year": 365}   # 12 months = 1 year


@dataclass(frozen=True)
class Found:
    """A value read from text, with where it was read."""
    value: object
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class PartialDate:
    """A date a contract may leave open in parts ("June ___, 2010"): None where it is blank."""
    year: int
    month: int | None = None
    day: int | None = None

    def iso(self) -> str:
        if self.month is None:
            return f"{self.year:04d}"
        if self.day is None:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"

    def as_date(self) -> date | None:
        return date(self.year, self.month, self.day) if self.month and self.day else None

    @staticmethod
    def from_iso(s: str) -> "PartialDate":
        parts = [int(p) for p in s.split("-")]
        return PartialDate(*parts)


@dataclass(frozen=True)
class Duration:
    """A length of time as written: amount and unit (day, business day, week, month, year)."""
    amount: float
    unit: str

    @property
    def days(self) -> int:
        """Approximate length in calendar days, for comparisons ("30 days or less")."""
        base = 1 if self.unit == "business day" else _DAY_UNITS[self.unit]
        return round(self.amount * base * (7 / 5 if self.unit == "business day" else 1))

    @property
    def months(self) -> float:
        return {"year": 12, "month": 1}.get(self.unit, 0) * self.amount or self.days / 30

    def text(self) -> str:
        n = int(self.amount) if float(self.amount).is_integer() else self.amount
        return f"{n} {self.unit}{'' if n == 1 else 's'}"

    def add_to(self, start: date) -> date:
        """`start` plus this duration, as contracts count it: "three years from 1 March 2023" ends
        on 1 March 2026 (same day of the month, clipped to the month's end)."""
        if self.unit in ("year", "month") and float(self.amount).is_integer():
            months = int(self.amount) * (12 if self.unit == "year" else 1)
            y, m = divmod(start.month - 1 + months, 12)
            year, month = start.year + y, m + 1
            return date(year, month, min(start.day, calendar.monthrange(year, month)[1]))
        from datetime import timedelta
        return start + timedelta(days=self.days)


def count_value(text: str) -> float | None:
    """The number a COUNT match means: "thirty (30)" -> 30, "twelve" -> 12, "三十" -> 30, "an" -> 1."""
    s = text.strip().lower()
    if m := re.search(r"\(\s*(\d+)\s*\)", s):
        return float(m.group(1))
    s = s.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if re.fullmatch(r"\d+(?:\.\d+)?", s):
        return float(s)
    if re.fullmatch(f"[{_ZH_DIGIT}0-9]+", s):
        return float(zh_number(s.replace("两", "二"))) or None
    if s in ("a", "an"):
        return 1.0
    total, current = 0, 0
    for word in re.split(r"[\s]+", s.replace(" and ", " ")):
        if word == "hundred":
            current = (current or 1) * 100
            continue
        value = english_number(word)
        if value is None:
            return None
        current += value
    total += current
    return float(total) or None


def unit_name(text: str) -> str:
    t = text.lower().strip()
    if re.match(r"(business|working)|个?工作日", t):
        return "business day"
    if t.startswith("week") or t in ("周", "星期"):
        return "week"
    if t.startswith("month") or t in ("个月", "月", "mo", "mos", "mth", "mths"):
        return "month"
    if t.startswith("year") or t in ("年", "yr", "yrs"):
        return "year"
    return "day"


_FULL_WIDTH = str.maketrans("（）０１２３４５６７８９", "()0123456789")
_DURATION = re.compile(rf"(?<![A-Za-z0-9.])({COUNT})\s*(?:-|\s)?\s*(?:(?:contract|calendar|consecutive|full|successive)\s+)?"
                       rf"({UNIT})(?![a-z])", re.I)


def find_durations(text: str) -> list[Found]:
    """Every duration in `text`: "thirty (30) days", "one-year", "12 months", "三十日", "三年"."""
    out = []
    text = text.translate(_FULL_WIDTH)   # "三（3）年": same offsets
    for m in _DURATION.finditer(text):
        amount = count_value(m.group(1))
        if amount is None or amount <= 0:
            continue
        unit = m.group(2)
        if unit in ("月", "日") and "个" not in m.group(0) and _is_zh_date_part(text, m):
            continue
        if unit == "年" and re.fullmatch(r"\d{4}", m.group(1).strip()):
            continue   # 2025年 is a year, not a duration
        out.append(Found(Duration(amount, unit_name(unit)), m.start(), m.end(), m.group(0)))
    return out


def _is_zh_date_part(text: str, m: re.Match) -> bool:
    """六月 / 八日 inside a date (二〇一〇年六月八日) are not durations."""
    return bool(re.search(r"[年月]\s*$", text[max(0, m.start() - 2):m.start()]) or
                re.match(r"\s*[0-9〇零一二三四五六七八九十]+\s*[日号]", text[m.end():m.end() + 5]))


_EN_DATE = [   # ordinal suffixes also as EDGAR text splits them ("16t h day of May")
    # the 8th day of June, 2010 / this 8 day of June 2010
    re.compile(rf"(?P<day>{_DAY})\s*(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s+day\s+of\s+(?P<month>{_MONTH}),?\s*(?P<year>(?:19|20)\d\d)", re.I),
    # June 8, 2010 / June 8th 2010 / June ___, 2010 / June, 2010
    re.compile(rf"(?P<month>{_MONTH})\s+(?:(?P<day>{_DAY})\s*(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s*,?\s*)?,?\s*(?P<year>(?:19|20)\d\d)", re.I),
    # 8 June 2010 / 8th June, 2010
    re.compile(rf"(?P<day>\d{{1,2}})\s*(?:s\s?t|n\s?d|r\s?d|t\s?h)?\s+(?:of\s+)?(?P<month>{_MONTH}),?\s*(?P<year>(?:19|20)\d\d)", re.I),
    # 2010-06-08
    re.compile(r"(?P<year>(?:19|20)\d\d)-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})(?!\d)"),
    # 06/08/2010 (read month/day, as US filings write it, unless the first number cannot be a month),
    # 8.6.2010 (day.month), 7/1/98 (a two-digit year after slashes)
    re.compile(r"(?<![\d/.])(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<year>(?:19|20)\d\d)(?![\d.]\d)"),
    re.compile(r"(?<![\d/.])(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})/(?P<year>\d\d)(?![\d/])"),
]
_ZH_DATE = re.compile(rf"(?P<year>(?:19|20)\d\d|[〇零一二][〇零一二三四五六七八九]{{3}})\s*年\s*"
                      rf"(?:(?P<month>{_ZH_NUM}{{1,2}}|_+)\s*月\s*(?:(?P<day>{_ZH_NUM}{{1,3}}|_+)\s*[日号])?)?")


_UNDERLINE = re.compile(r"(?<=[\s,])-{2,}(?=\s)")


def _zh_year(s: str) -> int:
    if s.isdigit():
        return int(s)
    return int("".join(str("〇一二三四五六七八九".index(c.replace("零", "〇"))) for c in s))


def _int_or_none(s: str | None, zh: bool = False) -> int | None:
    if not s or not re.search(r"\d|[一二三四五六七八九十]", s):
        return None
    return zh_number(s) if zh else int(s)


# How the document being read writes 01/03/2024: month first (US filings, the default) or day first (a
# document whose dates in words put the day first, "1 March 2024"); set by `reading_day_first`.
DAY_FIRST = contextvars.ContextVar("day_first", default=False)
_DAY_MONTH = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?{_MONTH}", re.I)
_MONTH_DAY = re.compile(rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b", re.I)


def writes_day_first(text: str) -> bool:
    """Does the document write its dates in words day first ("1 March 2024") more than month first?"""
    return len(_DAY_MONTH.findall(text)) > len(_MONTH_DAY.findall(text))


def find_dates(text: str) -> list[Found]:
    """Every date in `text` (PartialDate values), left to right, overlapping readings dropped."""
    hits: list[Found] = []
    text = _UNDERLINE.sub(lambda m: " " * len(m.group(0)), text)   # "31 December, ------ 1996": same offsets
    for i, rx in enumerate(_EN_DATE):
        for m in rx.finditer(text):
            g = m.groupdict()
            year = int(g["year"])
            if year < 100:
                year += 1900 if year > 50 else 2000
            if "a" in g and g["a"] is not None:
                a, b = int(g["a"]), int(g["b"])
                month_first = g["sep"] == "/" and a <= 12 and not (DAY_FIRST.get() and b <= 12)
                month, day = (a, b) if month_first else (b, a)
            else:
                month = int(g["mnum"]) if g.get("mnum") else MONTHS.get(g["month"].lower().rstrip("."))
                day = _int_or_none(g.get("day"))
            hits.append(_found_date(year, month, day, m))
    for m in _ZH_DATE.finditer(text):
        hits.append(_found_date(_zh_year(m.group("year")), _int_or_none(m.group("month"), True),
                                _int_or_none(m.group("day"), True), m))
    hits = [h for h in hits if h is not None]
    hits.sort(key=lambda h: (h.start, -(h.end - h.start)))
    out: list[Found] = []
    for h in hits:
        if out and h.start < out[-1].end:
            continue
        out.append(h)
    return out


def _found_date(year: int, month: int | None, day: int | None, m: re.Match) -> Found | None:
    if month is not None and not 1 <= month <= 12:
        return None
    if day is not None and (month is None or not 1 <= day <= calendar.monthrange(year, month)[1]):
        return None
    return Found(PartialDate(year, month, day), m.start(), m.end(), m.group(0))


_PERCENT = re.compile(r"(\d{1,3}(?:\.\d+)?)\s*(?:%|％|per\s*cent|percent)|百分之([零〇一二三四五六七八九十点.\d]+)", re.I)


def find_percentages(text: str) -> list[Found]:
    out = []
    for m in _PERCENT.finditer(text):
        if m.group(1):
            value = float(m.group(1))
        else:
            s = m.group(2)
            whole, _, frac = s.replace("点", ".").partition(".")
            value = float(zh_number(whole)) + (float("0." + "".join(str(zh_number(c)) for c in frac)) if frac else 0)
        out.append(Found(value, m.start(), m.end(), m.group(0)))
    return out


CURRENCY_WORDS = {"$": "USD", "us$": "USD", "usd": "USD", "dollars": "USD", "u.s. dollars": "USD", "€": "EUR",
                  "eur": "EUR", "euro": "EUR", "euros": "EUR", "£": "GBP", "gbp": "GBP", "pounds": "GBP",
                  "pounds sterling": "GBP", "¥": "CNY", "rmb": "CNY", "cny": "CNY", "人民币": "CNY", "元": "CNY",
                  "chf": "CHF", "hk$": "HKD", "hkd": "HKD", "港币": "HKD", "sgd": "SGD", "s$": "SGD", "jpy": "JPY",
                  "欧元": "EUR", "美元": "USD", "英镑": "GBP", "cad": "CAD", "aud": "AUD", "inr": "INR"}
_CUR = r"(?:US\$|HK\$|S\$|\$|€|£|¥|USD|EUR|GBP|CNY|RMB|CHF|HKD|SGD|JPY|CAD|AUD|INR|人民币|港币|欧元|美元|英镑)"
_AMOUNT = re.compile(
    rf"(?P<cur>{_CUR})\s*(?P<num>\d{{1,3}}(?:[,\s']\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<scale>million|m\b|k\b|thousand|billion|万|亿)?"
    rf"|(?P<num2>\d{{1,3}}(?:[,\s']\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)\s*(?P<scale2>million|thousand|billion|万|亿)?\s*"
    rf"(?P<cur2>{_CUR}|dollars|euros?|pounds(?: sterling)?|元)", re.I)
_SCALES = {"million": 1e6, "m": 1e6, "k": 1e3, "thousand": 1e3, "billion": 1e9, "万": 1e4, "亿": 1e8}


def find_amounts(text: str) -> list[Found]:
    """Money amounts with their currency: "EUR 500,000", "$1 million", "人民币50万元" -> (amount, ISO currency)."""
    out = []
    for m in _AMOUNT.finditer(text):
        num = m.group("num") or m.group("num2")
        cur = (m.group("cur") or m.group("cur2")).lower()
        scale = (m.group("scale") or m.group("scale2") or "").lower()
        value = float(re.sub(r"[,\s']", "", num)) * _SCALES.get(scale, 1)
        out.append(Found((value, CURRENCY_WORDS.get(cur, cur.upper())), m.start(), m.end(), m.group(0)))
    return out


_PLACE_NOISE = re.compile(r"\b(the|state|commonwealth|province|laws?|of|federal|federative|republic|special "
                          r"administrative region|sar)\b", re.I)


def place_key(value: str) -> str:
    """A jurisdiction compared by its first place name: "the State of New York" = "New York, USA",
    "Province of Ontario, Canada" = "Ontario"."""
    first = re.split(r"[,;]| and ", value or "")[0]
    return re.sub(r"\s+", " ", _PLACE_NOISE.sub(" ", first)).strip().lower()

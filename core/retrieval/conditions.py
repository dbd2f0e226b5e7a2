"""Conditions a question puts on agreements, and types it names by meaning rather than by name.

The planner's regular expressions read the words that *route* a question; this module reads
the conditions that *filter* it and must never be silently dropped: effective dates (years,
ranges, before / after / since, relative years), governing law as an attribute of the
agreement (not the supplier's country), positions in a document (first / last / n-th), and
clause types described by what they do ("walk away from the contract" is Termination),
linked by embedding similarity to the taxonomy's own names, descriptions, keywords and
examples, so no phrase list of the question sets is needed.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache

from core.numerals import roman_numeral, roman_value, zh_number
from core.retrieval.linking import CJK, jurisdiction_names, lexicon

# --- dates --------------------------------------------------------------------------------

# words that make a year a condition on the agreement, not a spend year
AGREEMENT_TIME = re.compile(
    r"\b(sign(?:ed|ing)?|effective|in force|started|start(?:s|ing)?|began|begun|commenc\w*|dated|concluded|"
    r"entered into|agreements?|contracts?|slas?|work(?:ing|ed)? with|relationship|partners? since|"
    r"suppliers? since)\b|签|生效|订立|缔结|开始|合作", re.I)
SPEND_NEAR = re.compile(r"\b(spend|spending|spent|cost|paid)\b|支出|花费|花了|开支", re.I)
_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
           "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
           "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
           "oct": 10, "nov": 11, "dec": 12}
_MONTH = r"(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_Y = r"(?:19|20)\d{2}"
# A point in time, most specific first: a day, a month, a quarter, a year (each has a first and
# a last day, so "before March 2024" ends on 2024-02-29 and "after March 2024" starts in April).
_ZH_POINT = (_Y + r"\s*年\s*(?:\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?|第?[一二三四1-4]\s*季度|[上下]半年|[春夏秋冬]季?|"
             r"年?[初底末]|年中|中期)")
# seasons of the northern hemisphere, as most contracts' parties mean them (winter runs into the next year)
_SEASONS = {"spring": (3, 5), "summer": (6, 8), "autumn": (9, 11), "fall": (9, 11), "winter": (12, 14),
            "春": (3, 5), "夏": (6, 8), "秋": (9, 11), "冬": (12, 14)}
_ORDINAL = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
# early / mid / late in a year: its first, middle and last four months ("in mid-2023" is May to
# August); before or after "mid-2023" cuts at the middle of the year itself (`_MIDDLE`)
_THIRDS = {"early": (1, 4), "beginning": (1, 4), "start": (1, 4), "mid": (5, 8), "middle": (5, 8),
           "late": (9, 12), "初": (1, 4), "中": (5, 8), "底": (9, 12), "末": (9, 12)}
_PART = (r"(?:(?:first|second|1st|2nd)\s+half|(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter)"
         r"\s+(?:of\s+)?" + _Y + r"|h[12]\s+" + _Y + r"|" + _Y + r"\s*h[12]|(?:spring|summer|autumn|fall|winter)\s+(?:of\s+)?" + _Y
         + r"|(?:early|mid|late)[\s-]*" + _Y + r"|(?:the\s+)?(?:beginning|start|middle)\s+of\s+" + _Y)
_POINT = (r"(?:" + _Y + r"-\d{1,2}-\d{1,2}|" + _Y + r"-\d{1,2}(?![\d-])|"
          r"\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+" + _Y + r"|"
          + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?,?\s+" + _Y + r"|"
          + _MONTH + r",?\s+" + _Y + r"|q[1-4]\s+" + _Y + r"|" + _Y + r"\s*q[1-4]|" + _PART + r"|" + _ZH_POINT + r"|"
          + r"(?<!\d)" + _Y + r"(?!\d))")
_P = r"(" + _POINT + r")"
_EN_RANGE = re.compile(r"\bbetween\s+" + _P + r"\s+and\s+" + _P + r"|\b(?:from\s+)?" + _P + r"\s*(?:-|–|to|until)\s*" + _P,
                       re.I)
_EN_EITHER = re.compile(r"\b(?:in|during)\s+(?:the\s+)?" + _P + r"\s+or\s+(?:in\s+)?(?:the\s+)?" + _P, re.I)
_ZH_EITHER = re.compile(_P + r"\s*年?\s*或\s*" + _P)
_ZH_RANGE = re.compile(_P + r"\s*年?\s*(?:到|至|-|–)\s*" + _P + r"\s*年?")
_THE = r"(?:the\s+)?"
_EN_BEFORE = re.compile(r"\b(?:on or before|before|prior to|earlier than|until|up to|by)\s+" + _THE + r"(?:end\s+of\s+" + _THE + ")?"
                        + _P, re.I)
_EN_AFTER = re.compile(r"\b(?:after|later than)\s+" + _THE + _P, re.I)
_EN_SINCE = re.compile(r"\b(?:since|from|as of|starting|onwards? from|on or after)\s+" + _THE + _P + r"|" + _P +
                       r"\s+(?:or later|onwards?|and later)\b", re.I)
_ZH_BEFORE = re.compile(_P + r"\s*年?\s*(?:之前|以前|前)")
_ZH_SINCE = re.compile(_P + r"\s*年?\s*(?:及以后|及之后|以来|起|开始)")
_ZH_AFTER = re.compile(_P + r"\s*年?\s*(?:之后|以后|后)")
_IN_POINT = re.compile(r"\b(?:in|during|of|at)\s+" + _THE + _P + r"|(" + _ZH_POINT + r")|" + _P + r"\s*年", re.I)
_RELATIVE = re.compile(r"\b(last|previous|this|current|next)\s+year\b|(去年|今年|明年|前年)", re.I)
_REL_OFFSET = {"last": -1, "previous": -1, "this": 0, "current": 0, "next": 1,
               "去年": -1, "今年": 0, "明年": 1, "前年": -2}
# a rolling window back from today: "in the last two years", "over the past 6 months", "近两年",
# "过去12个月" ("last year" alone is the calendar year, _RELATIVE)
_ROLLING = re.compile(
    r"\b(?:the\s+(?:last|past|previous)(?:\s+(\d{1,3}|[a-z]+(?:-[a-z]+)?))?|(?:last|past|previous)\s+(\d{1,3}|[a-z]+(?:-[a-z]+)?))"
    r"\s+(years?|months?|weeks?|days?)\b"
    r"|(?:近|过去|最近)\s*([一二两三四五六七八九十\d]{1,3})?\s*(年|个月|月|周|天)(?:内|以来|来)?", re.I)
# number words, English and Chinese, as counts ("the last two years", "第三条", "第二季度", "our 3 biggest")
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "eleven": 11, "twelve": 12, "eighteen": 18, "twenty-four": 24, "一": 1, "二": 2, "两": 2,
                "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}


def count_word(word: str | None) -> int | None:
    """A count written in digits or as a number word, English or Chinese ("3", "three", "两")."""
    if not word:
        return None
    return int(word) if word.isdigit() else NUMBER_WORDS.get(word.lower())


# an age: "older than five years", "more than 2 years ago", "less than a year old", "newer than 6 months"
_AGE = re.compile(r"\b(?P<side>older|newer|younger|more|less|fewer)\s+than\s+(?P<n>\d{1,3}|a|an|one|[a-z]+)\s+"
                  r"(?P<unit>years?|months?|weeks?)(?:\s+(?:old|ago))?\b", re.I)


def _age_window(q: str, today: dt.date) -> DateCondition | None:
    """Agreements by age: older than N years took effect before today minus N years."""
    m = _AGE.search(q)
    if not m:
        return None
    side, raw, unit = m.group("side").lower(), m.group("n").lower(), m.group("unit").lower()
    if side in {"more", "less", "fewer"} and not re.search(r"\b(?:old|ago)\b", m.group(0), re.I):
        return None   # "more than 2 years" alone is a duration (a notice or warranty period), not an age
    n = 1 if raw in {"a", "an"} else count_word(raw)
    if n is None:
        return None
    months = n * (12 if unit.startswith("year") else 1)
    cut = today - dt.timedelta(weeks=n) if unit.startswith("week") else _months_back(today, months)
    if side in {"older", "more"}:   # "older than", "more than ... ago / old": before the cut
        return DateCondition(None, cut.isoformat(), f"'{m.group(0)}': effective on or before {cut} (today is {today})")
    return DateCondition(cut.isoformat(), None, f"'{m.group(0)}': effective on or after {cut} (today is {today})")


def _rolling_window(q: str, today: dt.date) -> DateCondition | None:
    m = _ROLLING.search(q)
    if not m:
        return None
    raw = m.group(1) or m.group(2) or m.group(4)
    unit = (m.group(3) or m.group(5)).lower()
    if raw is None:
        n = 1
    elif raw.isdigit():
        n = int(raw)
    elif raw.lower() in NUMBER_WORDS:
        n = NUMBER_WORDS[raw.lower()]
    else:
        return None   # "the last payment term": not a number of years
    if unit.startswith(("year", "年")):
        start = _months_back(today, 12 * n)
    elif unit.startswith(("month", "个月", "月")):
        start = _months_back(today, n)
    elif unit.startswith(("week", "周")):
        start = today - dt.timedelta(weeks=n)
    else:
        start = today - dt.timedelta(days=n)
    return DateCondition(start.isoformat(), today.isoformat(),
                         f"'{m.group(0).strip()}': effective {start} to {today} (today)")


def _months_back(day: dt.date, months: int) -> dt.date:
    y, mo = divmod(day.year * 12 + day.month - 1 - months, 12)
    return dt.date(y, mo + 1, min(day.day, _month_end(y, mo + 1).day))


@dataclass
class DateCondition:
    date_from: str | None
    date_to: str | None
    how: str            # shown in the plan: the words that set it and what they mean


def _month_end(year: int, month: int) -> dt.date:
    return (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1))


def point_bounds(text: str) -> tuple[dt.date, dt.date]:
    """The first and last day of a point matched by `_POINT`."""
    t = text.strip().lower()
    nums = [int(n) for n in re.findall(r"\d+", t)]
    year = next(n for n in nums if n >= 1900)
    month_word = re.search(r"[a-z]{3,9}", re.sub(r"\b(?:st|nd|rd|th)\b|q[1-4]", " ", t))
    season = re.search(r"\b(spring|summer|autumn|fall|winter)\b|年\s*([春夏秋冬])", t)
    if season:
        first, last = _SEASONS[season.group(1) or season.group(2)]
        end_year, end_month = (year + 1, last - 12) if last > 12 else (year, last)
        return dt.date(year, first, 1), _month_end(end_year, end_month)
    third = re.search(r"\b(early|mid|middle|late|beginning|start)\b|(?<![a-z])mid(?=[\s-]*\d)|年\s*年?([初底末中])", t)
    if third:
        first, last = _THIRDS[third.group(2) or third.group(1) or "mid"]
        return dt.date(year, first, 1), _month_end(year, last)
    half = re.search(r"\b(first|second|1st|2nd)\s+half|\bh([12])\b|(?<=\d)h([12])\b|([上下])半年", t)
    if half:
        second = half.group(0)[0] in "s2下" or half.group(2) == "2" or half.group(3) == "2"
        return (dt.date(year, 7, 1), dt.date(year, 12, 31)) if second else (dt.date(year, 1, 1), dt.date(year, 6, 30))
    ordinal = re.search(r"\b(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter", t)
    quarter = re.search(r"q([1-4])|第?([一二三四1-4])\s*季度", t)
    if ordinal:
        qn = _ORDINAL[ordinal.group(1)]
        return dt.date(year, 3 * qn - 2, 1), _month_end(year, 3 * qn)
    if quarter:
        qn = int(quarter.group(1)) if quarter.group(1) else int(NUMBER_WORDS.get(quarter.group(2), quarter.group(2)))
        return dt.date(year, 3 * qn - 2, 1), _month_end(year, 3 * qn)
    if month_word and month_word.group(0) in _MONTHS:
        month = _MONTHS[month_word.group(0)]
        day = next((n for n in nums if n != year), None)
    elif "年" in t or "-" in t:
        rest = [n for n in nums if n != year] if nums[0] == year else nums[1:]
        month, day = (rest + [None, None])[:2]
    else:
        return dt.date(year, 1, 1), dt.date(year, 12, 31)
    if month is None:
        return dt.date(year, 1, 1), dt.date(year, 12, 31)
    if day:
        d = dt.date(year, month, day)
        return d, d
    return dt.date(year, month, 1), _month_end(year, month)


def _points(m: re.Match) -> list[tuple[dt.date, dt.date]]:
    return [point_bounds(g) for g in m.groups() if g]


def parse_agreement_dates(q: str, today: dt.date | None = None) -> DateCondition | None:
    """The effective-date window a question asks for, or None when its years are spend years.

    A year counts as an agreement date only when the question speaks of agreements being
    signed, effective or in force (a spend year sits next to spend words instead). A point may
    be a day, a month, a quarter or a year, in English or Chinese."""
    if not AGREEMENT_TIME.search(q):
        return None
    if SPEND_NEAR.search(q) and not re.search(r"\b(sign\w*|effective|in force|start\w*|commenc\w*)\b|签|生效", q, re.I):
        return None   # "2024 spend of suppliers with agreements": the year is the spend's
    today = today or dt.date.today()
    rolling = _rolling_window(q, today) or _age_window(q, today)
    if rolling:
        return rolling
    rel = _RELATIVE.search(q)
    if rel:
        word = (rel.group(1) or rel.group(2)).lower()
        year = today.year + _REL_OFFSET.get(word, _REL_OFFSET.get(rel.group(0), 0))
        return DateCondition(f"{year}-01-01", f"{year}-12-31", f"'{rel.group(0)}' = {year} (today is {today})")
    try:
        return _window(q)
    except ValueError:   # "2024-02-31": no such day, so no date condition rather than a wrong one
        return None


_MIDDLE = re.compile(r"\bmid(?:dle)?\b|(?<![a-z])mid(?=[\s-]*\d)|年中|中期", re.I)


def _middle(m: re.Match) -> tuple[dt.date, dt.date] | None:
    """Before or after the middle of a year cuts the year in two halves, not at May or August:
    "after mid-2023" starts on 1 July 2023."""
    point = next((g for g in m.groups() if g), "")
    if not _MIDDLE.search(point):
        return None
    year = point_bounds(point)[0].year
    return dt.date(year, 7, 1), dt.date(year, 6, 30)


def without_dates(q: str) -> str:
    """The question without its date phrases, so that "signed after mid-2023" or "2024年之前"
    is not read as a clause's place ("the clause after ...")."""
    for pattern in (_EN_RANGE, _ZH_RANGE, _ZH_SINCE, _EN_SINCE, _EN_BEFORE, _ZH_BEFORE, _EN_AFTER, _ZH_AFTER):
        q = pattern.sub(" ", q)
    return q


def date_label(a: dt.date, b: dt.date) -> str:
    """A window as people say it: a year, a month, a day, or from-to."""
    if (a.month, a.day, b.month, b.day) == (1, 1, 12, 31) and a.year == b.year:
        return str(a.year)
    if a.day == 1 and b == _month_end(a.year, a.month):
        return f"{a.year}-{a.month:02d}"
    return a.isoformat() if a == b else f"{a} to {b}"


def _either_window(m: re.Match) -> DateCondition:
    """"in late 2024 or 2025": one window from the first to the last; when the two do not touch
    ("2022 or 2024"), the window spans the gap too, and the plan says so."""
    (a1, b1), (a2, b2) = sorted(_points(m))
    how = f"'{m.group(0).strip()}': effective {date_label(a1, max(b1, b2))}"
    if a2 > b1 + dt.timedelta(days=1):
        how += f" (one window: {b1 + dt.timedelta(days=1)} to {a2 - dt.timedelta(days=1)} between them included)"
    return DateCondition(a1.isoformat(), max(b1, b2).isoformat(), how)


# "started in 2023" next to spend words: the point is the agreement's, as the verb right before it says
_DATE_VERB_BEFORE = re.compile(r"\b(?:sign(?:ed)?|effective|start(?:ed)?|commenc\w*|began|begun|concluded|entered\s+into|"
                               r"dated|took\s+effect)\s*$", re.I)


_ZH_DATE_VERB_AFTER = re.compile(r"\s*(?:签|生效|开始|订立|缔结)")


def _window(q: str) -> DateCondition | None:
    said = lambda m: f"'{m.group(0).strip()}'"  # noqa: E731
    m = _EN_EITHER.search(q) or _ZH_EITHER.search(q)
    if m:
        return _either_window(m)
    for pat in (_EN_RANGE, _ZH_RANGE):
        m = pat.search(q)
        if m:
            (a, _), (_, b) = sorted(_points(m))
            return DateCondition(a.isoformat(), b.isoformat(), f"{said(m)}: effective {date_label(a, b)}")
    m = _ZH_SINCE.search(q) or _EN_SINCE.search(q)
    if m:
        a = _points(m)[0][0]
        return DateCondition(a.isoformat(), None, f"{said(m)}: effective on or after {a}")
    m = _EN_BEFORE.search(q) or _ZH_BEFORE.search(q)
    if m:
        a, b = _middle(m) or _points(m)[0]
        if re.search(r"\bend\s+of\b|\bon or before\b|年[底末]", m.group(0), re.I):   # "by the end of 2024": 2024 included
            return DateCondition(None, b.isoformat(), f"{said(m)}: effective on or before {b}")
        return DateCondition(None, (a - dt.timedelta(days=1)).isoformat(), f"{said(m)}: effective before {a}")
    m = _EN_AFTER.search(q) or _ZH_AFTER.search(q)
    if m:
        b = (_middle(m) or _points(m)[0])[1]
        return DateCondition((b + dt.timedelta(days=1)).isoformat(), None, f"{said(m)}: effective after {b}")
    m = next((m for m in _IN_POINT.finditer(q) if not SPEND_NEAR.search(q) or _DATE_VERB_BEFORE.search(q[:m.start()])
              or _ZH_DATE_VERB_AFTER.match(q[m.end():])), None)
    if m:
        a, b = _points(m)[0]
        return DateCondition(a.isoformat(), b.isoformat(), f"{said(m)}: effective in {date_label(a, b)}")
    return None


# --- how many agreements a supplier has ----------------------------------------------------

_AGR = r"(?:agreements?|contracts?|slas?)"
_AGREEMENT_COUNT = (
    (re.compile(r"\b(?:more than|over)\s+(\d{1,2}|one|two|three|four|five)\s+(?:\w+\s+)?" + _AGR + r"\b", re.I), "gt"),
    (re.compile(r"\bat least\s+(\d{1,2}|one|two|three|four|five)\s+(?:\w+\s+)?" + _AGR + r"\b", re.I), "ge"),
    (re.compile(r"\b(\d{1,2}|one|two|three|four|five)\s+or\s+more\s+(?:\w+\s+)?" + _AGR + r"\b", re.I), "ge"),
    (re.compile(r"(?<!how )\b(several|multiple|many)\s+(?:\w+\s+)?(?:agreements|contracts|slas)\b", re.I), "several"),
    (re.compile(r"\b(?:only|just)\s+(?:one|a single)\s+" + _AGR + r"\b|\ba single\s+" + _AGR + r"\b", re.I), "one"),
    # "which supplier do we have two contracts with?", "suppliers holding exactly 3 agreements"
    (re.compile(r"\b(?:have|has|having|hold|holds|holding|with)\s+(?:exactly\s+)?(\d{1,2}|two|three|four|five)\s+"
                r"(?:\w+\s+)?(?:agreements|contracts|slas)\b", re.I), "exactly"),
    (re.compile(r"(多份|多个|两份以上|两份或以上|不止一份|一份以上)(?:合同|协议)"), "several"),
    (re.compile(r"只有一份(?:合同|协议)|仅有一份(?:合同|协议)"), "one"),
    (re.compile(r"(?:有|签了?|签订了?)\s*([两二三四五]|\d{1,2})\s*份(?:合同|协议)"), "exactly"),
)


def agreement_count(q: str) -> tuple[int | None, int | None, str] | None:
    """(at least, at most, the words) when a question filters suppliers by how many agreements
    they have: "more than one contract", "several agreements", "只有一份合同"."""
    for pattern, kind in _AGREEMENT_COUNT:
        m = pattern.search(q)
        if not m:
            continue
        if kind == "several":
            return 2, None, m.group(0)
        if kind == "one":
            return 1, 1, m.group(0)
        n = count_word(m.group(1))
        if kind == "exactly":
            return n, n, m.group(0)
        return (n + 1 if kind == "gt" else n), None, m.group(0)
    return None


_RANK_EN = re.compile(r"\b(?:(?P<n>\d{1,2}|" + "|".join(NUMBER_WORDS) + r")\s+)?(?:of\s+)?(?:our\s+|the\s+)?"
                      r"(?P<word>oldest|earliest|newest|latest|youngest|most\s+recent(?:ly)?)\b", re.I)
_RANK_ZH = re.compile(r"(?P<word>最早|最新|最近(?![一二两三四五六七八九十\d几]))")
_RANK_ZH_N = re.compile(r"前\s*(\d{1,2}|[一二两三四五六七八九十])|(\d{1,2}|[一二两三四五六七八九十])\s*份")
_DATED_THING = re.compile(r"\b(?:agreements?|contracts?|slas?|deals?|signed|effective|took\s+effect|in\s+force|started|"
                          r"began|concluded|entered\s+into)\b|合同|协议|签|生效", re.I)


def agreement_rank(q: str) -> tuple[str, int, str] | None:
    """("earliest" | "latest", how many, the words) when a question ranks agreements by their
    effective date: "which supplier's contract took effect first ... earliest", "our three
    newest agreements", "最早生效的合同". Not a spend ranking ("latest spend"), nor a window
    ("最近两年")."""
    if SPEND_NEAR.search(q) or not _DATED_THING.search(q):
        return None
    m = _RANK_EN.search(q) or _RANK_ZH.search(q)
    if not m:
        return None
    word = re.sub(r"\s+", " ", m.group("word").lower())
    order = "earliest" if word in {"oldest", "earliest", "最早"} else "latest"
    n = 1
    if m.re is _RANK_EN and m.group("n"):
        n = count_word(m.group("n"))
    elif (zn := _RANK_ZH_N.search(q)):
        n = count_word(zn.group(1) or zn.group(2))
    return order, max(1, min(n, 50)), m.group(0).strip()


# suppliers ranked by how many agreements they have: "the most contracts", "the fewest SLAs",
# "top 3 suppliers by number of agreements", "合同最多的供应商" (最多 / 最少 before a count is a bound:
# "最多两份合同" is "at most two contracts", read by `agreement_count`)
_BY_COUNT_EN = re.compile(
    r"\b(?P<word>most|fewest|least)\s+(?:agreements|contracts|slas|deals)\b"   # "most recent contracts" is a date
    r"|\b(?P<number>(?:highest|largest|greatest|biggest|lowest|smallest)\s+(?:number|count))\s+of\s+"
    r"(?:\w+\s+)?(?:agreements|contracts|slas|deals)\b"
    r"|\bby\s+(?:the\s+)?(?P<by>number|count)\s+of\s+(?:\w+\s+)?(?:agreements|contracts|slas|deals)\b", re.I)
_BY_COUNT_ZH = re.compile(r"(?:合同|协议)(?:的)?(?:数量|数目|份数|数)?(?P<zh>最多|最少)(?![一二两三四五六七八九十\d]+\s*份)"
                          r"|(?P<zh2>最多|最少)的?(?:合同|协议)")
_TOP_N_EN = re.compile(r"\btop\s+(\d{1,2}|" + "|".join(NUMBER_WORDS) + r")\b|\b(\d{1,2}|" + "|".join(NUMBER_WORDS)
                       + r")\s+(?:\w+\s+)?(?:suppliers|vendors|companies|providers|partners|counterparties)\b", re.I)
_TOP_N_ZH = re.compile(r"前\s*(\d{1,2}|[一二两三四五六七八九十])\s*(?:家|名|个|位)?")


def company_agreement_rank(q: str) -> tuple[str, int, str] | None:
    """("most" | "fewest", how many suppliers, the words) when a question ranks suppliers by
    their number of agreements; ties at the last place asked for are kept by the query."""
    m = _BY_COUNT_EN.search(q) or _BY_COUNT_ZH.search(q)
    if not m:
        return None
    word = (m.groupdict().get("word") or m.groupdict().get("number") or m.groupdict().get("zh") or m.groupdict().get("zh2") or "most").lower()
    if m.groupdict().get("by") and re.search(r"\b(?:lowest|fewest|least|bottom)\b", q, re.I):
        word = "fewest"
    order = "fewest" if word.split()[0] in {"fewest", "least", "lowest", "smallest", "最少"} else "most"
    n = 1
    top = _TOP_N_EN.search(q) if m.re is _BY_COUNT_EN else _TOP_N_ZH.search(q)
    if top:
        n = count_word(next(g for g in top.groups() if g))
    return order, max(1, min(n, 50)), m.group(0).strip()


# --- governing law ------------------------------------------------------------------------

LAW_CONTEXT = re.compile(r"\b(\w+(?:\s+\w+)?)\s+law\b|\blaws?\s+of\s+(?:the\s+)?(\w+(?:\s+\w+)?)|"
                         r"\bgoverned\s+by\s+(?:the\s+)?(\w+(?:\s+\w+)?)|"
                         r"([\u4e00-\u9fff]{2,6}?)(?:法律|法)(?:管辖|适用)?|适用([\u4e00-\u9fff]{2,6}?)(?:法律|法)", re.I)


def law_phrases(vocab_laws: list[str]) -> dict[str, str]:
    """phrase -> governing-law value: the values themselves, plus every lexicon synonym of a
    country whose name or synonym occurs in the value ("English" -> "England and Wales")."""
    out: dict[str, str] = {}
    for law in vocab_laws:
        ll = law.lower()
        out[ll] = law
        for canon, syns in jurisdiction_names():
            names = [canon.lower()] + [s.lower() for s in syns]
            if any(re.search(r"(?<![a-z])" + re.escape(n) + r"(?![a-z])", ll) for n in names if not CJK.search(n) and len(n) > 2):
                for s in names:
                    out.setdefault(s, law)
    return out


# "governed by a law other than their home country's", "foreign law", "适用外国法律": the agreement's
# law against the supplier's own country (checked before HOME_LAW, which the negated forms contain)
FOREIGN_LAW = re.compile(
    r"\b(?:foreign|non-domestic|overseas)[\s-]+(?:governing\s+)?laws?\b"
    r"|\blaws?\s+(?:of\s+)?(?:a\s+|another\s+)?(?:country\s+|jurisdiction\s+)?other\s+than\s+(?:their|its|the\s+supplier'?s?)\s+"
    r"(?:own\s+|home\s+)?(?:country|jurisdiction|nation)"
    r"|\b(?:a|another)\s+(?:different\s+)?country'?s?\s+law\b|\ba\s+different\s+law\b|\blaw\s+of\s+(?:a\s+different|another)\s+country\b"
    r"|\bnot\s+(?:governed\s+by|under)\s+(?:their|its)\s+(?:own\s+|home\s+)?(?:country'?s?\s+)?(?:laws?|jurisdiction)\b"
    r"|外国法|境外法|非本国法|不适用(?:其)?本国法|本国以外的?法|其他国家的?法律", re.I)
HOME_LAW = re.compile(r"\b(?:their|its)\s+(?:own|home)\s+(?:country'?s?\s+)?laws?\b|\bhome[- ]country\s+laws?\b"
                      r"|\bdomestic\s+laws?\b|\bthe\s+law\s+of\s+(?:their|its)\s+(?:own\s+|home\s+)?country\b|本国法", re.I)


# The same said in parts: a law word, a word of mismatch, then the supplier's own country ("governed
# by a law different from their home country", "whose governing law does not match where they are based")
_LAW_WORD = re.compile(r"\b(?:laws?|jurisdictions?|governed|governing)\b|法律|适用法", re.I)
_OWN_COUNTRY = re.compile(
    r"\b(?:their|its|the\s+(?:supplier|vendor|company|provider)(?:'?s)?)\s+(?:own\s+)?(?:home\s+)?"
    r"(?:country|countries|nation|jurisdiction|home|seat|location)\b|\bhome\s+countr(?:y|ies)\b|"
    r"\bwhere\s+(?:they|it)\s+(?:are|is|were|was)\s+(?:based|located|registered|headquartered|incorporated)\b|"
    r"所在国|所在地|本国|注册地|注册国|总部所在", re.I)
_MISMATCH = re.compile(r"\b(?:different|differs?|differing|other\s+than|another|unlike|outside|mismatch\w*|"
                       r"(?:does|do|is|are)\s*n[o']t\s+(?:match|the\s+same|equal)|"
                       r"(?:isn't|aren't|doesn't|don't)\s+(?:match|the\s+same|equal)?)\b|不同|不一致|不符|不一样|以外", re.I)


def law_scope(q: str) -> tuple[str, str] | None:
    """("foreign", words) when the agreement's law is asked to differ from the supplier's
    country, ("home", words) when asked to be it; the words are what said so."""
    for scope, pattern in (("foreign", FOREIGN_LAW), ("home", HOME_LAW)):
        m = pattern.search(q)
        if m:
            return scope, m.group(0)
    own, law = _OWN_COUNTRY.search(q), _LAW_WORD.search(q)
    if own and law:
        # the mismatch between the law and the country ("... 与其所在国不同": after it in Chinese)
        mismatch = _MISMATCH.search(q, law.start())
        if mismatch:
            start, end = min(law.start(), mismatch.start()), max(own.end(), mismatch.end())
            return "foreign", q[start:end]
    return None


def law_country(law: str) -> str | None:
    """The country whose legal system a governing-law value belongs to: the country it names
    ("Germany", "German law") or the one its state or province is in ("New York"); None for one
    of its own (Hong Kong) or one the lexicon does not know."""
    ll = law.lower().strip()
    for juris, syns in jurisdiction_names():
        if ll in {juris.lower(), *(x.lower() for x in syns)}:
            lex = lexicon()
            return juris if juris in lex["countries"] else lex.get("jurisdiction_countries", {}).get(juris)
    phrases = country_phrases()
    if ll in phrases:
        return phrases[ll]
    for phrase in sorted(phrases, key=len, reverse=True):
        if not CJK.search(phrase) and len(phrase) > 3 and re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?![a-z])", ll):
            return phrases[phrase]
    return None


def law_countries(vocab_laws: list[str]) -> dict[str, str]:
    """governing-law value -> its country, for the values the graph holds (a query parameter)."""
    return {law: country for law in vocab_laws if (country := law_country(law))}


def _lexicon_phrases(kind: str) -> dict[str, str]:
    """phrase -> value for every value of a lexicon section (its name and synonyms, lower case)."""
    return {phrase.lower(): canon for canon, syns in lexicon()[kind].items() for phrase in (canon, *syns)}


@lru_cache(maxsize=1)
def industry_phrases() -> dict[str, str]:
    """phrase -> industry for every industry the lexicon knows, in the graph or not; longest first."""
    return dict(sorted(_lexicon_phrases("industries").items(), key=lambda kv: -len(kv[0])))


@lru_cache(maxsize=1)
def country_phrases() -> dict[str, str]:
    """phrase -> country for every country the lexicon knows, in the graph or not."""
    return _lexicon_phrases("countries")


def unmatched_law(q: str, matched: dict[str, str]) -> str | None:
    """A jurisdiction named as a law ("under Irish law") that no agreement is governed by."""
    phrases = country_phrases()
    ql = q.lower()
    for m in LAW_CONTEXT.finditer(ql):
        words = next((g for g in m.groups() if g), "")
        for phrase in sorted(phrases, key=len, reverse=True):
            hit = (phrase in words) if CJK.search(phrase) else re.search(
                r"(?<![a-z])" + re.escape(phrase) + r"(?![a-z])", words)
            if hit and phrase not in matched.values() and len(phrase) > 1:
                return phrases[phrase]
    return None


# --- positions ----------------------------------------------------------------------------

ORDINALS = {"first": 1, "opening": 1, "initial": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
            "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "last": -1, "final": -1, "closing": -1,
            "concluding": -1, "penultimate": -2, "second to last": -2, "second last": -2,
            "last but one": -2, "next to last": -2, "third to last": -3, "antepenultimate": -3}
_EN_POSITION = re.compile(r"\b(" + "|".join(w.replace(" ", r"[\s-]+") for w in sorted(ORDINALS, key=len, reverse=True))
                          + r"|(\d{1,2})(?:st|nd|rd|th))\s+(?:\w+\s+)?"
                          r"(clause|section|article|provision|paragraph|part|term)s?\b", re.I)
_ZH_POSITION = re.compile(r"(最后|末尾|开头|倒数第([一二三四五六七八九十]|\d{1,2})|第([一二三四五六七八九十]|\d{1,2}))\s*(?:一)?\s*(?:条|节|款|部分)")


def parse_position(q: str) -> tuple[int, str] | None:
    """(n, words) for "the n-th clause" (1-based; -1 = the last), or None."""
    m = _EN_POSITION.search(q)
    if m:
        word = re.sub(r"[\s-]+", " ", m.group(1).lower())
        n = int(m.group(2)) if m.group(2) else ORDINALS[word]
        return n, m.group(0)
    m = _ZH_POSITION.search(q)
    if m:
        word = m.group(1)
        if word in ("最后", "末尾"):
            return -1, m.group(0)
        if word == "开头":
            return 1, m.group(0)
        from_end, num = m.group(2), m.group(3)
        n = from_end or num
        n = int(n) if n.isdigit() else NUMBER_WORDS[n]
        return (-n if from_end else n), m.group(0)
    return None


# "section 3", "clause 12", "Article IV", "§ 5": the contract's own number of a section, not a count
# (a sub-number, "section 12.3", names a part of a section and is left alone)
_EN_NUMBERED = re.compile(r"(?:\b(?:section|clause|article|paragraph)\s+|§\s*)(?:no\.?\s*)?(\d{1,3}|[ivxlc]{1,7})"
                          r"(?![\w.]*\d)(?!\w)", re.I)


_ZH_NUMBERED = re.compile(r"(?<!倒数)第\s*([一二两三四五六七八九十百]+|\d{1,3})\s*条")


def parse_section_number(q: str) -> tuple[int, str] | None:
    """(n, words) for a section named by its number ("section 3", "Article IV", "§ 5", "第三条"), or None."""
    zh = _ZH_NUMBERED.search(q)
    if zh:
        n = zh_number(zh.group(1))
        return (n, zh.group(0)) if n else None
    m = _EN_NUMBERED.search(q)
    if not m:
        return None
    raw = m.group(1)
    # Roman numerals as contracts write them, in capitals; a lone "I" only after "article" (else it is the pronoun)
    if not raw.isdigit() and (not raw.isupper() or (raw == "I" and not m.group(0).lower().startswith("article"))):
        return None
    n = int(raw) if raw.isdigit() else roman_value(raw)
    n = n if raw.isdigit() or roman_numeral(n or 0) == raw else None   # canonical numerals only ("IIII" is none)
    return (n, m.group(0).strip()) if n else None


# --- clause types by meaning ----------------------------------------------------------------

# calibrate_meaning(): leave-one-out on the taxonomy's 81 English examples, read as questions
# are (scaffolding dropped): at 0.52 / 0.04 precision 0.71, recall 0.35; with no threshold 0.51.
# A clear lead also counts at a lower similarity: adding 0.45 / 0.12 links no example wrongly
# that the first rule left alone (same precision), while short situational wordings ("walk
# away", "ending the cooperation early") sit near 0.5 but far ahead of any other type.
MEANING_THRESHOLD = 0.52
MEANING_MARGIN = 0.04         # the best type must beat the runner-up by this much
MEANING_CLEAR_THRESHOLD = 0.45
MEANING_CLEAR_MARGIN = 0.12
# one word alone is near every type's prototypes by a little ("promise" 0.52 Warranty, "together" 0.52
# Change of Control, "risks" 0.56 Liability); a word that names a topic is near one by far more
# ("outages" 0.92, "arbitration" 0.64, "refunds" 0.89)
MEANING_ONE_WORD_THRESHOLD = 0.60
# question scaffolding: dropped before embedding; "how" stays before a measure ("how quickly",
# "how much"), which says what the clause sets (a response time, an amount)
_SCAFFOLD = re.compile(
    r"\b(what|which|who|whom|how(?!\s+(?:\w+ly|fast|soon|long|often|much|many)\b)|when|where|does|do|did|is|are|was|the|a|an|our|we|us|their|its|his|her|in|of|with|"
    r"for|to|on|at|by|from|this|that|these|those|contract|contracts|agreement|agreements|sla|slas|clause|clauses|"
    r"section|sections|provision|provisions|supplier|suppliers|vendor|vendors|company|companies|provider|providers|"
    r"firm|firms|partner|partners|counterpart(?:y|ies)|say|says|said|"
    r"tell|me|show|give|list|there|anything|any|about|regarding|have|has|had|can|could|would|should|will|shall|may|"
    r"'s|s|it|they|them|you|i|need|want|please|happens?|under|across|all|every|each|compare|handles?|handled|"
    r"deals?|dealt|treats?|covers?|covered|arrange\w*|terms?|them|those|one|ones|nothing|never|no|not|don't|"
    r"doesn't|lack|lacks|without|missing|governed|law|laws|signed|based|located|conditions|circumstances|"
    r"and|or|but|also|both|either|together|along|plus|as well|other|others|besides|else|apart|except|"
    # the parties and what merely stops them ("nothing stopping either side from poaching the other's staff")
    r"side|sides|party|parties|stop|stops|stopping|preventing|prevents|barring)\b", re.I)
# "what do they supply?" asks what the suppliers provide (their agreements' services), no clause
_ASKS_WHAT_SUPPLIED = re.compile(r"\bwhat\s+(?:do|does|did|will|can)\s+(?:\w+\s+){0,3}?"
                                 r"(?:supply|provide|deliver|sell|offer)\b", re.I)


@lru_cache(maxsize=1)
def _prototype_items() -> tuple[list[str], list[str]]:
    """The English prototype texts of every type (name, description, keywords, concepts,
    examples) and their owners; Chinese texts are left to the bilingual lexicon."""
    from core.taxonomy import load_taxonomy

    texts, owners = [], []
    for t in load_taxonomy():
        if t.is_catch_all:
            continue
        items = [t.name, t.description] + list(t.keywords_en) + list(t.examples)
        items += [c.rstrip("*") for c in t.concepts if len(c.rstrip("*")) > 3]
        for x in items:
            if x and not CJK.search(x):
                texts.append(x)
                owners.append(t.name)
    return texts, owners


@lru_cache(maxsize=1)
def _meaning_prototypes():
    """One vector per English prototype text of every type."""
    import numpy as np

    from core.embeddings import get_embedder

    texts, owners = _prototype_items()
    return np.asarray(get_embedder().encode(texts)), owners


def masked_text(q: str, masked: list[str]) -> str:
    """The question without the names and filters in `masked`, its other words kept."""
    text = q
    for ph in sorted((m for m in masked if m), key=len, reverse=True):
        text = re.sub(r"(?<![A-Za-z])" + re.escape(ph) + r"(?![A-Za-z])", " ", text, flags=re.I)
    return re.sub(r"\s+", " ", text).strip()


# the scaffolding words that a provision's own wording needs ("buy all of it from no other source", "working for
# competitors", "without giving a reason"): kept for the provision model's reading (type_by_two_readings)
_PROVISION_WORDS = frozenset("all any other others from to for with by on of in at without may can must shall will "
                             "each every one ones else except".split())


def provision_text(q: str, masked: list[str]) -> str:
    """The question as the provision model reads it: no names, filters, question words or words for the
    documents and parties, but the small words of a provision's own wording kept."""
    text = re.sub(r"[?？。!.,;:]", " ", masked_text(q, masked))
    text = _SCAFFOLD.sub(lambda m: m.group(0) if m.group(0).lower() in _PROVISION_WORDS else " ",
                         _ASKS_WHAT_SUPPLIED.sub(" ", text))
    return re.sub(r"\s+", " ", text).strip()


def meaning_text(q: str, masked: list[str]) -> str:
    """The question without names, filters and scaffolding: what is left describes the clause."""
    text = _SCAFFOLD.sub(" ", _ASKS_WHAT_SUPPLIED.sub(" ", re.sub(r"[?？。!.,;:]", " ", masked_text(q, masked))))
    return re.sub(r"\s+", " ", text).strip()


def _linked(s1: float, s2: float, threshold: float, margin: float) -> bool:
    """Near enough and ahead of the runner-up, or clearly ahead of it at a lower similarity."""
    return (s1 >= threshold and s1 - s2 >= margin) or \
        (s1 >= MEANING_CLEAR_THRESHOLD and s1 - s2 >= MEANING_CLEAR_MARGIN)


def _meaning_ranking(vector) -> list[tuple[str, float]]:
    """Every type with its nearest prototype's similarity to `vector`, nearest first."""
    vecs, owners = _meaning_prototypes()
    best: dict[str, float] = {}
    for owner, s in zip(owners, vecs @ vector):
        if s > best.get(owner, -1.0):
            best[owner] = float(s)
    return sorted(best.items(), key=lambda kv: -kv[1])


def type_by_meaning(text: str, vector=None) -> tuple[str | None, float, str]:
    """The type whose prototypes are nearest to `text`, when near enough and clearly ahead."""
    if not text or CJK.search(text) or len(text.split()) < 1:
        return None, 0.0, ""
    from core.embeddings import get_embedder

    ranked = _meaning_ranking(vector if vector is not None else get_embedder().encode([text])[0])
    (top, s1), (_, s2) = ranked[0], ranked[1]
    why = f"meaning of '{text}' ({s1:.2f}, next {s2:.2f})"
    if len(text.split()) == 1 and s1 < MEANING_ONE_WORD_THRESHOLD:
        return None, s1, why
    if _linked(s1, s2, MEANING_THRESHOLD, MEANING_MARGIN):
        return top, s1, why
    return None, s1, why


# A second reading of what a question describes, for when the meaning alone is not sure: the provision
# model (core.ingest.provisions), trained on lawyers' labels of contract sentences, reads the question's
# words as if they were a provision. A question is no provision, so its probabilities are low, but their
# order against each type's threshold says which provision the words describe ("barred from working for
# our rivals": Non-Compete well ahead). Two readings that agree link a type neither is sure of alone: the
# provision model's first type, clearly ahead of its second (PROVISION_LEAD) or the meaning's first too,
# must be among the meaning's nearest (MEANING_AGREE_RANK, at least MEANING_AGREE_FLOOR near, at most
# MEANING_AGREE_GAP behind its first).
MEANING_AGREE_RANK = 3
MEANING_AGREE_FLOOR = 0.40
PROVISION_LEAD = 2.0
PROVISION_FLOOR = 0.05       # a share of the threshold below this is no reading at all
# ... and about as near as the meaning's first: "what happens if power is lost at the data centre?" reads as Data
# Protection to the provision model ("data"), which the meaning puts third, 0.08 behind its first
MEANING_AGREE_GAP = 0.06


def type_by_two_readings(text: str, meaning_vector, provision_words: str, provision_vector) -> tuple[str | None, str]:
    """The type both readings put first or near it (see above), if they agree; `provision_words` is the
    question as the provision model reads it (provision_text)."""
    from core.ingest.provisions import get_provision_classifier

    ranked = _meaning_ranking(meaning_vector)
    near = {t: s for t, s in ranked[:MEANING_AGREE_RANK] if s >= MEANING_AGREE_FLOOR}
    shares = get_provision_classifier().threshold_shares([provision_words], provision_vector[None, :])
    meant = dict(ranked)
    order = sorted(((t, float(v[0])) for t, v in shares.items() if t in meant), key=lambda kv: -kv[1])
    if len(order) < 2 or order[0][0] not in near or order[0][1] < PROVISION_FLOOR:
        return None, ""
    if near[order[0][0]] < ranked[0][1] - MEANING_AGREE_GAP:
        return None, ""
    (top, p1), (_, p2) = order[0], order[1]
    if top != ranked[0][0] and p1 < PROVISION_LEAD * p2:
        return None, ""
    return top, (f"meaning of '{text}' ({near[top]:.2f}, first {ranked[0][1]:.2f}) and the provision model "
                 f"({p1:.2f} of its threshold, next {p2:.2f})")


def type_by_meaning_first(texts: list[str], search_texts: list[str | None] = (),
                          provision_words: str | None = None) -> tuple[str | None, float, str]:
    """The first of `texts` (the whole question, then what it asks for) that links a type by
    meaning, else the first text's type if the provision model reading `provision_words` agrees
    (type_by_two_readings); all embedded in one model call, together with the texts the search
    may embed if the question becomes a search (kept by the embedder, so the question pays one
    model call)."""
    texts = [t for i, t in enumerate(texts) if t and not CJK.search(t) and t not in texts[:i]]
    if not texts:
        return None, 0.0, ""
    from core.embeddings import encode_kept

    provision_words = provision_words if provision_words and not CJK.search(provision_words) else None
    also = list(search_texts) + [provision_words]
    extra = [t for i, t in enumerate(also) if t and t not in texts and t not in also[:i] and not CJK.search(t)]
    vectors = encode_kept(texts + extra)
    best = (None, 0.0, "")
    for text, vector in zip(texts, vectors):
        hit = type_by_meaning(text, vector)
        if hit[0]:
            return hit
        best = best if best[2] else hit
    if provision_words:
        at = (texts + extra).index(provision_words)
        tname, why = type_by_two_readings(texts[0], vectors[0], provision_words, vectors[at])
        if tname:
            return tname, best[1], why
    return best


def calibrate_meaning(threshold: float = MEANING_THRESHOLD, margin: float = MEANING_MARGIN) -> dict:
    """Leave-one-out on the taxonomy's English examples, each read as a question is (its
    scaffolding dropped by meaning_text) and compared with every other prototype: how many
    are linked at the given threshold and margin (recall), and how many to their own type."""
    import numpy as np

    from core.embeddings import get_embedder
    from core.taxonomy import load_taxonomy

    vecs, owners = _meaning_prototypes()
    texts, own = _prototype_items()[0], np.asarray(owners)
    examples = {x: t.name for t in load_taxonomy() if not t.is_catch_all for x in t.examples if not CJK.search(x)}
    queries = get_embedder().encode([meaning_text(x, []) for x in examples])
    linked = right = 0
    for (text, name), q in zip(examples.items(), queries):
        sims = vecs @ q
        sims[[i for i, x in enumerate(texts) if x == text]] = -9.0
        best = {t: float(sims[own == t].max()) for t in set(owners)}
        (top, s1), (_, s2) = sorted(best.items(), key=lambda kv: -kv[1])[:2]
        if _linked(s1, s2, threshold, margin):
            linked += 1
            right += top == name
    return {"examples": len(examples), "recall": round(linked / len(examples), 3),
            "precision": round(right / linked, 3) if linked else 0.0}


# --- subject versus condition ---------------------------------------------------------------

# "where" after the companies or agreements asked about describes them ("suppliers where we spend
# over 1 million but no termination clause"), it states no situation
_DESCRIBED = ("suppliers", "supplier", "vendors", "vendor", "companies", "company", "providers", "provider",
              "contracts", "contract", "agreements", "agreement", "partners", "firms", "ones", "those")
_RELATIVE_WHERE = "".join(f"(?<!{w} )" for w in _DESCRIBED) + "where"
# "after" before a point in time ("signed after 2023", "after the end of March") dates, not a condition
_AFTER_NOT_A_DATE = (r"after(?!\s+(?:(?:the\s+)?(?:start|beginning|end|middle|first|second|1st|2nd)\b[\w\s]{0,12}?\s+)?"
                     r"(?:early\s+|mid-?\s*|late\s+)?(?:\d|" + _MONTH + r"|spring|summer|autumn|fall|winter|q[1-4]\b|h[12]\b))")
CONDITION_WORDS = re.compile(r"\b(when|whenever|if|" + _RELATIVE_WHERE + r"|in case|once|" + _AFTER_NOT_A_DATE +
                             r"|because|due to|"
                             r"for missing|for missed)\b|如果|若|当|一旦|时|在[^，。？；,?]{1,20}?情况下", re.I)


def main_clause(q: str) -> str:
    """The question up to its first condition word ("... when X"): what it asks for."""
    m = CONDITION_WORDS.search(q)
    return q[:m.start()] if m and m.start() > 0 else q


def split_subject(q: str, spans: dict[str, int]) -> tuple[str, list[str], str] | None:
    """With two or more types named, the one outside a condition ("... when X") is the subject.

    `spans`: type -> where its words start in the question. Returns (subject, conditions, why)
    or None when every named type is in the main clause (they are then all asked for)."""
    m = CONDITION_WORDS.search(q)
    if not m or len(spans) < 2:
        return None
    cut = m.start()
    main = [t for t, pos in spans.items() if pos < cut]
    cond = [t for t, pos in spans.items() if pos >= cut]
    if len(main) == 1 and cond:
        return main[0], cond, (f"'{main[0]}' is what is asked for; {', '.join(cond)} only describes the situation "
                               f"('{q[cut:cut + 40].strip()}...')")
    return None


# --- types by their words: lexical evidence, before (or instead of) an embedding ------------

def _phrase_pattern(phrase: str) -> re.Pattern:
    """A type word as a whole word, plural- and tense-insensitive; a trailing * allows any ending."""
    tail = r"[a-z]*" if phrase.endswith("*") else r"(?:s|es|d|ed)?"
    return re.compile(r"(?<![a-z])" + re.escape(phrase.rstrip("*").lower()) + tail + r"(?![a-z])")


@lru_cache(maxsize=2)
def _english_type_words(concepts: bool = False) -> list[tuple[re.Pattern, str, str]]:
    """Names and keywords of every type; with `concepts`, its related words instead ("respond",
    "cancel*": a trailing * allows any ending)."""
    from core.taxonomy import load_taxonomy

    out = []
    for t in load_taxonomy():
        if t.is_catch_all:
            continue
        words = [c for c in t.concepts if not CJK.search(c) and len(c.rstrip("*")) >= 4] if concepts \
            else [t.name] + list(t.keywords_en)
        out += [(_phrase_pattern(kw), t.name, kw.rstrip("*")) for kw in words]
    return out


def longer_type_phrase(text: str, words: str) -> str | None:
    """A type's name, keyword or related wording in the text that holds `words` and more ("data
    processing" around "processing"): there the words belong to it, and name nothing of their own."""
    tl, w = text.lower(), words.lower()
    inside = re.compile(r"(?<![a-z])" + re.escape(w) + r"(?![a-z])")
    for concepts in (False, True):
        for pat, _name, kw in _english_type_words(concepts):
            if kw.lower() != w and inside.search(kw.lower()) and pat.search(tl):
                return kw
    return None


def narrower_types(name: str) -> list[str]:
    """The types that narrow this one ("Termination for Convenience" narrows "Termination")."""
    return [narrow for narrow, _phrases in _specialisations().get(name, [])]


@lru_cache(maxsize=1)
def _specialisations() -> dict[str, list[tuple[str, list[tuple[str, re.Pattern]]]]]:
    """type -> [(a type whose name contains its name, that type's own English phrases)]:
    "Termination for Convenience" narrows "Termination" where a question uses wording only the
    narrower type has ("at any time", "without cause", 提前通知). Derived from the taxonomy, so a type an
    analyst adds ("Cap on Liability" beside "Liability") narrows the same way."""
    from core.taxonomy import load_taxonomy

    types = [t for t in load_taxonomy() if not t.is_catch_all]
    out: dict[str, list] = {}
    for general in types:
        own = {p.lower() for p in [general.name, *general.keywords_en, *general.keywords_zh, *general.concepts]}
        for narrow in types:
            if narrow is general or not _phrase_pattern(general.name).search(narrow.name.lower()):
                continue
            phrases = [p for p in [*narrow.keywords_en, *narrow.keywords_zh, *(c for c in narrow.concepts if _a_phrase(c))]
                       if p.lower() not in own]
            patterns = [(p.rstrip("*"), _phrase_pattern(p)) for p in phrases]
            patterns += _chinese_variants(phrases, [w for w in own if CJK.search(w) and len(w) >= 2])
            out.setdefault(general.name, []).append((narrow.name, patterns))
    return out


def _chinese_variants(phrases: list[str], general_words: list[str]) -> list[tuple[str, re.Pattern]]:
    """A narrower type's Chinese phrase that ends in a word of the general type ("随时" + "解除") also
    with the general type's other words, up to two characters apart ("随时解约", "随时可以终止")."""
    out = []
    verbs = "|".join(re.escape(w) for w in sorted(general_words, key=len, reverse=True))
    for phrase in phrases:
        head = next((phrase[:-len(w)] for w in general_words if phrase.endswith(w) and len(phrase) > len(w)), None)
        if head and CJK.search(head):
            out.append((f"{head}…", re.compile(re.escape(head) + r"[^，,。；;？?！!]{0,2}?(?:" + verbs + ")")))
    return out


def _a_phrase(concept: str) -> bool:
    """A related wording specific enough to narrow a type: several English words ("at any time",
    not "notice"), or three or more Chinese characters (提前通知, not 解除)."""
    if CJK.search(concept):
        return len(concept.rstrip("*")) >= 3
    return " " in concept


# "without (giving) a reason" said in Chinese as the taxonomy does not: 不说明理由, 无需任何理由, 不必给出原因
_ZH_WITHOUT_REASON = re.compile(r"(?:无需|无须|不需要?|不必|不用|无|不|没有?)要?(?:说明|给出|提供|告知|陈述|解释|讲明|任何)*"
                                r"(?:理由|原因)")


# ... and in English: "without giving a reason", "for no reason", "without stating any grounds", "without
# having to prove a breach"
_EN_WITHOUT_REASON = re.compile(r"\b(?:without|with\s+no|for\s+no)\s+(?:(?:having|needing|being\s+required)\s+to\s+)?"
                                r"(?:(?:giving|stating|providing|needing|showing|proving|citing|give|state|provide|show|prove|cite|"
                                r"establish)\s+)?(?:a\s+|any\s+)?(?:reasons?|justification|grounds?|breach|fault|default)\b")


def without_reason_spans(text: str) -> list[tuple[int, int]]:
    """Where the text says "without (giving) a reason" (无理由, 无需说明理由, "for no reason"): a
    condition of what may be done, never a clause the supplier lacks."""
    return [m.span() for said in (_ZH_WITHOUT_REASON, _EN_WITHOUT_REASON) for m in said.finditer(text)]


def narrow_type(name: str, text: str) -> tuple[str, str | None]:
    """The narrower type the text's wording points to, with the phrase that did; else (name, None).
    "Without a reason" said otherwise is also read as the taxonomy's "without cause" / 无理由, and
    named by its own words."""
    tl = text.lower()
    readings = [(tl, None)]
    for said, canonical in ((_ZH_WITHOUT_REASON, "无理由"), (_EN_WITHOUT_REASON, "without cause")):
        if m := said.search(tl):
            readings.append((said.sub(canonical, tl), m.group(0)))
    for reading, said in readings:
        for narrow, phrases in _specialisations().get(name, []):
            for phrase, pat in phrases:
                if pat.search(reading):
                    return narrow, said or phrase
    return _narrowed_by_a_reader(name, text)


def _narrowed_by_a_reader(name: str, text: str) -> tuple[str, str | None]:
    """The narrower type whose wording reader (core.ingest.wording, the one that reads contracts) reads the
    question as such a provision ("can we end the contract by simply giving notice?"); else (name, None)."""
    from core.ingest.wording import RULES

    for narrow, _phrases in _specialisations().get(name, []):
        for rule in RULES:
            if rule.type == narrow and rule.hint.search(text) and rule.reads(text):
                return narrow, "its wording reads as that provision"
    return name, None


def type_by_words(text: str, related: bool = False) -> tuple[str | None, str]:
    """The one type whose name or keyword the text uses ("don't promise any uptime"), or None
    when no type's or several types' words occur: a keyword is stronger evidence than any
    similarity, and costs no model call. `related`: also the type's related words, for a
    question about one agreement (else the whole agreement is listed)."""
    if CJK.search(text):
        tname, why = type_by_chinese(text)
        latin = " ".join(re.findall(r"[A-Za-z][A-Za-z'\-]*(?:\s+[A-Za-z][A-Za-z'\-]*)*", text))
        if tname or not latin:
            return tname, why
        text = latin   # "Nordhavn的help desk条款": English words in a Chinese question
    tl = text.lower()
    for concepts in (False, True) if related else (False,):   # a keyword first; a related word when none
        hits: dict[str, str] = {}
        for pat, name, kw in _english_type_words(concepts):
            if name not in hits and pat.search(tl):
                hits[name] = kw
        # "terminate ... for convenience": the narrower of a general type and its narrowing
        hits = {n: k for n, k in hits.items()
                if not any(o in (x for x, _p in _specialisations().get(n, [])) for o in hits)}
        if len(hits) == 1:
            name, kw = hits.popitem()
            why = f"{'related word' if concepts else 'keyword'} '{kw}'"
            narrowed, phrase = narrow_type(name, tl)
            return (narrowed, f"{why}, narrowed by '{phrase}'") if phrase else (name, why)
        if hits:
            return None, ""
    return None, ""


# Chinese: the English MiniLM cannot read it, so a bilingual lexicon derived from the taxonomy
# (Chinese name, keywords, concepts, description and examples of every type) is matched by
# character bigrams weighted by how few types use them (idf). Thresholds from
# calibrate_chinese() on the taxonomy's own Chinese examples, each left out in turn.
ZH_MIN_SCORE = 4.0      # summed idf of the bigrams shared with the best type
ZH_MIN_RATIO = 2.0      # the best type must score this many times the runner-up
_ZH_STRONG = 2.0        # bigrams of a type's name and keywords weigh double


def _bigrams(text: str) -> list[str]:
    runs = re.findall(r"[\u4e00-\u9fff]+", text)
    return [r[i:i + 2] for r in runs for i in range(len(r) - 1)]


@lru_cache(maxsize=1)
def _chinese_lexicon() -> tuple[dict[str, dict[str, float]], list[tuple[str, str]]]:
    """type -> {bigram: weight} and the (type, example) pairs calibration leaves out in turn."""
    from core.taxonomy import load_taxonomy

    grams: dict[str, dict[str, float]] = {}
    examples = []
    for t in load_taxonomy():
        if t.is_catch_all:
            continue
        strong = [t.name_zh] + list(t.keywords_zh) + [c.rstrip("*") for c in t.concepts if CJK.search(c)]
        weak = [t.description_zh] + [x for x in t.examples if CJK.search(x)]
        g: dict[str, float] = {}
        for b in _bigrams(" ".join(weak)):
            g[b] = max(g.get(b, 0.0), 1.0)
        for b in _bigrams(" ".join(strong)):
            g[b] = _ZH_STRONG
        grams[t.name] = g
        examples += [(t.name, x) for x in t.examples if CJK.search(x)]
    return grams, examples


# the words of any question about contracts ("Marisol的两份合同分别是什么时候签的" read as Termination
# through 合同, a bigram of its keyword 合同解除, and 签的 of one of its examples) describe no type
_ZH_NEUTRAL_GRAMS = frozenset(_bigrams("合同 协议 条款 供应商 公司 企业"))


def _chinese_scores(text: str, leave_out: tuple[str, str] | None = None) -> list[tuple[str, float]]:
    import math

    grams, _ = _chinese_lexicon()
    if leave_out:   # calibration: the example's own bigrams no longer count for its type
        own = set(_bigrams(leave_out[1]))
        grams = dict(grams)
        grams[leave_out[0]] = {b: w for b, w in grams[leave_out[0]].items() if b not in own or w > 1.0}
    df: dict[str, int] = {}
    for g in grams.values():
        for b in g:
            df[b] = df.get(b, 0) + 1
    n = len(grams)
    qb = {b for b in _bigrams(text) if b not in _ZH_NEUTRAL_GRAMS and "签" not in b}
    scores = {name: sum(g[b] * math.log(n / df[b]) for b in qb if b in g) for name, g in grams.items()}
    return sorted(scores.items(), key=lambda kv: -kv[1])


def type_by_chinese(text: str, leave_out: tuple[str, str] | None = None) -> tuple[str | None, str]:
    """The type a Chinese phrase describes by the taxonomy's Chinese words ("服务中断时的补偿"), when
    clearly ahead of the next."""
    ranked = _chinese_scores(text, leave_out)
    (top, s1), (_, s2) = ranked[0], ranked[1]
    if s1 >= ZH_MIN_SCORE and s1 >= ZH_MIN_RATIO * s2:
        return top, f"Chinese lexicon: '{text}' ({s1:.1f}, next {s2:.1f})"
    return None, ""


def calibrate_chinese(min_score: float = ZH_MIN_SCORE, min_ratio: float = ZH_MIN_RATIO) -> dict:
    """Leave-one-out on the taxonomy's Chinese examples: how many are linked (recall) and how
    many of those to their own type (precision) at the given thresholds."""
    _, examples = _chinese_lexicon()
    linked = right = 0
    for name, text in examples:
        ranked = _chinese_scores(text, (name, text))
        (top, s1), (_, s2) = ranked[0], ranked[1]
        if s1 >= min_score and s1 >= min_ratio * s2:
            linked += 1
            right += top == name
    return {"examples": len(examples), "recall": round(linked / len(examples), 3),
            "precision": round(right / linked, 3) if linked else 0.0}

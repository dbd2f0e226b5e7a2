"""Quantities a question names as a detail of what a clause says: "within 24 hours", "99.9% uptime",
"for seven years", "30分钟内响应", "7×24小时".

A presence question that names one ("Which suppliers promise an uptime of 99.9%?") asks for the
suppliers whose clause of the type states that quantity, not every supplier with a clause of the
type. Contracts write a number in digits, in words or both ("twenty-four (24) hours", "二十四小时"),
so each quantity becomes one pattern that any of those spellings matches; the clause filter is
`core.graph.queries.retrieval.DETAILS`. A quantity compared ("at least 99.5%", "30 days or less",
"不超过") asks for any figure on that side of it (`core.retrieval.number_ranges`; durations in any unit
of time). One dating the agreement ("in the last two years", "3 years ago") is no detail of a clause
and is left to the reader of dates.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.numerals import english_cardinals, english_number, zh_number, zh_numeral
from core.retrieval.number_ranges import bound_pattern
from core.retrieval.spend_terms import GT, LT, ZH_GT, ZH_LT

# canonical unit -> (how a question or clause writes it in English, in Chinese)
_UNITS: dict[str, tuple[str, str]] = {
    "percent": (r"\s*(?:%|％|per\s*cent\b|percent\b)", r"\s*(?:%|％)"),
    "minute": (r"[\s-]*(?:minutes?|mins?)\b", r"\s*分钟"),
    "hour": (r"[\s-]*(?:hours?|hrs?)\b", r"\s*(?:个)?小时"),
    "day": (r"[\s-]*(?:(?:business|working|calendar)[\s-]+)?days?\b", r"\s*(?:个)?(?:工作|自然|日历)?(?:日|天)"),
    "week": (r"[\s-]*weeks?\b", r"\s*(?:个)?(?:周|星期)"),
    "month": (r"[\s-]*months?\b", r"\s*个月"),
    "year": (r"[\s-]*years?\b", r"\s*年"),
}
_WORDS = sorted(english_cardinals(), key=len, reverse=True)
_EN_NUMBER = (r"(?<![\w.])(?:\d+(?:\.\d+)?|(?:" + "|".join(_WORDS) + r")(?:[\s-](?:one|two|three|four|five|six|"
              r"seven|eight|nine))?)(?![\w.])")
_ZH_NUMBER = r"(?:\d+(?:\.\d+)?|[一二两三四五六七八九十百]+)"
_QUESTION = re.compile(
    "|".join(f"(?P<en_{u}>{_EN_NUMBER}(?:\\s*\\(\\d+\\))?{en})|(?P<zh_{u}>{_ZH_NUMBER}{zh})"
             for u, (en, zh) in _UNITS.items()), re.I)
# round the clock: "24/7", "24x7", "7×24小时", "around the clock"
_ROUND_THE_CLOCK = re.compile(r"\b24\s*[/x×*]\s*7\b|\b7\s*[x×*]\s*24\b|7\s*[x×*]\s*24\s*小时|"
                              r"\b(?:a)?round[\s-]the[\s-]clock\b", re.I)
ROUND_THE_CLOCK_PATTERN = (r"(?is).*(?:(?<!\d)24\s*[/x×*]\s*7(?!\d)|(?<!\d)7\s*[x×*]\s*24(?!\d)|"
                           r"(?:a)?round[\s-]the[\s-]clock|24\s*hours?\s*a\s*day,?\s*(?:7|seven)\s*days|全天候).*")

# a time said as later or sooner than another ("paying later than 30 days", "no later than", "sooner than 4 hours")
_TIMING_WORDS = r"(?:not?\s+)?(?:later|earlier|sooner|faster|quicker|slower)\s+than"
# a comparison before or after makes the number a bound ("at least 99.5%", "30 days or less")
# the comparison words the spend reader knows, and those only durations take
_COMPARED_BEFORE = re.compile(
    rf"(?:{GT}|{LT}|{ZH_GT}|{ZH_LT}|no less than|no more than|shorter than|longer than|minimum of|maximum of|[≤≥]|"
    rf"{_TIMING_WORDS}|"
    r"最多|最少|不低于|不高于|不小于|不大于|不多于)\s*(?:of\s+|than\s+)?$", re.I)
_COMPARED_AFTER = re.compile(r"^\s*(?:or\s+(?:less|more|fewer|shorter|longer|higher|lower|above|below|under|over)|"
                             r"and\s+(?:above|over|below|under)|\+|以上|以下|或以上|或以下|或更\w)", re.I)
# a span of time that dates the agreement, not a clause's promise ("signed in the last two years")
_DATING_BEFORE = re.compile(r"(?:last|past|previous|recent|next|coming|within\s+the\s+(?:last|past)|近|过去|最近|"
                            r"前|今后|未来)\s*$", re.I)
_DATING_AFTER = re.compile(r"^\s*(?:ago|old|older|earlier|later|since|前|以前|之前)", re.I)


# a standard named by its number ("ISO 27001", "ISO/IEC 27001:2022", "ISO 9001认证", "SOC 2", "PCI DSS"):
# a detail as exact as a figure, whatever the clause is typed (core.retrieval.planner reads it anywhere)
_NOT_AFTER_LETTER = r"(?<![A-Za-z0-9])"
# (ISO, SOC and PCI in any case, as people type them; the rarer bodies in capitals only, so that
# "signé en 2023" names no standard)
STANDARD = re.compile(_NOT_AFTER_LETTER + r"(?:(?P<body>(?i:ISO)(?:/IEC)?|IEC|IATF|EN|BS|DIN)[\s-]?(?P<number>\d{3,5})"
                      r"(?:[-:]\d{1,4})*|(?i:SOC)[\s-]?(?P<soc>[123])|(?i:PCI[\s-]?DSS))(?![A-Za-z0-9])")


def _standard_pattern(m: re.Match) -> str:
    """Any spelling of the standard a clause may use ("ISO/IEC 27001", "ISO 27001:2013", "SOC-2")."""
    if m.group("number"):
        body = "ISO(?:/IEC)?" if m.group("body").upper().startswith("ISO") else re.escape(m.group("body"))
        return f"(?is).*{_NOT_AFTER_LETTER}{body}[\\s/-]*{m.group('number')}(?!\\d).*"
    if m.group("soc"):
        return f"(?is).*{_NOT_AFTER_LETTER}SOC[\\s-]*{m.group('soc')}(?!\\d).*"
    return f"(?is).*{_NOT_AFTER_LETTER}PCI[\\s-]*DSS(?![A-Za-z]).*"


@dataclass(frozen=True)
class Quantity:
    text: str        # as the question wrote it ("24 hours")
    pattern: str     # a Cypher `=~` pattern that any clause stating it matches (whole text)
    span: tuple[int, int] = (0, 0)   # where the question wrote it
    standard: bool = False           # a standard named by its number, not a figure


def _value(number: str) -> float | None:
    number = re.sub(r"\s*\(\d+\)$", "", number.strip()).lower()
    if re.fullmatch(r"\d+(?:\.\d+)?", number):
        return float(number)
    if re.fullmatch(r"[一二两三四五六七八九十百]+", number):
        return float(zh_number(number)) or None
    n = english_number(number.replace(" ", "-"))
    return float(n) if n else None


def _spellings(value: float) -> str:
    """Every way a clause may write the number, as one regex alternation."""
    if value != int(value):
        digits = re.escape(f"{value:g}")
        return f"(?<![\\d.]){digits}(?![\\d])"
    n = int(value)
    return "(?:" + "|".join([f"(?<![\\d.,]){n}(?![\\d]|\\.\\d|,\\d)", *_in_words(n)]) + ")"


def _in_words(n: int) -> list[str]:
    """The number in English words and in Chinese numerals (1 to 99; none beyond)."""
    if not 0 < n < 100:
        return []
    ways = [r"\b" + _english(n) + r"\b",
            f"(?<![一二两三四五六七八九十百]){zh_numeral(n)}" + ("" if n % 10 else "(?![一二三四五六七八九])")]
    return ways + (["两"] if n == 2 else [])


_NAMES = {v: k for k, v in english_cardinals().items()}


def _english(n: int) -> str:
    if n in _NAMES:
        return _NAMES[n]
    tens, ones = divmod(n, 10)
    return f"{_NAMES[10 * tens]}[\\s-]{_NAMES[ones]}"


def _unit_pattern(unit: str) -> str:
    en, zh = _UNITS[unit]
    return f"(?:{en}|{zh})"


def _figure_of(numbers: str, unit: str) -> str:
    """The numbers, then "(24)" after words or nothing, then the unit: "twenty-four (24) hours", "99.9 %"."""
    return f"{numbers}(?:\\s*\\(\\d+(?:\\.\\d+)?\\))?{_unit_pattern(unit)}"


def _dating(q: str, start: int, end: int) -> bool:
    return bool(_DATING_BEFORE.search(q[max(0, start - 30):start]) or _DATING_AFTER.match(q[end:end + 20]))


# which side of a compared number a clause's figure must lie ("more than" and "以上" keep the number itself
# out or in as people mean them: "at least 99.9%" takes 99.9, "more than 30 days" does not take 30)
_BELOW = re.compile(r"不超过|不高于|不大于|不多于|\bnot\s+(?:more|above|over|exceed|later|slower)|\bno\s+(?:more|later|slower)|"
                    r"^(?!.*(?:不低于|不少于|不小于|not\s+less|no\s+less|not\s+below|not\s+under|"
                    r"not?\s+(?:earlier|sooner|faster|quicker)))"
                    r"(?:.*(?:below|under|less|lower|at\s+most|<|≤|smaller|up\s+to|shorter|maximum|fewer|earlier|sooner|"
                    r"faster|quicker|最多|低于|少于|小于|"
                    r"不到|以下|更少|更短|更低))", re.I)
_STRICT = re.compile(r"^\s*(?:above|over|more than|greater than|higher than|exceed\w*|surpass\w*|in excess of|>(?!=)|"
                     r"bigger than|larger than|topping|tops|longer than|shorter than|below|under|less than|lower than|"
                     r"later than|earlier than|sooner than|faster than|quicker than|slower than|"
                     r"<(?!=)|smaller than|超过|高于|大于|多于|逾|低于|少于|小于|不到)\s*(?:of\s+|than\s+)?$", re.I)
# how many minutes a duration unit holds, to compare across units ("within 1 hour or less": 30 minutes
# qualifies); a month as a twelfth of a year, with a little slack across units ("30 days" is a month)
_MINUTES = {"minute": 1, "hour": 60, "day": 1440, "week": 10080, "month": 43800, "year": 525600}
_ACROSS_UNITS = 0.02


# what a figure may measure between it and a comparison after it ("90 days' notice or less")
_NOTICE_AFTER = re.compile(r"(?:['’]?\s*(?:(?:prior|advance|written)\s+)*notice\b)?", re.I)


@dataclass(frozen=True)
class _Comparison:
    greater: bool
    strict: bool
    start: int       # where the question's comparison begins
    end: int         # ... and ends

    def holds(self, n: float, bound: float) -> bool:
        """Whether n lies on the bound's side ("at least 30": 30 and more; "more than 30": not 30)."""
        return not self.strict if n == bound else (n > bound) == self.greater


def _comparison(q: str, start: int, end: int) -> _Comparison | None:
    """The comparison a number's words make a bound ("at least 99.5%", "30 days or less"), if any."""
    before = q[max(0, start - 30):start]
    if m := _COMPARED_BEFORE.search(before):
        said = m.group(0)
        return _Comparison(not _BELOW.search(said), bool(_STRICT.match(said)), start - len(before) + m.start(), end)
    # "on 90 days' notice or less": the comparison may follow what the figure measures
    between = _NOTICE_AFTER.match(q, end).end() - end
    if m := _COMPARED_AFTER.match(q[end + between:end + between + 20]):
        said = m.group(0)
        return _Comparison(not _BELOW.search(said), False, start, end + between + m.end())
    return None


def _bound_pattern(value: float, unit: str, c: _Comparison) -> str:
    """Any figure of the unit on the bound's side, in digits, in English words or in Chinese numerals
    (to 99), and durations in any unit of time."""
    ways = []
    for other in ([unit] if unit not in _MINUTES else list(_MINUTES)):
        bound = value if other == unit else value * _MINUTES[unit] / _MINUTES[other]
        if other != unit:
            bound *= (1 - _ACROSS_UNITS) if c.greater else (1 + _ACROSS_UNITS)
        if bound < 0.01 and not c.greater:
            continue
        bound = round(bound, 4)
        spelled = [n for n in range(1, 100) if c.holds(n, bound)]
        numbers = [bound_pattern(bound, c.greater, c.strict), *(w for n in spelled for w in _in_words(n))]
        ways.append(_figure_of(f"(?:{'|'.join(numbers)})", other))
    return f"(?is).*(?:{'|'.join(ways)}).*"


def question_quantities(q: str) -> list[Quantity]:
    """The quantities the question asks a clause to state, each with the pattern that finds it."""
    return list(_quantities(q))


@lru_cache(maxsize=1024)
def _quantities(q: str) -> tuple[Quantity, ...]:
    """Read once per text: the planner, the type linker and the query parameters all ask."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for m in _ROUND_THE_CLOCK.finditer(q):
        found.append(Quantity(m.group(0).strip(), ROUND_THE_CLOCK_PATTERN, m.span()))
        taken.append(m.span())
    for m in STANDARD.finditer(q):
        found.append(Quantity(m.group(0).strip(), _standard_pattern(m), m.span(), standard=True))
        taken.append(m.span())
    for m in _QUESTION.finditer(q):
        if any(s < m.end() and m.start() < e for s, e in taken) or _dating(q, m.start(), m.end()):
            continue
        unit = next(k.split("_", 1)[1] for k, v in m.groupdict().items() if v)
        number = re.match(_EN_NUMBER + r"(?:\s*\(\d+\))?|" + _ZH_NUMBER, m.group(0), re.I)
        value = _value(number.group(0)) if number else None
        if value is None or (unit == "year" and 1900 <= value <= 2100):   # 2021年 is a date
            continue
        if compared := _comparison(q, m.start(), m.end()):
            # the comparison is part of what a plan keeps, so the pattern can be read back from it
            found.append(Quantity(q[compared.start:compared.end].strip(), _bound_pattern(value, unit, compared),
                                  m.span()))
        else:
            pattern = f"(?is).*{_figure_of(_spellings(value), unit)}.*"
            found.append(Quantity(m.group(0).strip(), pattern, m.span()))
        taken.append(m.span())
    return tuple(found)


_TIMING = re.compile(_TIMING_WORDS + r"\b", re.I)


def without_comparisons(text: str) -> str:
    """The text with each compared quantity said bare ("pay within 30 days or less" -> "pay within 30
    days"): what the clause is about reads the same either way, and the comparison words only blur
    its meaning."""
    for x in sorted(question_quantities(text), key=lambda x: -x.span[0]):
        if _TIMING.match(x.text):
            continue   # "paying later than 30 days" is about paying late: the words say what, not how much
        bare = text[x.span[0]:x.span[1]]
        i = text.find(x.text)
        if x.text != bare.strip() and i >= 0:
            text = text[:i] + bare + text[i + len(x.text):]
    return text


def quantity_patterns(texts: list[str]) -> list[str]:
    """The clause patterns of quantities a plan keeps as the question wrote them (its `quantities`)."""
    return [x.pattern for text in texts for x in question_quantities(text)]

"""What a question asks of spend: amounts and thresholds, years, rankings, groupings, changes.

An amount is told apart from the other numbers a question holds (a year, "99.9%", "within 4
hours", "more than 3 agreements"), so a spend filter is set only by money; spend categories are
linked to the graph's own.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from core.graph.vocabulary import Vocabulary
from core.numerals import english_cardinals, zh_number
from core.retrieval import conditions as cond
from core.retrieval.linking import match_values

HIGH_SPEND = re.compile(r"\b(high[- ]?spend(ing)?|big[- ]?spend|large[- ]?spend|top[- ]?spend|strategic)\b|"
                        r"高支出|高消费|大额|支出高|高额", re.I)
LOW_SPEND = re.compile(r"\blow[- ]?spend(ing)?\b|低支出|小额", re.I)
GT = r"(?:above|over|more than|greater than|higher than|exceeding|exceeded|exceeds|exceed|surpassing|surpassed|surpasses|in excess of|at least|>=|>|bigger than|larger than|not less than|topping|tops)"
LT = r"(?:below|under|less than|lower than|at most|<=|<|smaller than|not more than|up to)"
AMOUNT = (r"(?P<cur1>€|\$|£|¥|eur\s|usd\s|gbp\s|cny\s|rmb\s)?\s*(?P<num>\d+(?:[,\s]\d{3})*(?:\.\d+)?)\s*"
          r"(?P<mult>k\b|m\b|mn\b|million|thousand|bn\b|billion|万|亿|千|百万)?\s*(?P<cur2>€|eur(?:os?)?\b|usd\b|dollars?\b|gbp\b|pounds?\b|元|人民币|欧元|美元|英镑)?")
ZH_GT = r"(?:超过|高于|大于|多于|不少于|至少|逾)"
ZH_LT = r"(?:低于|少于|小于|不超过|不到)"
MULT = {"k": 1e3, "thousand": 1e3, "千": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "百万": 1e6,
        "bn": 1e9, "billion": 1e9, "万": 1e4, "亿": 1e8}
YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d{2})(?!\d)")

# what a bare number counts when it is not money: a share, a time, a count of things
OTHER_QUANTITY = re.compile(
    r"\s*(?:%|％|percent\b|per\s*cent\b|pct\b|(?:business\s+|working\s+|calendar\s+)?"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|quarters?)\b|"
    r"(?:times|clauses?|provisions?|agreements?|contracts?|slas?|suppliers?|vendors?|compan(?:y|ies)|"
    r"incidents?|tickets?|users?|employees?|staff|people|sites?|locations?|countries)\b|"
    r"(?:个?百分点|小时|分钟|秒|天|日|周|星期|个月|月|年|次|条|份|家|个))", re.I)


# a sum of money a clause states, named just before its figure: insurance cover, a liability cap, a penalty
CLAUSE_MONEY_BEFORE = re.compile(
    r"(?:\b(?:cover(?:age)?|insurance|insured|indemnity|liability|caps?|capped|limit(?:s|ed)?|penalt(?:y|ies)|"
    r"credits?|damages)\b(?:\s+(?:of|at|to|for|is|are|by))?|保额|保险金额|赔偿限额|责任上限|违约金)\s*$", re.I)


def _amount(m: re.Match) -> float:
    num = float(re.sub(r"[,\s]", "", m.group("num")))
    mult = (m.group("mult") or "").lower().strip()
    return num * MULT.get(mult, 1.0)


# amounts written out in words, before a multiplier: "half a million", "a quarter of a million",
# "two million", "three hundred thousand", "五十万", "一百二十万"
# the English number words, and "a" / "an" ("a million")
_EN_UNITS = english_cardinals() | {"a": 1, "an": 1}
_EN_FRACTIONS = {"half": 0.5, "quarter": 0.25, "a quarter": 0.25, "three quarters": 0.75}
_SPELLED_EN = re.compile(
    r"\b(?:(?P<frac>half|a quarter|quarter|three quarters)\s+(?:of\s+)?an?|"
    r"(?P<n>" + "|".join(sorted(_EN_UNITS, key=len, reverse=True)) + r")(?:[\s-](?P<n2>one|two|three|four|five|six|seven|eight|nine))?"
    r"(?P<hundred>\s+hundred)?)\s+(?P<mult>million|thousand|billion)\b")
_SPELLED_ZH = re.compile(r"([零一二两三四五六七八九十百千]+)(?=万|亿)")


def spelled_amounts_as_digits(q: str) -> str:
    """The question with amounts written in words rewritten in digits ("half a million" -> "500000",
    "五十万" -> "50万"), so one reading of amounts serves both."""
    def en(m: re.Match) -> str:
        if m.group("frac"):
            value = _EN_FRACTIONS[m.group("frac")]
        else:
            value = _EN_UNITS[m.group("n")] + (_EN_UNITS[m.group("n2")] if m.group("n2") else 0)
            value *= 100 if m.group("hundred") else 1
        # digits without the multiplier word, so that "a thousand employees" stays a count of things
        return f"{value * MULT[m.group('mult')]:.0f}"

    def zh(m: re.Match) -> str:
        n = zh_number(m.group(1))
        return str(n) if n else m.group(0)
    return _SPELLED_ZH.sub(zh, _SPELLED_EN.sub(en, q))


def parse_spend(question: str, high_threshold: float) -> tuple[float | None, float | None, str | None]:
    """(min, max, how) for spend filters: explicit amounts win over 'high-spend'."""
    q = spelled_amounts_as_digits(question.lower())
    lo = hi = None
    how = None
    m = re.search(r"between\s+" + AMOUNT + r"\s+and\s+" + AMOUNT.replace("?P<", "?P<b_"), q)
    if m:
        a = float(re.sub(r"[,\s]", "", m.group("num"))) * MULT.get((m.group("mult") or "").strip(), 1.0)
        b = float(re.sub(r"[,\s]", "", m.group("b_num"))) * MULT.get((m.group("b_mult") or "").strip(), 1.0)
        return min(a, b), max(a, b), "between"
    for pat, kind in ((GT + r"\s*" + AMOUNT, "gt"), (LT + r"\s*" + AMOUNT, "lt"),
                      (ZH_GT + r"\s*" + AMOUNT, "gt"), (ZH_LT + r"\s*" + AMOUNT, "lt"),
                      (AMOUNT + r"\s*(?:以上|或以上|及以上)", "gt"), (AMOUNT + r"\s*(?:以下|以内)", "lt")):
        for m in re.finditer(pat, q):
            value = _amount(m)
            has_unit = m.group("mult") or m.group("cur1") or m.group("cur2")
            if not has_unit and 1950 <= value <= 2100 and float(value).is_integer():
                continue  # a year, not an amount
            if not has_unit and OTHER_QUANTITY.match(q, m.end()):
                continue  # "uptime below 99.9%", "within 4 hours", "more than 3 agreements": no money
            if CLAUSE_MONEY_BEFORE.search(q[max(0, m.start() - 40):m.start()]):
                continue  # "public liability cover of at least 10 million": a sum a clause states, not spend
            if kind == "gt" and lo is None:
                lo, how = value, "explicit amount"
            elif kind == "lt" and hi is None:
                hi, how = value, "explicit amount"
    if lo is None and hi is None:
        if HIGH_SPEND.search(question):
            return high_threshold, None, f"high-spend threshold ({high_threshold:,.0f})"
        if LOW_SPEND.search(question):
            return None, high_threshold, f"low-spend threshold ({high_threshold:,.0f})"
    return lo, hi, how


def parse_year(question: str, years: list[int]) -> int | None:
    for m in YEAR.finditer(question):
        y = int(m.group(1))
        if y in years:
            return y
    return None


YEAR_RANGE = re.compile(r"\b(?:between|from)\s+(19[5-9]\d|20\d{2})\s+(?:and|to|through|until)\s+(19[5-9]\d|20\d{2})\b|"
                        r"(?<!\d)(19[5-9]\d|20\d{2})\s*(?:年)?\s*(?:-|–|to|through|至|到)\s*(19[5-9]\d|20\d{2})(?!\d)", re.I)


def parse_years(question: str, years: list[int]) -> list[int]:
    """Every spend year the question names, in order; a range ("from 2022 to 2024", "2022-2024")
    stands for the graph's years inside it."""
    named = []
    for m in YEAR_RANGE.finditer(question):
        a, b = sorted(int(g) for g in m.groups() if g)
        named += [y for y in sorted(years) if a <= y <= b]
    named += [int(m.group(1)) for m in YEAR.finditer(question) if int(m.group(1)) in years]
    return list(dict.fromkeys(named))


# a sum of spend asked for: "total spend", "what did we pay altogether"
SUM_WORDS = re.compile(r"\b(total|sum|combined|aggregate|overall|altogether|add(?:ed)? up)\b.{0,30}\b(spend|spending|spent|amount|cost|outlay|expenditure)\b|"
                       r"\b(spend|spent|spending|cost|paid|pay|outlay|expenditure)\b.{0,40}\b(altogether|in total|combined|(?:all )?together)\b|"
                       r"\b(spend|spending)\b.{0,20}\b(total|sum|combined)\b|总支出|支出总额|总额", re.I)
# spend questions: the figures themselves (by category, ranked, grouped, over the years)
SPEND_WORDS = re.compile(r"\b(spend|spending|spent|expenditure|outlay|paid|(?<!made to )(?<!have to )(?<!has to )(?<!had to )"
                         r"(?<!liable to )(?<!obliged to )(?<!required to )(?<!must )(?<!shall )(?<!should )pay)\b|支出|花费|花了|开支|采购额|(?:我们|我方|我司)[^，。？]{0,30}(?:支付|付)了|(?:支付|付)了多少", re.I)
# "what did Kaldera cost us in 2025": what we paid, in the past or for a year (what a breach
# "would cost us" is a question about the contract)
COST_US = re.compile(r"\b(?:did|has|have)\b.{0,60}\bcost\s+us\b|\bcost(?:s|ed)?\s+us\b.{0,40}(?<!\d)(?:19|20)\d{2}(?!\d)", re.I)
# spend that went up or down between two years: "whose spend grew", "did we spend more with in 2024
# than in 2023", "支出下降的供应商"
_NOT_AN_AMOUNT = r"(?!\s+than\s+(?:[€$£¥]|eur\b|usd\b)?\s*\d)"   # "spent less than 200k" is a threshold
SPEND_UP = re.compile(r"\b(?:increas\w*|gr[eo]w\w*|rose|risen|ris(?:e|es|ing)|went up|gone up|jump\w*|higher)\b" + _NOT_AN_AMOUNT +
                      r"|\b(?:spend|spent|pay|paid)\s+more\b" + _NOT_AN_AMOUNT +
                      r"|\bmore\s+than\s+(?:in|during)\s+(?:19|20)\d{2}\b|增长|增加|上升|提高|上涨", re.I)
SPEND_DOWN = re.compile(r"\b(?:decreas\w*|declin\w*|fell|fallen|fall(?:s|ing)?|dropp?\w*|went down|gone down|shr[aiu]nk\w*|"
                        r"lower|reduc\w*)\b" + _NOT_AN_AMOUNT + r"|\b(?:spend|spent|pay|paid)\s+less\b" + _NOT_AN_AMOUNT +
                        r"|下降|减少|降低|下滑", re.I)
_N = r"(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|[一二两三四五六七八九十])"
# what we spend, in Chinese, before 最高 / 最少 ("支出最高", "花费最多", "花钱最多", "采购额最大")
_ZH_SPENDING = r"(?:支出|花费|花销|花钱|花得|开支|采购(?:金)?额|付款(?:金)?额|付款|消费)(?:金额|总额)?"
RANKED = re.compile(r"\b(?:top|biggest|largest|highest[- ]spend(?:ing)?)\s+" + _N + r"?\s*(?:\w+\s+)?(?:suppliers?|vendors?|compan(?:y|ies))\b"
                    r"|\b" + _N + r"\s+(?:biggest|largest|top)\b|\b(?:suppliers?|vendors?)\s+by\s+(?:\d{4}\s+)?spend\b"
                    r"|\b(?:most|highest)\s+spend\b|\b(?:spend|spent|spending|pay|paid)\s+(?:\w+\s+){0,2}?(?:the\s+)?most\b|前\s*" + _N + r"\s*(?:名|家|位|个)|(?:排名|排行|排序)(?:在)?前\s*" + _N + r"|" + _ZH_SPENDING + r"最(?:高|多|大)的?\s*" + _N + r"?"
                    r"|支出排名", re.I)
# the other end of a ranking: "which supplier did we spend the least with", "our 3 smallest suppliers"
LOWEST = re.compile(r"\b(?:smallest|lowest[- ]spend(?:ing)?|least[- ]spend(?:ing)?)\s+" + _N + r"?\s*(?:\w+\s+)?(?:suppliers?|vendors?|compan(?:y|ies))\b"
                    r"|\b" + _N + r"\s+(?:smallest|lowest[- ]spend(?:ing)?)\b|\b(?:lowest|smallest|least)\s+spend\b"
                    r"|\b(?:spend|spent|spending|pay|paid)\s+(?:\w+\s+){0,3}?(?:the\s+)?least\b"
                    r"|" + _ZH_SPENDING + r"最(?:低|少|小)的?\s*" + _N + r"?", re.I)
GROUP_BY = re.compile(r"\b(?:by|per|for each|each|across)\s+(?:spend\s+)?(countr(?:y|ies)|industr(?:y|ies)|sectors?|categor(?:y|ies))\b"
                      r"|(?:按|各|每个|分)(?:支出|采购)?(国家|行业|类别|品类|类目)", re.I)
GROUPS = {"countr": "country", "industr": "industry", "sector": "industry", "categor": "category",
          "国家": "country", "行业": "industry", "类别": "category", "品类": "category", "类目": "category"}


@dataclass
class SpendFacts:
    """What a question asks of the spend figures themselves (not a spend filter on suppliers)."""

    asks: bool
    categories: dict[str, str]
    top: int | None
    group_by: str | None
    top_named: int | None = None    # the number a ranking names ("our 3 biggest suppliers"), not a default
    lowest: bool = False            # the ranking starts from the smallest spend


_number = cond.count_word


def category_map(vocab: Vocabulary) -> dict[str, str]:
    """phrase -> spend category, from the categories the graph holds ("&" also read as "and")."""
    out: dict[str, str] = {}
    for name in vocab.spend_categories:
        out.setdefault(name.lower(), name)
        out.setdefault(" ".join(name.lower().replace("&", " and ").split()), name)
    return out


def read_spend_question(q: str, vocab: Vocabulary, attributes: tuple[dict, ...]) -> SpendFacts:
    """What a question about spend figures asks: which categories (linked to the graph's own
    categories; words that already name a country, industry or city stay that), how many top
    suppliers, grouped by what."""
    highest = RANKED.search(q)
    lowest = None if highest else LOWEST.search(q)
    ranked, grouped = highest or lowest, GROUP_BY.search(q)
    asks = bool(SPEND_WORDS.search(q) or COST_US.search(q))
    categories = {}
    if asks or ranked:
        taken = {phrase.lower() for found in attributes for phrase in found.values()}
        categories = {k: ph for k, ph in match_values(q, category_map(vocab)).items() if ph.lower() not in taken}
    top = named = None
    if ranked:
        # "which supplier", "哪家供应商" (哪几家 is plural): the one at the top
        singular = re.search(r"\b(supplier|vendor|company)$", ranked.group(0), re.I) or \
            re.search(r"\b(?:which|what)\s+(?:single\s+)?(?:supplier|vendor|company)\b(?![s'’])|哪一?[家个位]|"
                      # "支出最高的供应商是谁", "是哪家" (not 哪些 or 哪几家)
                      r"(?:供应商|公司|企业|厂商)?是(?:谁|哪一?[家个位])", q, re.I)
        named = next((_number(g) for g in ranked.groups() if _number(g)), None)
        top = named or (1 if singular else 5)
    group = None
    if grouped and (asks or SUM_WORDS.search(q)):
        word = (grouped.group(1) or grouped.group(2) or "").lower()
        group = next((v for k, v in GROUPS.items() if word.startswith(k)), None)
    return SpendFacts(asks=asks or bool(ranked), categories=categories, top=top, group_by=group, top_named=named,
                      lowest=bool(lowest))

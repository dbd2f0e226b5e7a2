"""Questions about what agreements' terms say: "which agreements expire in 2025?", "which renew
automatically, and by when must we give notice?", "whose liability cap is below 12 months of fees?",
"which contracts can we end for convenience with 30 days' notice or less?", "到期日在2025年之前的合同".

The field a question asks about is recognised by the words that name it (English and Chinese); the
condition on it is exact and read by rule: a year or a date and a direction, a duration or a
multiple of fees and a comparison, "uncapped". The result, `TermAsk`, becomes the plan's `terms`
parameter, which one named query (core/graph/queries/terms.py TERMS_MATCHING) turns into a filter."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta

from core.term_values import find_dates, find_durations
from core.zh_script import to_simplified

# the field a question asks about, the first that matches (the more specific first)
FIELD_CUES: tuple[tuple[str, re.Pattern], ...] = (
    ("renewal_notice", re.compile(r"notice.{0,40}(renew|non-renewal)|non-?renewal|(prevent|stop|avoid|block|cancel|opt out of)"
                                  r".{0,25}renew|by when.{0,60}notice|notice deadline|deadline.{0,30}notice|"
                                  r"续约.{0,12}通知|通知.{0,12}续|不续约|不再续")),
    ("auto_renewal", re.compile(r"renew\w*\s+(automatically|by (it|them)sel\w+|on (its|their) own|tacitly)|"
                                r"auto(matic(ally)?)?[- ]?renew|evergreen|roll(s|ing)? over|自动续|自动延期|自动顺延|默认续")),
    ("liability_cap", re.compile(r"liability cap|(limit|cap)\w* (their |its |our |the )?(total |aggregate |overall )?liabilit|"
                                 r"cap(s|ped)? (on|of) (our |their |the )?liabilit|liabilit\w* (is |are |be )?"
                                 r"(capped|limited)|uncapped|unlimited liabilit|责任上限|赔偿上限|责任限额|赔偿限额|"
                                 r"责任.{0,6}(无上限|不设上限|不封顶)|上限.{0,8}(费用|月)")),
    ("convenience_notice", re.compile(r"for convenience|without (a )?cause|for any reason|at will|no[- ]fault exit|"
                                      r"(terminate|end|exit|cancel|get out of|walk away)\w*.{0,60}\bnotice|"
                                      r"无理由|无需理由|随时解除|任意解除|便利解除|提前.{0,8}通知.{0,6}(解除|终止)")),
    ("renewal_term", re.compile(r"renew\w*\s+(for\s+)?(periods?|terms?)\s+(of|longer|shorter|over|under|exceeding)|"
                                r"renew\w*\s+for\s+(no |not )?(more|less|longer|shorter|at least|at most|up to)\b|"
                                r"renewal (term|period)s?\s+(of|longer|shorter|over|under|exceeding|is|are)|每次续(期|展|约|签)|"
                                r"续(期|展|约期|签期).{0,6}(超过|少于|为|不超过|不少于)")),
    ("initial_term", re.compile(r"initial term|(term|duration) (of|longer|shorter|is|over|under)|last(s|ing)? (more|longer|"
                                r"less|at least)|合同期限|期限(超过|少于|为|长于|短于)")),
    ("payment_days", re.compile(r"payment terms?|pay(able)? (within|in)|net ?\d+|days to pay|paid within|to pay (an |the |our |"
                                r"their )?invoices?|付款期|账期|"
                                r"付款.{0,8}(天|日)|支付.{0,6}(天|日)内")),
    ("expiration_date", re.compile(r"expir|run(s|ning)? out|end date|come(s)? to an end|\bend(s|ing)? (in|before|after|by|"
                                   r"between|during|on|this|next)|up for renewal|due (for|to) (end|renew)|open[- ]ended|"
                                   r"no fixed (expiry|end|term)|到期|届满|终止日期|截止日期|结束|无固定期限")),
)
# how an answer names the field asked about (core/answer/composer.py)
FIELD_WORDS = {"renewal_notice": "notice to prevent renewal", "auto_renewal": "automatic renewal",
               "liability_cap": "liability cap", "convenience_notice": "notice to terminate for convenience",
               "initial_term": "initial term", "payment_days": "payment terms", "expiration_date": "expiry"}
FIELD_WORDS_ZH = {"renewal_notice": "阻止续约的通知期", "auto_renewal": "自动续约", "liability_cap": "责任上限",
                  "convenience_notice": "无因解除通知期", "initial_term": "初始期限", "payment_days": "付款期",
                  "expiration_date": "到期日"}

_AT_MOST = re.compile(r"or (less|fewer|shorter|sooner)|at most|no more than|not more than|up to|within|maximum|"
                      r"不超过|以内|之内|或以下|或更短|最多|内")
_BELOW = re.compile(r"less than|fewer than|under|below|shorter than|lower than|smaller than|少于|低于|不足|短于|小于|以下")
_AT_LEAST = re.compile(r"or (more|longer|greater)|at least|no less than|not less than|minimum|不少于|不低于|至少|以上|或更多")
_ABOVE = re.compile(r"more than|over|above|longer than|greater than|exceed\w*|beyond|超过|多于|高于|长于|大于")
_NOT = re.compile(r"\b(not|never|don't|doesn't|do not|does not|without|no)\b|不会|不|没有|无")


@dataclass
class TermAsk:
    """What a question asks of one term field, as bounds the query reads (None: no bound)."""
    field: str
    date_from: str | None = None     # ISO, inclusive
    date_to: str | None = None       # ISO, exclusive
    term_min: float | None = None    # days (durations, payment) or months of fees (a cap), inclusive
    term_max: float | None = None
    term_below: float | None = None  # exclusive
    term_above: float | None = None
    term_units: list[str] | None = None   # a cap's kind: months_of_fees, multiple_of_fees, uncapped
    term_flag: bool | None = None
    term_text: str | None = None     # a value the term must contain ("perpetual")
    or_uncapped: bool | None = None  # an uncapped liability meets the bounds too
    said: list[str] = field(default_factory=list)   # how the condition was read, for the answer

    def to_dict(self) -> dict:
        return asdict(self)


def ask_field(question: str) -> str | None:
    q = to_simplified(question).lower()
    return next((f for f, rx in FIELD_CUES if rx.search(q)), None)


def read_term_question(question: str, today: date | None = None) -> TermAsk | None:
    """The term a question asks about and its condition, or None when it asks about no term. When
    the words name several fields ("an initial term that ends in 2026"), the first whose condition
    the question states wins."""
    q = to_simplified(question).lower()
    fields = [f for f, rx in FIELD_CUES if rx.search(q)]
    if not fields:
        return None
    asks = [_read_field(f, q, today or date.today()) for f in fields]
    return next((a for a in asks if a.said), asks[0])


def _read_field(field_: str, q: str, today: date) -> TermAsk:
    if field_ == "initial_term" and not find_durations(q) and (find_dates(q) or re.search(r"(?<!\d)(19|20)\d\d(?!\d)", q)):
        field_ = "expiration_date"   # "an initial term that ends sometime in 2026"
    if field_ == "auto_renewal" and re.search(r"notice|by when|deadline|通知|何时|什么时候", q) \
            and not _NOT.search(q.split("renew")[0][-30:] if "renew" in q else ""):
        field_ = "renewal_notice"   # "which renew automatically, and by when must we give notice?"
    ask = TermAsk(field_)
    if field_ == "expiration_date":
        if re.search(r"open[- ]ended|perpetual|indefinite|no fixed (expiry|end|term)|until (someone|either|one|a party|"
                     r"they are|it is) (terminat|end|cancel)|无固定期限|长期有效|永久", q):
            ask.term_text = "perpetual"
            ask.said.append("no fixed end (runs until terminated)")
        else:
            _date_bounds(q, ask, today)
    elif field_ == "auto_renewal":
        negated = bool(re.search(r"\b(not|never|don't|doesn't|do not|does not|won't|will not|wouldn't|can't|cannot)\b.{0,25}"
                                 r"(renew|roll)|不会自动|不自动|非自动|不會自動", q))
        ask.term_flag = not negated
        ask.said.append("do not renew automatically" if negated else "renew automatically")
    elif field_ == "liability_cap":
        _cap_bounds(q, ask)
    else:
        _duration_bounds(q, ask)
    return ask


def _compare(window: str, ask: TermAsk, value: float, shown: str) -> None:
    if _AT_MOST.search(window):
        ask.term_max, word = value, "at most"
    elif _BELOW.search(window):
        ask.term_below, word = value, "less than"
    elif _AT_LEAST.search(window):
        ask.term_min, word = value, "at least"
    elif _ABOVE.search(window):
        ask.term_above, word = value, "more than"
    else:
        ask.term_min = ask.term_max = value
        word = "exactly"
    ask.said.append(f"{word} {shown}")


def _window(q: str, start: int, end: int) -> str:
    return q[max(0, start - 30):start] + " | " + q[end:end + 25]


def _duration_bounds(q: str, ask: TermAsk) -> None:
    if m := re.search(r"\bnet ?(\d{1,3})\b", q):
        _compare(_window(q, m.start(), m.end()), ask, float(m.group(1)), f"{m.group(1)} days")
        return
    found = find_durations(q)
    if found:
        d = found[0]
        _compare(_window(q, d.start, d.end), ask, float(d.value.days), d.value.text())


def _cap_bounds(q: str, ask: TermAsk) -> None:
    # "no cap on their liability" alone is left to the clause route (no limitation clause at all)
    uncapped = bool(re.search(r"uncapped|unlimited|not capped|无上限|不设上限|不封顶|无限", q))
    if re.search(r"fixed (sum|amount)|specific (sum|amount)|(sum|amount) of money|in (euros|dollars|pounds)|"
                 r"固定金额|具体金额", q):
        ask.term_units = ["amount"]
        ask.said.append("a fixed amount")
        return
    if re.search(r"multiple of|times the|倍", q) and not re.search(r"\d", q):
        ask.term_units = ["multiple_of_fees"]
        ask.said.append("a multiple of the fees")
        return
    if uncapped and not find_durations(q):
        ask.term_units = ["uncapped"]
        ask.said.append("uncapped")
        return
    ask.or_uncapped = uncapped   # "below 12 months of fees, or no cap at all"
    m = re.search(r"(\d+(?:\.\d+)?|one|two|three|一|两|二|三)\s*(x|times|倍)|\b(twice|double)\b", q)
    if m:
        n = 2 if m.group(3) else \
            {"one": 1, "two": 2, "three": 3, "一": 1, "两": 2, "二": 2, "三": 3}.get(m.group(1)) or float(m.group(1))
        ask.term_units = ["months_of_fees", "multiple_of_fees", "uncapped"]
        _compare(_window(q, m.start(), m.end()), ask, float(n) * 12, f"{n:g}x the annual fees")
        return
    for d in find_durations(q):
        if d.value.unit in ("month", "year"):
            ask.term_units = ["months_of_fees", "multiple_of_fees", "uncapped"]
            months = round(d.value.months)
            _compare(_window(q, d.start, d.end), ask, float(months), f"{months} months of fees")
            if ask.or_uncapped:
                ask.said.append("or uncapped")
            return


def _date_bounds(q: str, ask: TermAsk, today: date) -> None:
    """Years, dates and "the next N days" as [date_from, date_to)."""
    m = re.search(r"(next|coming|following|within( the)?( next)?|未来|接下来|今后)\s*(\d+|[一二三四五六七八九十]+)?\s*"
                  r"(days?|weeks?|months?|years?|天|日|周|个月|年)", q)
    if m:
        found = find_durations(q[m.start():m.end()]) or find_durations("1 " + m.group(5))
        span = found[0].value if found else None
        if span:
            ask.date_from, ask.date_to = today.isoformat(), span.add_to(today).isoformat()
            ask.said.append(f"in the next {span.text()}")
            return
    relative = {"this year": 0, "今年": 0, "next year": 1, "明年": 1, "last year": -1, "去年": -1}
    for word, shift in relative.items():
        if word in q:
            y = today.year + shift
            ask.date_from, ask.date_to = f"{y}-01-01", f"{y + 1}-01-01"
            ask.said.append(f"in {y}")
            return
    dates = [d for d in find_dates(q)]
    years = [(int(m.group(1)), m.start(), m.end()) for m in re.finditer(r"(?<!\d)((?:19|20)\d\d)(?!\d)", q)
             if not any(d.start <= m.start() < d.end for d in dates)]
    points = sorted([(d.start, d.end, d.value) for d in dates] +
                    [(s, e, y) for y, s, e in years], key=lambda p: p[0])
    if not points:
        return
    if len(points) >= 2 and re.search(r"between|from|自|从|至|到|和|and", q):
        ask.date_from = _start_of(points[0][2])
        ask.date_to = _after(points[1][2])
        ask.said.append(f"between {ask.date_from} and {points[1][2] if isinstance(points[1][2], int) else points[1][2].iso()}")
        return
    start, end, value = points[0]
    around = q[max(0, start - 25):start] + " | " + q[end:end + 12]
    shown = str(value) if isinstance(value, int) else value.iso()
    if re.search(r"before|earlier than|prior to|by the end of|之前|以前|前", around):
        ask.date_to = _start_of(value)
        ask.said.append(f"before {shown}")
    elif re.search(r"\bby\b|no later than|until|till|截至|为止", around):
        ask.date_to = _after(value)
        ask.said.append(f"by {shown}")
    elif re.search(r"after|later than|since|from|之后|以后|后", around):
        ask.date_from = _after(value) if not re.search(r"since|from", around) else _start_of(value)
        ask.said.append(f"after {shown}")
    else:
        ask.date_from, ask.date_to = _start_of(value), _after(value)
        ask.said.append(f"in {shown}")


def _start_of(value) -> str:
    if isinstance(value, int):
        return f"{value}-01-01"
    return f"{value.year}-{value.month or 1:02d}-{value.day or 1:02d}"


def _after(value) -> str:
    """The first day after a year, a month or a day."""
    if isinstance(value, int):
        return f"{value + 1}-01-01"
    if value.month is None:
        return f"{value.year + 1}-01-01"
    if value.day is None:
        y, m = (value.year + 1, 1) if value.month == 12 else (value.year, value.month + 1)
        return f"{y}-{m:02d}-01"
    return (date(value.year, value.month, value.day) + timedelta(days=1)).isoformat()

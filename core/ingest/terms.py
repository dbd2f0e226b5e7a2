"""Contract terms as data: dates, term and renewal, notice periods, governing law, liability cap,
uptime and payment days, each read from the sentence that states it, with that sentence's clause,
character span and a confidence.

Values are exact things (a date, a number of days, a percentage), so each is read by rule from a
sentence the rule first recognises by its wording ("shall renew automatically ... unless ... notice
... prior to", "适用中华人民共和国法律"); a value derived from others ("three years from the Effective
Date") is resolved and says so. A value below REVIEW_CONFIDENCE goes to the review queue, where a
reviewer's correction replaces it and survives re-ingest (core/ingest/pipeline.py)."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from core.term_values import (DAY_FIRST, TERM_FIELDS, writes_day_first, TERM_REVIEW_CONFIDENCE, Duration, Found, PartialDate, find_amounts, find_dates, find_durations,
                              find_percentages)
from core.ingest.wording import ends_without_cause
from core.zh_script import to_simplified

FIELDS = TERM_FIELDS
FIELD_LABELS = {"agreement_date": "Agreement date", "effective_date": "Effective date",
                "expiration_date": "Expiration date", "initial_term": "Initial term", "auto_renewal": "Renews automatically",
                "renewal_term": "Renewal term", "renewal_notice": "Notice to prevent renewal",
                "convenience_notice": "Notice to terminate for convenience", "governing_law": "Governing law",
                "liability_cap": "Liability cap", "uptime": "Uptime commitment", "payment_days": "Payment terms"}
REVIEW_CONFIDENCE = TERM_REVIEW_CONFIDENCE
PERPETUAL = "perpetual"
EXTRACTOR_VERSION = "1"


@dataclass(frozen=True)
class Passage:
    """A stretch of an agreement terms are read from: a clause (position >= 1) or the preamble (0)."""
    position: int
    title: str
    text: str


@dataclass
class Term:
    """One value of one field, with its evidence. `value` is how it is shown and compared; the typed
    properties (`date`, `days`, `number`, `unit`, `flag`) are what questions filter on."""
    field: str
    value: str
    position: int            # clause position (0: the preamble)
    start: int               # span of the evidence in that passage's text
    end: int
    quote: str
    confidence: float
    date: str | None = None      # ISO, a full date only
    days: int | None = None      # a duration's length in days
    number: float | None = None  # uptime %, payment days, cap months / multiple / amount
    unit: str | None = None      # cap kind (months_of_fees, multiple_of_fees, amount, uncapped) or currency
    flag: bool | None = None     # auto_renewal
    derived: str | None = None   # how a value was computed from others

    @property
    def needs_review(self) -> bool:
        return self.confidence < REVIEW_CONFIDENCE

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Sentence:
    passage: Passage
    start: int
    end: int
    text: str
    plain: str = field(init=False)   # lower-cased, Simplified Chinese, one space between words

    def __post_init__(self):
        self.plain = to_simplified(self.text).lower()

    def term(self, field_: str, value: str, confidence: float, span: tuple[int, int] | None = None, **typed) -> Term:
        """A Term whose evidence is this sentence (or the span inside it)."""
        s, e = span if span else (0, len(self.text))
        return Term(field_, value, self.passage.position, self.start + s, self.start + e,
                    self.text[s:e].strip(), round(confidence, 2), **typed)


_SENTENCE_END = re.compile(r"(?<=[.;:])\s+(?=[\"“(A-Z0-9])|(?<=[。；])|\n\s*\n|\n(?=\s*(?:\(?[a-z0-9]{1,3}[.)]|[•\-*])\s)")


def sentences(passages: list[Passage]) -> list[Sentence]:
    out = []
    for p in passages:
        pos = 0
        for m in list(_SENTENCE_END.finditer(p.text)) + [None]:
            end = m.start() if m else len(p.text)
            chunk = p.text[pos:end]
            if chunk.strip():
                lead = len(chunk) - len(chunk.lstrip())
                out.append(Sentence(p, pos + lead, end, chunk.strip()))
            pos = m.end() if m else end
    return out


# ---------------------------------------------------------------------------------------- dates

_SIGNED = re.compile(r"\b(dated|made|entered into|executed|signed|concluded|day of|agreement date|date of this agreement)\b|"
                    r"(?<!effective )\bas of\b|签订|签署|订立|签约|签字|簽署")
_SIGNATURE_LINE = re.compile(r"\bdated?\s*:|\bsigned (in|at|on)\b|日期\s*[:：]|签署日期|簽署日期|"
                             r"^[A-Z][a-zA-Z/ -]{1,30},\s*(the\s+)?\d{1,2}\.? [A-Z][a-z]+ \d{4}\s*$")
_EFFECTIVE_NAMED = re.compile(r"effective\s+date|生效日")
_EFFECTIVE_AT = re.compile(r"(effective|commenc\w*|start\w*|begin\w*|take effect)\s+(as\s+of|on|from|upon)?\s*(the\s+)?$|"
                           r"(自|于|从)\s*$")
_DATE_OF_SIGNING = re.compile(r"date\s+(of|on which)\s+(this agreement is |the last |it is )?(signed|signature|executed|execution)"
                              r"|date first (written|set forth) above|(?<!effective )date of this agreement|date of (execution|signature|signing)|"
                              r"签字|签署之日|盖章之日")
# a sentence that says what the Effective Date is ("Effective Date" means ..., (the "Effective Date"), 生效日期为)
_DEFINES_EFFECTIVE = re.compile(r"effective date[\"”]?\s*(:|shall mean|means|is|shall be)|[\"“]effective date[\"”]\)|"
                                r"effective (as of|on|upon) the date|生效日期?(为|是|：|:)|自.{0,20}之日起生效")


def _head_sentences(sents: list[Sentence]) -> list[Sentence]:
    """The preamble and the first two clauses: where an agreement says when it was made."""
    return [s for s in sents if s.passage.position <= 2][:40]


def agreement_date(sents: list[Sentence]) -> Term | None:
    """The date the agreement was made: a head sentence that dates it ("made", "dated", "entered into",
    "effective as of": what filings' preambles say); else a signature line ("Signed in Vigo on 12 December
    2022", "Hamburg, 20 March 2023", "日期：2022年8月18日"); else the head's first date."""
    head = _head_sentences(sents)
    for s in head:
        dates = [d for d in find_dates(s.text) if not _of_another_agreement(s, d)]
        if dates and (_SIGNED.search(s.plain) or re.search(r"\beffective\b|生效", s.plain)):
            return _date_term(s, "agreement_date", dates[0], 0.9)
    last = max((s.passage.position for s in sents), default=0)
    for s in sents:
        if s.passage.position >= last - 2 and _SIGNATURE_LINE.search(s.text if s.text[:1].isupper() else s.plain) \
                and (dates := find_dates(s.text)):
            return _date_term(s, "agreement_date", dates[0], 0.7)
    for s in head:
        if dates := [d for d in find_dates(s.text) if not _of_another_agreement(s, d)]:
            return _date_term(s, "agreement_date", dates[0], 0.55)
    return None


def _of_another_agreement(s: Sentence, d: Found) -> bool:
    """A date an amendment gives the agreement it amends ("this First Amendment to the Development Agreement
    entered into on April 15, 2010"), not its own."""
    if not re.search(r"amend|supplement|addendum|修订|补充", s.plain):
        return False
    before = s.plain[max(0, d.start - 70):d.start]
    m = re.search(r"(agreement|contract)\b[^.;\d]{0,50}\b(dated|entered into|made|executed|signed)\s*(as of|on|effective)?"
                  r"\s*(the\s+)?$", before)
    if not m:
        return False
    if re.search(r"\bthis\W+(\w+\W+){0,2}(amendment|supplement|addendum|agreement)", before[m.start():]):
        return False   # '... Agreement (this "Amendment") is made as of': the amendment's own date
    lead = s.plain[max(0, d.start - 150):max(0, d.start - 70) + m.start()]
    this = lead.rfind("this")
    between = lead[this:] if this >= 0 else ""
    if re.search(r"(amendment|supplement|addendum)\s+(no\.?\s*\d+\s+)?to\b|amends", between):
        return True    # "this First Amendment to the Development Agreement entered into on ..."
    return not re.search(r"\bthis\W+(\w+\W+){0,3}$", between)


def _date_term(s: Sentence, field_: str, found: Found, confidence: float, derived: str | None = None) -> Term:
    value: PartialDate = found.value
    full = value.as_date()
    return s.term(field_, value.iso(), confidence, (found.start, found.end),
                  date=full.isoformat() if full else None, derived=derived)


def effective_date(sents: list[Sentence], agreed: Term | None, running: list[Sentence]) -> Term | None:
    """`running`: the term sentences (term_sentences), which may say when the term starts."""
    for s in sents[:400]:
        if not (_EFFECTIVE_NAMED.search(s.plain) or "effective" in s.plain or "生效" in s.plain):
            continue
        for d in find_dates(s.text):
            before = to_simplified(s.text[max(0, d.start - 40):d.start]).lower()
            after = to_simplified(s.text[d.end:d.end + 60]).lower()
            if _EFFECTIVE_NAMED.search(after) or "生效" in after[:12] or \
                    _EFFECTIVE_AT.search(before) and re.search(r"agreement|contract|合同|协议", s.plain):
                return _date_term(s, "effective_date", d, 0.9)
        if _DEFINES_EFFECTIVE.search(s.plain) and _DATE_OF_SIGNING.search(s.plain) and agreed:
            return Term("effective_date", agreed.value, s.passage.position, s.start, s.end, s.text[:300], 0.7,
                        date=agreed.date, derived="the date the agreement was signed")
    for s in running:   # "the term shall commence on January 1, 2000"
        for d in find_dates(s.text):
            if re.search(r"(commenc\w*|begin\w*|start\w*|from|自|从)\s+(on|as of|from|with)?\s*(the\s+)?$|[自从]\s*$",
                         to_simplified(s.text[max(0, d.start - 30):d.start]).lower()):
                return _date_term(s, "effective_date", d, 0.8)
    if agreed:
        return Term("effective_date", agreed.value, agreed.position, agreed.start, agreed.end, agreed.quote,
                    min(agreed.confidence, 0.55), date=agreed.date, derived="no separate effective date: the agreement date")
    return None


# ---------------------------------------------------------------------------------------- the term

# how a sentence says how long the agreement runs: the agreement or its term as the subject of a running verb,
# or the term defined; `_TERM_TITLE` a clause headed so
_RUNS = re.compile(r"\b(this|the)\s+(\w+\s+){0,2}(agreement|contract|engagement|arrangement)\b[^.;]{0,60}\b(shall|will|is to|to)\s+"
                   r"(\w+\s+){0,2}(commence|begin|start|continue|remain|be effective|become effective|be in (full )?(force|effect)|"
                   r"expire|terminate|end|run|last|conclude|be for|have a term)\b|"
                   r"\b(this|the)\s+(\w+\s+){0,2}(agreement|contract|engagement|arrangement)\s+(\w+\s+){0,2}(commences|begins|starts|"
                   r"continues|remains|runs|lasts|expires|ends|terminates|is concluded|is entered into|has a (fixed |initial )?"
                   r"(term|duration|period)|has an initial (term|duration|period))\b|\bterm\s*:|"
                   r"\b(initial|original|agreement|contract)\s+term\b|\bterm of (this|the) (\w+\s+){0,2}(agreement|contract)\b|"
                   r"[\"“]term[\"”]\s+(shall\s+)?means?|\bthe term\b[^.;]{0,40}\b(shall|will|is)\b|"
                   r"(本|该)?(合同|协议)(的)?(有效期|期限)|(有效期|期限|合作期|服务期)\s*(为|自|是|：|:|[一二三四五六七八九十两0-9])|"
                   r"自.{2,24}起.{0,24}(至|到).{2,24}(止|为止)")
_ABOUT_TERM = re.compile(r"agreement|contract|engagement|arrangement|term|合同|协议|期")   # a cheap first sieve
_TERM_TITLE = re.compile(r"\bterm\b|duration|period of agreement|effective period|期限|有效期|合同期")
_RUN_END = re.compile(r"until|through|expir|\bend|terminat|conclud|anniversary|period|\byears?\b|\bmonths?\b|perpetu|"
                      r"indefinite|止|届满|年|月")
# what only runs alongside the term: obligations "during the Term and for three years thereafter"
_NOT_AGREEMENT_TERM = re.compile(r"warrant|licen[cs]e term|confidential|non-?compet|payment term|insurance|records|"
                                 r"during the (term|period)|throughout the term|for the term of|"
                                 r"\b(and|or|but|plus) for [^.;]{0,40}(thereafter|after (the )?(expiration|termination|expiry)\b)|"
                                 r"\bsurviv|"
                                 r"保修|质保|保密|期满后|终止后|"
                                 # a sentence about ending it early, or defining another period ("Calendar Year" means)
                                 r"^\W*(\d+(\.\d+)*\s*)?(termination|upon (a |the |any )?(termination|expiration)|in the event|if\b)|"
                                 r"^\W*(\d+(\.\d+)*\s*)?[\"“](?!term|initial term|agreement term)[^\"”]{2,40}[\"”]\s+(shall\s+)?means?\b")
_END_AT = re.compile(r"(until|through|expir\w*|end\w*|terminat\w*|conclud\w*)\s+(on|at|upon)?\s*(and including\s+)?(the\s+)?$|"
                     r"(至|到|截至|止于)\s*$|-\s*$|to\s+$")
_UNTIL_TERMINATED = re.compile(r"until (it is |this agreement is |so )?terminated|indefinite|perpetu|no fixed (term|end)|"
                               r"until (either|one|a|the other) (party|of us|of the parties)\b|"
                               r"until terminated by|长期有效|无固定期限|直至.{0,8}(解除|终止)")
_ANNIVERSARY = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"
                          r"\s+anniversary", re.I)
_ORDINALS = {w: i for i, w in enumerate(["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                                         "ninth", "tenth"], 1)}
_FROM_START = re.compile(r"^\W*(commencing|beginning|starting|from|after|following|of|thereafter)|^\s*(自|从|起)")


def term_sentences(sents: list[Sentence]) -> list[Sentence]:
    """Sentences that state how long the agreement runs, those in a clause titled Term first."""
    def titled(s):
        return bool(_TERM_TITLE.search(to_simplified(s.passage.title).lower())) \
            and not re.search(r"terminat|终止|解除", s.passage.title.lower())
    titles = {id(s.passage): titled(s) for s in sents}
    found = [s for s in sents if _ABOUT_TERM.search(s.plain)
             and (_RUNS.search(s.plain) or titles[id(s.passage)] and re.search(r"\bagreement\b|\bterm\b|合同|协议", s.plain))
             and _RUN_END.search(s.plain) and not _NOT_AGREEMENT_TERM.search(s.plain) and not _renewal_first(s)]
    return sorted(found, key=lambda s: (not titles[id(s.passage)], s.passage.position, s.start))


def _renewal_first(s: Sentence) -> bool:
    """A sentence about renewal only ("thereafter renews for successive one-year terms")."""
    return bool(re.match(r"\s*(thereafter|upon (the )?expiration|at the end of)", s.plain)) and "renew" in s.plain


def expiration(running: list[Sentence], effective: Term | None) -> tuple[Term | None, Term | None]:
    """(expiration_date, initial_term) from the term sentences."""
    for s in running:
        dates = find_dates(s.text)
        for d in dates:
            before = to_simplified(s.text[max(0, d.start - 30):d.start]).lower()
            if _END_AT.search(before):
                start = next((x for x in dates if x.start < d.start), None)
                term = _duration_between(s, start, d)
                return _date_term(s, "expiration_date", d, 0.9), term
        initial = _initial_duration(s)
        if initial:
            duration_found, confidence = initial
            start_found = next((d for d in dates), None)
            start = start_found.value.as_date() if start_found else (
                PartialDate.from_iso(effective.value).as_date() if effective and effective.date else None)
            term = s.term("initial_term", duration_found.value.text(), confidence,
                          (duration_found.start, duration_found.end), days=duration_found.value.days)
            if start:
                end = duration_found.value.add_to(start)
                how = f"{duration_found.value.text()} from " + (start_found.text if start_found else "the effective date")
                exp = s.term("expiration_date", end.isoformat(), confidence - 0.1, None, date=end.isoformat(), derived=how)
                return exp, term
            return None, term
        if _UNTIL_TERMINATED.search(s.plain) and not any(d.value.unit in ("year", "month") and not re.search(
                r"notice|prior|in advance|通知", s.plain[d.end:d.end + 40]) for d in find_durations(s.text)):
            return s.term("expiration_date", PERPETUAL, 0.7), None
    return None, None


def _duration_between(s: Sentence, start: Found | None, end: Found) -> Term | None:
    if not start or not start.value.as_date() or not end.value.as_date():
        return None
    days = (end.value.as_date() - start.value.as_date()).days
    if days <= 0:
        return None
    months = round(days / 30.44)
    text = f"{months // 12} years" if months % 12 == 0 and months >= 12 else f"{months} months"
    if months // 12 == 1 and months % 12 == 0:
        text = "1 year"
    return s.term("initial_term", text, 0.7, (start.start, end.end), days=days, derived="between the two dates")


def _initial_duration(s: Sentence) -> tuple[Found, float] | None:
    """The initial term's length in a term sentence: "for a period of three (3) years", "期限为三年",
    "until the fifth anniversary of the Effective Date"."""
    m = _ANNIVERSARY.search(s.text)
    if m:
        word = m.group(1).lower()
        n = _ORDINALS.get(word) or int(re.match(r"\d+", word).group(0))
        return Found(Duration(n, "year"), m.start(), m.end(), m.group(0)), 0.85
    for d in find_durations(s.text):
        after = s.plain[d.end:d.end + 40]
        before = s.plain[max(0, d.start - 50):d.start]
        if re.match(r"\s*(prior|before|notice|in advance|written notice|前|以前)", after) or \
                re.search(r"(notice|提前|within|in advance)\W*$", before):
            continue
        if re.search(r"renew|extend|续", before[-25:]):
            continue
        if re.search(r"(term|period|duration|continue|for|of|effect|ending|end|expiring|期限|有效期|为|期)\W*(a|an|the|initial)?\W*$",
                     before) or _FROM_START.match(after):
            return d, 0.85
    return None


# ---------------------------------------------------------------------------------------- renewal

_RENEW = re.compile(r"renew|extend|extension|successive|续|顺延|延期")
_AUTO = re.compile(r"automatic|shall (be )?(renew|extend)|will (be )?(renew|extend)|(renew|extend)s? (itself|for)|"
                   r"successive|unless (either|one|a|the other) party|unless .{0,60}notice|自动|除非.{0,40}(通知|书面)")
_NOT_AUTO = re.compile(r"may be (renewed|extended)|by mutual|mutually agree|upon (the )?(mutual |written )?agreement of|"
                       r"by (mutual |written |further )*agreement|subject to (the )?(mutual )?agreement|renegotiat|"
                       r"\b(customer|buyer|client|purchaser|principal|licensee|we|it|the parties|either party|"
                       r"[a-z]+) may (\w+ )?(extend|renew)|has (the |an )?option to (extend|renew)|at (its|the \w+'s) option|"
                       r"协商一致|另行签订|重新签订|协商续|经双方同意|有权选择续")
# "unless either party gives notice" makes a renewal automatic whatever verb carries it
_UNLESS_NOTICE = re.compile(r"unless .{0,80}(notice|notif|written)|failing which|除非.{0,40}(通知|书面|异议)|"
                            r"未.{0,12}(书面)?(通知|提出异议|异议)的")
_PRIOR = re.compile(r"\s*(\(\d+\)\s*)?(prior|before|in advance|preceding|ahead|前|之前|以前)")


_PERIODIC = re.compile(r"\b(annual|yearly|year[- ]to[- ]year|month[- ]to[- ]month|monthly)\b|逐年|每年")


def _renewal_order(sents: list[Sentence]) -> list[tuple[Sentence, Sentence | None]]:
    """Sentences about renewing, each with the next sentence of its clause (which often carries the
    notice: "Such notice must be given ninety (90) days prior ..."); those about the agreement or its
    term, and those in a clause headed Term, first."""
    found = []
    for i, s in enumerate(sents):
        if not _RENEW.search(s.plain) or re.search(r"licen[cs]e|warrant|保修", s.plain) and "agreement" not in s.plain:
            continue
        nxt = sents[i + 1] if i + 1 < len(sents) and sents[i + 1].passage is s.passage else None
        about = bool(re.search(r"\bagreement\b|\bterm\b|合同|协议", s.plain))
        titled = bool(_TERM_TITLE.search(to_simplified(s.passage.title).lower()))
        found.append((not about, not titled, s.passage.position, s.start, s, nxt))
    return [(s, nxt) for *_, s, nxt in sorted(found, key=lambda f: f[:4])]


def renewal(sents: list[Sentence]) -> list[Term]:
    """auto_renewal, renewal_term and renewal_notice from the sentences about renewing."""
    out: dict[str, Term] = {}
    for s, nxt in _renewal_order(sents):
        if "auto_renewal" not in out:
            if _UNLESS_NOTICE.search(s.plain) or _AUTO.search(s.plain) and not _NOT_AUTO.search(s.plain):
                out["auto_renewal"] = s.term("auto_renewal", "yes", 0.85, flag=True)
            elif _NOT_AUTO.search(s.plain):
                out["auto_renewal"] = s.term("auto_renewal", "no", 0.75, flag=False)
        for part in (s, nxt) if nxt is not None and re.search(r"notice|notif|通知", nxt.plain) else (s,):
            _renewal_periods(part, out)
        if "renewal_term" not in out and (m := _PERIODIC.search(s.plain)):
            unit = "month" if "month" in m.group(0) else "year"
            out["renewal_term"] = s.term("renewal_term", Duration(1, unit).text(), 0.7, (m.start(), m.end()),
                                         days=Duration(1, unit).days)
        if "auto_renewal" in out and "renewal_notice" in out and "renewal_term" in out:
            break
    if out.get("auto_renewal") and not out["auto_renewal"].flag:
        out.pop("renewal_notice", None)
    return list(out.values())


def _renewal_periods(s: Sentence, out: dict[str, Term]) -> None:
    """The notice period (a duration before the end, or of notice) and the renewal period in `s`: a
    period after the word that renews ("renews ... for successive periods of one year") before any other."""
    found = find_durations(s.text)
    renews_at = [m.end() for m in re.finditer(r"renew|extend|extension|续|顺延", s.plain)]
    def distance(d):
        after_renew = [d.start - e for e in renews_at if 0 <= d.start - e <= 70]
        return min(after_renew) if after_renew else 1000
    for d in sorted(found, key=distance):
        after = s.plain[d.end:d.end + 40]
        before = s.plain[max(0, d.start - 40):d.start]
        prior = _PRIOR.match(after) or re.search(r"(at least|not less than|no less than|no later than|提前|前|前至少|前不少于)\W*$",
                                                 before) \
            or re.match(r"[\s'’]*s?\s*(\(\d+\)\s*)?(prior\s+|advance\s+)?(written\s+)?(notice|notification)", after)
        if prior and re.search(r"notice|notif|通知|告知|异议|书面|提出", s.plain):
            if "renewal_notice" not in out:
                out["renewal_notice"] = s.term("renewal_notice", d.value.text(), 0.85, (d.start, d.end), days=d.value.days)
        elif not prior and "renewal_term" not in out and re.search(
                r"renew|extend|extension|successive|additional|further|续|顺延", before + s.plain[d.end:d.end + 30]):
            out["renewal_term"] = s.term("renewal_term", d.value.text(), 0.8, (d.start, d.end), days=d.value.days)


# ---------------------------------------------------------------------------------------- convenience

_CONVENIENCE = re.compile(r"for convenience|for any reason|for no reason|without cause|with or without cause|"
                          r"at any time|in its (sole )?discretion|without (giving |stating )?(any )?reason|"
                          r"随时|无需(任何)?理由|无理由|任何理由|无须说明理由")
_ENDS = re.compile(r"terminat|cancel|end this|解除|终止")


def convenience_notice(sents: list[Sentence]) -> Term | None:
    for s in sents:
        if re.search(r"renew|续", s.plain) or not (_CONVENIENCE.search(s.plain) and _ENDS.search(s.plain) or re.search(
                r"notice|通知", s.plain) and ends_without_cause(s.text)):
            continue
        for d in find_durations(s.text):
            after = s.plain[d.end:d.end + 40]
            before = s.plain[max(0, d.start - 40):d.start]
            if re.match(r"[\s'’]*(s'|’s|'s)?\s*(\(\d+\)\s*)?(prior |advance |written |ordinary )*(written )?(notice|notif|prior|"
                        r"in advance|前|书面通知|通知)", after) or re.search(
                        r"(提前|upon|with|giving|by giving|on|notice of|period of)\W*(at least|not less than|no less than)?\W*$", before):
                return s.term("convenience_notice", d.value.text(), 0.85, (d.start, d.end), days=d.value.days)
        if re.search(r"immediately|with immediate effect|立即", s.plain):
            return s.term("convenience_notice", "0 days", 0.65, days=0)
    return None


# ---------------------------------------------------------------------------------------- law

_LAW_OF = re.compile(r"\blaws?\s+(?:in\s+force\s+)?(?:of|in)\s+(?:the\s+)?(?P<j>[^.;:()\n\[*]{2,80})", re.I)
_LAW_NAMED = re.compile(r"(?:governed\s+by|accordance\s+with|under|subject\s+to|according\s+to)\s+(?:the\s+)?"
                        r"(?:substantive\s+|internal\s+)?(?P<j>[A-Z][\w.]*(?:\s+[A-Z][\w.]*){0,3})\s+(?:substantive\s+)?(?i:laws?)\b")
_LAW_CUE = re.compile(r"govern|constru|interpret|subject to|with reference to|applicable law|appl(y|ies)|适用|管辖")
_LAW_ADJECTIVE = re.compile(r"\b(?P<j>[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2})\s+(?:substantive\s+)?law\b\s*(?:applies|governs|shall (?:apply|govern)|"
                            r"is applicable|will (?:apply|govern)|,\s*(?:jurisdiction|venue|courts?))")
_ADJ_PLACE = {"english": "England and Wales", "german": "Germany", "french": "France", "swiss": "Switzerland",
              "dutch": "Netherlands", "spanish": "Spain", "italian": "Italy", "irish": "Ireland", "scots": "Scotland",
              "scottish": "Scotland", "swedish": "Sweden", "danish": "Denmark", "austrian": "Austria",
              "belgian": "Belgium", "polish": "Poland", "chinese": "People's Republic of China",
              "prc": "People's Republic of China", "japanese": "Japan", "indian": "India", "norwegian": "Norway",
              "finnish": "Finland", "portuguese": "Portugal", "canadian": "Canada", "australian": "Australia"}
_LAW_ZH = re.compile(r"(?:适用|受|依据|依照|按照|根据|遵守)(?P<j>[^，。；,、（(]{1,16}?)(?:的)?(?:法律|法规)")
_ZH_PLACES = {"中华人民共和国": "People's Republic of China", "中国": "People's Republic of China",
              "香港特别行政区": "Hong Kong", "香港": "Hong Kong", "新加坡": "Singapore", "德国": "Germany",
              "英格兰和威尔士": "England and Wales", "英格兰": "England and Wales", "英国": "England and Wales",
              "日本": "Japan", "法国": "France", "瑞士": "Switzerland", "美国纽约州": "New York", "纽约州": "New York",
              "西班牙": "Spain", "荷兰": "Netherlands", "澳门": "Macau", "台湾": "Taiwan"}


def governing_law(sents: list[Sentence]) -> Term | None:
    lawful = [s for s in sents if ("law" in s.plain or "法律" in s.plain) and _LAW_CUE.search(s.plain)]
    lawful.sort(key=lambda s: not re.search(r"govern|适用|管辖", s.plain + s.passage.title.lower()))   # stable
    for s in lawful:
        if not re.search(r"\blaws?\b|法律", s.plain):
            continue
        text = s.text.replace("*", " ").replace("_", " ")   # Markdown emphasis: "laws of **Spain**"
        for rx in (_LAW_OF, _LAW_NAMED, _LAW_ADJECTIVE):
            m = rx.search(text)
            place = _clean_place(m.group("j")) if m else None
            if place:
                confidence = 0.9 if re.search(r"govern|constru|interpret", s.plain) else 0.65
                return s.term("governing_law", place, confidence, (m.start(), m.end()))
        zh = to_simplified(s.text)
        for m in _LAW_ZH.finditer(zh):
            place = next((v for k, v in _ZH_PLACES.items() if k in m.group("j")), None)
            if place:
                return s.term("governing_law", place, 0.9, (m.start(), m.end()))
    return None


def _clean_place(raw: str) -> str | None:
    place = re.split(r",?\s+(?:without|excluding|exclusive|notwithstanding|including|other than|except|and the|and all|"
                     r"applicable|as (?:applied|such)|that|which|in effect|regardless|irrespective|with|in the|shall|"
                     r"and any|and venue|and (?:its|their)|u\.s\.a|usa|united states)\b|,", raw, maxsplit=1, flags=re.I)[0]
    place = re.sub(r"\s+", " ", place).strip(" ,\"'“”")
    if place.isupper() and len(place) > 3:
        place = place.title()
    if _ADJ_PLACE.get(place.lower()):
        return _ADJ_PLACE[place.lower()]
    place = re.sub(r"^(?:the\s+)?(?:State|Commonwealth|Province|Kingdom|Federal Republic|Federative Republic|Republic|"
                   r"Grand Duchy|Principality)\s+of\s+(?:the\s+)?", "",
                   place, flags=re.I)
    place = re.sub(r"^the\s+", "", place, flags=re.I).strip()
    if place.lower() in ("prc", "people's republic of china", "p.r.c", "p.r.c."):
        return "People's Republic of China"
    if not place or len(place) > 50 or not place[0].isupper() or \
            re.search(r"\b(this|such|any|all|agreement|party|parties|jurisdiction|country|place|relevant|applicable|territory|local|"
                      r"respective|other|its|their|which|where)\b", place, re.I):
        return None
    return place


# ---------------------------------------------------------------------------------------- liability cap

_LIABILITY = re.compile(r"liabilit|liable|recover|赔偿责任|责任总额|赔偿总额|累计赔偿|责任上限|赔偿金额|赔偿")
_LIMITED = re.compile(r"exceed|limited to|not be more than|not more than|cap\b|capped|maximum|in no event|ceiling|up to|"
                      r"不超过|不得超过|以.{0,40}为限|上限|最高")
_FEES = re.compile(r"fees|charges|amounts? (paid|payable|invoiced)|amounts? (actually )?invoiced|sums? paid|price|consideration|"
                   r"compensation|supply value|contract value|费用|服务费|价款|总价|金额|合同总额|款项|货款")
_UNCAPPED = re.compile(r"unlimited liability|liability (shall be |is )?unlimited|no (limit|cap)\w* (on|to) (its |the )?liabilit|"
                       r"not (be )?(limited|capped)|责任不设上限|无限责任|不受限制")
_TIMES = re.compile(r"(?P<n>\d+(?:\.\d+)?|one|two|three|four|five|ten|一|两|二|三|五|十)\s*(?:\(\d+\)\s*)?(?:times|x\b|倍)|"
                    r"\b(?P<twice>twice|double)\b|"
                    r"(?P<pct>\d{1,3}(?:\.\d+)?)\s*(?:\(\d+\s*%\)\s*)?%\s*of\s+(the\s+)?(\w+\s+){0,2}"
                    r"(total|annual|aggregate|fees|amounts?|contract|charges|supply|price|value)|"
                    r"(?:one hundred (?:and )?(?P<hword>\w+)? ?percent)|"
                    r"(总价|总额|金额|价款|费用)的?\s*(?P<zpct>\d{1,3})\s*%")
_WORD_N = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "一": 1, "两": 2, "二": 2, "三": 3, "五": 5, "十": 10}
_A_YEAR = re.compile(r"\b(that|each|any|the|a|per|every|same)\s+(contract(ual)?\s+|calendar\s+|financial\s+)?year\b|"
                     r"annual|yearly|该年度|每个?合同年度|每一?会计年度|当年|年度")
_PER_EVENT = re.compile(r"\s*(per|for each|for any one|in respect of each|each)\s+(claim|event|incident|occurrence|consignment|loss)")


def liability_cap(sents: list[Sentence]) -> Term | None:
    for s in sents:
        if not _LIABILITY.search(s.plain):
            continue
        if not _LIMITED.search(s.plain):
            if re.search(r"aggregate|total|entire|全部|总", s.plain) and _UNCAPPED.search(s.plain):
                return s.term("liability_cap", "uncapped", 0.6, unit="uncapped")
            continue
        cap = _cap_in(s)
        if cap:
            return cap
    return None


def _fee_months(s: Sentence) -> Found | None:
    """The period of fees a cap counts ("the fees paid in the preceding twelve (12) months", "in that
    contract year", "前十二个月"), as a Duration."""
    for d in find_durations(s.text):
        if d.value.unit in ("month", "year") and (re.search(
                r"(preceding|prior|previous|last|during|in|within|over|for|first|前)\W*(the\s+)?(\w+\s+)?$",
                s.plain[max(0, d.start - 30):d.start]) or re.match(r"\W*(preceding|prior|before|immediately)",
                                                                   s.plain[d.end:d.end + 20])):
            return d
    m = _A_YEAR.search(s.plain)
    return Found(Duration(1, "year"), m.start(), m.end(), m.group(0)) if m else None


def _multiple(m: re.Match) -> float:
    if m.group("twice"):
        return 2.0
    if m.group("n"):
        n = m.group("n")
        return float(_WORD_N.get(n, n))
    if m.group("hword") is not None or "one hundred" in m.group(0):
        word = m.group("hword") or ""
        return 1 + ({"fifty": 0.5, "twenty-five": 0.25}.get(word, 0))
    return float(m.group("pct") or m.group("zpct")) / 100


def _cap_in(s: Sentence) -> Term | None:
    strong = 0.85 if re.search(r"aggregate|total|cumulative|entire|in no event|overall|总额|累计|全部", s.plain) else 0.7
    if _FEES.search(s.plain):
        period = _fee_months(s)
        m = _TIMES.search(s.plain)
        if m:
            mult = _multiple(m)
            if period:   # "two times the fees paid in the preceding twelve months": 24 months of fees
                months = mult * period.value.months
                return s.term("liability_cap", f"{months:g} months of fees", strong, (m.start(), m.end()),
                              number=float(months), unit="months_of_fees")
            return s.term("liability_cap", f"{mult:g}x fees", strong, (m.start(), m.end()), number=mult,
                          unit="multiple_of_fees")
        share = next((p for p in find_percentages(s.text) if re.search(r"(总价|总额|金额|价款|费用|fees|price|value)的?\s*$",
                                                                      s.plain[max(0, p.start - 8):p.start])), None)
        if share:   # "不超过本合同总金额的百分之三十"
            return s.term("liability_cap", f"{share.value / 100:g}x fees", strong, (share.start, share.end),
                          number=share.value / 100, unit="multiple_of_fees")
        if period and not find_amounts(s.text):
            months = round(period.value.months)
            return s.term("liability_cap", f"{months} months of fees", strong, (period.start, period.end),
                          number=float(months), unit="months_of_fees")
    amounts = find_amounts(s.text)
    if amounts:   # a yearly or overall ceiling before one per claim or event
        a = next((x for x in amounts if not _PER_EVENT.match(s.plain[x.end:x.end + 40])), amounts[0])
        value, currency = a.value
        return s.term("liability_cap", f"amount {currency} {value:.0f}", strong, (a.start, a.end), number=value,
                      unit=currency)
    if _FEES.search(s.plain) and re.search(r"(total|aggregate|all)?\s*(fees|amounts|charges|price)\s+(actually\s+)?"
                                           r"(paid|payable|received)|合同总价|合同总额|合同金额|已支付", s.plain):
        return s.term("liability_cap", "1x fees", strong - 0.1, number=1.0, unit="multiple_of_fees")
    return None


# ---------------------------------------------------------------------------------------- service levels

_UPTIME = re.compile(r"availab|uptime|up-time|service level|可用性|可用率|可用|正常运行")


def uptime(sents: list[Sentence]) -> Term | None:
    """The availability committed to: the first percentage from 90 to 100 in a sentence about availability."""
    for s in sents:
        if not (_UPTIME.search(s.plain) or _UPTIME.search(to_simplified(s.passage.title).lower())):
            continue
        for p in find_percentages(s.text):
            if 90 <= p.value < 100 and not re.match(r"\s*(of (the |all |its )?(monthly |annual )?(fees|charges|invoice|amount|"
                                                    r"orders|deliver)|credit)", s.plain[p.end:p.end + 30]):
                return s.term("uptime", f"{p.value:g}", 0.9 if _UPTIME.search(s.plain) else 0.7, (p.start, p.end),
                              number=p.value)
    return None


_PAY = re.compile(r"invoice|payment|payable|\bpay\b|\bpaid\b|\bsettled\b|发票|付款|支付|结算")
_NET = re.compile(r"\bnet\s*(\d{1,3})\b", re.I)


def payment_days(sents: list[Sentence]) -> Term | None:
    """Days to pay an invoice: "net 30", "payable within thirty (30) days of receipt", "收到发票后30日内支付";
    sentences about invoices first."""
    paying = [s for s in sents if _PAY.search(s.plain) and not re.search(r"liabilit|赔偿|warrant|notice of termination", s.plain)]
    paying.sort(key=lambda s: not re.search(r"invoice|发票|账单", s.plain))
    for s in paying:
        m = _NET.search(s.text)
        if m:
            return s.term("payment_days", m.group(1), 0.85, (m.start(), m.end()), number=float(m.group(1)),
                          days=int(m.group(1)))
        for d in find_durations(s.text):
            if d.value.unit not in ("day", "business day") or d.value.amount > 180:
                continue
            before = s.plain[max(0, d.start - 40):d.start]
            after = s.plain[d.end:d.end + 60]
            if re.match(r"\W*(notice|prior|in advance|before|前)", after) or re.search(r"notice|提前", before[-15:]):
                continue
            if re.search(r"(within|in|after|due|payable|pay|paid|后|内|起)\W*(the\s+)?$", before) or \
                    re.match(r"\W*(net|after|from|following|of)\b", after) or re.search(r"发票.{0,24}$", before):
                n = int(d.value.amount)
                return s.term("payment_days", str(n), 0.8 if re.search(r"invoice|发票", s.plain) else 0.65,
                              (d.start, d.end), number=float(n), days=d.value.days)
    return None


# ---------------------------------------------------------------------------------------- all fields

def extract_terms(passages: list[Passage]) -> list[Term]:
    """Every field an agreement states, at most one value per field, in FIELDS order."""
    token = DAY_FIRST.set(writes_day_first(" ".join(p.text[:20000] for p in passages)))
    try:
        return _extract(passages)
    finally:
        DAY_FIRST.reset(token)


def _extract(passages: list[Passage]) -> list[Term]:
    sents = sentences(passages)
    running = term_sentences(sents)
    agreed = agreement_date(sents)
    effective = effective_date(sents, agreed, running)
    expires, initial = expiration(running, effective)
    found = [agreed, effective, expires, initial, *renewal(sents), convenience_notice(sents), governing_law(sents),
             liability_cap(sents), uptime(sents), payment_days(sents)]
    by_field = {t.field: t for t in found if t is not None}
    return [by_field[f] for f in FIELDS if f in by_field]


def passages_of(preamble: str, clauses) -> list[Passage]:
    """The passages of a split agreement: its preamble (0) and each clause (`ClauseDraft`s)."""
    out = [Passage(0, "", preamble)] if preamble and preamble.strip() else []
    return out + [Passage(c.position, c.title or "", c.text) for c in clauses]


def term_from_value(field_: str, value: str) -> Term:
    """A reviewer's value of a field, read and typed as the extractor types its own (raises
    ValueError with what is expected): "2026-03-31", "perpetual", "90 days", "yes", "12 months of
    fees", "amount EUR 500000", "uncapped", "99.9", "30"."""
    if field_ not in FIELDS:
        raise ValueError(f"unknown term field {field_!r}; choose one of {', '.join(FIELDS)}")
    v = (value or "").strip()
    if not v:
        raise ValueError(f"{field_}: give a value")
    typed: dict = {}
    if field_.endswith("_date"):
        if field_ == "expiration_date" and v.lower() in (PERPETUAL, "until terminated"):
            v = PERPETUAL
        else:
            dates = find_dates(v)
            if not dates or dates[0].value.month is None:
                raise ValueError(f"{field_}: expected a date such as 2026-03-31, got {value!r}")
            d = dates[0].value
            v, typed["date"] = d.iso(), d.as_date().isoformat() if d.as_date() else None
    elif field_ == "auto_renewal":
        if v.lower() not in ("yes", "no", "true", "false"):
            raise ValueError(f"{field_}: expected yes or no, got {value!r}")
        typed["flag"] = v.lower() in ("yes", "true")
        v = "yes" if typed["flag"] else "no"
    elif field_ in ("initial_term", "renewal_term", "renewal_notice", "convenience_notice"):
        found = find_durations(v)
        if not found:
            raise ValueError(f"{field_}: expected a duration such as 90 days or 1 year, got {value!r}")
        v, typed["days"] = found[0].value.text(), found[0].value.days
    elif field_ == "liability_cap":
        v, typed = _cap_value(v)
    elif field_ in ("uptime", "payment_days"):
        try:
            number = float(v.rstrip("%").strip())
        except ValueError:
            raise ValueError(f"{field_}: expected a number, got {value!r}") from None
        v, typed["number"] = f"{number:g}", number
        if field_ == "payment_days":
            typed["days"] = int(number)
    return Term(field_, v, 0, 0, 0, "", 1.0, **typed)


def _cap_value(v: str) -> tuple[str, dict]:
    low = v.lower()
    if low == "uncapped":
        return "uncapped", {"unit": "uncapped"}
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)\s*months? of fees", low):
        return f"{float(m.group(1)):g} months of fees", {"number": float(m.group(1)), "unit": "months_of_fees"}
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)\s*x\s*(annual\s+)?fees", low):
        return f"{float(m.group(1)):g}x fees", {"number": float(m.group(1)), "unit": "multiple_of_fees"}
    amounts = find_amounts(v)
    if m := re.fullmatch(r"(?:amount\s+)?([A-Za-z]{3})\s*([\d,.]+)", v.strip()):
        number = float(m.group(2).replace(",", ""))
        return f"amount {m.group(1).upper()} {number:.0f}", {"number": number, "unit": m.group(1).upper()}
    if amounts:
        number, currency = amounts[0].value
        return f"amount {currency} {number:.0f}", {"number": number, "unit": currency}
    raise ValueError("liability_cap: expected 'uncapped', '12 months of fees', '2x fees' or 'amount EUR 500000', "
                     f"got {v!r}")

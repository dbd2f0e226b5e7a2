"""Contract terms for the pages and the CLI: one agreement's terms with evidence, the review queue of
uncertain values and corrections, the renewals calendar (CSV and iCalendar exports), the playbook's
deviations per supplier, and where the corpus tables and the contract text disagree."""
from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta, timezone

from core.graph.db import Database, get_database
from core.graph.queries import terms as qt
from core.ingest.pipeline import term_rows
from core.ingest.terms import FIELD_LABELS, FIELDS, PERPETUAL, term_from_value
from core.term_values import find_durations, place_key
from core.playbook import DEVIATES, MEETS, NOT_STATED, UNCERTAIN, Playbook, check, load_playbook

SPEND_KEY = "spend_latest"


def agreement_terms(sla_id: str, db: Database | None = None) -> list[dict]:
    """Every term of one agreement with its evidence (clause, quote, confidence), in field order."""
    rows = (db or get_database()).read(qt.TERMS_OF_AGREEMENT, {"sla_id": sla_id})
    for r in rows:
        r["label"] = FIELD_LABELS.get(r["field"], r["field"])
    return rows


def term_review_queue(limit: int = 200, db: Database | None = None) -> list[dict]:
    """Values read with low confidence, least sure first: what a reviewer should confirm or correct."""
    return (db or get_database()).read(qt.TERM_REVIEW_QUEUE, {"limit": int(limit)})


def correct_term(sla_id: str, field_: str, value: str, db: Database | None = None) -> dict:
    """A reviewer's value for one field of one agreement; it replaces the extracted one and is kept
    when the agreement is ingested again. Raises ValueError naming what is expected."""
    term = term_from_value(field_, value)
    row = term_rows(sla_id, [term])[0]
    props = dict(row["props"], method="manual", needs_review=False, quote="", clause_id=None)
    props.pop("clause_id")
    rows = (db or get_database()).write(qt.SET_TERM_MANUAL, {"sla_id": sla_id, "field": field_, "props": props,
                                                             "date": row["date"]})
    if not rows:
        raise ValueError(f"no agreement with id {sla_id!r}")
    return rows[0]


# ------------------------------------------------------------------------------ renewals

@dataclass
class RenewalRow:
    """One agreement on the renewals calendar. `action_date` is what to act by: the last day to give
    notice when it renews by itself, otherwise the expiry."""
    company: str
    sla_id: str
    service_name: str | None
    country: str | None
    industry: str | None
    spend: float | None
    expiration_date: str | None        # ISO; None: perpetual or not stated
    expiration: str                    # as shown: a date, "perpetual" or "not stated"
    auto_renewal: bool | None
    renewal_term: str | None
    renewal_notice: str | None
    notice_deadline: str | None        # ISO: expiry minus the notice to prevent renewal
    action_date: str | None
    days_left: int | None              # from `today` to action_date
    evidence: str = ""
    clause_id: str | None = None
    initial_expiration: str | None = None   # the end of the initial term, when renewals have moved it on

    def to_dict(self) -> dict:
        return asdict(self)


def _agreement_rows(countries=(), industries=(), db: Database | None = None) -> list[dict]:
    """Every agreement with its terms (AGREEMENT_TERMS), of the suppliers in the countries and industries asked."""
    rows = (db or get_database()).read(qt.AGREEMENT_TERMS, {"spend_key": SPEND_KEY})
    return [r for r in rows if not (countries and r["country"] not in countries
                                    or industries and r["industry"] not in industries)]


def _terms_by_field(row: dict) -> dict[str, dict]:
    return {t["field"]: t for t in row.get("terms") or [] if t}


def renewal_calendar(today: date | None = None, within_days: int | None = None, countries=(), industries=(),
                     db: Database | None = None) -> list[RenewalRow]:
    """Every agreement with its expiry, renewal and notice deadline, soonest action first; with
    `within_days`, only those whose action date falls in the next so many days."""
    today = today or date.today()
    out = [_renewal_row(r, today) for r in _agreement_rows(countries, industries, db)]
    if within_days is not None:
        horizon = (today + timedelta(days=int(within_days))).isoformat()
        out = [x for x in out if x.action_date and today.isoformat() <= x.action_date <= horizon]
    return sorted(out, key=lambda x: (x.action_date is None, x.action_date or "", x.company))


def _renewal_row(r: dict, today: date) -> RenewalRow:
    terms = _terms_by_field(r)
    exp, auto, notice, renew = (terms.get(f) for f in ("expiration_date", "auto_renewal", "renewal_notice",
                                                         "renewal_term"))
    exp_date = exp.get("date") if exp else None
    rolled = _current_term_end(exp_date, auto, renew, today)
    deadline = None
    if rolled and auto and auto.get("flag") and notice and notice.get("days") is not None:
        deadline = (date.fromisoformat(rolled) - timedelta(days=int(notice["days"]))).isoformat()
        if deadline < today.isoformat():   # this term's deadline has passed: the next one counts
            nxt = _current_term_end(rolled, auto, renew, date.fromisoformat(rolled) + timedelta(days=1))
            if nxt != rolled:
                rolled = nxt
                deadline = (date.fromisoformat(rolled) - timedelta(days=int(notice["days"]))).isoformat()
    initial = exp_date if rolled and rolled != exp_date else None
    exp_date = rolled or exp_date
    action = deadline or exp_date
    return RenewalRow(
        company=r["company"], sla_id=r["sla_id"], service_name=r.get("service_name"), country=r.get("country"),
        industry=r.get("industry"), spend=r.get("spend"), expiration_date=exp_date,
        expiration=(exp_date if initial else exp["value"] if exp else "not stated"), initial_expiration=initial,
        auto_renewal=(auto.get("flag") if auto else None), renewal_term=(renew["value"] if renew else None),
        renewal_notice=(notice["value"] if notice else None), notice_deadline=deadline, action_date=action,
        days_left=(date.fromisoformat(action) - today).days if action else None,
        evidence=(exp or {}).get("quote") or "", clause_id=(exp or {}).get("clause_id"))


def _current_term_end(exp_date: str | None, auto: dict | None, renew: dict | None, today: date) -> str | None:
    """The end of the term running on `today`: an agreement that renews by itself for a stated period
    rolls forward past an expiry already behind it (a 2021 expiry with yearly renewals ends in 2026 or 2027)."""
    if not exp_date or not (auto and auto.get("flag")) or not renew:
        return exp_date
    periods = find_durations(renew.get("value") or "")
    if not periods:
        return exp_date
    end = date.fromisoformat(exp_date)
    for _ in range(200):
        if end >= today:
            break
        end = periods[0].value.add_to(end)
    return end.isoformat()


def renewals_csv(rows: list[RenewalRow]) -> str:
    buf = io.StringIO()
    names = list(RenewalRow.__dataclass_fields__)
    w = csv.DictWriter(buf, fieldnames=names)
    w.writeheader()
    for r in rows:
        w.writerow(r.to_dict())
    return buf.getvalue()


def _ics_text(s: str) -> str:
    return s.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def renewals_ics(rows: list[RenewalRow], now: datetime | None = None) -> str:
    """An iCalendar (RFC 5545) file: one all-day event per notice deadline and per expiry."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//ClauseGraph//Renewals//EN", "CALSCALE:GREGORIAN"]
    for r in rows:
        events = []
        if r.notice_deadline:
            events.append(("notice", r.notice_deadline, f"Last day to give notice: {r.company} ({r.sla_id})",
                           f"Renews automatically on {r.expiration_date} unless notice is given "
                           f"({r.renewal_notice} before expiry)."))
        if r.expiration_date:
            events.append(("expiry", r.expiration_date, f"Agreement expires: {r.company} ({r.sla_id})",
                           f"{r.service_name or ''} expires" + (" and renews automatically" if r.auto_renewal else "")))
        for kind, day, summary, description in events:
            d = day.replace("-", "")
            end = (date.fromisoformat(day) + timedelta(days=1)).strftime("%Y%m%d")
            lines += ["BEGIN:VEVENT", f"UID:{r.sla_id}-{kind}-{d}@clausegraph", f"DTSTAMP:{stamp}",
                      f"DTSTART;VALUE=DATE:{d}", f"DTEND;VALUE=DATE:{end}", f"SUMMARY:{_ics_text(summary)}",
                      f"DESCRIPTION:{_ics_text(description)}", "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


# ------------------------------------------------------------------------------ playbook

@dataclass
class PositionCheck:
    position_id: str
    title: str
    severity: str
    status: str          # meets / deviates / not stated / uncertain
    why: str
    value: str | None = None
    quote: str | None = None
    clause_id: str | None = None


@dataclass
class AgreementDeviations:
    company: str
    sla_id: str
    service_name: str | None
    country: str | None
    industry: str | None
    spend: float | None
    checks: list[PositionCheck] = field(default_factory=list)

    @property
    def deviations(self) -> list[PositionCheck]:
        return [c for c in self.checks if c.status == DEVIATES]

    @property
    def uncertain(self) -> list[PositionCheck]:
        return [c for c in self.checks if c.status == UNCERTAIN]


@dataclass
class DeviationReport:
    playbook: Playbook
    agreements: list[AgreementDeviations]

    def suppliers(self) -> list[dict]:
        """Per supplier: its deviations across agreements and the spend at risk (its spend when it
        has any deviation), largest spend first."""
        by: dict[str, dict] = {}
        for a in self.agreements:
            s = by.setdefault(a.company, {"company": a.company, "country": a.country, "industry": a.industry,
                                          "spend": a.spend, "agreements": 0, "deviations": 0, "uncertain": 0,
                                          "positions": []})
            s["agreements"] += 1
            s["deviations"] += len(a.deviations)
            s["uncertain"] += len(a.uncertain)
            s["positions"] += [c.title for c in a.deviations if c.title not in s["positions"]]
        out = list(by.values())
        for s in out:
            s["spend_at_risk"] = (s["spend"] or 0.0) if s["deviations"] else 0.0
        return sorted(out, key=lambda s: (-s["deviations"] > 0, -(s["spend_at_risk"] or 0), s["company"]))

    def spend_at_risk(self) -> float:
        return sum(s["spend_at_risk"] for s in self.suppliers())

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["company", "sla_id", "service_name", "spend", "position", "severity", "status", "value",
                    "why", "evidence", "clause_id"])
        for a in self.agreements:
            for c in a.checks:
                w.writerow([a.company, a.sla_id, a.service_name or "", a.spend if a.spend is not None else "",
                            c.title, c.severity, c.status, c.value or "", c.why, c.quote or "", c.clause_id or ""])
        return buf.getvalue()


def playbook_deviations(playbook: Playbook | None = None, countries=(), industries=(),
                        db: Database | None = None) -> DeviationReport:
    """Every agreement checked against every position of the playbook."""
    playbook = playbook or load_playbook()
    out = []
    for r in _agreement_rows(countries, industries, db):
        terms = _terms_by_field(r)
        a = AgreementDeviations(r["company"], r["sla_id"], r.get("service_name"), r.get("country"), r.get("industry"),
                                r.get("spend"))
        for p in playbook.positions:
            term = terms.get(p.field)
            status, why = check(p, term)
            a.checks.append(PositionCheck(p.id, p.title, p.severity, status, why, (term or {}).get("value"),
                                          (term or {}).get("quote"), (term or {}).get("clause_id")))
        out.append(a)
    return DeviationReport(playbook, out)


# ------------------------------------------------------------------------------ tables against text

def term_disagreements(db: Database | None = None) -> list[dict]:
    """Agreements whose agreements.csv effective date or governing law differs from what the contract
    text says: both are kept, and the Data page shows the difference."""
    out = []
    for r in _agreement_rows((), (), db):
        terms = _terms_by_field(r)
        eff, law = terms.get("effective_date"), terms.get("governing_law")
        if eff and r.get("csv_effective_date") and eff.get("date") and eff["date"] != r["csv_effective_date"]:
            out.append({"company": r["company"], "sla_id": r["sla_id"], "field": "effective_date",
                        "table": r["csv_effective_date"], "text": eff["value"], "quote": eff.get("quote"),
                        "clause_id": eff.get("clause_id")})
        if law and r.get("csv_governing_law") and place_key(law["value"]) != place_key(r["csv_governing_law"]):
            out.append({"company": r["company"], "sla_id": r["sla_id"], "field": "governing_law",
                        "table": r["csv_governing_law"], "text": law["value"], "quote": law.get("quote"),
                        "clause_id": law.get("clause_id")})
    return out


__all__ = ["FIELDS", "PERPETUAL", "MEETS", "DEVIATES", "NOT_STATED", "UNCERTAIN", "agreement_terms",
           "term_review_queue", "correct_term", "RenewalRow", "renewal_calendar", "renewals_csv", "renewals_ics",
           "PositionCheck", "AgreementDeviations", "DeviationReport", "playbook_deviations", "term_disagreements"]

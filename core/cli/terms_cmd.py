"""`python -m core terms ...`: an agreement's terms with evidence, the review queue and corrections,
the renewals calendar and the playbook's deviations (what the Renewals, Data and Compliance pages show)."""
from __future__ import annotations

import json
from datetime import date

from core.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("terms", help="an agreement's terms (dates, renewal, notice periods, law, cap, uptime, payment "
                                     "days) with the clause and words they were read from")
    p.add_argument("sla_id", nargs="?", help="agreement id, e.g. SLA-001 (omit with --review)")
    p.add_argument("--review", action="store_true", help="list values read with low confidence")
    p.add_argument("--set", nargs=2, metavar=("FIELD", "VALUE"),
                   help="correct one field of SLA_ID (method: manual, kept on re-ingest), e.g. --set renewal_notice '90 days'")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_terms)

    p = sub.add_parser("renewals", help="the renewals calendar: expiry and notice deadlines, soonest first")
    p.add_argument("--within", type=int, default=None, metavar="DAYS", help="only actions due in the next DAYS days")
    p.add_argument("--today", default=None, help="count from this ISO date instead of today")
    p.add_argument("--ics", action="store_true", help="print an iCalendar file instead of the table")
    p.add_argument("--csv", action="store_true", help="print CSV instead of the table")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_renewals)

    p = sub.add_parser("playbook", help="every agreement checked against the playbook (data/playbook.json)")
    p.add_argument("--file", default=None, help="another playbook file")
    p.add_argument("--csv", action="store_true", help="print every check as CSV")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_playbook)


def run_terms(args) -> int:
    from core.service.terms import agreement_terms, correct_term, term_review_queue

    if args.review:
        rows = term_review_queue()
        if args.json:
            print(json.dumps(rows, ensure_ascii=False, indent=2, default=str))
            return 0
        for r in rows:
            print(f"{r['sla_id']:<12} {r['field']:<20} {r['value']:<24} {r['confidence']:.2f}  {(r['quote'] or '')[:80]}")
        if not rows:
            print("No term values to review.")
        return 0
    if not args.sla_id:
        raise UserError("give an agreement id (e.g. SLA-001), or --review")
    if args.set:
        try:
            row = correct_term(args.sla_id, *args.set)
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        print(f"{row['sla_id']} {row['field']} is now {row['value']} (method: manual)")
        return 0
    rows = agreement_terms(args.sla_id)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2, default=str))
        return 0
    if not rows:
        raise UserError(f"no terms for {args.sla_id!r} (unknown agreement, or none were read from it)")
    print(f"{rows[0]['company']} · {args.sla_id}")
    for r in rows:
        where = r["clause_id"] or "preamble"
        extra = f" ({r['derived']})" if r.get("derived") else ""
        flag = "  [review]" if r.get("needs_review") else ""
        print(f"  {r['label']:<36} {r['value']}{extra}  {r['confidence']:.2f}{flag}")
        print(f"      {where}: \"{(r['quote'] or '')[:140]}\"")
    return 0


def run_renewals(args) -> int:
    from core.service.terms import renewal_calendar, renewals_csv, renewals_ics

    try:
        today = date.fromisoformat(args.today) if args.today else None
    except ValueError:
        raise UserError(f"--today: expected an ISO date such as 2026-12-31, got {args.today!r}") from None
    rows = renewal_calendar(today=today, within_days=args.within)
    if args.ics:
        print(renewals_ics(rows), end="")
    elif args.csv:
        print(renewals_csv(rows), end="")
    elif args.json:
        print(json.dumps([r.to_dict() for r in rows], ensure_ascii=False, indent=2))
    else:
        for r in rows:
            what = f"give notice by {r.notice_deadline}" if r.notice_deadline else f"expires {r.expiration}"
            left = f"{r.days_left:>5}d" if r.days_left is not None else "     -"
            print(f"{left}  {r.sla_id:<12} {r.company[:36]:<36} {what}")
        if not rows:
            print("No agreements in that window.")
    return 0


def run_playbook(args) -> int:
    from core.playbook import PlaybookError, load_playbook
    from core.service.terms import playbook_deviations

    try:
        report = playbook_deviations(load_playbook(args.file) if args.file else None)
    except PlaybookError as exc:
        raise UserError(str(exc)) from exc
    if args.csv:
        print(report.to_csv(), end="")
    elif args.json:
        print(json.dumps(report.suppliers(), ensure_ascii=False, indent=2, default=str))
    else:
        for s in report.suppliers():
            if s["deviations"] or s["uncertain"]:
                print(f"{s['company'][:40]:<40} {s['deviations']} deviation(s), {s['uncertain']} to review; "
                      f"spend at risk {s['spend_at_risk']:,.0f}: {'; '.join(s['positions'])}")
        print(f"Spend at risk: {report.spend_at_risk():,.0f}")
    return 0

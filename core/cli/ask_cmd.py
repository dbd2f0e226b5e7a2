"""`python -m core ask ...` and `python -m core report gaps ...`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.cli import UserError
from core.types import ASKABLE_MODES, Mode


def register(sub) -> None:
    p = sub.add_parser("ask", help="ask a question")
    p.add_argument("question", nargs="?", help="the question (or use --batch)")
    p.add_argument("--mode", default=Mode.AUTO.value, choices=[m.value for m in ASKABLE_MODES])
    p.add_argument("--session", help="keep context across questions under this id")
    p.add_argument("--batch", metavar="FILE", help="one question per line; one JSON result per line")
    p.add_argument("--json", action="store_true", help="print the full result object as JSON")
    p.set_defaults(func=run_ask)

    p = sub.add_parser("report", help="reports")
    rsub = p.add_subparsers(dest="report", required=True)
    g = rsub.add_parser("gaps", help="companies x required clause types")
    g.add_argument("--required", default="Termination,Liability,Data Protection",
                   help='comma-separated clause types, e.g. "Termination,Data Protection"')
    g.add_argument("--min-spend", type=float)
    g.add_argument("--max-spend", type=float)
    g.add_argument("--year", type=int)
    g.add_argument("--country", action="append", default=[])
    g.add_argument("--industry", action="append", default=[])
    g.add_argument("--city", action="append", default=[])
    g.add_argument("--only-gaps", action="store_true", help="only companies that miss a required type")
    g.add_argument("--format", choices=["csv", "json", "md"], default="md")
    g.set_defaults(func=run_gaps)


def _print_human(result) -> None:
    print(result.answer)
    print()
    plan = result.plan_dict
    print(f"mode: {result.mode}   intent: {plan.get('intent', '-')}   why: {plan.get('why', '')}")
    if result.cypher:
        print("cypher:\n" + result.cypher)
        shown = {k: (f"<{len(v)} floats>" if isinstance(v, list) and len(v) > 32 else v) for k, v in result.params.items()}
        print("params: " + json.dumps(shown, ensure_ascii=False, default=str))
    for w in result.warnings:
        print(f"warning: {w}")
    for e in result.evidence:
        where = " ".join(x for x in (e.company, e.sla_id, e.clause_id) if x)
        title = f" {e.clause_title} ({e.clause_type})" if e.clause_id else ""
        print(f"[{e.ref}] {where}{title}")


def run_ask(args) -> int:
    from core.service import ask

    if args.batch:
        path = Path(args.batch)
        if not path.is_file():
            raise UserError(f"batch file not found: {path}")
        questions = [line.rstrip("\n") for line in path.read_text(encoding="utf-8-sig").splitlines()]
        for q in questions:
            if not q.strip():
                continue
            result = ask(q, mode=args.mode, session=args.session)
            print(json.dumps(result.to_dict(), ensure_ascii=False, default=str), flush=True)
        return 0
    if not args.question:
        raise UserError("give a question, or --batch FILE")
    try:
        result = ask(args.question, mode=args.mode, session=args.session)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    else:
        _print_human(result)
    return 0


def run_gaps(args) -> int:
    """The same report as the Compliance-gaps page (core.gaps defines a gap); CSV streams page by
    page, so a report over 100,000 suppliers never sits in memory at once."""
    from core.service import export_gaps_csv, gap_report

    required = [t.strip() for t in args.required.split(",") if t.strip()]
    scope = dict(countries=args.country, industries=args.industry, cities=args.city,
                 min_spend=args.min_spend, max_spend=args.max_spend, year=args.year)
    try:
        if args.format == "csv":
            for line in export_gaps_csv(required, only_gaps=args.only_gaps, **scope):
                sys.stdout.write(line)
            return 0
        report = gap_report(required, **scope)
    except ValueError as exc:
        raise UserError(str(exc)) from exc
    if args.format == "json":   # --only-gaps trims the rows shown, never the totals ("3 of 15 companies")
        print(json.dumps(report.to_dict(args.only_gaps), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(report.to_markdown(args.only_gaps))
    return 0

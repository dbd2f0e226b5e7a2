"""`python -m core ingest|demo|review|reclassify|stats`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.cli import UserError
from core.config import PROJECT_ROOT
from core.progress import stage_progress

DEMO_DIR = PROJECT_ROOT / "data" / "demo"


def register(sub) -> None:
    p = sub.add_parser("ingest", help="load a corpus folder into the graph")
    p.add_argument("corpus", help="folder with companies.csv, addresses.csv, spend.csv, agreements.csv, contracts/")
    p.add_argument("--reset", action="store_true", help="empty the graph first")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run_ingest)

    p = sub.add_parser("demo", help="load the bundled demo corpus (data/demo)")
    p.add_argument("--if-empty", action="store_true", help="only when the graph has no agreements yet")
    p.add_argument("--reset", action="store_true")
    p.set_defaults(func=run_demo)

    p = sub.add_parser("review", help="list low-confidence clause classifications, or correct one")
    p.add_argument("--threshold", type=float, default=None)
    p.add_argument("--limit", type=int, default=100)
    p.add_argument("--set", nargs="+", metavar="CLAUSE_ID TYPE",
                   help="correct a clause's types: CLAUSE_ID TYPE [TYPE ...] (method: manual, kept on re-ingest)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run_review)

    p = sub.add_parser("reclassify", help="re-type the stored clauses with the current taxonomy and models "
                                          "(no re-embedding; manual corrections kept)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=run_reclassify)

    p = sub.add_parser("stats", help="graph statistics")
    p.set_defaults(func=run_stats)


def _ingest(path: Path, reset: bool, as_json: bool) -> int:
    from core.ingest.pipeline import ingest_corpus

    if not path.is_dir():
        raise UserError(f"corpus folder not found: {path}")
    report = ingest_corpus(path, reset=reset, progress=None if as_json else stage_progress())
    if as_json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        for p in report.problems:
            where = f"{p.file}:{p.line}" if p.line else p.file
            print(f"{p.severity}: {where}: {p.message}", file=sys.stderr)
        tp = report.throughput()
        t = report.timings_s
        print(f"Loaded {report.companies} companies, {report.addresses} addresses, {report.spend_rows} spend rows; "
              f"agreements: {report.count('new')} new, {report.count('replaced')} replaced, "
              f"{report.count('unchanged')} unchanged, {report.count('rejected')} rejected; "
              f"{report.clauses_written} clauses written ({report.clauses_total} in the graph).")
        print(f"Throughput: {tp['total']} clauses/s end to end; parse {t.get('parse', 0):.2f}s ({tp['parse']}/s), "
              f"embed {t.get('embed', 0):.2f}s ({tp['embed']}/s), classify {t.get('classify', 0):.2f}s, "
              f"write {t.get('write', 0):.2f}s ({tp['write']}/s).")
        low = sum(a.low_confidence for a in report.agreements)
        if low:
            print(f"{low} clauses have low classification confidence: see `python -m core review`.")
    return 0 if report.ok else 1


def run_ingest(args) -> int:
    return _ingest(Path(args.corpus), args.reset, args.json)


def run_demo(args) -> int:
    from core.ingest.pipeline import graph_counts

    if args.if_empty and graph_counts()["agreements"] > 0:
        print("The graph already has agreements; demo not reloaded (use `python -m core demo --reset`).")
        return 0
    return _ingest(DEMO_DIR, args.reset, False)


def run_review(args) -> int:
    from core.ingest.pipeline import low_confidence_clauses, set_clause_type

    if args.set:
        if len(args.set) < 2:
            raise UserError("--set needs a clause id and at least one type")
        try:
            row = set_clause_type(args.set[0], args.set[1:])
        except ValueError as exc:
            raise UserError(str(exc)) from exc
        print(f"{row['clause_id']} is now {', '.join(row['types'])} (method: manual)")
        return 0
    rows = low_confidence_clauses(args.threshold, args.limit)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print("No low-confidence clauses.")
    for r in rows:
        review = ", ".join(f"{x['type']}? {x['confidence']:.2f}" for x in r.get("review") or [])
        print(f"{r['clause_id']:<14} {r['confidence']:.2f} {r['type']:<16} (runner-up {r['runner_up'] or '-'}) "
              f"{r['company']}: {(r['title'] or '')[:60]}" + (f"  [low-confidence: {review}]" if review else ""))
    return 0


def run_reclassify(args) -> int:
    from core.service.data import reclassify

    report = reclassify()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
        return 0
    print(f"Re-typed {report.clauses - report.manual_kept} clauses ({report.changed} changed types), "
          f"kept {report.manual_kept} manual corrections, refreshed {report.companies} companies "
          f"in {report.seconds:.1f} s.")
    return 0


def run_stats(args) -> int:
    from core.ingest.pipeline import graph_counts

    print(json.dumps(graph_counts(), indent=2))
    return 0

"""`python -m core log tail [-n N] [--json]`: the newest entries of the request log."""
from __future__ import annotations

import json

from core.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("log", help="read the request log (every question, its Cypher, timings, tokens)")
    p.add_argument("action", choices=["tail"])
    p.add_argument("-n", type=int, default=10, help="how many entries (default 10)")
    p.add_argument("--json", action="store_true", help="one JSON object per line, as logged")
    p.set_defaults(func=run)


def _summary(e: dict) -> str:
    tokens = e.get("tokens") or {}
    total = (e.get("timings_ms") or {}).get("total")
    head = (f"{e.get('ts', '?')}  mode={e.get('mode')}  rows={e.get('row_count')}  "
            f"tokens={tokens.get('total_tokens', 0)}  retries={e.get('retries', 0)}  "
            f"total_ms={total if total is not None else '?'}")
    lines = [head, f"  Q: {e.get('question')}"]
    if e.get("cypher"):
        lines.append("  Cypher: " + " ".join(str(e["cypher"]).split()))
    if e.get("params"):
        lines.append("  params: " + json.dumps(e["params"], ensure_ascii=False, default=str)[:300])
    attempts = [t for t in e.get("trace") or [] if t.get("stage") == "text2cypher"]
    if attempts:
        lines.append(f"  text2cypher attempts: {len(attempts)}")
    for w in e.get("warnings") or []:
        lines.append(f"  ! {w}")
    answer = " ".join(str(e.get("answer") or "").split())
    lines.append("  A: " + (answer if len(answer) <= 300 else answer[:300] + " …"))
    return "\n".join(lines)


def run(args) -> int:
    from core.request_log import read_log

    if args.n < 1:
        raise UserError("-n must be at least 1")
    entries = list(reversed(read_log(limit=args.n)))     # oldest of the last N first, like tail
    for e in entries:
        print(json.dumps(e, ensure_ascii=False, default=str) if args.json else _summary(e))
    return 0

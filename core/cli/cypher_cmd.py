"""`python -m core cypher check|run "CYPHER"`: the read-only guard from the command line."""
from __future__ import annotations

import json
import logging
from pathlib import Path

from core.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("cypher", help="vet (check) or vet-and-execute (run) a Cypher query with the read-only guard")
    p.add_argument("action", choices=["check", "run"])
    p.add_argument("cypher", nargs="?", help="the query (omit with --batch)")
    p.add_argument("--params", help="query parameters as a JSON object")
    p.add_argument("--batch", metavar="FILE", help='JSON lines {"cypher": ..., "params": {...}}; one JSON line out per input')
    p.add_argument("--max-limit", type=int, default=200, help="largest LIMIT allowed (default 200)")
    p.add_argument("--timeout", type=float, default=None, help="run: timeout in seconds (default: settings, 10 s)")
    p.set_defaults(func=run)


def _params(text: str | None, where: str) -> dict:
    if text is None:
        return {}
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except json.JSONDecodeError as exc:
        raise UserError(f"{where}: params are not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, dict):
        raise UserError(f"{where}: params must be a JSON object")
    return value


def _jobs(args) -> list[tuple[str, dict]]:
    if args.batch and args.cypher is not None:
        raise UserError("give either a query or --batch FILE, not both")
    if args.batch:
        if args.params:
            raise UserError("--params applies to a single query; put params in each --batch line")
        path = Path(args.batch)
        try:
            lines = path.read_text(encoding="utf-8").split("\n")  # not splitlines(): U+2028 may sit in a query
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read {path}: {exc}") from None
        jobs = []
        for no, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                raise UserError(f"{path}, line {no}: not valid JSON ({exc.msg})") from None
            if not isinstance(item, dict) or not isinstance(item.get("cypher"), str):
                raise UserError(f'{path}, line {no}: expected an object with a "cypher" string')
            params = item.get("params") or {}
            if not isinstance(params, dict):
                raise UserError(f"{path}, line {no}: params must be a JSON object")
            jobs.append((item["cypher"], params))
        return jobs
    if args.cypher is None:
        raise UserError('give a query, e.g. cypher check "MATCH (c:Company) RETURN c.name", or --batch FILE')
    return [(args.cypher, _params(args.params, "--params"))]


def _json_line(obj: dict) -> str:
    """One JSON object per line, readable (non-ASCII kept) yet safe for readers that also split
    lines at U+0085/U+2028/U+2029."""
    text = json.dumps(obj, ensure_ascii=False, default=str)
    return text.replace("\u0085", "\\u0085").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def run(args) -> int:
    from core.graph.db import get_database
    from core.guard.gates import CypherGuard

    if args.max_limit < 1:
        raise UserError("--max-limit must be at least 1")
    jobs = _jobs(args)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)  # EXPLAIN warnings are our input
    db = get_database()
    db.verify()
    guard = CypherGuard(db, max_limit=args.max_limit)
    failed = False
    for cypher, params in jobs:
        if args.action == "check":
            out = guard.check(cypher, params).to_dict()
            failed |= not out["allowed"]
        else:
            out = guard.run(cypher, params, timeout_s=args.timeout).to_dict()
            failed |= not out["allowed"] or out["error"] is not None
        print(_json_line(out), flush=True)
    return 1 if failed else 0

"""`python -m core eval <benchmark> ...`: retrieval and answer evaluations.

Each benchmark is one `_add_<name>(eval_sub)` function that adds its sub-parser and sets
`func`; add a new benchmark by writing such a function and listing it in `SUBCOMMANDS`.
"""
from __future__ import annotations

import json
import sys

from . import UserError


def register(sub) -> None:
    p = sub.add_parser("eval", help="evaluate retrieval on benchmarks (on a separate Neo4j, never your graph)")
    eval_sub = p.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for add in SUBCOMMANDS:
        add(eval_sub)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- acord ------------------------------------------------------------------------------

def _add_acord(eval_sub) -> None:
    p = eval_sub.add_parser("acord", help="ACORD clause retrieval: NDCG@5/10 and star precision@5 "
                                          "for fulltext, vector and hybrid search")
    p.add_argument("dir", help="ACORD folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    p.add_argument("--split", choices=["train", "valid", "test"], default="valid")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N", help="only the first N queries")
    p.set_defaults(func=_run_acord)


def _run_acord(args) -> int:
    from ..evaluation.acord import AcordFormatError, evaluate, format_table

    if args.limit_queries is not None and args.limit_queries < 1:
        raise UserError("--limit-queries must be at least 1")
    try:
        result = evaluate(args.dir, args.split, args.limit_queries, log=_progress)
    except AcordFormatError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


SUBCOMMANDS = [_add_acord]

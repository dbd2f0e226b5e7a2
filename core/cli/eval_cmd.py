"""`python -m core eval <benchmark> ...`: retrieval and answer evaluations.

Each benchmark is one `_add_<name>(eval_sub)` function that adds its sub-parser and sets
`func`; add a new benchmark by writing such a function and listing it in `SUBCOMMANDS`.
"""
from __future__ import annotations

import json
import sys

from core.cli import UserError


def register(sub) -> None:
    p = sub.add_parser("eval", help="evaluate retrieval on benchmarks (on a separate Neo4j, never your graph)")
    eval_sub = p.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    for add in SUBCOMMANDS:
        add(eval_sub)


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _show(args, result: dict, format_table) -> int:
    """The result as JSON (`--json`) or as the benchmark's table."""
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else format_table(result))
    return 0


# -- acord ------------------------------------------------------------------------------

def _add_acord(eval_sub) -> None:
    p = eval_sub.add_parser("acord", help="ACORD clause retrieval: NDCG@5/10 and star precision@5 "
                                          "for fulltext, vector, hybrid and re-ranked search")
    p.add_argument("dir", help="ACORD folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    p.add_argument("--split", choices=["train", "valid", "test"], default="valid")
    p.add_argument("--protocol", choices=["pool", "corpus"], default="pool",
                   help="pool (default, as the ACORD paper): rank each query's judged clauses only; "
                        "corpus: rank the whole corpus, unjudged clauses count as irrelevant")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--limit-queries", type=int, default=None, metavar="N", help="only the first N queries")
    p.set_defaults(func=_run_acord)


def _run_acord(args) -> int:
    from core.evaluation.acord import AcordFormatError, evaluate, format_table

    if args.limit_queries is not None and args.limit_queries < 1:
        raise UserError("--limit-queries must be at least 1")
    try:
        result = evaluate(args.dir, args.split, args.limit_queries, log=_progress, protocol=args.protocol)
    except AcordFormatError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


# -- cuad -------------------------------------------------------------------------------

def _add_cuad(eval_sub) -> None:
    p = eval_sub.add_parser("cuad", help="CUAD clause types: excerpt type accuracy and contract-level "
                                         "presence (P/R/F1) for the default and keyword classifiers")
    p.add_argument("dir", help="CUAD folder: contracts/*.txt, labels.csv, excerpts.jsonl")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N contracts")
    p.set_defaults(func=_run_cuad)


def _run_cuad(args) -> int:
    from core.evaluation.cuad import CuadFormatError, evaluate, format_table

    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")
    try:
        result = evaluate(args.dir, args.limit, log=_progress)
    except CuadFormatError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0


# -- classify ---------------------------------------------------------------------------

def _add_classify(eval_sub) -> None:
    p = eval_sub.add_parser("classify", help="clause-type distribution per classifier for a folder of "
                                             "agreements, and accuracy against a labelled file")
    p.add_argument("dir", help="folder of .md/.txt agreements (e.g. ../shared/data/public-agreements)")
    p.add_argument("--labels", default=None, metavar="FILE",
                   help='JSON lines {"file", "title", "type"}: gold types of the split clauses')
    p.add_argument("--presence", default=None, metavar="FILE",
                   help='JSON lines {"file", "present": {type: quote}, "borderline": {...}}: which types each '
                        'agreement contains; scores agreement-level presence per type')
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_run_classify)


def _run_classify(args) -> int:
    from core.evaluation.classify import ClassifyFormatError, evaluate, format_table
    from core.evaluation.presence import PresenceFormatError

    try:
        result = evaluate(args.dir, args.labels, log=_progress, presence_path=args.presence)
    except (ClassifyFormatError, PresenceFormatError) as exc:
        raise UserError(str(exc)) from exc
    return _show(args, result, format_table)


# -- sentences --------------------------------------------------------------------------

def _add_sentences(eval_sub) -> None:
    p = eval_sub.add_parser("sentences", help="labelled provision sentences, one at a time: what the provision "
                                              "model, the wording readers and both together find")
    p.add_argument("file", help='JSON lines {"id", "type", "label": true|false, "text"} (e.g. eval/sentences/*.jsonl)')
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_run_sentences)


def _run_sentences(args) -> int:
    from core.evaluation.sentences import SentencesFormatError, evaluate, format_table

    try:
        result = evaluate(args.file, log=_progress)
    except SentencesFormatError as exc:
        raise UserError(str(exc)) from exc
    return _show(args, result, format_table)


# -- routing ----------------------------------------------------------------------------

def _add_routing(eval_sub) -> None:
    p = eval_sub.add_parser("routing", help="labelled questions, planned with no database: which clause types the "
                                            "planner links against the types written down")
    p.add_argument("file", help='JSON lines {"id", "question", "types": [...]} (e.g. eval/routing/*.jsonl)')
    p.add_argument("--corpus", help="corpus folder whose companies and agreements the planner knows (default: data/demo)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_run_routing)


def _run_routing(args) -> int:
    from core.evaluation.routing import RoutingFormatError, evaluate, format_table

    try:
        result = evaluate(args.file, corpus=args.corpus, log=_progress)
    except RoutingFormatError as exc:
        raise UserError(str(exc)) from exc
    return _show(args, result, format_table)


# -- reader -----------------------------------------------------------------------------

def _add_reader(eval_sub) -> None:
    p = eval_sub.add_parser("reader", help="the question reader, leave one writer out on the question bank: intent, "
                                           "type-set and polarity accuracy per held-out writer, English and Chinese apart")
    p.add_argument("--bank", help="question bank folder (default eval/bank)")
    p.add_argument("--json", action="store_true", help="print the result as JSON (with every miss)")
    p.set_defaults(func=_run_reader)


def _run_reader(args) -> int:
    from core.evaluation import write_results
    from core.evaluation.bank import BankFormatError
    from core.evaluation.reader_training import format_lowo, leave_one_writer_out

    try:
        result = leave_one_writer_out(args.bank, log=_progress)
    except BankFormatError as exc:
        raise UserError(str(exc)) from exc
    _progress(f"results written to {write_results('reader-lowo', result)}")
    return _show(args, result, format_lowo)


# -- questions --------------------------------------------------------------------------

def _add_questions(eval_sub) -> None:
    p = eval_sub.add_parser("questions", help="gold questions over a corpus: answer, routing and mode "
                                              "accuracy (the corpus is loaded into the evaluation Neo4j)")
    p.add_argument("corpus", help="corpus folder (format: docs/DATA_MODEL.md)")
    p.add_argument("questions", help="JSON lines: id, question, intent, mode, expected")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_run_questions)


def results_name(corpus, questions) -> str:
    """One results file per corpus *and* question set, so two sets asked of one corpus (gold and
    paraphrases) never overwrite each other; a set named like its corpus keeps the corpus name."""
    name = corpus.resolve().name
    return name if questions.stem in {name, "questions"} else f"{name}-{questions.stem}"


def _run_questions(args) -> int:
    from pathlib import Path

    from core.evaluation import slug, write_results
    from core.evaluation.questions import QuestionsFormatError, evaluate, format_table

    corpus, questions = Path(args.corpus), Path(args.questions)
    if not corpus.is_dir():
        raise UserError(f"corpus folder {corpus} not found")
    if not questions.is_file():
        raise UserError(f"question file {questions} not found")
    try:
        summary = evaluate(corpus, questions, log=_progress)
    except QuestionsFormatError as exc:
        raise UserError(str(exc)) from exc
    path = write_results(f"questions-{slug(results_name(corpus, questions))}", dict(summary, questions_file=str(questions.resolve())))
    _progress(f"results written to {path}")
    print(json.dumps(summary, indent=2, ensure_ascii=False, default=str) if args.json else format_table(summary))
    return 0


# -- terms ------------------------------------------------------------------------------

def _add_terms(eval_sub) -> None:
    p = eval_sub.add_parser("terms", help="extracted contract terms (dates, renewal, notice periods, law, cap, uptime, "
                                          "payment days) against labelled values: accuracy and coverage per field")
    p.add_argument("dir", help="a CUAD folder (labels.csv + contracts/), or a corpus folder with --gold")
    p.add_argument("--gold", default=None, help="labels for a corpus folder (eval/terms/LABELS.md), e.g. "
                                                "eval/terms/gold/iberia.jsonl")
    p.add_argument("--misses", action="store_true", help="also list every value that does not match its label")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=_run_terms)


def _run_terms(args) -> int:
    from pathlib import Path

    from core.errors import ClauseGraphError
    from core.evaluation.terms import evaluate_corpus, evaluate_cuad, format_table

    try:
        if args.gold:
            result = evaluate_corpus(args.dir, args.gold)
        elif (Path(args.dir) / "labels.csv").is_file():
            result = evaluate_cuad(args.dir)
        else:
            raise UserError(f"{args.dir}: no labels.csv (a CUAD folder); for a corpus folder give --gold FILE")
    except ClauseGraphError as exc:
        raise UserError(str(exc)) from exc
    if not args.misses:
        result.pop("misses", None)
    return _show(args, result, format_table)


SUBCOMMANDS = [_add_acord, _add_cuad, _add_classify, _add_questions, _add_sentences, _add_routing, _add_reader,
               _add_terms]

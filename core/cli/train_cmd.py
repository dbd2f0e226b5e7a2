"""`python -m core train-classifier`, `train-reranker` and `train-reader`.

train-classifier: the provision classifier on the CUAD dev split (seeded, deterministic folds);
writes the small committed artifact data/models/provisions.{npz,json} and prints the
out-of-fold presence figures it stores.
train-reranker: the learned search re-ranker on ACORD train judgements, chosen on valid (the
test split is never read); writes the committed data/models/reranker.json (a few KB).
train-reader: the question reader on the question bank (eval/bank/); writes data/models/question_reader.{npz,json}.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.cli import UserError
from core.config import PROJECT_ROOT

DEFAULT_DEV = PROJECT_ROOT.parent / "shared" / "data" / "cuad-dev"
DEFAULT_ACORD = PROJECT_ROOT.parent / "shared" / "data" / "acord"


def register(sub) -> None:
    p = sub.add_parser("train-classifier", help="train the provision-level clause classifier on CUAD dev "
                                                "(grouped cross-validation picks the thresholds)")
    p.add_argument("--cuad", default=str(DEFAULT_DEV), metavar="DIR",
                   help="CUAD-format dev folder: contracts/*.txt, labels.csv, excerpts.jsonl "
                        "(never a held-out split)")
    p.add_argument("--out", default=None, metavar="BASE",
                   help="artifact path without suffix (default data/models/provisions)")
    p.add_argument("--folds", type=int, default=5, metavar="K", help="cross-validation folds (by contract)")
    p.add_argument("--json", action="store_true", help="print the cross-validation figures as JSON")
    p.set_defaults(func=_run)

    r = sub.add_parser("train-reranker", help="train the search re-ranker on ACORD train judgements "
                                              "(chosen on valid; the test split is never read)")
    r.add_argument("--acord", default=str(DEFAULT_ACORD), metavar="DIR",
                   help="ACORD folder: corpus.jsonl, queries.jsonl, qrels/train.tsv and qrels/valid.tsv")
    r.add_argument("--out", default=None, metavar="FILE", help="model file (default data/models/reranker.json)")
    r.add_argument("--folds", type=int, default=5, metavar="K", help="cross-validation folds (by query) on train")
    r.add_argument("--json", action="store_true", help="print the selection grid and figures as JSON")
    r.set_defaults(func=_run_reranker)


    q = sub.add_parser("train-reader", help="train the question reader on the question bank (eval/bank/); "
                                            "writes data/models/question_reader.{npz,json}")
    q.add_argument("--bank", default=None, metavar="DIR", help="question bank folder (default eval/bank)")
    q.add_argument("--out", default=None, metavar="BASE", help="artifact path without suffix "
                                                               "(default data/models/question_reader)")
    q.add_argument("--json", action="store_true", help="print the summary as JSON")
    q.set_defaults(func=_run_reader)


def _run_reader(args) -> int:
    from core.evaluation.bank import BankFormatError
    from core.evaluation.reader_training import train_and_save

    if args.bank and not Path(args.bank).is_dir():
        raise UserError(f"question bank folder {args.bank} not found (pass --bank DIR)")
    try:
        summary = train_and_save(args.bank, args.out, log=_progress)
    except BankFormatError as exc:
        raise UserError(str(exc)) from exc
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"question reader: {summary['questions']} bank questions by {len(summary['per_writer'])} writers "
              f"(+{summary['examples'] - summary['questions']} taxonomy texts), {summary['features']} n-gram features, "
              f"{summary['size_bytes'] / 1e6:.1f} MB -> {summary['path']}")
    _progress(f"trained in {summary['seconds']:.0f}s")
    return 0


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _train(train_and_save, folder: str, what: str, flag: str, format_error: type, args):
    """The checks and error mapping every training command shares; returns the training result."""
    if args.folds < 2:
        raise UserError("--folds must be at least 2")
    if not Path(folder).is_dir():
        raise UserError(f"{what} folder {folder} not found (pass {flag} DIR)")
    try:
        return train_and_save(folder, args.out, args.folds, log=_progress)
    except format_error as exc:
        raise UserError(str(exc)) from exc


def _run(args) -> int:
    from core.evaluation.cuad import CuadFormatError
    from core.evaluation.provision_training import format_cv, train_and_save

    result = _train(train_and_save, args.cuad, "CUAD dev", "--cuad", CuadFormatError, args)
    print(json.dumps(result.cv, indent=2) if args.json else format_cv(result.cv))
    _progress(f"trained in {result.seconds:.0f}s")
    return 0


def _run_reranker(args) -> int:
    from core.evaluation.acord import AcordFormatError
    from core.evaluation.rerank_training import format_result, train_and_save

    result = _train(train_and_save, args.acord, "ACORD", "--acord", AcordFormatError, args)
    payload = {"chosen": result.chosen, "grid": result.grid, "within_pool_ndcg@10": result.figures,
               "model": str(result.model_path)}
    print(json.dumps(payload, indent=2) if args.json else format_result(result))
    _progress(f"trained in {result.seconds:.0f}s")
    return 0

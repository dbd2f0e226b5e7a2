"""`python -m core train-classifier`: train the provision classifier on the CUAD dev split.

One reproducible command (seeded, deterministic folds); writes the small committed artifact
data/models/provisions.{npz,json} and prints the out-of-fold presence figures it stores.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from core.cli import UserError
from core.config import PROJECT_ROOT

DEFAULT_DEV = PROJECT_ROOT.parent / "shared" / "data" / "cuad-dev"


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


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _run(args) -> int:
    from core.evaluation.cuad import CuadFormatError
    from core.evaluation.provision_training import format_cv, train_and_save

    if args.folds < 2:
        raise UserError("--folds must be at least 2")
    if not Path(args.cuad).is_dir():
        raise UserError(f"CUAD dev folder {args.cuad} not found (pass --cuad DIR)")
    try:
        result = train_and_save(args.cuad, args.out, args.folds, log=_progress)
    except CuadFormatError as exc:
        raise UserError(str(exc)) from exc
    print(json.dumps(result.cv, indent=2) if args.json else format_cv(result.cv))
    _progress(f"trained in {result.seconds:.0f}s")
    return 0

"""`python -m core train-reranker`: fit the learned re-ranker on ACORD train judgements.

Why pairwise and linear: train has only 51 queries, so what matters is that the model
generalises to queries it has not seen, not that it fits 58,000 pairs. A pairwise logistic
regression over 15 list-relative features (core.retrieval.rerank.FEATURES) has 15
weights; it learns "within one query's candidates, prefer the clause that ..." and nothing
query-specific. Candidates are the product's first stage (the fused hybrid ranking of each
query's judged pool, exactly what `eval acord --protocol pool` scores).

Selection: every (candidates, C) of a small grid is scored by query-grouped cross-validation
on train and, refitted on all of train, on valid; the best valid NDCG@10 wins (near ties, within
0.005, go to the better cross-validation figure). The test split is never read: only
qrels/train.tsv and qrels/valid.tsv are opened.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from core.evaluation import acord
from core.retrieval import rerank, search

CANDIDATE_GRID = (10, 20, 30, 50)
C_GRID = (0.01, 0.1)
NEAR_TIE = 0.005
SPLITS_USED = ("train", "valid")


@dataclass
class QueryCandidates:
    query: acord.AcordQuery
    hits: list[search.Hit]            # the whole pool, hybrid order
    judgements: dict[str, int]


@dataclass
class TrainResult:
    model_path: Path
    chosen: dict
    grid: list[dict]
    figures: dict                     # split -> method -> mean NDCG@10 (pool protocol)
    seconds: float = 0.0
    info: dict = field(default_factory=dict)


def collect(root, log: Callable[[str], None] = print) -> tuple[dict[str, list[QueryCandidates]], dict[str, str]]:
    """The hybrid pool ranking of every train and valid query (one Neo4j round per query)."""
    from core.embeddings import get_embedder
    from core.evaluation import eval_database

    data = {split: acord.load_acord(root, split) for split in SPLITS_USED}
    embedder = get_embedder()
    db, _local, _started = eval_database(log)
    out: dict[str, list[QueryCandidates]] = {}
    try:
        acord.ensure_acord_graph(db, data["train"], embedder, log=log)
        for split, d in data.items():
            vecs = embedder.encode([x.text for x in d.queries])
            out[split] = []
            for query, vec in zip(d.queries, vecs):
                scores = acord.pool_scores(db, query, vec, d.qrels[query.id], len(d.corpus_ids))
                out[split].append(QueryCandidates(query, acord.pool_ranking("hybrid", scores), d.qrels[query.id]))
    finally:
        db.close()
    texts = dict(zip(data["train"].corpus_ids, data["train"].corpus_texts))
    return out, texts


def _features(qc: QueryCandidates, texts: dict[str, str], n: int) -> tuple[np.ndarray, np.ndarray]:
    head = qc.hits[:n]
    x = np.asarray(rerank.features(qc.query.text, [texts[h.clause_id] for h in head], [h.score for h in head]))
    y = np.asarray([qc.judgements.get(h.clause_id, 0) for h in head], dtype=float)
    return x, y


def fit(queries: list[QueryCandidates], texts: dict[str, str], n: int, c: float) -> rerank.RerankModel:
    """Pairwise logistic regression: x_i - x_j -> 1 when clause i is rated above clause j."""
    from sklearn.linear_model import LogisticRegression

    mats = [_features(qc, texts, n) for qc in queries]
    allx = np.vstack([x for x, _ in mats])
    mean, scale = allx.mean(axis=0), allx.std(axis=0)
    scale[scale == 0] = 1.0
    diffs, weights = [], []
    for x, y in mats:
        z = (x - mean) / scale
        hi, lo = np.nonzero(y[:, None] > y[None, :])
        if len(hi):
            diffs.append(z[hi] - z[lo])
            weights.append(y[hi] - y[lo])
    d = np.vstack(diffs)
    w = np.concatenate(weights)
    clf = LogisticRegression(C=c, fit_intercept=False, max_iter=2000)
    clf.fit(np.vstack([d, -d]), np.concatenate([np.ones(len(d)), np.zeros(len(d))]),
            sample_weight=np.concatenate([w, w]))
    return rerank.RerankModel([float(v) for v in clf.coef_[0]], [float(v) for v in mean],
                              [float(v) for v in scale], candidates=n)


def mean_ndcg(queries: list[QueryCandidates], texts: dict[str, str], model: rerank.RerankModel | None,
              n: int) -> float:
    """Mean within-pool NDCG@10 of the hybrid ranking, re-ranked by `model` when given."""
    vals = []
    for qc in queries:
        ranking = (acord.rerank_hits(qc.query, qc.hits, texts, model, n) if model is not None
                   else [h.clause_id for h in qc.hits])
        vals.append(acord.score_ranking(ranking, qc.judgements)["ndcg@10"])
    return float(np.mean(vals)) if vals else 0.0


def cross_validate(queries: list[QueryCandidates], texts: dict[str, str], n: int, c: float, folds: int) -> float:
    """Query-grouped K-fold: each query is scored by a model that never saw it (folds by sorted id)."""
    order = sorted(range(len(queries)), key=lambda i: queries[i].query.id)
    fold_of = {i: pos % folds for pos, i in enumerate(order)}
    scored = []
    for f in range(folds):
        held = [queries[i] for i in order if fold_of[i] == f]
        model = fit([queries[i] for i in order if fold_of[i] != f], texts, n, c)
        scored.extend([mean_ndcg([qc], texts, model, n) for qc in held])
    return float(np.mean(scored))


def train_and_save(root, out: str | Path | None = None, folds: int = 5,
                   log: Callable[[str], None] = print) -> TrainResult:
    t0 = time.monotonic()
    data, texts = collect(root, log)
    train, valid = data["train"], data["valid"]
    grid = []
    for n in CANDIDATE_GRID:
        for c in C_GRID:
            model = fit(train, texts, n, c)
            row = {"candidates": n, "C": c, "cv_train": round(cross_validate(train, texts, n, c, folds), 4),
                   "fit_train": round(mean_ndcg(train, texts, model, n), 4),
                   "valid": round(mean_ndcg(valid, texts, model, n), 4)}
            grid.append(row)
            log(f"candidates {n:>3}  C {c:<5}  train CV {row['cv_train']:.4f}  valid {row['valid']:.4f}")
    best_valid = max(r["valid"] for r in grid)
    chosen = max((r for r in grid if r["valid"] >= best_valid - NEAR_TIE), key=lambda r: (r["cv_train"], r["valid"]))
    model = fit(train, texts, chosen["candidates"], chosen["C"])
    figures = {split: {"hybrid": round(mean_ndcg(qs, texts, None, 0), 4),
                       "reranked": round(mean_ndcg(qs, texts, model, chosen["candidates"]), 4)}
               for split, qs in data.items()}
    figures["train"]["reranked_cv"] = chosen["cv_train"]
    model.info = {"trained_on": "ACORD train (qrels/train.tsv), chosen on valid", "queries": len(train),
                  "chosen": chosen, "within_pool_ndcg@10": figures, "command": "python -m core train-reranker"}
    path = Path(out) if out else rerank.DEFAULT_MODEL_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(model.to_json(), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    log(f"model written to {path}")
    return TrainResult(path, chosen, grid, figures, time.monotonic() - t0)


def format_result(result: TrainResult) -> str:
    lines = ["candidates      C   train CV   train fit   valid  (within-pool NDCG@10)"]
    for r in result.grid:
        mark = "*" if r is result.chosen else " "
        lines.append(f"{r['candidates']:>9}{mark} {r['C']:>6}   {r['cv_train']:.4f}     {r['fit_train']:.4f}    "
                     f"{r['valid']:.4f}")
    for split, fig in result.figures.items():
        lines.append(f"{split}: hybrid {fig['hybrid']:.4f} -> re-ranked {fig['reranked']:.4f}")
    return "\n".join(lines)

"""ACORD (Atticus Clause Retrieval Dataset) retrieval evaluation: `python -m core eval acord DIR`.

The corpus is loaded as `(:AcordClause {id, text, embedding})` into the evaluation's own
Neo4j (never the user's graph) with indexes `acord_embeddings` and `acord_text`, and the
product's search primitives (`core.search`) run against those indexes, so the numbers are
those of the code the product ships.

Two protocols (`--protocol`):
- `pool` (default, as the ACORD paper measures): each query ranks only its judged pool (the
  clauses listed for it in qrels, 1-star "irrelevant" ones included; about 400 to 1,300 of
  the 3,931). Only these figures compare with the paper's.
- `corpus`: each query ranks the WHOLE corpus and an unjudged clause counts as irrelevant.
  Many on-topic clauses are unjudged, so figures are about four times lower than the pool's;
  compare methods with each other there, not with the paper.

Methods: `fulltext` (BM25), `vector` (exact cosine), `hybrid` (their linear blend, the
product's first stage) and `reranked` (hybrid's top candidates re-ordered by the learned
re-ranker the product ships, `core.retrieval.rerank`; present when a model is installed).

See TUNING_NOTES for what was tried and why the defaults are what they are.
"""
from __future__ import annotations

import csv
import hashlib
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from core.evaluation import cache_dir, eval_database, ndcg_at_k, precision_at_k, slug, write_results
from core.graph.queries import evaluation as q
from core.retrieval import rerank, search
from core.errors import ClauseGraphError

METHODS = ("fulltext", "vector", "hybrid")
RERANKED = "reranked"
DEFAULT_METHOD = "hybrid"
PROTOCOLS = ("pool", "corpus")
DEFAULT_PROTOCOL = "pool"
METRICS = ("ndcg@5", "ndcg@10", "p@5_3star", "p@5_4star", "p@5_5star")
# p@5 at N stars: a result counts when its rating is at least N stars (qrel score >= N - 1).
STAR_THRESHOLDS = {"p@5_3star": 2, "p@5_4star": 3, "p@5_5star": 4}
SPLITS = ("train", "valid", "test")
LOAD_BATCH = 500

# Full-text analyzer of `acord_text`: see TUNING_NOTES.
ACORD_ANALYZER = "english"

TUNING_NOTES = """
All choices on the train split (51 queries), one configuration for every query; valid
(6 queries, so +-1 relevant clause moves p@5 by 0.033) only reported. Train, NDCG@5/@10:
- Analyzer: `english` (stemming + stop words) 0.117/0.121 vs `standard-no-stop-words`
  0.101/0.099 for BM25 alone: legal queries and clauses differ in inflection
  ("indemnify"/"indemnified", "terminate"/"termination" share a stem only partly, but
  "warranties"/"warranty", "damages"/"damage" do), and stop words only add noise.
- Sloppy phrase of the query's content words (boost 1 or 3): +0.002 NDCG@5 for BM25; kept
  at 1.0 in the hybrid.
- Query expansion with the query's ACORD category (weight 0.5): BM25 train +0.002, valid
  +0.02; NOT used by default because the product has no category for a user's question.
- RRF (rrf_k 5/10/20/60, BM25 weight 0.5..2, 20..200 candidates): at best 0.126/0.140;
  rank fusion throws away that the top BM25 hits are often far ahead.
- Linear blend, every candidate re-scored with exact cosine, scores divided by each
  method's max, 0.3 BM25 + 0.7 cosine, 50 candidates: 0.136/0.137 and the best p@5 at 3, 4
  and 5 stars; stable for 20..200 candidates; min-max normalization was less stable
  across weights. This is the default `hybrid`.
"""


class AcordFormatError(ClauseGraphError, ValueError):
    """The folder is not in ACORD (BEIR) shape; the message names the file and line."""


@dataclass
class AcordQuery:
    id: str
    text: str
    category: str
    split: str


@dataclass
class AcordData:
    root: Path
    split: str
    corpus_ids: list[str]
    corpus_texts: list[str]
    corpus_hash: str
    queries: list[AcordQuery]
    qrels: dict[str, dict[str, int]]  # query id -> corpus id -> score 0..4


@dataclass
class HybridConfig:
    """The default `hybrid` method: chosen on the train split, the same for every query."""

    fusion: str = search.DEFAULT_FUSION
    candidates: int = search.DEFAULT_CANDIDATES
    rrf_k: int = search.DEFAULT_RRF_K
    normalize: str = search.DEFAULT_NORMALIZE
    weights: dict[str, float] = field(default_factory=lambda: dict(search.DEFAULT_WEIGHTS))
    phrase_boost: float | None = search.DEFAULT_PHRASE_BOOST


DEFAULT_HYBRID = HybridConfig()


# --------------------------------------------------------------------------------------
# Reading the folder
# --------------------------------------------------------------------------------------

def _read_jsonl(path: Path) -> list[tuple[int, dict]]:
    from core.jsonl import read_jsonl

    rows = read_jsonl(path, AcordFormatError)
    for lineno, obj in rows:
        if "_id" not in obj or "text" not in obj:
            raise AcordFormatError(f"{path}:{lineno}: expected an object with \"_id\" and \"text\"")
    return rows


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels TSV (header optional, CSV-quoted ids, CRLF or LF) -> {query: {doc: score}}."""
    if not path.is_file():
        raise AcordFormatError(f"{path} is missing (expected qrels/<split>.tsv)")
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8-sig", newline="") as fh:
        for lineno, row in enumerate(csv.reader(fh, delimiter="\t"), start=1):
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) < 3:
                raise AcordFormatError(f"{path}:{lineno}: expected query-id, corpus-id, score")
            qid, doc, raw = row[0], row[1].strip(), row[2].strip()
            try:
                score = int(float(raw))
            except ValueError:
                if lineno == 1:
                    continue  # header
                raise AcordFormatError(f"{path}:{lineno}: score {raw!r} is not a number") from None
            qrels.setdefault(qid, {})[doc] = score
    return qrels


def load_acord(root: Path | str, split: str = "valid") -> AcordData:
    root = Path(root)
    if split not in SPLITS:
        raise AcordFormatError(f"unknown split {split!r}: use one of {', '.join(SPLITS)}")
    if not root.is_dir():
        raise AcordFormatError(f"{root} is not a folder")
    corpus_path = root / "corpus.jsonl"
    corpus_rows = _read_jsonl(corpus_path)
    ids, texts, seen = [], [], set()
    for lineno, obj in corpus_rows:
        cid = str(obj["_id"])
        if cid in seen:
            raise AcordFormatError(f"{corpus_path}:{lineno}: duplicate _id {cid!r}")
        seen.add(cid)
        ids.append(cid)
        texts.append(str(obj.get("title") or "") + ("\n" if obj.get("title") else "") + str(obj["text"]))
    if not ids:
        raise AcordFormatError(f"{corpus_path} has no clauses")
    corpus_hash = hashlib.sha256(corpus_path.read_bytes()).hexdigest()[:16]
    qrels = read_qrels(root / "qrels" / f"{split}.tsv")
    queries = []
    for lineno, obj in _read_jsonl(root / "queries.jsonl"):
        meta = obj.get("metadata") or {}
        if meta.get("split") != split:
            continue
        qid = str(obj["_id"])
        if qid in qrels:
            queries.append(AcordQuery(qid, str(obj["text"]), str(meta.get("category") or ""), split))
    if not queries:
        raise AcordFormatError(f"no {split} queries in {root / 'queries.jsonl'} have judgements in "
                               f"{root / 'qrels' / (split + '.tsv')}")
    return AcordData(root, split, ids, texts, corpus_hash, queries, qrels)


# --------------------------------------------------------------------------------------
# Embeddings (cached) and the evaluation graph
# --------------------------------------------------------------------------------------

def corpus_embeddings(data: AcordData, embedder, log: Callable[[str], None] = print) -> np.ndarray:
    """Corpus vectors, cached as .npy keyed by corpus hash and model (embedding takes minutes on CPU)."""
    path = cache_dir() / f"acord-{data.corpus_hash}-{slug(embedder.model_name)}.npy"
    if path.is_file():
        vecs = np.load(path)
        if vecs.shape == (len(data.corpus_ids), embedder.dimension):
            return vecs
        log(f"ignoring stale embedding cache {path} (shape {vecs.shape})")
    log(f"embedding {len(data.corpus_texts)} clauses with {embedder.model_name} (cached afterwards in {path})")
    t0 = time.monotonic()
    vecs = np.asarray(embedder.encode(data.corpus_texts), dtype=np.float32)
    tmp = path.with_name(path.name + ".tmp.npy")
    np.save(tmp, vecs)
    tmp.replace(path)
    log(f"embedded in {time.monotonic() - t0:.0f}s")
    return vecs


def _index_options(row: dict) -> dict:
    return (row.get("options") or {}).get("indexConfig") or {}


def ensure_acord_graph(db, data: AcordData, embedder, analyzer: str = ACORD_ANALYZER,
                       log: Callable[[str], None] = print) -> bool:
    """Load the corpus and indexes unless the same corpus and model are already loaded.

    Returns True when it (re)loaded. Only `AcordClause`/`AcordMeta` nodes are touched.
    """
    meta_hash = f"{data.corpus_hash}:{slug(embedder.model_name)}"
    db.write(q.ACORD_CONSTRAINT)
    indexes = {r["name"]: r for r in db.read(q.ACORD_INDEXES)}
    vec_idx = indexes.get(q.ACORD_VECTOR_INDEX)
    if vec_idx and int(_index_options(vec_idx).get("vector.dimensions", embedder.dimension)) != embedder.dimension:
        db.write(q.drop_index(q.ACORD_VECTOR_INDEX))
    txt_idx = indexes.get(q.ACORD_TEXT_INDEX)
    if txt_idx and _index_options(txt_idx).get("fulltext.analyzer") != analyzer:
        db.write(q.drop_index(q.ACORD_TEXT_INDEX))
    db.write(q.acord_vector_index(embedder.dimension))
    db.write(q.acord_text_index(analyzer))

    meta = db.read(q.ACORD_META)
    count = db.read(q.ACORD_CLAUSE_COUNT)[0]["n"]
    loaded = False
    if not (meta and meta[0]["hash"] == meta_hash and count == len(data.corpus_ids)):
        vecs = corpus_embeddings(data, embedder, log)
        log(f"loading {len(data.corpus_ids)} clauses into the evaluation graph")
        while db.write(q.ACORD_WIPE_BATCH, timeout=300)[0]["deleted"]:
            pass
        for start in range(0, len(data.corpus_ids), LOAD_BATCH):
            rows = [{"id": cid, "text": text, "embedding": vec.tolist()}
                    for cid, text, vec in zip(data.corpus_ids[start:start + LOAD_BATCH],
                                              data.corpus_texts[start:start + LOAD_BATCH],
                                              vecs[start:start + LOAD_BATCH])]
            db.write(q.ACORD_LOAD_BATCH, {"rows": rows}, timeout=300)
        db.write(q.ACORD_SET_META, {"hash": meta_hash, "count": len(data.corpus_ids),
                                    "model": embedder.model_name})
        loaded = True
    db.write(q.AWAIT_INDEXES, {"timeout": 600}, timeout=610)
    return loaded


def drop_acord_graph(db) -> None:
    """Remove everything the ACORD evaluation put into a database (nodes, indexes, constraint)."""
    while db.write(q.ACORD_WIPE_BATCH, timeout=300)[0]["deleted"]:
        pass
    for row in db.read(q.ACORD_INDEXES):
        if row["name"] != "acord_clause_id":
            db.write(q.drop_index(row["name"]))
    db.write(q.DROP_ACORD_CONSTRAINT)


# --------------------------------------------------------------------------------------
# Methods and scoring
# --------------------------------------------------------------------------------------

def run_method(db, method: str, query: AcordQuery, vector, k: int = 10,
               hybrid: HybridConfig = DEFAULT_HYBRID) -> list[str]:
    """Ranked corpus ids for one query by one method (the product's primitives)."""
    if method == "fulltext":
        hits = search.fulltext_search(db, query.text, k, index=q.ACORD_TEXT_INDEX)
    elif method == "vector":
        hits = search.vector_search(db, vector, k, index=q.ACORD_VECTOR_INDEX)
    elif method == "hybrid":
        hits = search.hybrid_search(db, query.text, vector, k=k, per_agreement_cap=None,
                                    candidates=hybrid.candidates, weights=hybrid.weights,
                                    fusion=hybrid.fusion, rrf_k=hybrid.rrf_k, normalize=hybrid.normalize,
                                    fulltext_index=q.ACORD_TEXT_INDEX, vector_index=q.ACORD_VECTOR_INDEX,
                                    label=q.ACORD_LABEL, phrase_boost=hybrid.phrase_boost)
    else:
        raise ValueError(f"unknown method {method!r}")
    return [h.clause_id for h in hits]


def _sorted_hits(scores: dict[str, float], source: str) -> list[search.Hit]:
    order = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
    return [search.Hit(cid, s, i, {source: s}) for i, (cid, s) in enumerate(order, start=1)]


@dataclass
class PoolScores:
    """One query's judged pool with each first-stage score (what the pool methods rank by)."""

    pool: list[str]
    bm25: dict[str, float]          # plain BM25 (the `fulltext` method)
    bm25_phrase: dict[str, float]   # BM25 with the hybrid's phrase boost
    cosine: dict[str, float]


def pool_scores(db, query: AcordQuery, vector, judgements: dict[str, int], corpus_size: int,
                hybrid: HybridConfig = DEFAULT_HYBRID) -> PoolScores:
    """BM25 and exact cosine of every clause of the query's pool, by the product's primitives."""
    pool = sorted(judgements)
    members = set(pool)

    def bm25(phrase_boost):
        hits = search.fulltext_search(db, query.text, corpus_size, index=q.ACORD_TEXT_INDEX, phrase_boost=phrase_boost)
        return {h.clause_id: h.score for h in hits if h.clause_id in members}

    return PoolScores(pool, bm25(None), bm25(hybrid.phrase_boost),
                      search.cosine_scores(db, pool, vector, q.ACORD_LABEL))


def pool_ranking(method: str, scores: PoolScores, hybrid: HybridConfig = DEFAULT_HYBRID) -> list[search.Hit]:
    """The whole pool ranked by one first-stage method; clauses a method cannot score come last."""
    if method == "fulltext":
        ranked = _sorted_hits(scores.bm25, "fulltext")
    elif method == "vector":
        ranked = _sorted_hits(scores.cosine, "vector")
    elif method == "hybrid":
        rankings = {"fulltext": _sorted_hits(scores.bm25_phrase, "fulltext"),
                    "vector": _sorted_hits(scores.cosine, "vector")}
        if hybrid.fusion == "rrf":
            ranked = search.rrf_fuse(rankings, k=len(scores.pool), rrf_k=hybrid.rrf_k, weights=hybrid.weights)
        else:
            ranked = search.linear_fuse(rankings, k=len(scores.pool), weights=hybrid.weights,
                                        normalize=hybrid.normalize)
    else:
        raise ValueError(f"unknown method {method!r}")
    seen = {h.clause_id for h in ranked}
    rest = [search.Hit(cid, 0.0, len(ranked) + i, {}) for i, cid in enumerate(
        (c for c in scores.pool if c not in seen), start=1)]
    return ranked + rest


def rerank_hits(query: AcordQuery, hits: list[search.Hit], texts: dict[str, str], model: rerank.RerankModel,
                candidates: int | None = None) -> list[str]:
    """The first `candidates` hits re-ordered by the product's re-ranker, the rest as they were."""
    n = candidates or rerank.rerank_candidates(model)
    head = hits[:n]
    order = rerank.rerank_order(query.text, [texts[h.clause_id] for h in head], [h.score for h in head], model)
    return [head[i].clause_id for i in order] + [h.clause_id for h in hits[n:]]


def score_ranking(ranking: list[str], judgements: dict[str, int]) -> dict[str, float]:
    out = {"ndcg@5": ndcg_at_k(ranking, judgements, 5), "ndcg@10": ndcg_at_k(ranking, judgements, 10)}
    for name, threshold in STAR_THRESHOLDS.items():
        out[name] = precision_at_k(ranking, judgements, 5, threshold)
    return out


def mean_metrics(per_query: list[dict[str, float]]) -> dict[str, float]:
    n = len(per_query)
    return {m: round(sum(r[m] for r in per_query) / n, 4) if n else 0.0 for m in METRICS}


def query_rankings(db, data: AcordData, query: AcordQuery, vector, protocol: str, hybrid: HybridConfig,
                   model: rerank.RerankModel | None, texts: dict[str, str]) -> dict[str, list[str]]:
    """Each method's ranking (ids, best first) for one query under one protocol."""
    if protocol == "pool":
        scores = pool_scores(db, query, vector, data.qrels[query.id], len(data.corpus_ids), hybrid)
        hits = {m: pool_ranking(m, scores, hybrid) for m in METHODS}
        out = {m: [h.clause_id for h in hits[m]] for m in METHODS}
    else:
        depth = max(10, rerank.rerank_candidates(model) if model else 10)
        hits = {"hybrid": search.hybrid_search(
            db, query.text, vector, k=depth, per_agreement_cap=None, candidates=max(hybrid.candidates, depth),
            weights=hybrid.weights, fusion=hybrid.fusion, rrf_k=hybrid.rrf_k, normalize=hybrid.normalize,
            fulltext_index=q.ACORD_TEXT_INDEX, vector_index=q.ACORD_VECTOR_INDEX, label=q.ACORD_LABEL,
            phrase_boost=hybrid.phrase_boost)}
        out = {m: run_method(db, m, query, vector, 10, hybrid) for m in METHODS}
    if model is not None:
        out[RERANKED] = rerank_hits(query, hits["hybrid"], texts, model)
    return out


def _reranker(log) -> rerank.RerankModel | None:
    if not rerank.rerank_enabled():
        log(f"re-ranking is off ({rerank.RERANK_ENV}): no '{RERANKED}' method")
        return None
    try:
        return rerank.load_model()
    except rerank.RerankError as exc:
        log(f"no '{RERANKED}' method: {exc}")
        return None


def evaluate(root: Path | str, split: str = "valid", limit_queries: int | None = None,
             log: Callable[[str], None] = print, hybrid: HybridConfig = DEFAULT_HYBRID,
             write: bool = True, protocol: str = DEFAULT_PROTOCOL) -> dict:
    """Run every method over the split under one protocol; returns the result (and writes the file)."""
    import logging

    from core.embeddings import get_embedder

    if protocol not in PROTOCOLS:
        raise AcordFormatError(f"unknown protocol {protocol!r}: use one of {', '.join(PROTOCOLS)}")
    # First runs query labels that do not exist yet; the server's notices are not news.
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    data = load_acord(root, split)
    queries = data.queries[:limit_queries] if limit_queries else data.queries
    embedder = get_embedder()
    model = _reranker(log)
    methods = METHODS + ((RERANKED,) if model is not None else ())
    texts = dict(zip(data.corpus_ids, data.corpus_texts))
    db, local, started = eval_database(log)
    try:
        ensure_acord_graph(db, data, embedder, log=log)
        qvecs = embedder.encode([x.text for x in queries])
        per_method: dict[str, list[dict[str, float]]] = {m: [] for m in methods}
        per_query = []
        for query, vec in zip(queries, qvecs):
            row = {"query": query.id, "category": query.category}
            rankings = query_rankings(db, data, query, vec, protocol, hybrid, model, texts)
            for method in methods:
                metrics = score_ranking(rankings[method], data.qrels[query.id])
                per_method[method].append(metrics)
                row[method] = {m: round(v, 4) for m, v in metrics.items()}
            per_query.append(row)
    finally:
        db.close()
    result = {"split": split, "protocol": protocol, "queries": len(queries),
              "default": RERANKED if model is not None else DEFAULT_METHOD,
              "methods": {m: mean_metrics(per_method[m]) for m in methods}}
    if write:
        record = dict(result, dataset=str(Path(root).resolve()), corpus_hash=data.corpus_hash,
                      corpus_size=len(data.corpus_ids), embedding_model=embedder.model_name,
                      fulltext_analyzer=ACORD_ANALYZER, hybrid_config=asdict(hybrid),
                      reranker=(dict(model.info, candidates=rerank.rerank_candidates(model)) if model else None),
                      eval_neo4j=str(local.home), per_query=per_query)
        result_path = write_results(f"acord-{protocol}-{split}", record)
        log(f"results written to {result_path}")
    return result


def format_table(result: dict) -> str:
    header = (f"ACORD {result['split']} split, {result.get('protocol', 'corpus')} protocol, {result['queries']} "
              f"queries (default: {result['default']})")
    cols = ["method", *METRICS]
    lines = [header, "  ".join(f"{c:>10}" for c in cols)]
    for method, metrics in result["methods"].items():
        mark = "*" if method == result["default"] else ""
        lines.append("  ".join([f"{method + mark:>10}", *(f"{metrics[m]:>10.4f}" for m in METRICS)]))
    return "\n".join(lines)

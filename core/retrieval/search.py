"""Clause search primitives: BM25 full-text, vector, and their fusion.

The question service (`hybrid` and `relay` modes) and the evaluations share these, so the
numbers the evaluation reports are the numbers the product gets. Index names are parameters:
the ACORD evaluation runs the very same code on its own label and indexes.

Why fusion at all: BM25 finds the clause that uses the user's words ("liquidated damages"),
the embedding finds the one that says the same thing differently ("either party may end
this agreement" for termination). Reciprocal rank fusion needs no score calibration between
the two; the linear fusion re-scores every candidate with exact cosine and a normalized
BM25, which uses the score gaps RRF throws away (see `core/evaluation/acord.py` for which
one wins where). The per-agreement cap (at most 2 chunks per document by default) keeps one
long agreement from crowding every other supplier out of the evidence.
"""
from __future__ import annotations

import logging
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, Sequence

from core.graph.db import Database
from core.graph.queries import search as q

log = logging.getLogger(__name__)


@dataclass
class Hit:
    clause_id: str
    score: float
    rank: int
    sources: dict[str, float] = field(default_factory=dict)  # method -> that method's raw score


# --------------------------------------------------------------------------------------
# Query text -> Lucene query
# --------------------------------------------------------------------------------------

# Lucene's classic query-parser syntax characters; `&&` and `||` are covered by & and |.
LUCENE_SPECIALS = set('+-&|!(){}[]^"~*?:\\/')
# Upper-case words the parser treats as operators.
_LUCENE_OPERATORS = {"AND", "OR", "NOT", "TO"}

# Function words plus question scaffolding ("what does ... say about"): they match every
# clause and would only add noise to BM25.
EN_STOPWORDS = frozenset("""
a an and are as at be been being but by can could did do does doing for from had has have
having he her here hers him his how i if in into is it its itself me my no nor not of off on
once only or other our ours out over own same she should so some such than that the their
theirs them then there these they this those through to too under until up very was we were
what when where which while who whom why will with would you your yours
about say says said tell show find list give me please any all each
""".split())
# Chinese function words and question scaffolding (a common list, extended).
ZH_STOPWORDS = frozenset("""
请 根据 笔记 简要 回答 哪些 什么 内容 一下 我的 有哪些 是什么 的 了 和 与 及 或 是 在 有 对 把 被
为 以 于 中 等 这 那 这些 那些 哪个 如何 怎么 怎样 关于 以及 还有 吗 呢 吧 啊 其 之 所有 一个 告诉
我 我们 他们 它们 你 你们 可以 能否 是否 应该 需要 请问 列出 显示 说明 条款 哪家 公司 供应商
""".split())

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN_RE = re.compile(
    rf"(?P<cjk>[{_CJK}]+)"
    rf"|(?P<word>[^\W_{_CJK}]+(?:['’\-./&+][^\W_{_CJK}]+)*)"
)

_jieba_lock = threading.Lock()
_jieba = None


def _jieba_module():
    global _jieba
    with _jieba_lock:
        if _jieba is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            jieba.initialize()
            _jieba = jieba
        return _jieba


def _segment_chinese(run: str) -> list[str]:
    """jieba words of one run of Chinese characters (jieba words, not character n-grams: they match real terms)."""
    jb = _jieba_module()
    with _jieba_lock:
        return [w for w in jb.lcut(run) if w.strip()]


CJK_RUN = re.compile(rf"[{_CJK}]+")


def chinese_search_words(run: str) -> list[str]:
    """Content words of a run of Chinese characters at two granularities (jieba's search mode:
    "数据备份" gives 数据, 备份 and 数据备份), so a compound in a question meets its parts in a
    clause ("全量备份", "备份数据") and the reverse. For term matching, not for Lucene queries."""
    jb = _jieba_module()
    with _jieba_lock:
        words = jb.lcut_for_search(run)
    return [w for w in words if len(w) >= 2 and w not in ZH_STOPWORDS]


def escape_lucene(term: str) -> str:
    """Backslash-escape every Lucene syntax character so the term is matched literally."""
    out = "".join("\\" + ch if ch in LUCENE_SPECIALS else ch for ch in term)
    return out.lower() if out.upper() in _LUCENE_OPERATORS else out


def _phrase(words: Sequence[str]) -> str:
    return '"' + " ".join(w.replace("\\", "\\\\").replace('"', '\\"') for w in words) + '"'


# the English stop words Lucene's analyzers leave out of the index
LUCENE_STOPWORDS = frozenset("a an and are as at be but by for if in into is it no not of on or such that the their "
                             "then there these they this to was will with".split())


def mention_query(words: Sequence[str]) -> str:
    """A Lucene query requiring every word (English words as prefixes, so "period" finds
    "periods"; a hyphenated word by its parts; Chinese as a phrase), for candidates that a
    literal check then confirms. "" when no word can be searched in the index ("IT")."""
    parts = []
    for word in words:
        if CJK_RUN.search(word):
            parts.append(_phrase([word]))
            continue
        # pieces the analyzer does not index (stop words, one or two letters: the "it" of
        # "IT-Grundschutz") are left to the literal check
        pieces = [escape_lucene(x) + "*" for x in re.findall(r"[a-z0-9]+", word.lower())
                  if len(x) > 2 and x not in LUCENE_STOPWORDS]
        if pieces:
            parts.append("(" + " AND ".join(pieces) + ")")
    return " AND ".join(parts)


def query_terms(text: str) -> list[tuple[str, bool]]:
    """Content terms of free text, in order, deduplicated: (term, is_chinese_word)."""
    if text is None:
        return []
    if not isinstance(text, str):
        text = str(text)
    text = unicodedata.normalize("NFKC", text)
    seen: set[str] = set()
    terms: list[tuple[str, bool]] = []
    for m in _TOKEN_RE.finditer(text):
        if m.group("cjk"):
            run = m.group("cjk")
            words = [w for w in _segment_chinese(run) if len(w) >= 2 and w not in ZH_STOPWORDS]
            if not words and len(run) == 1 and run not in ZH_STOPWORDS:
                words = [run]  # a lone character that is a word by itself ("费")
            for w in words:
                if w not in seen:
                    seen.add(w)
                    terms.append((w, True))
        else:
            w = m.group("word").lower()
            if w in EN_STOPWORDS or (len(w) == 1 and not w.isdigit()):
                continue
            if w not in seen:
                seen.add(w)
                terms.append((w, False))
    return terms


def fulltext_query(text: str, *, phrase_boost: float | None = None, phrase_slop: int = 3,
                   extra_terms: Iterable[str] = (), extra_boost: float = 0.5,
                   max_terms: int = 64) -> str:
    """A safe Lucene query for free text: content terms ORed, Chinese segmented with jieba.

    Every user character that means something to Lucene is escaped or dropped, so the result
    always parses; "" means there is nothing to search for. Chinese words become quoted
    phrases, so a word the `cjk` analyzer splits into bigrams still has to occur as a whole.
    With `phrase_boost`, the English content words also form one sloppy phrase that lifts
    clauses using them together ("cap on liability"). `extra_terms` (query expansion) are
    added with a lower weight.
    """
    try:
        terms = query_terms(text)[:max_terms]
        parts = [_phrase([t]) if zh else escape_lucene(t) for t, zh in terms]
        latin = [t for t, zh in terms if not zh]
        if phrase_boost and len(latin) >= 2:
            parts.append(f"{_phrase(latin)}~{int(phrase_slop)}^{float(phrase_boost):g}")
        have = {t for t, _ in terms}
        for extra in extra_terms or ():
            for t, zh in query_terms(extra):
                if t in have or len(parts) >= max_terms + 16:
                    continue
                have.add(t)
                parts.append(f"{_phrase([t]) if zh else escape_lucene(t)}^{float(extra_boost):g}")
        return " OR ".join(parts)
    except Exception:  # noqa: BLE001 - documented contract: odd input gives "", never an error
        log.exception("could not build a full-text query from %r", text)
        return ""


# --------------------------------------------------------------------------------------
# Single-method search
# --------------------------------------------------------------------------------------

def _hits(rows: list[dict], source: str) -> list[Hit]:
    return [Hit(clause_id=r["id"], score=float(r["score"]), rank=i, sources={source: float(r["score"])})
            for i, r in enumerate(rows, start=1) if r.get("id") is not None]


def fulltext_search(db: Database, text: str, k: int = 10, index: str = "clause_text",
                    filter_sla_ids: Iterable[str] | None = None, *, phrase_boost: float | None = None,
                    extra_terms: Iterable[str] = (), query: str | None = None) -> list[Hit]:
    """BM25 over a full-text index; `filter_sla_ids` keeps only clauses of those agreements.

    `query` bypasses `fulltext_query` for callers that built (and escaped) their own.
    """
    lucene = query if query is not None else fulltext_query(text, phrase_boost=phrase_boost,
                                                            extra_terms=extra_terms)
    k = int(k)
    if not lucene or k <= 0:
        return []
    if filter_sla_ids is not None:
        ids = [str(s) for s in filter_sla_ids]
        if not ids:
            return []
        rows = db.read(q.FULLTEXT_IN_AGREEMENTS, {"index": index, "query": lucene, "k": k, "sla_ids": ids})
    else:
        rows = db.read(q.FULLTEXT, {"index": index, "query": lucene, "k": k})
    return _hits(rows, "fulltext")


def _as_list(vector) -> list[float] | None:
    if vector is None:
        return None
    values = vector.tolist() if hasattr(vector, "tolist") else list(vector)
    return [float(x) for x in values] or None


def vector_search(db: Database, vector, k: int = 10, index: str = "clause_embeddings") -> list[Hit]:
    """Approximate nearest clauses by cosine; the score is Neo4j's (1 + cos) / 2."""
    vec = _as_list(vector)
    k = int(k)
    if vec is None or k <= 0:
        return []
    return _hits(db.read(q.VECTOR, {"index": index, "k": k, "vector": vec}), "vector")


# --------------------------------------------------------------------------------------
# Fusion
# --------------------------------------------------------------------------------------

def sla_id_of(clause_id: str) -> str:
    """The agreement of a clause from its id (`SLA-002#3` -> `SLA-002`); ids without `#` stand alone."""
    return str(clause_id).split("#", 1)[0]


def _select(scored: dict[str, float], best_rank: dict[str, int], sources: dict[str, dict[str, float]],
            k: int, per_group_cap: int | None, group_of: Callable[[str], str] | None) -> list[Hit]:
    order = sorted(scored, key=lambda cid: (-scored[cid], best_rank[cid], cid))
    if per_group_cap is not None:
        group_of = group_of or sla_id_of
        used: dict[str, int] = {}
        kept = []
        for cid in order:
            g = group_of(cid)
            if used.get(g, 0) >= per_group_cap:
                continue
            used[g] = used.get(g, 0) + 1
            kept.append(cid)
        order = kept
    return [Hit(clause_id=cid, score=scored[cid], rank=i, sources=dict(sources[cid]))
            for i, cid in enumerate(order[:max(int(k), 0)], start=1)]


def _gather(rankings: Mapping[str, Sequence[Hit]]):
    best_rank: dict[str, int] = {}
    sources: dict[str, dict[str, float]] = {}
    for name, hits in rankings.items():
        for pos, h in enumerate(hits, start=1):
            best_rank[h.clause_id] = min(best_rank.get(h.clause_id, pos), pos)
            src = sources.setdefault(h.clause_id, {})
            src.setdefault(name, h.sources.get(name, h.score))
    return best_rank, sources


def rrf_fuse(rankings: Mapping[str, Sequence[Hit]], k: int = 10, rrf_k: int = 60,
             weights: Mapping[str, float] | None = None, per_group_cap: int | None = None,
             group_of: Callable[[str], str] | None = None) -> list[Hit]:
    """Reciprocal rank fusion: score(d) = sum over methods of weight / (rrf_k + rank_in_method(d)).

    Ranks are the positions in each list (1-based), so the lists must be sorted best first.
    A clause missing from a list gets nothing from it. With `per_group_cap`, at most that many
    clauses per group (default group: the agreement, from the clause id) are kept, and the
    next best clause of another agreement moves up. Ties: best single rank, then id.
    """
    weights = dict(weights or {})
    best_rank, sources = _gather(rankings)
    scored: dict[str, float] = {}
    for name, hits in rankings.items():
        w = float(weights.get(name, 1.0))
        for pos, h in enumerate(hits, start=1):
            scored[h.clause_id] = scored.get(h.clause_id, 0.0) + w / (rrf_k + pos)
    return _select(scored, best_rank, sources, k, per_group_cap, group_of)


def linear_fuse(rankings: Mapping[str, Sequence[Hit]], k: int = 10, weights: Mapping[str, float] | None = None,
                per_group_cap: int | None = None, group_of: Callable[[str], str] | None = None,
                normalize: str = "minmax") -> list[Hit]:
    """Weighted sum of per-method normalized scores (min-max to 0..1, or divided by the max).

    A clause missing from a method's list scores 0 for it: it ranked below the list's
    minimum. Unlike RRF this keeps how far apart the scores were.
    """
    weights = dict(weights or {})
    best_rank, sources = _gather(rankings)
    scored: dict[str, float] = {cid: 0.0 for cid in best_rank}
    for name, hits in rankings.items():
        if not hits:
            continue
        w = float(weights.get(name, 1.0))
        vals = [h.score for h in hits]
        hi, lo = max(vals), min(vals)
        for h in hits:
            if normalize == "max":
                norm = h.score / hi if hi > 0 else 0.0
            else:
                norm = (h.score - lo) / (hi - lo) if hi > lo else 1.0
            scored[h.clause_id] += w * norm
    return _select(scored, best_rank, sources, k, per_group_cap, group_of)


def cosine_scores(db: Database, clause_ids: Iterable[str], vector, label: str = "Clause") -> dict[str, float]:
    """Exact cosine ((1 + cos) / 2) of the given clauses to a vector, for re-scoring candidates."""
    ids = list(dict.fromkeys(clause_ids))
    vec = _as_list(vector)
    if not ids or vec is None:
        return {}
    rows = db.read(q.cosine_for_ids(label), {"ids": ids, "vector": vec})
    return {r["id"]: float(r["score"]) for r in rows}


def _candidates_with_cosine(db: Database, text: str, vector, depth: int, fulltext_index: str, vector_index: str,
                            *, phrase_boost, extra_terms) -> tuple[dict[str, list[Hit]], dict[str, float]]:
    """BM25 and vector candidate lists plus the exact cosine of each candidate, in one query
    (three round trips before; each costs milliseconds that a question waits for)."""
    lucene = fulltext_query(text, phrase_boost=phrase_boost, extra_terms=extra_terms)
    params = {"vector_index": vector_index, "k": int(depth), "vector": _as_list(vector)}
    if lucene:
        rows = db.read(q.HYBRID_CANDIDATES, {**params, "ft_index": fulltext_index, "query": lucene})
    else:
        rows = db.read(q.VECTOR_CANDIDATES, params)
    rankings: dict[str, list[Hit]] = {}
    for source in ("fulltext", "vector"):
        mine = sorted((r for r in rows if r["source"] == source and r["id"] is not None),
                      key=lambda r: (-float(r["score"]), r["id"]))
        rankings[source] = _hits(mine, source)
    cos = {r["id"]: float(r["cosine"]) for r in rows if r["id"] is not None and r["cosine"] is not None}
    return rankings, cos


# Defaults of `hybrid_search`, chosen on the ACORD train split (core/evaluation/acord.py,
# TUNING_NOTES): a linear blend of BM25 / max(BM25) and cosine / max(cosine) over 50 candidates
# from each index, 0.3 BM25 + 0.7 cosine, beat every RRF setting tried (rrf_k 5..60, weights
# 0.5..2) on NDCG@5, NDCG@10 and the star precisions.
DEFAULT_FUSION = "linear"
DEFAULT_NORMALIZE = "max"
DEFAULT_RRF_K = 60
DEFAULT_WEIGHTS = {"fulltext": 0.3, "vector": 0.7}
DEFAULT_CANDIDATES = 50
DEFAULT_PHRASE_BOOST = 1.0


def hybrid_search(db: Database, text: str, vector=None, k: int = 10, per_agreement_cap: int | None = 2,
                  candidates: int = DEFAULT_CANDIDATES, weights: Mapping[str, float] | None = None, *,
                  fusion: str | None = None, rrf_k: int | None = None, normalize: str = DEFAULT_NORMALIZE,
                  fulltext_index: str = "clause_text", vector_index: str = "clause_embeddings",
                  label: str = "Clause", filter_sla_ids: Iterable[str] | None = None,
                  phrase_boost: float | None = DEFAULT_PHRASE_BOOST, extra_terms: Iterable[str] = (),
                  group_of: Callable[[str], str] | None = None) -> list[Hit]:
    """BM25 and vector candidates (`candidates` each), fused, at most `per_agreement_cap` per agreement.

    `vector` defaults to the embedding of `text`. `fusion` is "linear" (default: every
    candidate re-scored with exact cosine, so a clause found only by BM25 still gets its
    semantic score; then `weights` over the `normalize`d scores) or "rrf" (`weights` over
    reciprocal ranks). Pass `per_agreement_cap=None` when clauses do not belong to
    agreements (the ACORD corpus). Each hit's `sources` holds the raw BM25 and cosine.
    """
    fusion = fusion or DEFAULT_FUSION
    if fusion not in {"rrf", "linear"}:
        raise ValueError(f"unknown fusion {fusion!r}: use 'rrf' or 'linear'")
    if weights is None:  # the tuned blend is for linear fusion; plain RRF weighs both lists alike
        weights = DEFAULT_WEIGHTS if fusion == "linear" else {"fulltext": 1.0, "vector": 1.0}
    weights = dict(weights)
    if vector is None and text:
        from core.embeddings import get_embedder

        vector = get_embedder().encode_one(text)
    depth = max(int(candidates), int(k))
    # Over-fetch when a cap or filter will drop candidates, so k survive.
    sla_filter = list(filter_sla_ids) if filter_sla_ids is not None else None
    if fusion == "linear" and sla_filter is None and _as_list(vector) is not None:
        rankings, cos = _candidates_with_cosine(db, text, vector, depth, fulltext_index, vector_index,
                                                phrase_boost=phrase_boost, extra_terms=extra_terms)
        rescored = sorted(cos.items(), key=lambda x: (-x[1], x[0]))
        rankings["vector"] = [Hit(cid, s, i, {"vector": s}) for i, (cid, s) in enumerate(rescored, start=1)]
        return linear_fuse(rankings, k=k, weights=weights, per_group_cap=per_agreement_cap, group_of=group_of,
                           normalize=normalize)
    rankings: dict[str, list[Hit]] = {
        "fulltext": fulltext_search(db, text, depth, fulltext_index, sla_filter,
                                    phrase_boost=phrase_boost, extra_terms=extra_terms),
        "vector": vector_search(db, vector, depth if sla_filter is None else depth * 4, vector_index),
    }
    if sla_filter is not None:
        allowed = set(sla_filter)
        rankings["vector"] = [h for h in rankings["vector"] if (group_of or sla_id_of)(h.clause_id) in allowed][:depth]
    if fusion == "rrf":
        return rrf_fuse(rankings, k=k, rrf_k=rrf_k or DEFAULT_RRF_K, weights=weights,
                        per_group_cap=per_agreement_cap, group_of=group_of)
    # linear: exact cosine for the union of candidates, then fuse normalized scores
    union = list(dict.fromkeys(h.clause_id for hits in rankings.values() for h in hits))
    cos = cosine_scores(db, union, vector, label)
    rescored = sorted(((cid, s) for cid, s in cos.items()), key=lambda x: (-x[1], x[0]))
    rankings["vector"] = [Hit(cid, s, i, {"vector": s}) for i, (cid, s) in enumerate(rescored, start=1)]
    return linear_fuse(rankings, k=k, weights=weights, per_group_cap=per_agreement_cap, group_of=group_of,
                       normalize=normalize)

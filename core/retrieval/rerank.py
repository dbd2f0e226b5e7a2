"""Learned re-ranking of search candidates (after the Cypher query, in Python).

Why a second stage: the fused BM25 + cosine score sees the query's words and its overall
meaning, but not whether a clause covers the *specific* terms a lawyer asked for ("carveout",
"fraud", "hold harmless") rather than the clause type in general. A small learning-to-rank
model over cheap features of the candidate list (stage score and rank, query-term coverage
weighted by how rare a term is among the candidates, adjacent-term coverage, exception cues,
length, vocabulary shared with the first stage's top candidates, and clause-type agreement)
re-orders the first stage's top candidates. It is linear, so it is cheap per question,
inspectable and fits in a committed JSON file.

Clause-type agreement: the query and each clause get a profile over the clause taxonomy (how
often each type's keywords and related wording occur, core.taxonomy) and the feature is the
cosine of the two. It is computed from text on both sides, not from a clause's stored types,
so the product and the ACORD evaluation (whose clauses have no types) see the same feature; it
rewards a clause that talks about the query's kind of clause in the taxonomy's other words
("cap on liability" ~ "damages", "indirect") and penalises one whose wording is mostly another
type's. On ACORD it lifted train 5-fold cross-validated NDCG@10 from 0.680 to 0.733 and valid
from 0.644 to 0.669 (BM25 and cosine as separate features did not help).

The product (relay and hybrid modes, `rerank_rows`) and the ACORD evaluation
(`core.evaluation.acord`) call the same `rerank_order`, so the evaluation scores the
ranking the product ships. The model is trained by `python -m core train-reranker` on
ACORD train judgements only (core.evaluation.rerank_training).
"""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from core.config import (PROJECT_ROOT, RERANK_CANDIDATES_ENV, RERANK_ENV, RERANK_MODEL_ENV,  # noqa: F401 - re-exported
                         rerank_settings)
from core.errors import ClauseGraphError
from core.retrieval.search import CJK_RUN, chinese_search_words, query_terms
from core.taxonomy import TaxonomyError, load_taxonomy

DEFAULT_MODEL_PATH = PROJECT_ROOT / "data" / "models" / "reranker.json"
DEFAULT_CANDIDATES = 20

FEATURES = ("stage_norm", "stage_z", "rank_gain", "coverage", "idf_coverage", "pair_coverage",
            "first_match", "cue_rate", "cue_x_query", "log_length", "length_z", "prf_overlap", "term_density",
            "term_span", "type_agreement")
PRF_TOP = 3   # pseudo-relevance feedback: the first stage's top candidates a clause is compared with

# Words that open an exception or a condition in legal drafting: clauses with carve-outs use them.
_CUES = re.compile(r"\b(?:except|exclud\w*|provided|notwithstanding|other than|shall not apply|"
                   r"unless|subject to|carve|exception\w*)\b")   # matched on lower-cased text
_QUERY_CUES = re.compile(r"\b(except\w*|exclud\w*|carve\w*|without|subject to|other than|unless|"
                         r"notwithstanding)\b", re.I)
_WORD = re.compile(r"[^\W_]+", re.U)


class RerankError(ClauseGraphError, ValueError):
    """The re-ranking model file is missing or malformed; the message names the file."""


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English suffix stripper: enough to match "indemnify/indemnification/indemnified"
    on a common prefix without a stemming library."""
    w = word.lower()
    for suffix in ("ications", "ication", "ations", "ation", "ities", "ity", "ings", "ing", "ies", "ied",
                   "ness", "ments", "ment", "ers", "er", "ed", "es", "ly", "s", "y", "e"):
        if len(w) - len(suffix) >= 4 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


@lru_cache(maxsize=4096)
def _chinese_words(run: str) -> tuple[str, ...]:
    return tuple(chinese_search_words(run))


def _stems(text: str) -> list[str]:
    """Stemmed English words; a run of Chinese characters becomes its words (one "word" to the
    regex, a whole sentence, it never matched a query term, so the term features saw nothing)."""
    return _stems_of(_WORD.findall(text.lower()))


def _stems_of(words: Sequence[str], chinese: bool = True) -> list[str]:
    """`chinese=False` when the text has no Chinese run (checked once for the whole text)."""
    if not chinese:
        return [stem(w) for w in words]
    out: list[str] = []
    for w in words:
        if CJK_RUN.search(w):
            for part in re.split(f"({CJK_RUN.pattern})", w):
                if part:
                    out.extend(_chinese_words(part) if CJK_RUN.fullmatch(part) else [stem(part)])
        else:
            out.append(stem(w))
    return out


def _query_stems(query: str) -> list[str]:
    terms = query_terms(query)
    english = [stem(t) for t, zh in terms if not zh]
    chinese = [w for t, zh in terms if zh for w in (_chinese_words(t) or (t,))]
    return list(dict.fromkeys(english + chinese))


class TypeLexicon:
    """The taxonomy's words, each as (type index, its words, last word is a prefix like
    "indemnif*"), looked up by a clause's words; Chinese terms are matched as substrings (a
    Chinese run is one regex word)."""

    def __init__(self, taxonomy: tuple[tuple[str, ...], ...]):
        self.size = len(taxonomy)
        self.by_first: dict[str, list[tuple[int, str, bool]]] = {}   # (type, phrase, one word)
        self.prefixes: list[tuple[str, int]] = []
        self.chinese: list[tuple[int, str]] = []
        for ti, terms in enumerate(taxonomy):
            for term in terms:
                term = term.lower().strip()
                words = tuple(_WORD.findall(term))
                if CJK_RUN.search(term):
                    self.chinese.append((ti, term.rstrip("*")))
                elif len(words) == 1 and term.endswith("*"):
                    self.prefixes.append((words[0], ti))
                elif words:  # a phrase is counted in " ".join(words): " claim" also starts " claims"
                    needle = " " + " ".join(words) + ("" if term.endswith("*") else " ")
                    self.by_first.setdefault(words[0], []).append((ti, needle, len(words) == 1))
        self._known: set[str] = set()             # words looked up so far
        self._starts: dict[str, tuple] = {}        # ... those that start a term, and the terms

    def _learn(self, words) -> None:
        """Look up words not seen before (a clause's words repeat across questions, so after a
        few questions a clause costs two set operations, not a Python loop over its words)."""
        if len(self._known) > 200_000:
            self._known, self._starts = set(), {}
        for word in words:
            hit = tuple(self.by_first.get(word, ())) + tuple((ti, p, True) for p, ti in self.prefixes
                                                              if word.startswith(p))
            if hit:
                self._starts[word] = hit
            self._known.add(word)

    def profile(self, words: Sequence[str], lowered: str, chinese: bool | None = None) -> list[float]:
        """How often each type's keywords and related wording occur in the words (`lowered`: the
        lower-cased text, searched for Chinese terms unless `chinese` says it has none)."""
        counts = [0.0] * self.size
        freq = Counter(words)
        self._learn(freq.keys() - self._known)
        joined = None
        for word in freq.keys() & self._starts.keys():
            for ti, needle, single in self._starts[word]:
                if single:
                    counts[ti] += freq[word]
                else:
                    joined = joined or " " + " ".join(words) + " "
                    counts[ti] += joined.count(needle)
        if self.chinese and (chinese if chinese is not None else CJK_RUN.search(lowered)):
            for ti, term in self.chinese:
                counts[ti] += lowered.count(term)
        return counts


@lru_cache(maxsize=4)
def _lexicon(taxonomy: tuple[tuple[str, ...], ...]) -> TypeLexicon:
    return TypeLexicon(taxonomy)


def type_lexicon() -> TypeLexicon:
    """The lexicon of the taxonomy in use (the catch-all type has no words of its own)."""
    try:
        types = [t for t in load_taxonomy() if not t.is_catch_all]
    except TaxonomyError as exc:
        raise RerankError(f"clause-type agreement needs the clause taxonomy: {exc}") from None
    return _lexicon(tuple(tuple(t.keywords_en + t.keywords_zh + t.concepts) for t in types))


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
    return sum(x * y for x, y in zip(a, b)) / (na * nb) if na and nb else 0.0


def features(query: str, texts: Sequence[str], scores: Sequence[float]) -> list[list[float]]:
    """One feature row per candidate (in the given order: the first stage's, best first).

    Everything is relative to the candidate list, so the same model serves a fused hybrid score
    and a relay cosine, and the same features come out in the product and the evaluation.
    """
    n = len(texts)
    if n == 0:
        return []
    q = _query_stems(query)
    lowered = [(t or "").lower() for t in texts]
    words = [_WORD.findall(t) for t in lowered]
    chinese = [bool(CJK_RUN.search(t)) for t in lowered]
    docs = [_stems_of(w, zh) for w, zh in zip(words, chinese)]
    lexicon = type_lexicon()
    # learned on English judgements only: a Chinese query's terms are substrings of a different
    # vocabulary (on the demo's Chinese relay questions they pulled other types' clauses up)
    q_types = [0.0] * lexicon.size if CJK_RUN.search(query or "") else \
        lexicon.profile(_WORD.findall((query or "").lower()), (query or "").lower())
    sets = [set(d) for d in docs]
    df = {t: sum(1 for s in sets if t in s) for t in q}
    idf = {t: math.log((n + 1) / (df[t] + 0.5)) for t in q}
    idf_total = sum(idf.values()) or 1.0
    pairs = list(zip(q, q[1:]))
    q_cue = 1.0 if _QUERY_CUES.search(query or "") else 0.0
    hi = max(scores)
    mean = sum(scores) / n
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / n) or 1.0
    lengths = [math.log1p(len(d)) for d in docs]
    lmean = sum(lengths) / n
    lsd = math.sqrt(sum((x - lmean) ** 2 for x in lengths) / n) or 1.0
    rows = []
    qset = set(q)
    top = [sets[j] for j in range(min(PRF_TOP, n))]
    top_all = set().union(*top)
    for i, (doc, terms) in enumerate(zip(docs, sets)):
        matched = [t for t in q if t in terms]
        # pseudo-relevance feedback: clauses that share vocabulary with the first stage's best
        # candidates are about the same thing (lawyers' clauses of one kind reuse their words)
        others = set().union(*(t for j, t in enumerate(top) if j != i)) if i < len(top) else top_all
        positions = [k for k, w in enumerate(doc) if w in qset]
        at: dict[str, set[int]] = {}
        for k in positions:
            at.setdefault(doc[k], set()).add(k)
        # a query's adjacent terms a, b occur as "a b" or "a x b"
        pair_hits = sum(1 for a, b in pairs if a in at and b in at and any(k + 1 in at[b] or k + 2 in at[b]
                                                                        for k in at[a]))
        first = positions[0] if positions else len(doc)
        cues = len(_CUES.findall(lowered[i]))
        cue_rate = math.log1p(cues)
        rows.append([
            scores[i] / hi if hi > 0 else 0.0,
            (scores[i] - mean) / sd,
            1.0 / math.log2(i + 2),
            len(matched) / len(q) if q else 0.0,
            sum(idf[t] for t in matched) / idf_total if q else 0.0,
            pair_hits / len(pairs) if pairs else 0.0,
            1.0 - first / max(len(doc), 1),
            cue_rate,
            cue_rate * q_cue,
            lengths[i],
            (lengths[i] - lmean) / lsd,
            len(terms & others) / max(len(terms | others), 1),
            math.log1p(100 * len(positions) / max(len(doc), 1)),
            (positions[-1] - positions[0] + 1) / max(len(doc), 1) if len(positions) > 1 else 1.0,
            _cosine(q_types, lexicon.profile(words[i], lowered[i], chinese[i])) if any(q_types) else 0.0,
        ])
    return rows


@dataclass
class RerankModel:
    """A linear scorer over standardised features (what `train-reranker` writes)."""

    weights: list[float]
    mean: list[float]
    scale: list[float]
    feature_names: list[str] = field(default_factory=lambda: list(FEATURES))
    candidates: int = DEFAULT_CANDIDATES
    info: dict = field(default_factory=dict)

    def score(self, rows: Sequence[Sequence[float]]) -> list[float]:
        return [sum(w * (x - m) / s for w, x, m, s in zip(self.weights, row, self.mean, self.scale))
                for row in rows]

    def to_json(self) -> dict:
        return {"kind": "linear-ltr", "features": self.feature_names, "weights": self.weights, "mean": self.mean,
                "scale": self.scale, "candidates": self.candidates, "info": self.info}


def model_from_json(obj: dict, source: str = "<model>") -> RerankModel:
    try:
        names = list(obj["features"])
        if names != list(FEATURES):
            raise RerankError(f"{source}: features {names} do not match this code's {list(FEATURES)}; "
                              "retrain with `python -m core train-reranker`")
        model = RerankModel([float(x) for x in obj["weights"]], [float(x) for x in obj["mean"]],
                            [float(x) or 1.0 for x in obj["scale"]], names, int(obj.get("candidates", DEFAULT_CANDIDATES)),
                            dict(obj.get("info") or {}))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, RerankError):
            raise
        raise RerankError(f"{source}: not a re-ranking model ({exc})") from None
    if not (len(model.weights) == len(model.mean) == len(model.scale) == len(FEATURES)):
        raise RerankError(f"{source}: expected {len(FEATURES)} weights, means and scales")
    return model


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> RerankModel:
    p = Path(path)
    try:
        obj = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RerankError(f"{p}: cannot read the re-ranking model ({exc})") from None
    except json.JSONDecodeError as exc:
        raise RerankError(f"{p}:{exc.lineno}: not JSON ({exc.msg})") from None
    return model_from_json(obj, str(p))


def load_model(path: str | Path | None = None) -> RerankModel:
    p = Path(path or rerank_settings().model_path)
    if not p.is_file():
        raise RerankError(f"{p}: no re-ranking model (train one with `python -m core train-reranker`)")
    return _load(str(p), p.stat().st_mtime)


def rerank_enabled() -> bool:
    """On by default (a few milliseconds for 50 candidates); CLAUSEGRAPH_RERANK=off switches it off."""
    return rerank_settings().enabled


def rerank_candidates(model: RerankModel | None = None) -> int:
    """How many first-stage rows to re-rank: the setting, else the number the model was chosen with."""
    raw = rerank_settings().candidates
    if raw is None:
        if model is None:
            try:
                model = load_model()
            except RerankError:
                return DEFAULT_CANDIDATES  # no model: the rows are shown in the query's order anyway
        return model.candidates
    try:
        return max(1, int(raw))
    except ValueError:
        raise RerankError(f"{RERANK_CANDIDATES_ENV}={raw!r} is not a whole number") from None


def rerank_order(query: str, texts: Sequence[str], scores: Sequence[float],
                 model: RerankModel | None = None) -> list[int]:
    """Indexes of the candidates, best first by the model (ties keep the first stage's order)."""
    if not texts:
        return []
    model = model or load_model()
    learned = model.score(features(query, texts, scores))
    return sorted(range(len(texts)), key=lambda i: (-learned[i], i))


@dataclass
class RerankOutcome:
    """What re-ranking did to one question's rows, for the trace."""

    rows: list[dict]
    applied: bool
    candidates: int
    note: str


def rerank_rows(query: str, rows: list[dict], k: int, model: RerankModel | None = None) -> RerankOutcome:
    """The k best rows of a search query's candidate rows (each with `text` and `score`) by the
    re-ranker. The rows themselves are untouched: the Cypher still re-runs to them."""
    try:
        model = model or load_model()
        order = rerank_order(query, [r.get("text") or "" for r in rows],
                             [float(r.get("score") or 0.0) for r in rows], model)
    except RerankError as exc:
        return RerankOutcome(list(rows[:k]), False, len(rows), f"re-ranking skipped: {exc}")
    return RerankOutcome([rows[i] for i in order[:k]], True, len(rows),
                         f"re-ranked {len(rows)} candidates after the query (learned model), kept {min(k, len(rows))}")


def cap_per_agreement(rows: list[dict], cap: int, k: int, limit: int | None = None) -> list[dict]:
    """The first k rows (`limit` when given) in the given order, at most `cap` of one agreement (`sla_id`), so the
    shown list stays spread over agreements after re-ranking. The cap is for spread only: when
    fewer than k / cap agreements have candidates at all, the k places are shared among those
    present (one filtered agreement may show k clauses, every one above the query's score floor)."""
    present = len({row.get("sla_id") for row in rows}) or 1
    cap = max(cap, -(-k // present))
    seen: dict[object, int] = {}
    out = []
    for row in rows:
        key = row.get("sla_id")
        if seen.get(key, 0) >= cap:
            continue
        seen[key] = seen.get(key, 0) + 1
        out.append(row)
        if len(out) >= (limit or k):
            break
    return out

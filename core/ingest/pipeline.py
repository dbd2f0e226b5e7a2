"""From a corpus folder to the contract graph: read, split, classify, embed, write.

`ingest_corpus` runs named stages in order: read (decode, clean and split: core/ingest/reading.py)
-> business data -> decide which agreements changed -> embed -> classify -> resolve types
(a reviewer's manual correction wins) -> write -> refresh per-company counts. Each changed
agreement travels through the stages as one `PendingAgreement`.

Writes are batched (UNWIND) and grouped by whole agreements, so each agreement lands
atomically: an interrupted ingest re-run ends in the same graph as a clean run. An
agreement whose content hash is unchanged is skipped, which makes re-ingestion a no-op.
"""
from __future__ import annotations

import hashlib
import inspect
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from core import term_values
from core.config import settings
from core.embeddings import get_embedder
from core.graph import vocabulary
from core.graph.db import Database, get_database
from core.graph.queries import admin as qa
from core.graph.queries import ingest as q
from core.graph.queries import terms as qt
from core.graph.schema import ensure_schema
from core.ingest import classifier as classifier_module
from core.ingest import cleaning, headings, provisions, splitter
from core.ingest import drafts as draft_types
from core.ingest import terms as terms_module
from core.ingest import typing as typing_module
from core.ingest.classifier import REVIEW_THRESHOLD
from core.ingest.typing import ClauseTyper, ClauseTypes, TypeLabel, get_clause_typer
from core.ingest.drafts import ClauseDraft, SplitResult
from core.ingest.terms import FIELDS as TERM_FIELDS, Term, extract_terms, passages_of
from core.ingest.reading import AgreementRow, Corpus, read_corpus
from core.taxonomy import load_taxonomy, type_names, typing_text

Progress = Callable[[str, int, int], None]  # (stage, done, total)

INGEST_FORMAT_VERSION = "1"
# Two transactions in flight (WRITE_WORKERS) keep both cores busy only while there is a next
# batch to start: with 400 clauses a 1,000-clause load was 400 + 400 and then 200 alone. At
# 200 the batches pipeline; measured on the benchmark's 1,000-clause subset, five runs each:
# median 1,684 clauses/s at 200 against 1,143 at 400 (1,452 at 250).
CLAUSES_PER_TRANSACTION = 200
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
    segmentation: str = "headings"   # "paragraphs": no usable headings (the warning is in problems)


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


# -------------------------------------------------------------------------- one agreement in flight

# The types a clause is written with (the typer's verdict, or a reviewer's correction): several
# confident labels with evidence spans, plus review-only candidates. See core/ingest/typing.py.
ClauseTyping = ClauseTypes


@dataclass
class PendingAgreement:
    """An agreement that is new or changed since the last ingest, filled in stage by stage.

    Unchanged agreements never become one: they are skipped whole, which is what makes a
    re-ingest cheap and a killed ingest resumable."""

    agreement: AgreementRow
    split: SplitResult
    drafts: list[ClauseDraft]             # the clauses, in document order, duplicates removed
    content_hash: str                     # what the graph stores to recognise it next time
    report: AgreementReport
    previous: dict | None = None          # the graph's row (hash, company, version) when replacing
    clause_vectors: np.ndarray | None = None   # embed stage: one row per draft
    sla_vector: np.ndarray | None = None
    classifications: list[ClauseTypes] = field(default_factory=list)  # classify stage: one per draft
    typings: list[ClauseTypes] = field(default_factory=list)          # resolve stage: one per draft
    terms: list[Term] = field(default_factory=list)                  # terms stage: one per field stated
    manual_terms: dict[str, dict] = field(default_factory=dict)      # reviewers' values by field (kept)

    @property
    def sla_id(self) -> str:
        return self.agreement.sla_id

    @property
    def version(self) -> int:
        return (self.previous["version"] or 0) + 1 if self.previous else 1

    def clause_texts(self) -> list[str]:
        """What is embedded per clause: the heading carries much of a clause's meaning."""
        return [f"{d.title}. {d.text}" if d.title else d.text for d in self.drafts]

    def sla_text(self) -> str:
        return _sla_text(self.agreement, self.split, self.drafts)


# -------------------------------------------------------------------------- the stages

def ingest_corpus(root: Path | str, db: Database | None = None, reset: bool = False,
                  progress: Progress | None = None, embedder=None, classifier=None,
                  typer: ClauseTyper | None = None) -> IngestReport:
    """`classifier`: a section classifier to type with (joined with the provision model);
    `typer`: a whole ClauseTyper instead (both default to the committed models)."""
    db = db or get_database()
    root = Path(root)
    progress = progress or (lambda stage, done, total: None)
    report = IngestReport(corpus=str(root))
    t_start = time.perf_counter()

    corpus = _read(root, report)
    embedder = embedder or get_embedder()
    typer = typer or (ClauseTyper(classifier) if classifier is not None else get_clause_typer())
    content_tags = (getattr(embedder, "model_name", "?"), _pipeline_version(typer))
    _prepare_graph(db, corpus, embedder.dimension, reset)
    _write_business_data(db, corpus, report)
    pending = _changed_agreements(db, corpus, content_tags, report, progress)
    vectors = _embed(pending, embedder, report, progress)
    _classify(pending, typer, vectors, report, embedder)
    _resolve_types(db, pending)
    _extract_terms(db, pending, report)

    t0 = time.perf_counter()
    written = _write(db, pending, progress)
    _refresh_company_counts(db, corpus, pending)
    report.timings_s["write"] = time.perf_counter() - t0 + report.timings_s.get("write_business", 0.0)
    report.clauses_written = written
    report.clauses_total = db.read(q.GRAPH_COUNTS)[0]["clauses"]
    report.timings_s["total"] = time.perf_counter() - t_start
    _after_ingest()
    return report


def _read(root: Path, report: IngestReport) -> Corpus:
    t0 = time.perf_counter()
    corpus = read_corpus(root, settings().max_file_bytes)
    report.problems.extend(corpus.problems)
    report.timings_s["read"] = time.perf_counter() - t0
    return corpus


def _prepare_graph(db: Database, corpus: Corpus, dimension: int, reset: bool) -> None:
    """Wipe (when asked), make sure indexes and constraints exist, and write the clause types."""
    if reset:
        reset_graph(db)
    ensure_schema(db, dimension, sorted({row.year for row in corpus.spend}))
    db.write(q.UPSERT_CLAUSE_TYPES, {"rows": [
        {"name": t.name, "description": t.description, "description_zh": t.description_zh}
        for t in load_taxonomy()]})


def _write_business_data(db: Database, corpus: Corpus, report: IngestReport) -> None:
    """Companies, addresses and spend: small, so written before the agreements and always whole."""
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
    _write_spend(db, corpus)
    report.spend_rows = len(corpus.spend)
    years = sorted({row.year for row in corpus.spend})
    if years:
        latest = max(_graph_spend_years(db) or years)
        db.write(q.SET_SPEND_LATEST, {"key": f"spend_{latest}", "year": latest})
    report.timings_s["write_business"] = time.perf_counter() - t0


UNCATEGORISED = "Uncategorised"


def _write_spend(db: Database, corpus: Corpus) -> None:
    """Yearly totals on the company (what thresholds and the gap report read, one indexed property)
    and the per-category breakdown as SPENT edges; a company in spend.csv is replaced whole."""
    totals: dict[str, dict[int, float]] = {}
    cells: dict[tuple[str, int, str], dict] = {}
    for row in corpus.spend:
        years = totals.setdefault(row.company, {})
        years[row.year] = years.get(row.year, 0.0) + row.base_amount
        cell = cells.setdefault((row.company, row.year, row.category or UNCATEGORISED),
                                {"amount": 0.0, "rows": 0, "units": set()})
        cell["amount"] += row.base_amount
        cell["rows"] += 1
        if row.business_unit:
            cell["units"].add(row.business_unit)
    stale = set(_graph_spend_years(db)) if totals else set()
    rows = []
    for company, years in totals.items():
        props: dict = {f"spend_{y}": None for y in stale - set(years)}
        props.update({f"spend_{y}": round(v, 2) for y, v in years.items()})
        props.update(spend_currency=corpus.base_currency, spend_category=None)
        rows.append({"company": company, "props": props})
    db.write(q.SET_SPEND, {"rows": rows})
    db.write(q.CLEAR_SPEND_EDGES, {"companies": list(totals)})
    db.write(q.CREATE_SPEND_EDGES, {"rows": [
        {"company": c, "year": y, "category": k, "amount": round(v["amount"], 2), "currency": corpus.base_currency,
         "rows": v["rows"], "business_units": sorted(v["units"])} for (c, y, k), v in cells.items()]})
    db.write(q.DELETE_UNUSED_SPEND_CATEGORIES)


def _content_hash(agr: AgreementRow, contract_sha: str, content_tags: tuple[str, str]) -> str:
    """Everything that decides what an agreement looks like in the graph: the text, its row in
    agreements.csv, the embedding model and the pipeline version."""
    model_tag, pipeline_tag = content_tags
    return _sha(INGEST_FORMAT_VERSION, model_tag, pipeline_tag, contract_sha, agr.company,
                agr.service_name or "", agr.governing_law or "", agr.effective_date or "", agr.file)


def _changed_agreements(db: Database, corpus: Corpus, content_tags: tuple[str, str], report: IngestReport,
                        progress: Progress) -> list[PendingAgreement]:
    """The agreements to (re)write; the others are reported unchanged or rejected."""
    agreements = [a for a in corpus.agreements if a.sla_id in corpus.texts]
    existing = {r["id"]: r for r in db.read(q.EXISTING_AGREEMENT_HASHES, {"ids": [a.sla_id for a in agreements]})}
    pending: list[PendingAgreement] = []
    for i, agr in enumerate(agreements, 1):
        contract = corpus.texts[agr.sla_id]
        content_hash = _content_hash(agr, contract.sha256, content_tags)
        old = existing.get(agr.sla_id)
        if old and old["hash"] == content_hash and old["company"] == agr.company:
            report.agreements.append(AgreementReport(agr.sla_id, agr.company, agr.file, "unchanged"))
            progress("parse", i, len(agreements))
            continue
        split, clauses = contract.split, contract.clauses
        rep = AgreementReport(agr.sla_id, agr.company, agr.file, "replaced" if old else "new",
                              clauses=len(clauses), duplicates_removed=len(contract.duplicates),
                              furniture_removed=len(split.furniture_removed),
                              segmentation=split.segmentation)
        report.agreements.append(rep)
        pending.append(PendingAgreement(agr, split, clauses, content_hash, rep, old))
        progress("parse", i, len(agreements))
    report.timings_s["parse"] = report.timings_s["read"]  # read_corpus decodes, cleans and splits
    for agr in corpus.agreements:
        if agr.sla_id not in corpus.texts:
            report.agreements.append(AgreementReport(agr.sla_id, agr.company, agr.file, "rejected"))
    return pending


def _embed(pending: list[PendingAgreement], embedder, report: IngestReport, progress: Progress) -> np.ndarray:
    """Clause and agreement vectors; returns all clause vectors in order (the classifier's input).

    All clauses go to the model together (in chunks) rather than per agreement: batches stay
    full, and progress counts clauses."""
    t0 = time.perf_counter()
    vectors = _embed_with_progress(embedder, [t for p in pending for t in p.clause_texts()], progress)
    sla_texts = [p.sla_text() for p in pending]
    sla_vectors = embedder.encode(sla_texts) if sla_texts else []
    offset = 0
    for p, sla_vector in zip(pending, sla_vectors):
        p.clause_vectors = vectors[offset:offset + len(p.drafts)]
        p.sla_vector = sla_vector
        offset += len(p.drafts)
    report.timings_s["embed"] = time.perf_counter() - t0
    return vectors


def _classify(pending: list[PendingAgreement], typer: ClauseTyper, vectors: np.ndarray, report: IngestReport,
              embedder=None) -> None:
    """The types of every clause, in one call over all clauses (both classifiers work in batches)."""
    t0 = time.perf_counter()
    items = [(d.title, d.text) for p in pending for d in p.drafts]
    labels = typer.type_many(items, vectors, embedder) if items else []
    offset = 0
    for p in pending:
        p.classifications = list(labels[offset:offset + len(p.drafts)])
        offset += len(p.drafts)
    report.timings_s["classify"] = time.perf_counter() - t0


def _resolve_types(db: Database, pending: list[PendingAgreement]) -> None:
    """The type each clause is written with: a reviewer's correction of an unchanged clause text
    survives the re-ingest of its agreement; everything else takes the classifier's verdict."""
    manual: dict[tuple[str, str], list[str]] = {}
    replaced_ids = [p.sla_id for p in pending if p.previous]
    if replaced_ids:
        for r in db.read(q.MANUAL_TYPES_OF_AGREEMENTS, {"ids": replaced_ids}):
            manual[(r["sla_id"], r["text_hash"])] = list(r["types"])
    for p in pending:
        p.typings = []
        for d, c in zip(p.drafts, p.classifications):
            corrected = manual.get((p.sla_id, _text_hash(d.text)))
            typing = ClauseTypes.manual_types(corrected, c.runner_up) if corrected else c
            p.typings.append(typing)
            p.report.low_confidence += int(typing.needs_review)


def _extract_terms(db: Database, pending: list[PendingAgreement], report: IngestReport) -> None:
    """Each agreement's terms (dates, renewal, notice periods, law, cap, uptime, payment days), read
    from its preamble and clauses; a reviewer's value of a field survives the re-ingest."""
    t0 = time.perf_counter()
    replaced_ids = [p.sla_id for p in pending if p.previous]
    manual: dict[str, dict[str, dict]] = {}
    if replaced_ids:
        for r in db.read(qt.MANUAL_TERMS_OF_AGREEMENTS, {"ids": replaced_ids}):
            manual.setdefault(r["sla_id"], {})[r["field"]] = dict(r["props"])
    for p in pending:
        p.terms = extract_terms(passages_of(p.split.preamble, p.drafts))
        p.manual_terms = manual.get(p.sla_id, {})
    report.timings_s["terms"] = time.perf_counter() - t0


def term_rows(sla_id: str, terms: list[Term], manual: dict[str, dict] | None = None) -> list[dict]:
    """Term nodes to write: the extracted values, a reviewer's value in place of its field's."""
    manual = manual or {}
    rows = []
    for t in terms:
        if t.field in manual:
            continue
        props = {k: v for k, v in t.to_dict().items() if k not in ("date", "start", "end", "position")}
        clause_id = f"{sla_id}#{t.position}" if t.position else None
        props.update(sla_id=sla_id, id=f"{sla_id}/{t.field}", method="rule", needs_review=t.needs_review,
                     evidence_start=t.start, evidence_end=t.end, clause_id=clause_id, order=TERM_FIELDS.index(t.field))
        rows.append({"sla_id": sla_id, "clause_id": clause_id, "date": t.date, "props": props})
    for field_, props in manual.items():
        props = dict(props)
        date_ = str(props.pop("date")) if props.get("date") is not None else None
        rows.append({"sla_id": sla_id, "clause_id": props.get("clause_id"), "date": date_, "props": props})
    return rows


def _write(db: Database, pending: list[PendingAgreement], progress: Progress) -> int:
    """Whole agreements, about CLAUSES_PER_TRANSACTION clauses per transaction; returns clauses written."""
    total_clauses = sum(len(p.drafts) for p in pending)
    writer = _BatchWriter(db, lambda done: progress("write", done, total_clauses))
    batch: list[PendingAgreement] = []
    batch_clauses = 0
    for p in pending:
        batch.append(p)
        batch_clauses += len(p.drafts)
        if batch_clauses >= CLAUSES_PER_TRANSACTION:
            writer.submit(batch)
            batch, batch_clauses = [], 0
    if batch:
        writer.submit(batch)
    return writer.finish()


def _refresh_company_counts(db: Database, corpus: Corpus, pending: list[PendingAgreement]) -> None:
    # every company of the corpus, not only those written now: an ingest killed after its
    # agreement batches but before this refresh leaves them "unchanged" and stale on the rerun
    agreements = [a for a in corpus.agreements if a.sla_id in corpus.texts]
    touched = sorted({c.name for c in corpus.companies} | {agr.company for agr in agreements}
                     | {p.previous["company"] for p in pending if p.previous and p.previous.get("company")})
    for i in range(0, len(touched), COMPANIES_PER_REFRESH):
        db.write(q.REFRESH_COMPANY_COUNTS, {"companies": touched[i:i + COMPANIES_PER_REFRESH],
                                            "review_threshold": REVIEW_THRESHOLD})


# -------------------------------------------------------------------------- rows for the graph

def _text_hash(text: str) -> str:
    """Identifies a clause's text across re-ingests (manual corrections are keyed by it)."""
    return _sha(text)[:20]


def _clause_rows(p: PendingAgreement) -> list[dict]:
    rows = []
    for d, typing, vector in zip(p.drafts, p.typings, p.clause_vectors):
        rows.append({
            "id": f"{p.sla_id}#{d.position}", "sla_id": p.sla_id, "embedding": vector.tolist(),
            "props": {"title": d.title, "text": d.text, "position": d.position, "heading": d.heading,
                      "summary": _summary(d.text), "text_hash": _text_hash(d.text), **typing_props(typing)},
        })
    return rows


def typing_props(typing: ClauseTypes) -> dict:
    """The clause properties that restate its typing (what reads of one node need quickly)."""
    return {"type": typing.type, "types": typing.types, "type_confidence": typing.primary.confidence,
            "needs_review": typing.needs_review, "runner_up": typing.runner_up}


def _edge(clause_id: str, lab: TypeLabel, primary: bool | None = None) -> dict:
    row = {"clause_id": clause_id, "type": lab.type, "confidence": lab.confidence, "method": lab.method,
           "evidence_start": lab.start, "evidence_end": lab.end, "by_section": lab.by_section}
    if primary is not None:
        row["primary"] = primary
    return row


def type_edge_rows(clause_id: str, typing: ClauseTypes) -> tuple[list[dict], list[dict]]:
    """OF_TYPE rows (one per confident type, the first marked primary) and MAY_BE rows."""
    of_type = [_edge(clause_id, lab, i == 0) for i, lab in enumerate(typing.labels)]
    return of_type, [_edge(clause_id, lab) for lab in typing.review]


def _sla_row(p: PendingAgreement) -> dict:
    agr, split = p.agreement, p.split
    return {"id": agr.sla_id, "company": agr.company, "effective_date": agr.effective_date,
            "embedding": p.sla_vector.tolist(),
            "props": {"service_name": agr.service_name, "governing_law": agr.governing_law,
                      "source_file": agr.file, "title": split.title or agr.service_name,
                      "summary": _sla_summary(agr, split, p.drafts), "content_hash": p.content_hash,
                      "version": p.version, "clause_count": len(p.drafts),
                      "segmentation": split.segmentation}}


# Sources whose change alters how contracts are split, cleaned or typed.
_VERSIONED_MODULES = (classifier_module, provisions, typing_module, splitter, headings, draft_types, cleaning,
                      terms_module, term_values)


def _pipeline_version(typer: ClauseTyper) -> str:
    """Changes when the splitter, classifiers, provision model or taxonomy change, so re-ingest
    redoes affected work (a retrained model re-types every agreement)."""
    parts = [typer.version]
    for mod in _VERSIONED_MODULES:
        try:
            parts.append(inspect.getsource(mod))
        except OSError:
            parts.append(getattr(mod, "__name__", ""))
    try:
        parts.append(typing_text())
    except OSError:
        pass
    return _sha(*parts)[:16]


def _graph_spend_years(db: Database) -> list[int]:
    return [r["year"] for r in db.read(q.SPEND_YEARS)]


def _embed_with_progress(embedder, texts: list[str], progress: Progress) -> np.ndarray:
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
        self.db = db
        self.progress = progress
        self.workers = max(1, workers or WRITE_WORKERS)
        self.pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="ingest-write")
        self.pending: list = []
        self.written = 0

    def submit(self, batch: list[PendingAgreement]) -> None:
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


def _write_agreements(db: Database, batch: list[PendingAgreement]) -> int:
    """One transaction: the batch's agreements replaced whole (old clauses deleted, new ones linked)."""
    clause_rows = [_clause_rows(p) for p in batch]
    clauses = [row for rows in clause_rows for row in rows]
    nexts = [{"a": rows[i]["id"], "b": rows[i + 1]["id"]} for rows in clause_rows for i in range(len(rows) - 1)]
    of_type, may_be = [], []
    for p, rows in zip(batch, clause_rows):
        for row, typing in zip(rows, p.typings):
            edges, reviews = type_edge_rows(row["id"], typing)
            of_type += edges
            may_be += reviews
    terms = [row for p in batch for row in term_rows(p.sla_id, p.terms, p.manual_terms)]
    db.write_many([
        (qt.DELETE_TERMS_OF_AGREEMENTS, {"ids": [p.sla_id for p in batch]}),
        (q.DELETE_CLAUSES_OF_AGREEMENTS, {"ids": [p.sla_id for p in batch]}),
        (q.UPSERT_AGREEMENTS, {"rows": [_sla_row(p) for p in batch]}),
        (q.CREATE_CLAUSES, {"rows": clauses}),
        (q.CREATE_OF_TYPE, {"rows": of_type}),
        (q.CREATE_MAY_BE, {"rows": may_be}),
        (q.CREATE_NEXT, {"rows": nexts}),
        (qt.CREATE_TERMS, {"rows": terms}),
    ])
    return len(clauses)


def _after_ingest() -> None:
    """Drop caches that describe the graph (schema summary, planner vocabularies)."""
    vocabulary.invalidate()


def graph_counts(db: Database | None = None) -> dict:
    return (db or get_database()).read(q.GRAPH_COUNTS)[0]


def low_confidence_clauses(threshold: float | None = None, limit: int = 500, db: Database | None = None) -> list[dict]:
    """The review queue: clauses whose automatic primary type is below `threshold`, or which
    hold low-confidence evidence of a type (`review`: type, confidence, evidence offsets)."""
    return (db or get_database()).read(q.LOW_CONFIDENCE_CLAUSES, {"threshold": threshold, "limit": limit})


def set_clause_type(clause_id: str, type_name: str | list[str], db: Database | None = None) -> dict:
    """A reviewer's correction to one type or several (`set_clause_types`)."""
    return set_clause_types(clause_id, [type_name] if isinstance(type_name, str) else list(type_name), db)


def set_clause_types(clause_id: str, type_names_: list[str], db: Database | None = None) -> dict:
    """A reviewer's types for a clause: they replace its automatic types and review candidates,
    are stored with method 'manual' and are kept on re-ingest and reclassify."""
    known = type_names()
    chosen = list(dict.fromkeys(t for t in type_names_ if t))
    if not chosen:
        raise ValueError("choose at least one clause type")
    unknown = [t for t in chosen if t not in known]
    if unknown:
        raise ValueError(f"unknown clause type {unknown[0]!r}; choose one of {', '.join(known)}")
    db = db or get_database()
    typing = ClauseTypes.manual_types(chosen)
    edges, _ = type_edge_rows(clause_id, typing)
    rows = db.write(q.SET_CLAUSE_TYPES_MANUAL, {"clause_id": clause_id, "edges": edges,
                                                "props": {k: v for k, v in typing_props(typing).items()
                                                          if k != "runner_up"}})
    if not rows:
        raise ValueError(f"no clause with id {clause_id!r}")
    db.write(q.REFRESH_COUNTS_OF_CLAUSE_OWNER, {"clause_id": clause_id, "review_threshold": REVIEW_THRESHOLD})
    _after_ingest()
    return {"clause_id": rows[0]["clause_id"], "type": typing.type, "types": typing.types}


@dataclass
class ReclassifyReport:
    clauses: int = 0
    changed: int = 0          # clauses whose confident types changed
    manual_kept: int = 0
    companies: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return dict(self.__dict__)


RECLASSIFY_BATCH = 500


def reclassify(db: Database | None = None, typer: ClauseTyper | None = None,
               progress: Progress | None = None) -> ReclassifyReport:
    """Re-type every stored clause with the current taxonomy and models, from the stored text
    and embedding (no re-embedding), keeping manual corrections; then refresh the per-company
    counts. For a taxonomy edit or a retrained model without a full re-ingest."""
    db = db or get_database()
    typer = typer or get_clause_typer()
    progress = progress or (lambda stage, done, total: None)
    t0 = time.perf_counter()
    report = ReclassifyReport()
    db.write(q.UPSERT_CLAUSE_TYPES, {"rows": [
        {"name": t.name, "description": t.description, "description_zh": t.description_zh}
        for t in load_taxonomy()]})
    ids = [r["id"] for r in db.read(q.ALL_CLAUSE_IDS)]
    for i in range(0, len(ids), RECLASSIFY_BATCH):
        _reclassify_batch(db, typer, ids[i:i + RECLASSIFY_BATCH], report)
        progress("classify", min(i + RECLASSIFY_BATCH, len(ids)), len(ids))
    companies = [r["name"] for r in db.read(q.ALL_COMPANY_NAMES)]
    for i in range(0, len(companies), COMPANIES_PER_REFRESH):
        db.write(q.REFRESH_COMPANY_COUNTS, {"companies": companies[i:i + COMPANIES_PER_REFRESH],
                                            "review_threshold": REVIEW_THRESHOLD})
    report.companies = len(companies)
    report.seconds = round(time.perf_counter() - t0, 3)
    _after_ingest()
    return report


def _reclassify_batch(db: Database, typer: ClauseTyper, ids: list[str], report: ReclassifyReport) -> None:
    rows = db.read(q.CLAUSES_FOR_RECLASSIFY, {"ids": ids})
    auto = [r for r in rows if not r["manual"]]
    vectors = np.asarray([r["embedding"] for r in auto], dtype=np.float32) if auto else None
    typings = typer.type_many([(r["title"], r["text"]) for r in auto], vectors) if auto else []
    updates, of_type, may_be = [], [], []
    for r, typing in zip(auto, typings):
        edges, reviews = type_edge_rows(r["id"], typing)
        of_type += edges
        may_be += reviews
        updates.append({"id": r["id"], "props": typing_props(typing)})
        report.changed += int(sorted(typing.types) != sorted(r["types"] or []))
    report.clauses += len(rows)
    report.manual_kept += len(rows) - len(auto)
    db.write_many([
        (q.DELETE_AUTOMATIC_TYPE_EDGES, {"ids": [u["id"] for u in updates]}),
        (q.SET_CLAUSE_PROPS, {"rows": updates}),
        (q.CREATE_OF_TYPE, {"rows": of_type}),
        (q.CREATE_MAY_BE, {"rows": may_be}),
    ])

"""The naive loader the write stage is compared with: one auto-commit MERGE per node or
relationship, the way a first script against Neo4j usually loads data.

It writes exactly the rows `core.ingest` would (same ids, properties, vectors, clause
types), so the comparison is about batching and transactions only. Schema (constraints and
indexes) is the same, so its MERGEs are index-backed: this is naive, not crippled.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from bench import queries as bq


@dataclass
class NaiveResult:
    agreements: int
    clauses: int
    statements: int
    write_s: float

    @property
    def clauses_per_s(self) -> float:
        return self.clauses / self.write_s if self.write_s else 0.0


def naive_load(db, root: Path | str, embedder, classifier=None) -> NaiveResult:
    from core.ingest.classifier import get_classifier
    from core.ingest.reading import read_corpus
    from core.ingest.pipeline import _sha, _summary
    from core.graph.schema import ensure_schema
    from core.graph.queries import ingest as q
    from core.taxonomy import load_taxonomy

    corpus = read_corpus(Path(root))
    classifier = classifier or get_classifier("hybrid")
    ensure_schema(db, embedder.dimension, sorted({s.year for s in corpus.spend}))
    db.write(q.UPSERT_CLAUSE_TYPES, {"rows": [
        {"name": t.name, "description": t.description, "description_zh": t.description_zh} for t in load_taxonomy()]})
    agreements = [a for a in corpus.agreements if a.sla_id in corpus.texts]
    drafts = [(a, d) for a in agreements for d in corpus.texts[a.sla_id].clauses]
    vectors = embedder.encode([f"{d.title}. {d.text}" if d.title else d.text for _, d in drafts])
    sla_vectors = embedder.encode([a.service_name or a.sla_id for a in agreements])
    labels = classifier.classify_many([(d.title, d.text) for _, d in drafts], vectors)

    statements: list[tuple[str, dict]] = []
    for c in corpus.companies:
        statements.append((bq.NAIVE_COMPANY, {"name": c.name, "country": c.country, "industry": c.industry,
                                              "aliases": list(c.aliases), "aliases_text": " | ".join(c.aliases)}))
    for a in corpus.addresses:
        aid = _sha(a.company, a.street, a.city, a.postal_code, a.country)[:16]
        statements.append((bq.NAIVE_ADDRESS, {"id": aid, "street": a.street, "city": a.city,
                                              "postal_code": a.postal_code, "country": a.country}))
        statements.append((bq.NAIVE_LOCATED_AT, {"company": a.company, "id": aid}))
    for s in corpus.spend:
        props = {f"spend_{s.year}": float(s.base_amount), "spend_currency": corpus.base_currency,
                 "spend_category": s.category}
        statements.append((bq.NAIVE_SPEND, {"company": s.company, "props": props}))
    for i, a in enumerate(agreements):
        statements.append((bq.NAIVE_SLA, {"id": a.sla_id, "effective_date": a.effective_date,
                                          "embedding": sla_vectors[i].tolist(),
                                          "props": {"service_name": a.service_name, "governing_law": a.governing_law,
                                                    "source_file": a.file}}))
        statements.append((bq.NAIVE_HAS_SLA, {"company": a.company, "id": a.sla_id}))
    prev: dict[str, str] = {}
    for i, (a, d) in enumerate(drafts):
        cid = f"{a.sla_id}#{d.position}"
        lab = labels[i]
        statements.append((bq.NAIVE_CLAUSE, {"id": cid, "embedding": vectors[i].tolist(), "props": {
            "title": d.title, "text": d.text, "position": d.position, "heading": d.heading,
            "summary": _summary(d.text), "type_confidence": float(lab.confidence), "type": lab.type,
            "text_hash": _sha(d.text)[:20]}}))
        statements.append((bq.NAIVE_HAS_CLAUSE, {"sla_id": a.sla_id, "id": cid}))
        statements.append((bq.NAIVE_OF_TYPE, {"id": cid, "type": lab.type, "confidence": float(lab.confidence),
                                              "method": lab.method}))
        if a.sla_id in prev:
            statements.append((bq.NAIVE_NEXT, {"a": prev[a.sla_id], "b": cid}))
        prev[a.sla_id] = cid

    t0 = time.perf_counter()
    with db.driver().session(database=db.database) as session:
        for cypher, params in statements:
            session.run(cypher, params).consume()  # auto-commit: one transaction per statement
    write_s = time.perf_counter() - t0
    return NaiveResult(len(agreements), len(drafts), len(statements), write_s)

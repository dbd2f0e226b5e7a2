"""Create constraints and indexes before any MERGE, sized to the embedding model."""
from __future__ import annotations

from dataclasses import dataclass

from core.graph.db import Database
from core.graph.queries import schema as q


@dataclass
class SchemaState:
    indexes: dict[str, dict]
    constraints: list[str]

    def online(self, name: str) -> bool:
        return self.indexes.get(name, {}).get("state") == "ONLINE"


def ensure_schema(db: Database, dimension: int, spend_years: list[int] | tuple = (), wait_s: int = 300) -> SchemaState:
    statements = list(q.CONSTRAINTS.values()) + list(q.RANGE_INDEXES.values())
    statements += [q.spend_index(y)[1] for y in spend_years]
    current = {row["name"]: row for row in db.read(q.SHOW_INDEXES)}
    for name, label in (("clause_embeddings", "Clause"), ("sla_embeddings", "SLA")):
        existing = current.get(name)
        if existing:
            dims = (existing.get("options") or {}).get("indexConfig", {}).get("vector.dimensions")
            if dims is not None and int(dims) != int(dimension):
                db.write(q.DROP_INDEX[name])
        statements.append(q.vector_index(name, label, dimension))
    statements += [q.CLAUSE_TEXT_INDEX, q.COMPANY_NAME_INDEX]
    for stmt in statements:
        db.write(stmt)
    db.write(q.AWAIT_INDEXES, {"timeout": wait_s}, timeout=wait_s + 10)
    return schema_state(db)


def schema_state(db: Database) -> SchemaState:
    indexes = {row["name"]: row for row in db.read(q.SHOW_INDEXES)}
    constraints = [row["name"] for row in db.read(q.SHOW_CONSTRAINTS)]
    return SchemaState(indexes=indexes, constraints=constraints)


def probe_capabilities(db: Database) -> dict[str, bool]:
    """Prove on a scratch label that vector, full-text (CJK) and uniqueness features work here."""
    from neo4j.exceptions import ConstraintError, ClientError

    result = {"vector_index": False, "fulltext_cjk": False, "uniqueness_constraint": False}
    db.write(q.PROBE_CLEAN)
    for stmt in q.PROBE_SETUP:
        db.write(stmt)
    try:
        db.write(q.AWAIT_INDEXES, {"timeout": 120}, timeout=130)
        db.write(q.PROBE_INSERT, {"id": "p1", "text": "合同解除 either party may terminate", "vec": [1.0, 0.0, 0.0]})
        db.write(q.PROBE_INSERT, {"id": "p2", "text": "payment within thirty days", "vec": [0.0, 1.0, 0.0]})
        hits = db.read(q.PROBE_VECTOR, {"vec": [0.9, 0.1, 0.0]})
        result["vector_index"] = bool(hits) and hits[0]["id"] == "p1"
        hits = db.read(q.PROBE_FULLTEXT, {"q": "解除"})
        result["fulltext_cjk"] = bool(hits) and hits[0]["id"] == "p1"
        try:
            db.write(q.PROBE_INSERT, {"id": "p1", "text": "duplicate", "vec": [0.0, 0.0, 1.0]})
        except (ConstraintError, ClientError):
            result["uniqueness_constraint"] = True
    finally:
        db.write(q.PROBE_CLEAN)
        for stmt in q.PROBE_TEARDOWN:
            db.write(stmt)
    return result

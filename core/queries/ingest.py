"""Batched writes of a corpus (UNWIND, hundreds of rows per transaction)."""

UPSERT_CLAUSE_TYPES = """
UNWIND $rows AS r
MERGE (t:ClauseType {name: r.name})
SET t.description = r.description, t.description_zh = r.description_zh
"""

UPSERT_COMPANIES = """
UNWIND $rows AS r
MERGE (c:Company {name: r.name})
SET c.country = r.country, c.industry = r.industry, c.aliases = r.aliases, c.aliases_text = r.aliases_text
"""

UPSERT_ADDRESSES = """
UNWIND $rows AS r
MATCH (c:Company {name: r.company})
MERGE (a:Address {id: r.id})
SET a.street = r.street, a.city = r.city, a.postal_code = r.postal_code, a.country = r.country
MERGE (c)-[:LOCATED_AT]->(a)
"""

# Spend properties are a map built by the code: {spend_2024: 1.0, spend_currency: 'EUR', ...}.
SET_SPEND = """
UNWIND $rows AS r
MATCH (c:Company {name: r.company})
SET c += r.props
"""

EXISTING_AGREEMENT_HASHES = """
UNWIND $ids AS id
MATCH (s:SLA {id: id})
OPTIONAL MATCH (co:Company)-[:HAS_SLA]->(s)
RETURN s.id AS id, s.content_hash AS hash, s.version AS version, co.name AS company
"""

# Manual type corrections survive re-ingestion: keyed by agreement and clause text hash.
MANUAL_TYPES_OF_AGREEMENTS = """
UNWIND $ids AS id
MATCH (s:SLA {id: id})-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE {method: 'manual'}]->(t:ClauseType)
RETURN s.id AS sla_id, c.text_hash AS text_hash, t.name AS type
"""

DELETE_CLAUSES_OF_AGREEMENTS = """
UNWIND $ids AS id
MATCH (:SLA {id: id})-[:HAS_CLAUSE]->(c:Clause)
DETACH DELETE c
"""

UPSERT_AGREEMENTS = """
UNWIND $rows AS r
MATCH (co:Company {name: r.company})
MERGE (s:SLA {id: r.id})
SET s += r.props, s.embedding = r.embedding,
    s.effective_date = CASE WHEN r.effective_date IS NULL THEN null ELSE date(r.effective_date) END
WITH co, s
OPTIONAL MATCH (other:Company)-[old:HAS_SLA]->(s) WHERE other <> co
DELETE old
MERGE (co)-[:HAS_SLA]->(s)
"""

CREATE_CLAUSES = """
UNWIND $rows AS r
MATCH (s:SLA {id: r.sla_id})
MATCH (t:ClauseType {name: r.type})
CREATE (c:Clause {id: r.id})
SET c += r.props, c.embedding = r.embedding
CREATE (s)-[:HAS_CLAUSE]->(c)
CREATE (c)-[:OF_TYPE {confidence: r.confidence, method: r.method}]->(t)
"""

CREATE_NEXT = """
UNWIND $rows AS r
MATCH (a:Clause {id: r.a}), (b:Clause {id: r.b})
CREATE (a)-[:NEXT]->(b)
"""

# Ingest-time optimization (seed 004): per-company counts, recomputed after each ingest.
REFRESH_COMPANY_COUNTS = """
MATCH (co:Company)
OPTIONAL MATCH (co)-[:HAS_SLA]->(s:SLA)
OPTIONAL MATCH (s)-[:HAS_CLAUSE]->(c:Clause)-[:OF_TYPE]->(t:ClauseType)
WITH co, s, c, t ORDER BY t.name
WITH co, count(DISTINCT s) AS n_agreements, count(DISTINCT c) AS n_clauses, collect(DISTINCT t.name) AS types
SET co.n_agreements = n_agreements, co.n_clauses = n_clauses, co.clause_types = types
"""

SET_SPEND_LATEST = """
MATCH (c:Company)
SET c.spend_latest = c[$key], c.spend_latest_year = $year
"""

GRAPH_COUNTS = """
CALL () { MATCH (n:Company) RETURN count(n) AS companies }
CALL () { MATCH (n:SLA) RETURN count(n) AS agreements }
CALL () { MATCH (n:Clause) RETURN count(n) AS clauses }
CALL () { MATCH (n:Address) RETURN count(n) AS addresses }
CALL () { MATCH ()-[r:NEXT]->() RETURN count(r) AS next_edges }
CALL () { MATCH (n:Clause) WHERE n.embedding IS NULL RETURN count(n) AS clauses_without_embedding }
RETURN companies, agreements, clauses, addresses, next_edges, clauses_without_embedding
"""

SPEND_YEARS = """
MATCH (c:Company)
UNWIND keys(c) AS k
WITH k WHERE k =~ 'spend_[0-9]{4}'
RETURN DISTINCT toInteger(substring(k, 6)) AS year ORDER BY year
"""

LOW_CONFIDENCE_CLAUSES = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE]->(t:ClauseType)
WHERE r.method <> 'manual' AND r.confidence < $threshold
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS title, c.text AS text,
       t.name AS type, r.confidence AS confidence, r.method AS method, c.runner_up AS runner_up
ORDER BY r.confidence ASC, c.id
LIMIT $limit
"""

SET_CLAUSE_TYPE_MANUAL = """
MATCH (c:Clause {id: $clause_id})
MATCH (t:ClauseType {name: $type})
OPTIONAL MATCH (c)-[old:OF_TYPE]->(:ClauseType)
DELETE old
WITH c, t
CREATE (c)-[:OF_TYPE {confidence: 1.0, method: 'manual'}]->(t)
SET c.type_confidence = 1.0, c.needs_review = false
RETURN c.id AS clause_id, t.name AS type
"""

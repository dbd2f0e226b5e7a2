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

# Ingest-time optimization (seed 004): per-company counts, refreshed for the companies whose
# agreements an ingest wrote or a reviewer changed. `clause_types` lists the types among the
# company's classified clauses (sorted); `clause_type_counts` and `clause_type_low_confidence`
# are parallel to it (clauses of that type; of those, automatic ones below $review_threshold).
# Gap questions and the gap report read these instead of walking every clause of every company.
_COMPANY_COUNTS_BODY = """
CALL (co) {
  OPTIONAL MATCH (co)-[:HAS_SLA]->(s:SLA)
  RETURN count(s) AS n_agreements
}
CALL (co) {
  OPTIONAL MATCH (co)-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE]->(t:ClauseType)
  WITH t.name AS type, count(c) AS n,
       sum(CASE WHEN r.method <> 'manual' AND r.confidence < $review_threshold THEN 1 ELSE 0 END) AS low
  ORDER BY type
  WITH [x IN collect({type: type, n: n, low: low}) WHERE x.type IS NOT NULL] AS cells
  RETURN [x IN cells | x.type] AS types, [x IN cells | x.n] AS counts, [x IN cells | x.low] AS lows,
         reduce(total = 0, x IN cells | total + x.n) AS n_clauses
}
SET co.n_agreements = n_agreements, co.n_clauses = n_clauses, co.clause_types = types,
    co.clause_type_counts = counts, co.clause_type_low_confidence = lows
"""

REFRESH_COMPANY_COUNTS = """
UNWIND $companies AS name
MATCH (co:Company {name: name})""" + _COMPANY_COUNTS_BODY

REFRESH_COUNTS_OF_CLAUSE_OWNER = """
MATCH (co:Company)-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(:Clause {id: $clause_id})
WITH DISTINCT co""" + _COMPANY_COUNTS_BODY

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
SET c.type_confidence = 1.0, c.needs_review = false, c.type = t.name
RETURN c.id AS clause_id, t.name AS type
"""

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

# Spend properties are a map built by the code: {spend_2024: 1.0, spend_currency: 'EUR', ...}
# (a null value removes a year the company's rows no longer have).
SET_SPEND = """
UNWIND $rows AS r
MATCH (c:Company {name: r.company})
SET c += r.props
"""

# The category breakdown beside the yearly totals: one SPENT edge per company, year and category
# (docs/DATA_MODEL.md). A company's edges are replaced whole when its spend is loaded again.
CLEAR_SPEND_EDGES = """
UNWIND $companies AS name
MATCH (:Company {name: name})-[s:SPENT]->(:SpendCategory)
DELETE s
"""

CREATE_SPEND_EDGES = """
UNWIND $rows AS r
MATCH (c:Company {name: r.company})
MERGE (k:SpendCategory {name: r.category})
CREATE (c)-[:SPENT {year: r.year, amount: r.amount, currency: r.currency, rows: r.rows,
                    business_units: r.business_units}]->(k)
"""

DELETE_UNUSED_SPEND_CATEGORIES = """
MATCH (k:SpendCategory) WHERE NOT EXISTS { MATCH ()-[:SPENT]->(k) }
DELETE k
"""

EXISTING_AGREEMENT_HASHES = """
UNWIND $ids AS id
MATCH (s:SLA {id: id})
OPTIONAL MATCH (co:Company)-[:HAS_SLA]->(s)
RETURN s.id AS id, s.content_hash AS hash, s.version AS version, co.name AS company
"""

# Manual type corrections survive re-ingestion: keyed by agreement and clause text hash. The
# primary type first, so the reviewer's first choice stays the clause's primary type.
MANUAL_TYPES_OF_AGREEMENTS = """
UNWIND $ids AS id
MATCH (s:SLA {id: id})-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE {method: 'manual'}]->(t:ClauseType)
WITH s, c, r, t ORDER BY coalesce(r.primary, false) DESC, t.name
RETURN s.id AS sla_id, c.text_hash AS text_hash, collect(t.name) AS types
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
CREATE (c:Clause {id: r.id})
SET c += r.props, c.embedding = r.embedding
CREATE (s)-[:HAS_CLAUSE]->(c)
"""

# One OF_TYPE edge per confident type of a clause (exactly one with primary: true), and one
# MAY_BE edge per type with only low-confidence evidence. evidence_start/evidence_end: offsets
# of the sentence that carries the type in the clause text (null: the whole clause).
CREATE_OF_TYPE = """
UNWIND $rows AS r
MATCH (c:Clause {id: r.clause_id})
MATCH (t:ClauseType {name: r.type})
CREATE (c)-[:OF_TYPE {confidence: r.confidence, method: r.method, primary: r.primary, by_section: r.by_section,
                      evidence_start: r.evidence_start, evidence_end: r.evidence_end}]->(t)
"""

CREATE_MAY_BE = """
UNWIND $rows AS r
MATCH (c:Clause {id: r.clause_id})
MATCH (t:ClauseType {name: r.type})
CREATE (c)-[:MAY_BE {confidence: r.confidence, method: r.method,
                     evidence_start: r.evidence_start, evidence_end: r.evidence_end}]->(t)
"""

CREATE_NEXT = """
UNWIND $rows AS r
MATCH (a:Clause {id: r.a}), (b:Clause {id: r.b})
CREATE (a)-[:NEXT]->(b)
"""

def low_confidence_edge(r: str) -> str:
    """core.gaps' test on an OF_TYPE edge `r`: the section classifier's main verdict below
    $review_threshold, which does not meet a requirement (a provision's edge passed its type's own
    threshold, even as the main type of a section the classifier typed Other, and a reviewer's is
    confirmed; edges written before `by_section` existed count as the section's). Null-safe: an
    edge without `primary` is not low. Python twin: core.gaps.meets_requirement."""
    return (f"coalesce({r}.primary AND {r}.method <> 'manual' AND coalesce({r}.by_section, true) "
            f"AND {r}.confidence < $review_threshold, false)")


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
  WITH t.name AS type, count(DISTINCT c) AS n,
       count(DISTINCT CASE WHEN """ + low_confidence_edge("r") + """ THEN c END) AS low
  ORDER BY type
  WITH [x IN collect({type: type, n: n, low: low}) WHERE x.type IS NOT NULL] AS cells
  RETURN [x IN cells | x.type] AS types, [x IN cells | x.n] AS counts, [x IN cells | x.low] AS lows
}
CALL (co) {
  OPTIONAL MATCH (co)-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(c:Clause)
  RETURN count(c) AS n_clauses
}
CALL (co, types) {
  OPTIONAL MATCH (co)-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(c:Clause)-[:MAY_BE]->(t:ClauseType)
  WHERE NOT t.name IN types
  WITH t.name AS type, count(DISTINCT c) AS n
  ORDER BY type
  WITH [x IN collect({type: type, n: n}) WHERE x.type IS NOT NULL] AS cells
  RETURN [x IN cells | x.type] AS review_types, [x IN cells | x.n] AS review_counts
}
SET co.n_agreements = n_agreements, co.n_clauses = n_clauses, co.clause_types = types,
    co.clause_type_counts = counts, co.clause_type_low_confidence = lows,
    co.clause_types_review = review_types, co.clause_type_review_counts = review_counts
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

# The review queue: one row per clause whose automatic primary type is weak or which holds
# low-confidence (MAY_BE) evidence; `review` lists that evidence, `types` the confident types.
# $threshold null: what ingestion flagged (c.needs_review); a number: primary type or any
# MAY_BE evidence below it.
LOW_CONFIDENCE_CLAUSES = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE {primary: true}]->(t:ClauseType)
WHERE r.method <> 'manual'
  AND CASE WHEN $threshold IS NULL THEN coalesce(c.needs_review, false)
           ELSE r.confidence < $threshold
                OR EXISTS { MATCH (c)-[m:MAY_BE]->(:ClauseType) WHERE m.confidence < $threshold } END
WITH co, s, c, r, t,
     [(c)-[m:MAY_BE]->(x:ClauseType) | {type: x.name, confidence: m.confidence, method: m.method,
                                        start: m.evidence_start, end: m.evidence_end}] AS review
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS title, c.text AS text,
       t.name AS type, r.confidence AS confidence, r.method AS method, c.runner_up AS runner_up,
       coalesce(c.types, [t.name]) AS types, review
ORDER BY confidence ASC, clause_id
LIMIT $limit
"""

# A reviewer's types replace every automatic OF_TYPE and MAY_BE edge of the clause.
SET_CLAUSE_TYPES_MANUAL = """
MATCH (c:Clause {id: $clause_id})
CALL (c) {
  MATCH (c)-[old:OF_TYPE|MAY_BE]->(:ClauseType)
  DELETE old
}
SET c += $props
WITH c
UNWIND $edges AS e
MATCH (t:ClauseType {name: e.type})
CREATE (c)-[:OF_TYPE {confidence: e.confidence, method: e.method, primary: e.primary,
                      evidence_start: e.evidence_start, evidence_end: e.evidence_end}]->(t)
RETURN c.id AS clause_id, collect(t.name) AS types
"""

# reclassify: stored clauses re-typed in batches, manual corrections left alone
ALL_CLAUSE_IDS = "MATCH (c:Clause) RETURN c.id AS id ORDER BY id"

ALL_COMPANY_NAMES = "MATCH (co:Company) RETURN co.name AS name ORDER BY name"

CLAUSES_FOR_RECLASSIFY = """
UNWIND $ids AS id
MATCH (c:Clause {id: id})
RETURN c.id AS id, c.title AS title, c.text AS text, c.embedding AS embedding, c.types AS types,
       EXISTS { (c)-[:OF_TYPE {method: 'manual'}]->(:ClauseType) } AS manual
"""

DELETE_AUTOMATIC_TYPE_EDGES = """
UNWIND $ids AS id
MATCH (c:Clause {id: id})-[old:OF_TYPE|MAY_BE]->(:ClauseType)
DELETE old
"""

SET_CLAUSE_PROPS = """
UNWIND $rows AS r
MATCH (c:Clause {id: r.id})
SET c += r.props
"""

"""Queries of the Text2Cypher pipeline (core/text2cypher.py, core/schema_summary.py).

The schema summary samples the live graph (DESIGN §7, seed 002 §2.2): which properties each
label really uses and with which types, which (start)-[type]->(end) patterns exist, and the
values of a few small categorical properties. Labels, types and keys travel as parameters
and are used with dynamic access (`$(label)`, `n[$key]`), so no identifier is interpolated.
"""
from core.graph.queries.ingest import low_confidence_edge

# The product's gap test as the pattern the model is shown (schema hint) and the verified gap
# examples use: a company has a clause of $type only through an OF_TYPE edge that is not
# low-confidence evidence (core.gaps), so an LLM-written gap answer agrees with the gap report.
GAP_CONDITION = (
    "NOT EXISTS { MATCH (co)-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(:Clause)-[r:OF_TYPE]->(:ClauseType {name: $type}) "
    "WHERE NOT " + low_confidence_edge("r") + " }")

# Property usage per label: key, how many sampled nodes carry it, and its value types.
LABEL_PROPERTIES = (
    "CALL db.labels() YIELD label "
    "CALL (label) { MATCH (n:$(label)) WITH n LIMIT $sample "
    "  UNWIND keys(n) AS key "
    "  WITH key, n[key] AS value "
    "  RETURN key, count(*) AS uses, collect(DISTINCT valueType(value))[..3] AS types } "
    "RETURN label, key, uses, types ORDER BY label, uses DESC, key")

LABEL_COUNTS = (
    "CALL db.labels() YIELD label "
    "CALL (label) { MATCH (n:$(label)) RETURN count(n) AS n } "
    "RETURN label, n")

# (start)-[type]->(end) patterns with counts, and the property keys of each type, sampled.
RELATIONSHIP_PATTERNS = (
    "CALL db.relationshipTypes() YIELD relationshipType AS type "
    "CALL (type) { MATCH (a)-[r:$(type)]->(b) WITH a, r, b LIMIT $sample "
    "  UNWIND labels(a) AS start UNWIND labels(b) AS end "
    "  RETURN start, end, count(*) AS uses } "
    "RETURN type, start, end, uses ORDER BY type, uses DESC")

RELATIONSHIP_PROPERTIES = (
    "CALL db.relationshipTypes() YIELD relationshipType AS type "
    "CALL (type) { MATCH ()-[r:$(type)]->() WITH r LIMIT $sample "
    "  UNWIND keys(r) AS key RETURN key, count(*) AS uses, "
    "  collect(DISTINCT valueType(r[key]))[..2] AS types } "
    "RETURN type, key, uses, types ORDER BY type, uses DESC")

# Distinct values of one node property (a small categorical one), at most $cap + 1 of them so
# the caller can tell "small" from "too many to list".
NODE_PROPERTY_VALUES = (
    "MATCH (n:$($label)) WHERE n[$key] IS NOT NULL "
    "WITH DISTINCT n[$key] AS value ORDER BY value LIMIT $cap RETURN collect(value) AS values")

SPEND_YEARS = (
    "MATCH (c:Company) UNWIND keys(c) AS k WITH DISTINCT k WHERE k =~ 'spend_[0-9]{4}' "
    "RETURN collect(toInteger(substring(k, 6))) AS years")

INDEXES = ("SHOW INDEXES YIELD name, type, labelsOrTypes, properties WHERE type IN ['VECTOR', 'FULLTEXT'] "
           "RETURN name, type, labelsOrTypes, properties ORDER BY name")

# Candidate companies for the prompt (seed 000: recall real node names before generation).
COMPANY_CANDIDATES = (
    "CALL db.index.fulltext.queryNodes('company_names', $query, {limit: $k}) YIELD node, score "
    "RETURN node.name AS name, score ORDER BY score DESC LIMIT $k")

# Full clause text for evidence when the generated query returned only ids.
CLAUSES_BY_ID = (
    "UNWIND $ids AS cid MATCH (c:Clause {id: cid}) "
    "OPTIONAL MATCH (s:SLA)-[:HAS_CLAUSE]->(c) "
    "OPTIONAL MATCH (co:Company)-[:HAS_SLA]->(s) "
    "OPTIONAL MATCH (c)-[r:OF_TYPE {primary: true}]->(t:ClauseType) "
    "RETURN c.id AS clause_id, co.name AS company, s.id AS sla_id, c.title AS clause_title, "
    "t.name AS clause_type, r.confidence AS confidence, c.position AS position, c.text AS text, "
    "coalesce(c.types, [t.name]) AS clause_types, r.evidence_start AS span_start, r.evidence_end AS span_end")

# The company of agreements named only by id.
AGREEMENT_COMPANIES = (
    "UNWIND $ids AS sid MATCH (co:Company)-[:HAS_SLA]->(s:SLA {id: sid}) "
    "RETURN s.id AS sla_id, co.name AS company")

"""Retrieval templates of the question service (DESIGN §5). All parameterized.

Shared filter fragments are code-owned strings combined at import time; user values only
ever arrive as parameters. `$spend_key` is a property name built by the code from an
integer year (validated), used with dynamic property access `co[$spend_key]`.
"""

COMPANY_FILTER = """
  (size($companies) = 0 OR co.name IN $companies)
  AND (size($countries) = 0 OR co.country IN $countries)
  AND (size($industries) = 0 OR co.industry IN $industries)
  AND ($spend_min IS NULL OR co[$spend_key] > $spend_min)
  AND ($spend_max IS NULL OR co[$spend_key] < $spend_max)
  AND (size($cities) = 0 OR EXISTS { MATCH (co)-[:LOCATED_AT]->(a:Address) WHERE a.city IN $cities })
"""

AGREEMENT_FILTER = """
  (size($sla_ids) = 0 OR s.id IN $sla_ids)
  AND (size($governing_laws) = 0 OR s.governing_law IN $governing_laws)
  AND ($date_from IS NULL OR s.effective_date >= date($date_from))
  AND ($date_to IS NULL OR s.effective_date <= date($date_to))
"""

# Companies that pass the agreement filters too (when any is set).
AGREEMENT_EXISTS = """
  (size($sla_ids) = 0 AND size($governing_laws) = 0 AND $date_from IS NULL AND $date_to IS NULL
   OR EXISTS { MATCH (co)-[:HAS_SLA]->(s:SLA) WHERE """ + AGREEMENT_FILTER + """ })
"""

CLAUSE_RETURN = """
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text
"""

# document-anchored: a company's agreements, walked along NEXT from the first clause.
DOCUMENT_CLAUSES = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_FILTER + """
MATCH (s)-[:HAS_CLAUSE]->(first:Clause)
WHERE NOT EXISTS { MATCH (:Clause)-[:NEXT]->(first) }
MATCH path = (first)-[:NEXT*0..]->(c:Clause)
MATCH (c)-[r:OF_TYPE]->(t:ClauseType)
WHERE size($types) = 0 OR t.name IN $types
WITH co, s, c, r, t, length(path) AS step
ORDER BY co.name, s.id, step
""" + CLAUSE_RETURN + """
LIMIT $limit
"""

# document-anchored, by position: the clause after/before an anchor clause.
NEIGHBOUR_CLAUSE = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(anchor:Clause)-[:OF_TYPE]->(at:ClauseType)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_FILTER + """
  AND ((size($types) > 0 AND at.name IN $types)
       OR (size($types) = 0 AND $anchor_text <> '' AND toLower(anchor.title) CONTAINS toLower($anchor_text)))
CALL (anchor) {
  MATCH (anchor)-[:NEXT]->(n:Clause) WHERE $direction = 'after' RETURN n
  UNION
  MATCH (n:Clause)-[:NEXT]->(anchor) WHERE $direction = 'before' RETURN n
}
WITH co, s, anchor, n AS c
MATCH (c)-[r:OF_TYPE]->(t:ClauseType)
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, anchor.id AS anchor_id, anchor.title AS anchor_title
ORDER BY s.id, anchor.position
LIMIT $limit
"""

# clause-type pivot: a type's clauses across agreements, with company context.
CLAUSE_TYPE_CLAUSES = """
MATCH (t:ClauseType)<-[r:OF_TYPE]-(c:Clause)<-[:HAS_CLAUSE]-(s:SLA)<-[:HAS_SLA]-(co:Company)
WHERE t.name IN $types
""" + CLAUSE_RETURN + """
ORDER BY co.name, s.id, c.position
LIMIT $limit
"""

# attribute-first: filter companies/agreements, then read their clauses of the types.
ATTRIBUTE_CLAUSES = """
MATCH (co:Company)
WHERE """ + COMPANY_FILTER + """
MATCH (co)-[:HAS_SLA]->(s:SLA)
WHERE """ + AGREEMENT_FILTER + """
MATCH (s)-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE]->(t:ClauseType)
WHERE t.name IN $types
""" + CLAUSE_RETURN + """
ORDER BY co.name, s.id, c.position
LIMIT $limit
"""

# attribute-first gap/presence: per company, which of the required types are missing.
# Only clauses the classifier (or a reviewer) assigned count, via OF_TYPE.
TYPE_COVERAGE = """
MATCH (co:Company)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_EXISTS + """
  AND EXISTS { MATCH (co)-[:HAS_SLA]->(:SLA) }
UNWIND $types AS required
OPTIONAL MATCH (co)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)-[:OF_TYPE]->(:ClauseType {name: required})
WITH co, required, count(c) AS n, collect(c.id) AS clause_ids
WITH co, collect({type: required, count: n, clause_ids: clause_ids}) AS coverage,
     [x IN collect(CASE WHEN n = 0 THEN required END) WHERE x IS NOT NULL] AS missing
WITH co, coverage, missing,
     CASE WHEN $gap THEN
       (CASE $type_match WHEN 'any' THEN size(missing) > 0 ELSE size(missing) = size($types) END)
     ELSE
       (CASE $type_match WHEN 'any' THEN size(missing) < size($types) ELSE size(missing) = 0 END)
     END AS selected
WHERE selected
RETURN co.name AS company, co.country AS country, co.industry AS industry,
       co[$spend_key] AS spend, missing, coverage
ORDER BY spend DESC, company
LIMIT $limit
"""

NO_AGREEMENT = """
MATCH (co:Company)
WHERE """ + COMPANY_FILTER + """
  AND NOT EXISTS { MATCH (co)-[:HAS_SLA]->(:SLA) }
RETURN co.name AS company, co.country AS country, co.industry AS industry, co[$spend_key] AS spend
ORDER BY spend DESC, company
LIMIT $limit
"""

COMPANIES = """
MATCH (co:Company)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_EXISTS + """
RETURN co.name AS company, co.country AS country, co.industry AS industry, co[$spend_key] AS spend
ORDER BY spend DESC, company
LIMIT $limit
"""

# relay: vector search, then walk back to agreement and company and filter by attributes.
RELAY_VECTOR = """
CALL db.index.vector.queryNodes('clause_embeddings', $candidates, $vector) YIELD node AS c, score
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_FILTER + """
MATCH (c)-[r:OF_TYPE]->(t:ClauseType)
WHERE size($types) = 0 OR t.name IN $types
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, score
ORDER BY score DESC
LIMIT $k
"""

# relay over a small filtered set: exact cosine, so no candidate is lost to the top-k cut.
RELAY_EXACT = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_FILTER + """
MATCH (c)-[r:OF_TYPE]->(t:ClauseType)
WHERE size($types) = 0 OR t.name IN $types
WITH co, s, c, r, t, vector.similarity.cosine(c.embedding, $vector) AS score
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, score
ORDER BY score DESC
LIMIT $k
"""

FILTERED_CLAUSE_COUNT = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_FILTER + """
RETURN count(c) AS n
"""

TOTAL_CLAUSES = "MATCH (c:Clause) RETURN count(c) AS n"

# context for hits found by search (hybrid mode)
CLAUSES_BY_ID = """
UNWIND range(0, size($ids) - 1) AS i
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause {id: $ids[i]})-[r:OF_TYPE]->(t:ClauseType)
WHERE """ + COMPANY_FILTER + " AND " + AGREEMENT_FILTER + """
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, $scores[i] AS score
ORDER BY score DESC
"""

RANK_BY_VECTOR = """
MATCH (c:Clause) WHERE c.id IN $ids
RETURN c.id AS clause_id, vector.similarity.cosine(c.embedding, $vector) AS score
"""

"""Cypher used only by the benchmark: the naive loader and the neo4j-graphrag peer queries.

Kept here rather than in `core/queries/` because the product never runs them. User values
are parameters; the peer's `retrieval_query` strings follow neo4j-graphrag's contract
(`node` and `score` come from its index search).
"""

# --- naive loader: one auto-commit statement per node or relationship -------------------
NAIVE_COMPANY = ("MERGE (c:Company {name: $name}) "
                 "SET c.country = $country, c.industry = $industry, c.aliases = $aliases, "
                 "c.aliases_text = $aliases_text")
NAIVE_ADDRESS = ("MERGE (a:Address {id: $id}) SET a.street = $street, a.city = $city, "
                 "a.postal_code = $postal_code, a.country = $country")
NAIVE_LOCATED_AT = "MATCH (c:Company {name: $company}), (a:Address {id: $id}) MERGE (c)-[:LOCATED_AT]->(a)"
NAIVE_SPEND = "MATCH (c:Company {name: $company}) SET c += $props"
NAIVE_SLA = ("MERGE (s:SLA {id: $id}) SET s += $props, s.embedding = $embedding, "
             "s.effective_date = CASE WHEN $effective_date IS NULL THEN null ELSE date($effective_date) END")
NAIVE_HAS_SLA = "MATCH (co:Company {name: $company}), (s:SLA {id: $id}) MERGE (co)-[:HAS_SLA]->(s)"
NAIVE_CLAUSE = "MERGE (c:Clause {id: $id}) SET c += $props, c.embedding = $embedding"
NAIVE_HAS_CLAUSE = "MATCH (s:SLA {id: $sla_id}), (c:Clause {id: $id}) MERGE (s)-[:HAS_CLAUSE]->(c)"
NAIVE_OF_TYPE = ("MATCH (c:Clause {id: $id}), (t:ClauseType {name: $type}) "
                 "MERGE (c)-[r:OF_TYPE]->(t) SET r.confidence = $confidence, r.method = $method")
NAIVE_NEXT = "MATCH (a:Clause {id: $a}), (b:Clause {id: $b}) MERGE (a)-[:NEXT]->(b)"

# --- neo4j-graphrag peer: what a user of the library would write for the same questions ---
# relay: vector search, walk back to agreement and company, filter by attributes.
PEER_RELAY_RETRIEVAL = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(node)
WHERE (size($industries) = 0 OR co.industry IN $industries)
  AND (size($countries) = 0 OR co.country IN $countries)
MATCH (node)-[r:OF_TYPE]->(t:ClauseType)
RETURN co.name AS company, s.id AS sla_id, node.id AS clause_id, node.title AS clause_title,
       t.name AS clause_type, node.text AS text, score
ORDER BY score DESC
"""

# hybrid: full-text + vector, then the clause's agreement and company.
PEER_HYBRID_RETRIEVAL = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(node)
MATCH (node)-[r:OF_TYPE]->(t:ClauseType)
RETURN co.name AS company, s.id AS sla_id, node.id AS clause_id, node.title AS clause_title,
       t.name AS clause_type, node.text AS text, score
"""

# bench bookkeeping
CLAUSE_COUNT = "MATCH (c:Clause) RETURN count(c) AS n"
SAMPLE_COMPANIES = """
MATCH (co:Company)-[:HAS_SLA]->(:SLA)
RETURN co.name AS name, co.country AS country, co.industry AS industry
ORDER BY co.name SKIP $skip LIMIT $limit
"""

# --- scaling benchmark: memory of the benchmark's own server (JMX) ------------------------
# One read of the JVM's memory beans: heap, committed non-heap (metaspace, code cache), direct buffers.
JVM_MEMORY = ("CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes "
              "WITH attributes.HeapMemoryUsage.value.properties AS h, "
              "attributes.NonHeapMemoryUsage.value.properties AS n "
              "CALL dbms.queryJmx('java.nio:name=direct,type=BufferPool') YIELD attributes AS d "
              "RETURN h.used AS used, h.committed AS committed, h.max AS max, "
              "n.committed AS non_heap_committed, d.MemoryUsed.value AS direct_used")
# Neo4j 5 Community publishes no page-cache bean: besides the configured size, the page cache in
# use is estimated from the server's RSS (bench.scale.page_cache_estimate_mb).
PAGE_CACHE = ("SHOW SETTINGS YIELD name, value WHERE name = 'server.memory.pagecache.size' "
              "RETURN value AS page_cache_configured")

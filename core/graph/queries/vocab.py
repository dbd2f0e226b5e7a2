"""Values actually present in the graph, for the planner's entity linking."""

COMPANIES = """
MATCH (c:Company)
OPTIONAL MATCH (c)-[:LOCATED_AT]->(a:Address)
RETURN c.name AS name, coalesce(c.aliases, []) AS aliases, c.country AS country, c.industry AS industry,
       collect(DISTINCT a.city) AS cities
"""
AGREEMENTS = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
RETURN s.id AS id, co.name AS company, s.service_name AS service_name, s.governing_law AS governing_law,
       s.clause_count AS clause_count
"""
CLAUSE_TYPES = """
MATCH (t:ClauseType)
RETURN t.name AS name, t.description AS description, COUNT { (t)<-[:OF_TYPE]-() } AS clauses ORDER BY name
"""
SPEND_YEARS = """
MATCH (c:Company)
UNWIND keys(c) AS k
WITH k WHERE k =~ 'spend_[0-9]{4}'
RETURN DISTINCT toInteger(substring(k, 6)) AS year ORDER BY year
"""
SPEND_CATEGORIES = """
MATCH (k:SpendCategory)
RETURN k.name AS name ORDER BY name
"""
SPEND_CURRENCIES = """
MATCH (c:Company) WHERE c.spend_currency IS NOT NULL
RETURN DISTINCT c.spend_currency AS currency ORDER BY currency
"""
COMPANY_FULLTEXT = """
CALL db.index.fulltext.queryNodes('company_names', $q) YIELD node, score
RETURN node.name AS name, score LIMIT 5
"""

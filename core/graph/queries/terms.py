"""Contract terms: `(:SLA)-[:HAS_TERM]->(:Term)-[:STATED_IN]->(:Clause)` (docs/DATA_MODEL.md).

A Term holds one field's value of one agreement (`field`, shown `value`, and the typed `date`,
`days`, `number`, `unit`, `flag` that questions filter on), the evidence span in its clause, a
confidence and a `method` ('rule', or 'manual' for a reviewer's value, which re-ingest keeps).
"""

MANUAL_TERMS_OF_AGREEMENTS = """
UNWIND $ids AS id
MATCH (:SLA {id: id})-[:HAS_TERM]->(t:Term {method: 'manual'})
RETURN t.sla_id AS sla_id, t.field AS field, properties(t) AS props
"""

DELETE_TERMS_OF_AGREEMENTS = """
UNWIND $ids AS id
MATCH (:SLA {id: id})-[:HAS_TERM]->(t:Term)
DETACH DELETE t
"""

CREATE_TERMS = """
UNWIND $rows AS r
MATCH (s:SLA {id: r.sla_id})
CREATE (s)-[:HAS_TERM]->(t:Term)
SET t += r.props,
    t.date = CASE WHEN r.date IS NULL THEN null ELSE date(r.date) END
WITH t, r
OPTIONAL MATCH (c:Clause {id: r.clause_id})
FOREACH (_ IN CASE WHEN c IS NULL THEN [] ELSE [1] END | CREATE (t)-[:STATED_IN]->(c))
"""

_TERM_FIELDS = """t.field AS field, t.value AS value, toString(t.date) AS date, t.days AS days, t.number AS number,
       t.unit AS unit, t.flag AS flag, t.confidence AS confidence, t.method AS method, t.quote AS quote,
       t.derived AS derived, t.needs_review AS needs_review, t.evidence_start AS evidence_start,
       t.evidence_end AS evidence_end, c.id AS clause_id, c.title AS clause_title"""

TERMS_OF_AGREEMENT = f"""
MATCH (co:Company)-[:HAS_SLA]->(s:SLA {{id: $sla_id}})-[:HAS_TERM]->(t:Term)
OPTIONAL MATCH (t)-[:STATED_IN]->(c:Clause)
RETURN co.name AS company, s.id AS sla_id, {_TERM_FIELDS}
ORDER BY t.order
"""

TERM_REVIEW_QUEUE = f"""
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_TERM]->(t:Term)
WHERE t.needs_review AND t.method <> 'manual'
OPTIONAL MATCH (t)-[:STATED_IN]->(c:Clause)
RETURN co.name AS company, s.id AS sla_id, {_TERM_FIELDS}
ORDER BY t.confidence, s.id, t.order
LIMIT $limit
"""

SET_TERM_MANUAL = """
MATCH (s:SLA {id: $sla_id})
OPTIONAL MATCH (s)-[:HAS_TERM]->(old:Term {field: $field})
WITH s, collect(old) AS olds, [o IN collect(old) WHERE o.clause_id IS NOT NULL | o.clause_id][0] AS clause_id
FOREACH (o IN olds | DETACH DELETE o)
CREATE (s)-[:HAS_TERM]->(t:Term)
SET t += $props, t.clause_id = clause_id,
    t.date = CASE WHEN $date IS NULL THEN null ELSE date($date) END
WITH t, clause_id
OPTIONAL MATCH (c:Clause {id: clause_id})
FOREACH (_ IN CASE WHEN c IS NULL THEN [] ELSE [1] END | CREATE (t)-[:STATED_IN]->(c))
RETURN t.sla_id AS sla_id, t.field AS field, t.value AS value
"""

# One template for every term question: the field, and whichever bounds the question gives
# (null: no bound). A liability cap is compared in months of fees (a multiple of fees is 12 x).
TERMS_MATCHING = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_TERM]->(t:Term {field: $field})
WHERE (($date_from IS NULL OR t.date >= date($date_from))
  AND ($date_to IS NULL OR t.date < date($date_to))
  AND ($term_min IS NULL OR coalesce(CASE t.unit WHEN 'multiple_of_fees' THEN t.number * 12 ELSE null END,
                                     t.days, t.number) >= $term_min)
  AND ($term_max IS NULL OR coalesce(CASE t.unit WHEN 'multiple_of_fees' THEN t.number * 12 ELSE null END,
                                     t.days, t.number) <= $term_max)
  AND ($term_below IS NULL OR coalesce(CASE t.unit WHEN 'multiple_of_fees' THEN t.number * 12 ELSE null END,
                                       t.days, t.number) < $term_below)
  AND ($term_above IS NULL OR coalesce(CASE t.unit WHEN 'multiple_of_fees' THEN t.number * 12 ELSE null END,
                                       t.days, t.number) > $term_above)
  AND ($term_units IS NULL OR t.unit IN $term_units
       OR ('amount' IN $term_units AND NOT t.unit IN ['months_of_fees', 'multiple_of_fees', 'uncapped']))
  AND ($term_flag IS NULL OR t.flag = $term_flag)
  AND ($term_text IS NULL OR toLower(t.value) CONTAINS toLower($term_text))
  OR coalesce($or_uncapped, false) AND t.unit = 'uncapped')
  AND (size($companies) = 0 OR co.name IN $companies)
  AND (size($countries) = 0 OR co.country IN $countries)
  AND (size($industries) = 0 OR co.industry IN $industries)
  AND ($spend_min IS NULL OR co[$spend_key] >= $spend_min)
  AND ($spend_max IS NULL OR co[$spend_key] <= $spend_max)
OPTIONAL MATCH (t)-[:STATED_IN]->(c:Clause)
OPTIONAL MATCH (s)-[:HAS_TERM]->(x:Term {field: 'expiration_date'})
OPTIONAL MATCH (s)-[:HAS_TERM]->(n:Term {field: 'renewal_notice'})
OPTIONAL MATCH (s)-[:HAS_TERM]->(a:Term {field: 'auto_renewal'})
RETURN co.name AS company, s.id AS sla_id, s.service_name AS service_name, co[$spend_key] AS spend,
       t.field AS field, t.value AS value, t.quote AS quote, t.confidence AS confidence, t.derived AS derived,
       c.id AS clause_id, coalesce(c.title, 'Preamble') AS clause_title, coalesce(c.text, t.quote) AS text,
       c.type AS clause_type, c.position AS position,
       CASE WHEN c IS NULL THEN null ELSE t.evidence_start END AS span_start,
       CASE WHEN c IS NULL THEN null ELSE t.evidence_end END AS span_end,
       toString(x.date) AS expiration_date, x.value AS expiration_value, n.days AS renewal_notice_days,
       n.value AS renewal_notice, a.flag AS auto_renewal
ORDER BY coalesce(toString(t.date), ''), coalesce(t.days, t.number, 0), co.name, s.id
LIMIT $limit
"""

# Every agreement with what the renewals calendar and the playbook read: its terms as one map.
AGREEMENT_TERMS = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
OPTIONAL MATCH (s)-[:HAS_TERM]->(t:Term)
OPTIONAL MATCH (t)-[:STATED_IN]->(c:Clause)
WITH co, s, collect(CASE WHEN t IS NULL THEN null ELSE
     {field: t.field, value: t.value, date: toString(t.date), days: t.days, number: t.number, unit: t.unit,
      flag: t.flag, confidence: t.confidence, quote: t.quote, method: t.method, clause_id: c.id} END) AS terms
RETURN co.name AS company, co.country AS country, co.industry AS industry, co[$spend_key] AS spend,
       s.id AS sla_id, s.service_name AS service_name, toString(s.effective_date) AS csv_effective_date,
       s.governing_law AS csv_governing_law, terms
ORDER BY co.name, s.id
"""

TERM_COUNTS = """
MATCH (t:Term)
RETURN t.field AS field, count(*) AS terms, sum(CASE WHEN t.needs_review THEN 1 ELSE 0 END) AS to_review
"""

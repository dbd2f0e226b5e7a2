"""Compliance gap matrix and exploration queries."""
import textwrap

from core.graph.queries.retrieval import (agreement_exists, company_conditions, confident_types, met_types,
                                           spend_prop, where)


def _scope(active, spend: str) -> str:
    """The companies a gap report covers (core.gaps: those with at least one agreement)."""
    conds = company_conditions(active, spend) + ["co.n_agreements > 0"] + agreement_exists(active)
    return f"""MATCH (co:Company)
{where(conds)}""".replace("\n\n", "\n")


_CELLS = """[required IN $types | {type: required,
         count: coalesce(head([i IN range(0, size(typed) - 1) WHERE typed[i] = required
                               | co.clause_type_counts[i]]), 0),
         low_confidence: coalesce(head([i IN range(0, size(typed) - 1) WHERE typed[i] = required
                                        | co.clause_type_low_confidence[i]]), 0),
         met: required IN confident, review: required IN review_types}] AS cells"""


# One page's rows, after the ranking chose them: review state and per-type cells.
_PAGE_ROWS = f"""{confident_types("missing", "spend")}
RETURN co.name AS company, co.country AS country, co.industry AS industry, spend,
       coalesce(co.n_agreements, 0) AS agreements, [(co)-[:HAS_SLA]->(s:SLA) | s.id] AS sla_ids,
       [(co)-[:HAS_SLA]->(s:SLA) WHERE s.segmentation = 'paragraphs' | s.id] AS paragraph_slas,
       missing, {_CELLS}"""


def gap_matrix(active, spend: str = "spend_latest") -> str:
    """Companies (with at least one agreement) x required types: clause counts per cell, whether
    the requirement is met and whether low-confidence evidence awaits review.

    Read from the per-company counts that ingestion keeps (`co.clause_types` with its parallel
    `clause_type_counts` / `clause_type_low_confidence`, and `clause_types_review`) through
    `confident_types`, the definition the gap question uses too; a report over ten thousand
    suppliers reads one node per supplier instead of every clause. `$skip`/`$limit` page it in
    the order the dashboard ranks by: spend at risk (companies with gaps first), then spend.
    Ranking needs only what is met; the review state and the cells are worked out for the page.
    """
    return _scope(active, spend) + f"""
{met_types()}
WITH co, [required IN $types WHERE NOT required IN confident] AS missing, co.{spend_prop(spend)} AS spend
ORDER BY size(missing) = 0, spend DESC, co.name
SKIP $skip LIMIT $limit
{_PAGE_ROWS}"""


def gap_first_page(active, spend: str = "spend_latest", without_spend: bool = True) -> str:
    """The first `$limit` rows of `gap_matrix` when at least that many companies have gaps (the
    totals tell): then all are companies with gaps, those without spend first by name (a
    descending sort puts null first; `without_spend`: the totals counted some), then the highest
    spend. Each part walks an index (name, spend) and stops at `$limit` instead of ranking every
    company: over 100,000 suppliers a few thousand db hits instead of 700,000."""
    prop = spend_prop(spend)

    def part(where_spend: str, order: str, n: int) -> str:
        return textwrap.indent(_scope(active, spend) + f"""
  AND {where_spend}
{met_types()}
WITH co, [required IN $types WHERE NOT required IN confident] AS missing, co.{prop} AS spend
WHERE size(missing) > 0
WITH co, missing, spend ORDER BY {order} LIMIT $limit
RETURN co, missing, spend, {n} AS part""", "  ")

    nulls = (part(f"co.name IS NOT NULL AND co.{prop} IS NULL", "co.name", 0) + "\n  UNION ALL\n"
             if without_spend else "")
    return f"""CALL () {{
{nulls}{part(f"co.{prop} IS NOT NULL", "spend DESC, co.name", 1)}
}}
WITH co, missing, spend ORDER BY part, spend DESC, co.name LIMIT $limit
{_PAGE_ROWS}"""


def gap_order(active, spend: str = "spend_latest") -> str:
    """Every company of `gap_matrix` in its order, names only: the export ranks once, then reads
    its rows page by page with `gap_rows_of` (paging `gap_matrix` with SKIP ranked every company
    again for every page: 50 passes over 100,000 suppliers)."""
    return _scope(active, spend) + f"""
{met_types()}
WITH co, [required IN $types WHERE NOT required IN confident] AS missing, co.{spend_prop(spend)} AS spend
ORDER BY size(missing) = 0, spend DESC, co.name
RETURN co.name AS company"""


def gap_rows_of(spend: str = "spend_latest") -> str:
    """`gap_matrix`'s rows of the companies named in `$page_companies` (found by the name index)."""
    return f"""UNWIND $page_companies AS name
MATCH (co:Company {{name: name}})
{met_types()}
WITH co, [required IN $types WHERE NOT required IN confident] AS missing, co.{spend_prop(spend)} AS spend
{_PAGE_ROWS}"""


def gap_totals(active, spend: str = "spend_latest", n_types: int = 1) -> str:
    """The report's totals in one aggregation, without shipping a row per supplier: companies,
    companies with gaps, spend at risk, and per required type how many lack it / await review
    (`gaps_without_spend`: how `gap_first_page` ranks).

    One sum per required type (`n_types` of them, `$types[i]`): collecting every supplier's
    missing list and counting it type by type afterwards cost a third of the query at 100,000."""
    if n_types < 1:
        raise ValueError("a gap report needs at least one required type")
    per_type = "".join(
        f""",
     sum(CASE WHEN $types[{i}] IN missing THEN 1 ELSE 0 END) AS missing_{i},
     sum(CASE WHEN $types[{i}] IN missing AND $types[{i}] IN review_types THEN 1 ELSE 0 END) AS review_{i}"""
        for i in range(n_types))
    return _scope(active, spend) + f"""
{confident_types()}
WITH review_types, [required IN $types WHERE NOT required IN confident] AS missing, co.{spend_prop(spend)} AS spend
WITH count(*) AS companies, sum(CASE WHEN size(missing) > 0 THEN 1 ELSE 0 END) AS with_gaps,
     sum(CASE WHEN size(missing) > 0 THEN coalesce(spend, 0) ELSE 0 END) AS spend_at_risk,
     sum(CASE WHEN size(missing) > 0 AND spend IS NULL THEN 1 ELSE 0 END) AS gaps_without_spend{per_type}
RETURN companies, with_gaps, spend_at_risk, gaps_without_spend,
       [{", ".join(f"missing_{i}" for i in range(n_types))}] AS missing_by_type,
       [{", ".join(f"review_{i}" for i in range(n_types))}] AS review_by_type"""


COMPANY_LIST = """
MATCH (co:Company)
OPTIONAL MATCH (co)-[:HAS_SLA]->(s:SLA)
RETURN co.name AS name, co.country AS country, co.industry AS industry, co.spend_latest AS spend,
       collect(s.id) AS sla_ids
ORDER BY name
"""

AGREEMENT_LIST = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
RETURN s.id AS id, co.name AS company, s.service_name AS service_name, s.governing_law AS governing_law,
       toString(s.effective_date) AS effective_date, s.clause_count AS clauses, s.source_file AS source_file
ORDER BY id
"""

CLAUSE_TYPE_LIST = """
MATCH (t:ClauseType)
OPTIONAL MATCH (t)<-[:OF_TYPE]-(c:Clause)
RETURN t.name AS name, t.description AS description, count(c) AS clauses
ORDER BY name
"""

AGREEMENT_CLAUSES = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA {id: $sla_id})-[:HAS_CLAUSE]->(c:Clause)
      -[r:OF_TYPE {primary: true}]->(t:ClauseType)
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title, t.name AS clause_type,
       r.confidence AS confidence, r.method AS method, r.by_section AS by_section, c.position AS position,
       c.text AS text, coalesce(c.types, [t.name]) AS clause_types
ORDER BY c.position
"""

# neighbourhood of one node for the Explore page: ids are (label, key) chosen by the code
# Spend categories are hubs shared by many suppliers: the spend chart shows them, the walk skips them.
NEIGHBOURHOOD = """
MATCH (start) WHERE
  (start:Company AND start.name = $key AND $label = 'Company') OR
  (start:SLA AND start.id = $key AND $label = 'SLA') OR
  (start:Clause AND start.id = $key AND $label = 'Clause') OR
  (start:ClauseType AND start.name = $key AND $label = 'ClauseType') OR
  (start:Address AND start.id = $key AND $label = 'Address')
MATCH path = (start)-[*1..3]-(n)
WHERE length(path) <= $depth
  AND all(r IN relationships(path) WHERE type(r) <> 'SPENT')
  AND all(x IN nodes(path)[1..] WHERE size($labels) = 0 OR any(l IN labels(x) WHERE l IN $labels))
  AND all(x IN nodes(path) WHERE NOT x:Clause OR size($types) = 0
          OR EXISTS { MATCH (x)-[:OF_TYPE]->(tt:ClauseType) WHERE tt.name IN $types })
WITH path LIMIT $limit
UNWIND relationships(path) AS rel
WITH DISTINCT rel
RETURN elementId(startNode(rel)) AS source, elementId(endNode(rel)) AS target, type(rel) AS type,
       labels(startNode(rel))[0] AS source_label, labels(endNode(rel))[0] AS target_label,
       properties(startNode(rel)) AS source_props, properties(endNode(rel)) AS target_props
"""

NODE_BY_KEY = """
MATCH (n) WHERE
  (n:Company AND n.name = $key AND $label = 'Company') OR
  (n:SLA AND n.id = $key AND $label = 'SLA') OR
  (n:Clause AND n.id = $key AND $label = 'Clause') OR
  (n:ClauseType AND n.name = $key AND $label = 'ClauseType')
RETURN elementId(n) AS id, labels(n)[0] AS label, properties(n) AS props
LIMIT 1
"""


# The clauses holding only low-confidence evidence of a type (MAY_BE, or an automatic OF_TYPE
# below the review threshold: core.gaps), for the gap cells that are "review" rather than
# "none": one row per (company, type) asked.
REVIEW_CLAUSES = """
UNWIND $cells AS cell
MATCH (co:Company {name: cell.company})-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(c:Clause)-[m:MAY_BE|OF_TYPE]->(t:ClauseType)
WHERE t.name = cell.type
WITH cell, c, m ORDER BY m.confidence DESC, c.id
RETURN cell.company AS company, cell.type AS type, collect(DISTINCT c.id) AS clause_ids,
       max(m.confidence) AS confidence
"""

PARAGRAPH_SEGMENTED_AGREEMENTS = """
MATCH (co:Company)-[:HAS_SLA]->(s:SLA {segmentation: 'paragraphs'})
RETURN co.name AS company, s.id AS sla_id, s.source_file AS source_file, s.clause_count AS clauses
ORDER BY company, sla_id
"""

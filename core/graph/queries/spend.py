"""Spend questions: spend on categories, rankings, totals per group, one supplier over the years.

The yearly total lives on the company (`spend_<year>`, indexed, what thresholds read); the
category breakdown on `(:Company)-[:SPENT {year, amount, currency}]->(:SpendCategory)` edges
(docs/DATA_MODEL.md). Templates are small functions of the active filters, like those in
retrieval.py; the only interpolated pieces are the checked spend property and a group key
from a closed set.
"""
from __future__ import annotations

from core.graph.queries.retrieval import agreement_exists, company_conditions, spend_order, spend_prop, where

GROUP_KEYS = {"country": "co.country", "industry": "co.industry", "category": "k.name"}


def _edge_conditions(active: set[str], spend: str, by_year: bool = True) -> list[str]:
    conds = ["s.year = $year"] if by_year else []
    if "spend_categories" in active:
        conds.append("k.name IN $spend_categories")
    return conds + company_conditions(active - {"require_spend"}, spend) + agreement_exists(active)


def category_spend(active, spend: str = "spend_latest") -> str:
    """Per company, its spend in one year on the asked categories (the answer adds them up)."""
    conds = _edge_conditions(set(active), spend)
    return f"""MATCH (co:Company)-[s:SPENT]->(k:SpendCategory)
{where(conds)}
RETURN co.name AS company, co.country AS country, co.industry AS industry, sum(s.amount) AS spend,
       collect(k.name) AS categories
ORDER BY spend {spend_order(active)}, company
LIMIT $limit"""


def spend_by(group: str, active, spend: str = "spend_latest") -> str:
    """Spend totals per country, industry or category, added up in the database (every supplier
    counts, however many there are), with the largest suppliers of each group for citation."""
    if group not in GROUP_KEYS:
        raise ValueError(f"invalid spend grouping {group!r}")
    active = set(active)
    if group == "category" or "spend_categories" in active:
        match = "MATCH (co:Company)-[s:SPENT]->(k:SpendCategory)"
        conds, amount = _edge_conditions(active, spend), "s.amount"
    else:
        match = "MATCH (co:Company)"
        conds, amount = company_conditions(active | {"require_spend"}, spend) + agreement_exists(active), \
            f"co.{spend_prop(spend)}"
    return f"""{match}
{where(conds)}
WITH {GROUP_KEYS[group]} AS group_name, co, sum({amount}) AS company_spend
ORDER BY company_spend DESC, co.name
WITH group_name, sum(company_spend) AS spend, count(co) AS companies,
     collect({{company: co.name, spend: company_spend}})[..3] AS largest
RETURN group_name, spend, companies, largest
ORDER BY spend DESC, group_name
LIMIT $limit""".replace("\n\n", "\n")


def spend_history(active, spend: str = "spend_latest") -> str:
    """Named suppliers' spend per year and category ($year and $years null: every year)."""
    conds = _edge_conditions(set(active), spend, by_year=False) + [
        "($year IS NULL OR s.year = $year)", "($years IS NULL OR s.year IN $years)"]
    return f"""MATCH (co:Company)-[s:SPENT]->(k:SpendCategory)
{where(conds)}
RETURN co.name AS company, s.year AS year, k.name AS category, s.amount AS spend, s.currency AS currency
ORDER BY company, year, spend DESC, category
LIMIT $limit"""


# The Explore page's spend chart: one company's spend per year and category.
COMPANY_SPEND = """
MATCH (co:Company {name: $company})-[s:SPENT]->(k:SpendCategory)
RETURN s.year AS year, k.name AS category, s.amount AS amount, s.currency AS currency, s.rows AS rows,
       s.business_units AS business_units
ORDER BY year, amount DESC, category
"""

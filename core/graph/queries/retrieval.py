"""Retrieval templates of the question service (DESIGN §5). All parameterized.

Each template is a small function of the *set of active filters*, so the Cypher that runs
(and is shown to the analyst) contains only the conditions the question asked for, and
range indexes on the filtered properties can be used. The pieces are fixed strings owned by
the code; user values only ever arrive as `$parameters`. The one interpolated identifier
is the spend property, checked against `spend_<4 digits>` / `spend_latest`.
"""
from __future__ import annotations

import re
from typing import Iterable

from core.graph.queries.ingest import low_confidence_edge

_SPEND_PROP = re.compile(r"^spend_(\d{4}|latest)$")

COMPANY_CONDITIONS = {
    "companies": "co.name IN $companies",
    "countries": "co.country IN $countries",
    "industries": "co.industry IN $industries",
    "cities": "EXISTS { MATCH (co)-[:LOCATED_AT]->(a:Address) WHERE a.city IN $cities }",
    "exclude_companies": "NOT co.name IN $exclude_companies",
    "agreements_min": "co.n_agreements >= $agreements_min",
    "agreements_max": "co.n_agreements <= $agreements_max",
    # the asked year's spend against an earlier year's ($spend_key, $spend_from_key: spend_<year>)
    "spend_up": "co[$spend_from_key] IS NOT NULL AND co[$spend_key] > co[$spend_from_key]",
    "spend_down": "co[$spend_from_key] IS NOT NULL AND co[$spend_key] < co[$spend_from_key]",
}
AGREEMENT_CONDITIONS = {
    "sla_ids": "s.id IN $sla_ids",
    "governing_laws": "s.governing_law IN $governing_laws",
    "date_from": "s.effective_date >= date($date_from)",
    "date_to": "s.effective_date <= date($date_to)",
    # the agreement's law against the supplier's own country ($law_countries: law value -> country)
    # (an agreement whose law is not on file is under neither)
    "foreign_law": "s.governing_law <> '' AND coalesce($law_countries[s.governing_law], s.governing_law) <> co.country",
    "home_law": "s.governing_law <> '' AND coalesce($law_countries[s.governing_law], s.governing_law) = co.country",
}
AGREEMENT_KEYS = frozenset(AGREEMENT_CONDITIONS)


def spend_prop(name: str) -> str:
    if not _SPEND_PROP.match(name or ""):
        raise ValueError(f"invalid spend property {name!r}")
    return name


def company_conditions(active: Iterable[str], spend: str = "spend_latest") -> list[str]:
    active = set(active)
    conds = [c for k, c in COMPANY_CONDITIONS.items() if k in active]
    prop = spend_prop(spend)
    if "spend_min" in active:
        conds.append(f"co.{prop} > $spend_min")
    if "spend_max" in active:
        conds.append(f"co.{prop} < $spend_max")
    if "require_spend" in active and not ({"spend_min", "spend_max"} & active):
        conds.append(f"co.{prop} IS NOT NULL")
    if "top" in active:   # "our 3 biggest suppliers": the other conditions, then the $top by spend
        ranked = [re.sub(r"\bco\b", "ranked", c) for c in conds] + [f"ranked.{prop} IS NOT NULL"]
        conds = conds + [f"co.name IN COLLECT {{ MATCH (ranked:Company) {where(ranked)} "
                         f"RETURN ranked.name ORDER BY ranked.{prop} {spend_order(active)}, ranked.name LIMIT $top }}"]
    return conds


def spend_order(active: Iterable[str]) -> str:
    """A ranking by spend, highest first unless the question asks for the lowest."""
    return "ASC" if "lowest" in set(active) else "DESC"


def agreement_conditions(active: Iterable[str]) -> list[str]:
    active = set(active)
    return [c for k, c in AGREEMENT_CONDITIONS.items() if k in active]


def where(conds: list[str], keyword: str = "WHERE") -> str:
    return f"{keyword} " + "\n  AND ".join(conds) if conds else ""


def agreement_exists(active) -> list[str]:
    """Companies must have an agreement that passes the agreement filters (when any is set)."""
    conds = agreement_conditions(active)
    if not conds:
        return []
    return ["EXISTS { MATCH (co)-[:HAS_SLA]->(s:SLA) WHERE " + " AND ".join(conds) + " }"]


# A clause may carry several types (one OF_TYPE edge each, exactly one marked primary). A row
# per clause, never per edge: without a type filter the primary edge is read; with one, the
# clause's most confident edge among the asked types (and the clause is dropped without one).
# `span_start`/`span_end` locate the sentence that carries that type (null: the whole clause).
SPAN_RETURN = """r.evidence_start AS span_start, r.evidence_end AS span_end,
       coalesce(c.types, [t.name]) AS clause_types"""

CLAUSE_RETURN = """RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, """ + SPAN_RETURN

PRIMARY_TYPE = "MATCH (c)-[r:OF_TYPE {primary: true}]->(t:ClauseType)"

BEST_TYPE_OF_ASKED = """CALL (c) {
  MATCH (c)-[r:OF_TYPE]->(t:ClauseType) WHERE t.name IN $types
  RETURN r, t ORDER BY r.confidence DESC, t.name LIMIT 1
}"""


def clause_type_edge(typed: bool) -> str:
    """The (r, t) of clause c that a row shows: see SPAN_RETURN's comment."""
    return BEST_TYPE_OF_ASKED if typed else PRIMARY_TYPE


# an agreement's clauses of the asked types: those that meet a requirement when it has any (a
# section only weakly read as the type, "Orders and Forecasts" at Payment 0.31 beside "Price and
# Payment", is the gap definition's low-confidence evidence, shown only where nothing better is)
SURE_WHERE_ANY = f"""WHERE NOT {low_confidence_edge("r")} OR NOT EXISTS {{
  MATCH (s)-[:HAS_CLAUSE]->(:Clause)-[e:OF_TYPE]->(x:ClauseType) WHERE x.name IN $types AND NOT {low_confidence_edge("e")} }}"""


def document_clauses(active, spend="spend_latest") -> str:
    """Document-anchored: a company's agreements, walked along NEXT from the first clause."""
    conds = company_conditions(active, spend) + agreement_conditions(active)
    typed = "types" in set(active)
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{where(conds)}
MATCH (s)-[:HAS_CLAUSE]->(first:Clause)
WHERE NOT EXISTS {{ MATCH (:Clause)-[:NEXT]->(first) }}
MATCH path = (first)-[:NEXT*0..]->(c:Clause)
{clause_type_edge(typed)}
{"WITH co, s, c, r, t, path " + SURE_WHERE_ANY if typed else ""}
WITH co, s, c, r, t, length(path) AS step
ORDER BY co.name, s.id, step
{CLAUSE_RETURN}
LIMIT $limit""".replace("\n\n", "\n")


# "the clause after the maintenance clause": with several types per clause, a clause that only
# mentions maintenance also carries the type; the anchor is, per agreement, the clause the type is
# primary for, the most confident first (several only on a tie), else the one that carries it best
_BEST_TYPED_ANCHORS = """CALL (anchor) {
  MATCH (anchor)-[r:OF_TYPE]->(at:ClauseType) WHERE at.name IN $types
  RETURN max(CASE WHEN r.primary THEN 2.0 ELSE 0.0 END + coalesce(r.confidence, 0.0)) AS fit
}
WITH co, s, anchor, fit ORDER BY fit DESC
WITH co, s, collect({a: anchor, fit: fit}) AS found
UNWIND [x IN found WHERE x.fit = found[0].fit | x.a] AS anchor"""


def neighbour_clause(active, direction: str, spend="spend_latest") -> str:
    """The clause after/before an anchor clause (by type, or by id, or by title words)."""
    active = set(active)
    conds = company_conditions(active, spend) + agreement_conditions(active)
    if "anchor_ids" in active:
        conds.append("anchor.id IN $anchor_ids")
    elif "types" in active:
        conds.append("EXISTS { MATCH (anchor)-[:OF_TYPE]->(at:ClauseType) WHERE at.name IN $types }")
    else:
        conds.append("toLower(anchor.title) CONTAINS toLower($anchor_text)")
    step = "(anchor)-[:NEXT]->(c:Clause)" if direction == "after" else "(c:Clause)-[:NEXT]->(anchor)"
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(anchor:Clause)
{where(conds)}
{_BEST_TYPED_ANCHORS if "types" in active and "anchor_ids" not in active else ""}
MATCH {step}
{PRIMARY_TYPE}
{CLAUSE_RETURN}, anchor.id AS anchor_id, anchor.title AS anchor_title
ORDER BY s.id, anchor.position
LIMIT $limit"""


def heading_number_pattern(n: int, roman: str, chinese: str) -> str:
    """A regular expression for a heading, as written, that carries the number n: "3. Fees",
    "## 3 Fees", "Section 3 - Fees", "ARTICLE III", "§ 3", "第三条 …" (not "3.1 Priorities", not
    "13. Taxes")."""
    return (r"(?is)^[#*\s]*(?:(?:(?:section|article|clause|paragraph|art\.)\s*|§\s*)?"
            rf"(?:0*{n}(?![\d]|\.\d)|{roman}(?![A-Za-z]))(?:[.):\-–—]|\s|$)|第\s*(?:{chinese}|0*{n})\s*[条章节]).*")


def clause_numbered(active, spend="spend_latest") -> str:
    """"Section 3" of each agreement: the first clause whose heading carries the number
    (`$heading_number`, from `heading_number_pattern`); in an agreement none of whose headings
    does, the `$position`-th clause along NEXT. `by_number` says which was found."""
    conds = company_conditions(active, spend) + agreement_conditions(active)
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{where(conds)}
OPTIONAL MATCH (s)-[:HAS_CLAUSE]->(headed:Clause) WHERE headed.heading =~ $heading_number
WITH co, s, headed ORDER BY headed.position
WITH co, s, collect(headed)[0] AS headed
MATCH (s)-[:HAS_CLAUSE]->(first:Clause)
WHERE NOT EXISTS {{ MATCH (:Clause)-[:NEXT]->(first) }}
MATCH path = (first)-[:NEXT*0..]->(c:Clause)
WHERE c = headed OR (headed IS NULL AND length(path) + 1 = $position)
{PRIMARY_TYPE}
{CLAUSE_RETURN}, headed IS NOT NULL AS by_number
ORDER BY company, sla_id
LIMIT $limit""".replace("\n\n", "\n")


def clause_at(active, from_end: bool, spend="spend_latest") -> str:
    """The clause at a place in each agreement, counted along NEXT: the `$position`-th from the
    first clause (1-based), or with `from_end` the `$position`-th from the last one (1: the
    clause with no NEXT after it; 2: the penultimate)."""
    conds = company_conditions(active, spend) + agreement_conditions(active)
    if from_end:
        walk = """MATCH (s)-[:HAS_CLAUSE]->(last:Clause)
WHERE NOT EXISTS { MATCH (last)-[:NEXT]->(:Clause) }
MATCH path = (c:Clause)-[:NEXT*0..]->(last)
WHERE length(path) + 1 = $position"""
    else:
        walk = """MATCH (s)-[:HAS_CLAUSE]->(first:Clause)
WHERE NOT EXISTS { MATCH (:Clause)-[:NEXT]->(first) }
MATCH path = (first)-[:NEXT*0..]->(c:Clause)
WHERE length(path) + 1 = $position"""
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{where(conds)}
{walk}
{PRIMARY_TYPE}
{CLAUSE_RETURN}
ORDER BY company, sla_id
LIMIT $limit""".replace("\n\n", "\n")


def count_agreements(active, spend="spend_latest", order: str | None = None) -> str:
    """The agreements that pass the filters; `order` "earliest" / "latest": the first $agreement_top
    of them by effective date (agreements without a date are left out of a ranking); "most" /
    "fewest": those of the $agreement_top suppliers with the most / fewest of them."""
    conds = company_conditions(active, spend) + agreement_conditions(active)
    if order in {"most", "fewest"}:
        return _agreements_of_ranked_companies(conds, order)
    if order:
        conds.append("s.effective_date IS NOT NULL")
    sort = (f"s.effective_date {'ASC' if order == 'earliest' else 'DESC'}, co.name, s.id" if order
            else "co.name, s.id")
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{where(conds)}
RETURN co.name AS company, s.id AS sla_id, s.service_name AS service_name, s.governing_law AS governing_law,
       toString(s.effective_date) AS effective_date, co[$spend_key] AS spend
ORDER BY {sort}
LIMIT {'$agreement_top' if order else '$limit'}"""


def agreements_not_mentioning(active, spend="spend_latest") -> str:
    """"Which contracts don't mention GDPR?": the agreements none of whose clauses holds all of
    `$mentions` (as `mentioning_clauses` reads a clause: heading and text, lower case)."""
    conds = company_conditions(active - {"mentions"}, spend) + agreement_conditions(active) + [
        "NOT EXISTS { MATCH (s)-[:HAS_CLAUSE]->(c:Clause) "
        "WHERE all(word IN $mentions WHERE toLower(coalesce(c.title, '') + ' ' + c.text) CONTAINS word) }"]
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{where(conds)}
RETURN co.name AS company, s.id AS sla_id, s.service_name AS service_name, s.governing_law AS governing_law,
       toString(s.effective_date) AS effective_date, co[$spend_key] AS spend
ORDER BY co.name, s.id
LIMIT $limit"""


def _agreements_of_ranked_companies(conds: list[str], order: str) -> str:
    """Suppliers ranked by how many agreements pass the filters, ties at the $agreement_top-th
    place kept (two suppliers with 3 each are both "the most"), with their agreements and the
    next count outside the ranking (`next_count`, so the answer can say how far ahead they are)."""
    desc = order == "most"
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{where(conds)}
WITH co, count(s) AS n
ORDER BY n {'DESC' if desc else 'ASC'}, co.name
WITH collect({{co: co, n: n}}) AS ranked
WITH ranked, ranked[CASE WHEN size(ranked) < $agreement_top THEN -1 ELSE $agreement_top - 1 END].n AS cutoff
WITH ranked, cutoff, [r IN ranked WHERE r.n {'<' if desc else '>'} cutoff | r.n][0] AS next_count
UNWIND ranked AS row
WITH row.co AS co, row.n AS agreements, next_count
WHERE agreements {'>=' if desc else '<='} cutoff
MATCH (co)-[:HAS_SLA]->(s:SLA)
{where(conds)}
RETURN co.name AS company, s.id AS sla_id, s.service_name AS service_name, s.governing_law AS governing_law,
       toString(s.effective_date) AS effective_date, co[$spend_key] AS spend, agreements, next_count
ORDER BY agreements {'DESC' if desc else 'ASC'}, company, sla_id
LIMIT $limit"""


# "termination clauses that mention notice": every word in the clause text ($mentions, lower case)
MENTIONS = "WHERE all(word IN $mentions WHERE toLower(c.text) CONTAINS word)"
# "which suppliers promise 99.9% uptime?", "which contracts provide for arbitration?": the clause
# states every quantity and has every facet of its type asked (`$details`: one whole-text pattern
# each, from core.retrieval.quantities and core.retrieval.facets); a facet that is also a type
# (`$detail_types[i]`, else null) is met as well by a clause typed so that is also of an asked type
# (a termination clause typed Change of Control, not an assignment clause with a merger carve-out)
def details_of(clause: str) -> str:
    return (f"all(i IN range(0, size($details) - 1) WHERE {clause}.text =~ $details[i]"
            f" OR (EXISTS {{ ({clause})-[:OF_TYPE]->(:ClauseType {{name: $detail_types[i]}}) }}"
            f" AND EXISTS {{ ({clause})-[:OF_TYPE]->(asked:ClauseType) WHERE asked.name IN $types }}))")


DETAILS = details_of("c")


def clause_details(mentions: bool, details: bool) -> str:
    """The WHERE a clause of a listed type must pass: the words, quantities and facets the question asks of it."""
    return where(([MENTIONS.removeprefix("WHERE ")] if mentions else []) + ([DETAILS] if details else []))


def mentioning_clauses(active, spend="spend_latest", indexed: bool = True) -> str:
    """Every clause whose heading or text holds all of `$mentions` ("every clause that mentions
    arbitration"), not the few closest in meaning: candidates from the full-text index
    (`$mention_query`, each word required, as a prefix), then each word checked in the text;
    words the index cannot find ("IT") are checked in every clause (`indexed=False`)."""
    conds = company_conditions(active - {"mentions"}, spend) + agreement_conditions(active)
    found = ("CALL db.index.fulltext.queryNodes('clause_text', $mention_query) YIELD node AS c" if indexed
             else "MATCH (c:Clause)")
    return f"""{found}
WITH c WHERE all(word IN $mentions WHERE toLower(coalesce(c.title, '') + ' ' + c.text) CONTAINS word)
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c)
{where(conds)}
{PRIMARY_TYPE}
{CLAUSE_RETURN}
ORDER BY co.name, s.id, c.position
LIMIT $limit""".replace("\n\n", "\n")


def clause_type_clauses(start: str = "companies", mentions: bool = False, details: bool = False) -> str:
    """Clause-type pivot: a type's clauses across agreements, with company context, the first
    `$limit` by company name, agreement and position.

    Two plans with the same rows, chosen by how common the types are (`ClauseTypeRetriever`):
    * "companies": companies in name order from the name index, only those whose precomputed
      type list (`co.clause_types`, every type of an OF_TYPE edge of theirs, kept by ingest and
      corrections) holds an asked type, until `$limit` rows are filled: a common type stops
      after a few hundred companies;
    * "types": from the asked ClauseType nodes to their clauses, then the first `$limit`: a
      rare type reads its few clauses instead of every company's type list.
    A company without the precomputed list (a graph loaded before it existed) is walked.
    """
    if start == "types":
        return f"""MATCH (asked:ClauseType)<-[:OF_TYPE]-(c:Clause) WHERE asked.name IN $types
WITH DISTINCT c
{clause_details(mentions, details)}
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c)
WHERE co.name IS NOT NULL
WITH co, s, c ORDER BY co.name, s.id, c.position LIMIT $limit
{BEST_TYPE_OF_ASKED}
{CLAUSE_RETURN}
ORDER BY company, sla_id, position""".replace("\n\n", "\n")
    if start != "companies":
        raise ValueError(f"unknown start {start!r}: 'companies' or 'types'")
    return f"""MATCH (co:Company) WHERE co.name IS NOT NULL
  AND (co.clause_types IS NULL OR any(held IN co.clause_types WHERE held IN $types))
WITH co ORDER BY co.name
MATCH (co)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)
{clause_details(mentions, details)}
{BEST_TYPE_OF_ASKED}
{CLAUSE_RETURN}
ORDER BY company, sla_id, position
LIMIT $limit""".replace("\n\n", "\n")


def attribute_clauses(active, spend="spend_latest") -> str:
    """Attribute-first: filter companies/agreements, then read their clauses of the types."""
    return f"""MATCH (co:Company)
{where(company_conditions(active, spend))}
MATCH (co)-[:HAS_SLA]->(s:SLA)
{where(agreement_conditions(active))}
MATCH (s)-[:HAS_CLAUSE]->(c:Clause)
{clause_details("mentions" in set(active), "details" in set(active))}
{BEST_TYPE_OF_ASKED}
{CLAUSE_RETURN}
ORDER BY co.name, s.id, c.position
LIMIT $limit""".replace("\n\n", "\n")


def type_gaps(active, match: str = "all", spend="spend_latest", present_match: str | None = None) -> str:
    """Gap query: companies whose agreements have no confident clause of the required types.

    Reads the per-company type sets and counts that ingestion and manual corrections keep up
    to date (one node per company instead of every clause), through `confident_types`: the one
    definition of a gap (core.gaps) that the gap report uses too. Companies without any
    agreement are not gaps; they are answered by `no_agreement`.
    `present_match` ("a termination clause but no service credits"; "all" or "any"):
    `$gap_types` are the types lacked and `$present_types` the types a company must have, while
    `$types` holds both, so the type sets are read once. A type is held as the presence
    question holds it (any clause typed so), lacked as a gap is (no confident clause).
    """
    conds = company_conditions(active, spend) + ["co.n_agreements > 0"] + agreement_exists(active)
    lacked, selected = _gap_selection(match, present_match)
    return f"""MATCH (co:Company)
{where(conds)}
{confident_types()}
WITH co, typed, review_types, [required IN {lacked} WHERE NOT required IN confident] AS missing
WHERE {selected}
WITH co, review_types, missing, co.{spend_prop(spend)} AS spend
ORDER BY spend DESC, co.name
LIMIT $limit
{REVIEW_EVIDENCE}
RETURN co.name AS company, co.country AS country, co.industry AS industry, spend, missing,
       review_only, review_clause_ids
ORDER BY spend DESC, company"""


def _gap_selection(match: str, present_match: str | None) -> tuple[str, str]:
    """The list of lacked types, and the condition on `missing` (and `typed`) a gap row meets."""
    lacked = "$gap_types" if present_match else "$types"
    selected = "size(missing) > 0" if match == "any" else f"size(missing) = size({lacked})"
    if present_match:
        # held as the presence question holds a type: any clause typed so, as its answer lists
        held = "any" if present_match == "any" else "all"
        selected += f" AND {held}(required IN $present_types WHERE required IN typed)"
    return lacked, selected


def detail_clauses(active, spend="spend_latest", by_spend: bool = False) -> str:
    """Every clause that has the details asked (`$details`), whatever it is typed: a detail the
    taxonomy marks as written anywhere (`Facet.anywhere`: "delete our data when the contract ends"
    sits in termination clauses as often as in data protection ones). The clause's primary type
    is shown. `by_spend`: the highest spend first, as presence answers are ordered."""
    order = "coalesce(spend, -1) DESC, company, sla_id, position" if by_spend else "company, sla_id, position"
    return f"""MATCH (co:Company)
{where(company_conditions(active, spend))}
MATCH (co)-[:HAS_SLA]->(s:SLA)
{where(agreement_conditions(active))}
MATCH (s)-[:HAS_CLAUSE]->(c:Clause)
WHERE {DETAILS}
{PRIMARY_TYPE}
{CLAUSE_RETURN}, co[$spend_key] AS spend, [] AS review_only
ORDER BY {order}
LIMIT $limit""".replace("\n\n", "\n")


def detail_gaps(active, match: str = "all", spend="spend_latest", anywhere: bool = False) -> str:
    """`type_gaps` when the question asks for a detail of the type ("which suppliers have no
    arbitration clause?", "who does not promise 99.9% uptime?"): a type is met by a confident clause
    of it that has the details (`$details`), so the per-company type sets cannot answer and the
    companies' clauses are read. `review_only` / `review_clause_ids` as `type_gaps` gives them:
    the missing types of which a low-confidence clause has the details."""
    conds = company_conditions(active, spend) + ["co.n_agreements > 0"] + agreement_exists(active)
    lacked, selected = _gap_selection(match, None)
    if anywhere:   # `detail_clauses`' reading: any clause with the details meets every asked type
        return f"""MATCH (co:Company)
{where(conds)}
WITH co, CASE WHEN EXISTS {{
  MATCH (co)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)
  {where(agreement_conditions(active) + [DETAILS])}
}} THEN [] ELSE {lacked} END AS missing
WHERE {selected}
WITH co, missing, co.{spend_prop(spend)} AS spend
ORDER BY spend DESC, co.name
LIMIT $limit
RETURN co.name AS company, co.country AS country, co.industry AS industry, spend, missing,
       [] AS review_only, [] AS review_clause_ids
ORDER BY spend DESC, company"""
    scope = "\n    AND ".join(agreement_conditions(active) + ["t.name IN $types", DETAILS])
    return f"""MATCH (co:Company)
{where(conds)}
CALL (co) {{
  OPTIONAL MATCH (co)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)-[e:OF_TYPE|MAY_BE]->(t:ClauseType)
  WHERE {scope}
  WITH c, e, t, type(e) = 'OF_TYPE' AND NOT {low_confidence_edge("e")} AS sure
  ORDER BY c.id
  RETURN collect(DISTINCT t.name) AS typed, collect(DISTINCT CASE WHEN sure THEN t.name END) AS confident,
         collect(DISTINCT CASE WHEN NOT sure THEN c.id END) AS unsure_clause_ids
}}
WITH co, typed, unsure_clause_ids, [required IN {lacked} WHERE NOT required IN confident] AS missing
WHERE {selected}
WITH co, missing, [m IN missing WHERE m IN typed] AS review_only, unsure_clause_ids, co.{spend_prop(spend)} AS spend
ORDER BY spend DESC, co.name
LIMIT $limit
RETURN co.name AS company, co.country AS country, co.industry AS industry, spend, missing, review_only,
       CASE WHEN size(review_only) > 0 THEN unsure_clause_ids ELSE [] END AS review_clause_ids
ORDER BY spend DESC, company"""


def agreement_gaps(active, match: str = "all", spend="spend_latest", present_match: str | None = None) -> str:
    """`type_gaps` one agreement at a time ("which contracts have no governing-law clause?"): a
    supplier with two agreements is listed for the one that lacks the type even when the other has
    it. The same definition of a gap, read from the agreement's own clauses (`low_confidence_edge`,
    as the per-company counts are built); `review_only` / `review_clause_ids` as `type_gaps` gives.
    With `details` active only clauses that have them count ("which contracts lack an arbitration
    clause?", as `detail_gaps`)."""
    conds = company_conditions(active, spend)
    lacked, selected = _gap_selection(match, present_match)
    detail = {v: f" AND {details_of(v)}" if "details" in set(active) else "" for v in ("c", "mc", "rc")}
    return f"""MATCH (co:Company)
{where(conds)}
MATCH (co)-[:HAS_SLA]->(s:SLA)
{where(agreement_conditions(active))}
CALL (s) {{
  OPTIONAL MATCH (s)-[:HAS_CLAUSE]->(c:Clause)-[e:OF_TYPE]->(t:ClauseType)
  WHERE t.name IN $types{detail["c"]}
  RETURN collect(DISTINCT t.name) AS typed,
         collect(DISTINCT CASE WHEN NOT {low_confidence_edge("e")} THEN t.name END) AS confident
}}
WITH co, s, typed, confident, [required IN {lacked} WHERE NOT required IN confident] AS missing
WHERE {selected}
WITH co, s, missing, [m IN missing WHERE m IN typed OR EXISTS {{
       MATCH (s)-[:HAS_CLAUSE]->(mc:Clause)-[:MAY_BE]->(:ClauseType {{name: m}}) WHERE true{detail["mc"]} }}] AS review_only,
     co.{spend_prop(spend)} AS spend
ORDER BY spend DESC, co.name, s.id
LIMIT $limit
CALL (s, review_only) {{
  OPTIONAL MATCH (s)-[:HAS_CLAUSE]->(rc:Clause)-[:MAY_BE|OF_TYPE]->(rt:ClauseType)
  WHERE size(review_only) > 0 AND rt.name IN review_only{detail["rc"]}
  WITH rc ORDER BY rc.id
  RETURN collect(DISTINCT rc.id) AS review_clause_ids
}}
RETURN co.name AS company, s.id AS sla_id, s.service_name AS service_name, s.governing_law AS governing_law,
       toString(s.effective_date) AS effective_date, co.country AS country, co.industry AS industry, spend,
       missing, review_only, review_clause_ids
ORDER BY spend DESC, company, sla_id""".replace("\n\n", "\n")


# The one definition of a gap (core.gaps), from the precomputed per-company counts: a type is
# met (`confident`) when at least one of its clauses is not a low-confidence automatic one;
# `review_types` are the types whose only evidence is low-confidence: typed below the review
# threshold, or only MAY_BE. Read by the gap question and by the gap report alike.
# Only the asked types (`$types`) are looked at: over 100,000 suppliers a pass over every type a
# company carries cost more than reading its properties (`confident` holds asked types only).
def met_types(*carry: str) -> str:
    """`confident` (and `typed`, the company's type list) per company, keeping `carry` columns."""
    keep = "".join(f", {c}" for c in carry)
    return f"""WITH co{keep}, coalesce(co.clause_types, []) AS typed, coalesce(co.clause_type_counts, []) AS n_typed,
     coalesce(co.clause_type_low_confidence, []) AS n_low
WITH co{keep}, typed, n_typed, n_low, [i IN range(0, size(typed) - 1) WHERE typed[i] IN $types] AS asked
WITH co{keep}, typed, n_typed, n_low, asked,
     [i IN asked WHERE n_typed[i] > coalesce(n_low[i], 0) | typed[i]] AS confident"""


def confident_types(*carry: str) -> str:
    """`met_types` plus `review_types` (asked types with only low-confidence evidence, and MAY_BE types)."""
    keep = "".join(f", {c}" for c in carry)
    return met_types(*carry) + f"""
WITH co{keep}, typed, confident, [i IN asked WHERE n_typed[i] <= coalesce(n_low[i], 0) | typed[i]]
       + coalesce(co.clause_types_review, []) AS review_types"""


# "Only low-confidence evidence" apart from "none": of a company's missing types, those with
# review evidence, with the clauses that carry it (low-confidence OF_TYPE or MAY_BE).
REVIEW_EVIDENCE = """WITH co, missing, spend, [m IN missing WHERE m IN review_types] AS review_only
CALL (co, review_only) {
  OPTIONAL MATCH (co)-[:HAS_SLA]->(:SLA)-[:HAS_CLAUSE]->(rc:Clause)-[:MAY_BE|OF_TYPE]->(rt:ClauseType)
  WHERE size(review_only) > 0 AND rt.name IN review_only
  WITH rc ORDER BY rc.id
  RETURN collect(DISTINCT rc.id) AS review_clause_ids
}"""


def presence_clauses(active, match: str = "all", spend="spend_latest") -> str:
    """Companies that have (all | any of) the types, with the clauses that show it, the highest
    spend first (as gap lists and company lists are ordered).

    A type is held when any clause is typed so, and `review_only` names the held types whose
    clauses are all low-confidence (`low_confidence_edge`, the gap definition): the same
    company is a gap with review evidence in a gap answer, so both answers say so."""
    conds = company_conditions(active, spend)
    selected = "size(present) > 0" if match == "any" else "size(present) = size($types)"
    return f"""MATCH (co:Company)
{where(conds)}
MATCH (co)-[:HAS_SLA]->(s:SLA)
{where(agreement_conditions(active))}
MATCH (s)-[:HAS_CLAUSE]->(c:Clause)
{clause_details(False, "details" in set(active))}
{BEST_TYPE_OF_ASKED}
WITH co, s, c, r, t, [(c)-[:OF_TYPE]->(x:ClauseType) WHERE x.name IN $types | x.name] AS matched,
     [(c)-[e:OF_TYPE]->(x:ClauseType) WHERE x.name IN $types AND NOT {low_confidence_edge("e")} | x.name] AS sure
WITH co, reduce(acc = [], m IN collect(matched) | acc + m) AS found,
     reduce(acc = [], m IN collect(sure) | acc + m) AS confident,
     collect({{sla_id: s.id, clause_id: c.id, clause_title: c.title, clause_type: t.name,
              confidence: r.confidence, method: r.method, position: c.position, text: c.text,
              span_start: r.evidence_start, span_end: r.evidence_end,
              clause_types: coalesce(c.types, [t.name])}}) AS clauses
WITH co, clauses, confident, [x IN $types WHERE x IN found] AS present
WHERE {selected}
WITH co, clauses, [x IN present WHERE NOT x IN confident] AS review_only
UNWIND clauses AS cl
RETURN co.name AS company, cl.sla_id AS sla_id, cl.clause_id AS clause_id, cl.clause_title AS clause_title,
       cl.clause_type AS clause_type, cl.confidence AS confidence, cl.method AS method,
       cl.position AS position, cl.text AS text, cl.span_start AS span_start, cl.span_end AS span_end,
       cl.clause_types AS clause_types, co[$spend_key] AS spend, review_only
ORDER BY coalesce(spend, -1) DESC, company, sla_id, position
LIMIT $limit""".replace("\n\n", "\n")


def no_agreement(active, spend="spend_latest") -> str:
    """Suppliers without any agreement. The precomputed `n_agreements` (the gap report's scope)
    rules out the others before their relationships are read (inside CASE, or the planner tests
    the relationships first): over 100,000 suppliers that walked half a million of them."""
    conds = company_conditions(active, spend) + [
        "CASE WHEN coalesce(co.n_agreements, 0) > 0 THEN false ELSE NOT EXISTS { MATCH (co)-[:HAS_SLA]->(:SLA) } END"]
    return f"""MATCH (co:Company)
{where(conds)}
RETURN co.name AS company, co.country AS country, co.industry AS industry, co[$spend_key] AS spend
ORDER BY spend DESC, company
LIMIT $limit"""


def companies(active, spend="spend_latest", with_location: bool = False) -> str:
    """Companies that pass the filters; `with_location`: their addresses too (read only then,
    for the rows returned)."""
    conds = company_conditions(active, spend) + agreement_exists(active)
    return f"""MATCH (co:Company)
{where(conds)}
RETURN co.name AS company, co.country AS country, co.industry AS industry, co[$spend_key] AS spend{
    ", co[$spend_from_key] AS spend_before" if {"spend_up", "spend_down"} & set(active) else ""}{
    ", [(co)-[:LOCATED_AT]->(a:Address) | {street: a.street, city: a.city, country: a.country}] AS locations"
    if with_location else ""}
ORDER BY spend {spend_order(active)}, company
LIMIT $limit""".replace("\n\n", "\n")


def _clause_scope(active, spend) -> str:
    conds = company_conditions(active, spend) + agreement_conditions(active)
    return where(conds + ([DETAILS] if "details" in set(active) else []))


# Per-agreement cap, then the best $k. Only node references travel through the cap; properties
# (the clause text above all) are read for the $k rows returned, not for every candidate.
_CAP_AND_RETURN = """WITH co, s, c, r, t, score ORDER BY score DESC
WITH s, collect({co: co, c: c, r: r, t: t, score: score})[0..$per_agreement] AS best
UNWIND best AS row
WITH s, row.co AS co, row.c AS c, row.r AS r, row.t AS t, row.score AS score
ORDER BY score DESC, c.id
LIMIT $k
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, r.evidence_start AS span_start, r.evidence_end AS span_end,
       coalesce(c.types, [t.name]) AS clause_types, score
ORDER BY score DESC, clause_id"""
_CAPPED_RETURN = "WHERE score >= $min_score\n" + _CAP_AND_RETURN


def relay_vector(active, spend="spend_latest") -> str:
    """Relay: vector search, then walk back to agreement and company and filter by attributes.

    At most `$per_agreement` clauses per agreement and none below `$min_score` (seed 001).
    """
    return f"""CALL db.index.vector.queryNodes('clause_embeddings', $candidates, $vector) YIELD node AS c, score
MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c)
{_clause_scope(active, spend)}
{clause_type_edge("types" in set(active))}
WITH co, s, c, r, t, score
{_CAPPED_RETURN}""".replace("\n\n", "\n")


def relay_exact(active, spend="spend_latest") -> str:
    """Relay over a small filtered set: exact cosine, so no candidate is lost to a top-k cut."""
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)
{_clause_scope(active, spend)}
{clause_type_edge("types" in set(active))}
WITH co, s, c, r, t, vector.similarity.cosine(c.embedding, $vector) AS score
{_CAPPED_RETURN}""".replace("\n\n", "\n")


def document_topic(active, spend="spend_latest") -> str:
    """A known company's clauses ranked by similarity to the question's topic."""
    conds = company_conditions(active, spend) + agreement_conditions(active)
    return f"""MATCH (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause)-[r:OF_TYPE {{primary: true}}]->(t:ClauseType)
{where(conds)}
WITH co, s, c, r, t, vector.similarity.cosine(c.embedding, $vector) AS score
WITH collect({{co: co, s: s, c: c, r: r, t: t, score: score}}) AS all, max(score) AS top
UNWIND all AS x
WITH x.co AS co, x.s AS s, x.c AS c, x.r AS r, x.t AS t, x.score AS score, top
WHERE score >= $min_score AND score >= top - $band
{CLAUSE_RETURN}, score
ORDER BY score DESC
LIMIT $k""".replace("\n\n", "\n")


def filtered_clause_count(active, spend="spend_latest") -> str:
    """All clauses; the clauses of the agreements that pass the company/agreement filters
    (from each agreement's stored clause count: one row per agreement, not per clause);
    and, when types are asked for, the clauses of those types (node degrees). Details a clause
    must state are no agreement filter: they narrow the search itself (`relay_exact`)."""
    active = set(active)
    typed = ("CALL () { MATCH (t:ClauseType)<-[:OF_TYPE]-(tc:Clause) WHERE t.name IN $types "
             "RETURN count(DISTINCT tc) AS typed }\n") if "types" in active else ""
    typed_return = "typed" if typed else "total AS typed"
    return f"""MATCH (every:Clause) WITH count(every) AS total
{typed}OPTIONAL MATCH (co:Company)-[:HAS_SLA]->(s:SLA)
{_clause_scope(active - {"types", "details"}, spend)}
RETURN total, {typed_return}, coalesce(sum(s.clause_count), 0) AS n""".replace("\n\n", "\n")


def hybrid_fused(active, spend="spend_latest", fulltext: bool = True) -> str:
    """Hybrid in one query: `$candidates` BM25 hits and `$candidates` vector hits, each re-scored
    by exact cosine (the index's quantized score is not), fused as `core.search.linear_fuse` does
    with normalize="max" ($w_fulltext x BM25/max + $w_vector x cosine/max, a missing score counts
    0), then the question's filters, at most `$per_agreement` per agreement, the best `$k`.
    One round trip, and the Cypher shown re-runs to the rows shown. `fulltext=False` when the
    question has no searchable words. The company is matched before the cap only when a company
    filter needs it, the primary type edge only for the `$k` rows kept: every agreement has its
    company and every clause one primary type, so the rows are the same for less work."""
    bm25 = ("CALL db.index.fulltext.queryNodes('clause_text', $query, {limit: $candidates}) YIELD node, score\n"
            "  RETURN node, score AS bm25\n  UNION ALL\n  ") if fulltext else ""
    companies_first = bool(company_conditions(active, spend))
    scope = "(co:Company)-[:HAS_SLA]->(s:SLA)" if companies_first else "(s:SLA)"
    keep = "co: co, c: c" if companies_first else "c: c"
    unpack = "row.co AS co, row.c AS c" if companies_first else "row.c AS c"
    company_later = "" if companies_first else "MATCH (co:Company)-[:HAS_SLA]->(s)\n"
    return f"""CALL () {{
  {bm25}CALL db.index.vector.queryNodes('clause_embeddings', $candidates, $vector) YIELD node
  RETURN node, null AS bm25
}}
WITH node AS c, max(bm25) AS bm25
WITH c, bm25, vector.similarity.cosine(c.embedding, $vector) AS cosine
WITH collect({{c: c, bm25: bm25, cosine: cosine}}) AS pool, max(bm25) AS top_bm25, max(cosine) AS top_cosine
UNWIND pool AS x
WITH x.c AS c,
     $w_fulltext * CASE WHEN top_bm25 > 0 THEN coalesce(x.bm25 / top_bm25, 0.0) ELSE 0.0 END +
     $w_vector * CASE WHEN top_cosine > 0 THEN coalesce(x.cosine / top_cosine, 0.0) ELSE 0.0 END AS score
MATCH {scope}-[:HAS_CLAUSE]->(c)
{_clause_scope(active, spend)}
WITH s, c, score{", co" if companies_first else ""} ORDER BY score DESC
WITH s, collect({{{keep}, score: score}})[0..$per_agreement] AS best
UNWIND best AS row
WITH s, {unpack}, row.score AS score
ORDER BY score DESC, c.id
LIMIT $k
{company_later}MATCH (c)-[r:OF_TYPE {{primary: true}}]->(t:ClauseType)
RETURN co.name AS company, s.id AS sla_id, c.id AS clause_id, c.title AS clause_title,
       t.name AS clause_type, r.confidence AS confidence, r.method AS method,
       c.position AS position, c.text AS text, r.evidence_start AS span_start, r.evidence_end AS span_end,
       coalesce(c.types, [t.name]) AS clause_types, score
ORDER BY score DESC, clause_id""".replace("\n\n", "\n")


TOTAL_CLAUSES = "MATCH (c:Clause) RETURN count(c) AS n"

RANK_BY_VECTOR = """
MATCH (c:Clause) WHERE c.id IN $ids
RETURN c.id AS clause_id, vector.similarity.cosine(c.embedding, $vector) AS score
"""

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def used_params(cypher: str, params: dict) -> dict:
    """Only the parameters the query text references (what the analyst needs to re-run it)."""
    names = set(_PARAM.findall(cypher))
    return {k: v for k, v in params.items() if k in names}

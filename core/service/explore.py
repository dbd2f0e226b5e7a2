"""Looking around the graph: the lists the pages offer, one node's neighbourhood, counts."""
from __future__ import annotations

from dataclasses import dataclass

from core.graph import vocabulary as graph_cache
from core.graph.db import Database, get_database
from core.graph.queries import reports as qr
from core.graph.queries import spend as qs
from core.types import jsonable

NODE_LABELS = ("Company", "SLA", "Clause", "ClauseType", "Address")


def list_companies(db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.COMPANY_LIST)


def list_agreements(db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.AGREEMENT_LIST)


def list_clause_types(db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.CLAUSE_TYPE_LIST)


def agreement_clauses(sla_id: str, db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.AGREEMENT_CLAUSES, {"sla_id": sla_id})


def clause_type_names() -> list[str]:
    from core.taxonomy import type_names

    return type_names()


def spend_years(db: Database | None = None) -> list[int]:
    """Years that have spend data, for the gap report's year filter."""
    return list(graph_cache.vocabulary(db or get_database()).spend_years)


def spend_currency(db: Database | None = None) -> str | None:
    """The base currency every spend total is in (None when the data names none), for column labels."""
    return graph_cache.vocabulary(db or get_database()).base_currency


@dataclass
class CompanySpend:
    """One supplier's spend per year and category (the Explore page's chart), in the base currency."""

    company: str
    currency: str | None
    rows: list[dict]          # year, category, amount, rows (source lines), business_units

    @property
    def years(self) -> list[int]:
        return sorted({r["year"] for r in self.rows})

    @property
    def categories(self) -> list[str]:
        """Largest total first, so the chart's legend reads in order of weight."""
        totals: dict[str, float] = {}
        for r in self.rows:
            totals[r["category"]] = totals.get(r["category"], 0.0) + float(r["amount"] or 0)
        return sorted(totals, key=lambda c: (-totals[c], c))

    def totals(self) -> dict[int, float]:
        out: dict[int, float] = {}
        for r in self.rows:
            out[r["year"]] = out.get(r["year"], 0.0) + float(r["amount"] or 0)
        return out

    def series(self) -> dict[str, list[float]]:
        """category -> amount per year (in `years` order): one bar segment each."""
        cells = {(r["year"], r["category"]): float(r["amount"] or 0) for r in self.rows}
        return {c: [cells.get((y, c), 0.0) for y in self.years] for c in self.categories}


def company_spend(company: str, db: Database | None = None) -> CompanySpend:
    """A supplier's spend by year and category, read from its SPENT edges."""
    rows = (db or get_database()).read(qs.COMPANY_SPEND, {"company": company})
    currencies = {r["currency"] for r in rows if r.get("currency")}
    return CompanySpend(company=company, currency=currencies.pop() if len(currencies) == 1 else None,
                        rows=[{k: r[k] for k in ("year", "category", "amount", "rows", "business_units")} for r in rows])


@dataclass
class CompanyFacets:
    """The distinct values a company list can be filtered by, sorted."""

    countries: list[str]
    industries: list[str]


def company_facets(companies: list[dict]) -> CompanyFacets:
    return CompanyFacets(countries=sorted({c["country"] for c in companies if c.get("country")}),
                         industries=sorted({c["industry"] for c in companies if c.get("industry")}))


def neighbourhood(label: str, key: str, depth: int = 2, labels: list[str] | None = None,
                  types: list[str] | None = None, limit: int = 300, db: Database | None = None) -> dict:
    """Subgraph around one node, for the Explore page (nodes with their properties)."""
    if label not in NODE_LABELS:
        raise ValueError(f"label must be one of {', '.join(NODE_LABELS)}")
    depth = max(1, min(int(depth), 3))
    db = db or get_database()
    rows = db.read(qr.NEIGHBOURHOOD, {"label": label, "key": key, "depth": depth, "labels": list(labels or []),
                                      "types": list(types or []), "limit": int(limit)})
    nodes: dict[str, dict] = {}
    edges = []
    for r in rows:
        for side in ("source", "target"):
            nid = r[side]
            if nid not in nodes:
                props = {k: v for k, v in (r[f"{side}_props"] or {}).items() if k != "embedding"}
                nodes[nid] = {"id": nid, "label": r[f"{side}_label"], "name": _display_name(r[f"{side}_label"], props),
                              "props": jsonable(props)}
        edges.append({"source": r["source"], "target": r["target"], "type": r["type"]})
    if not nodes:
        start = db.read(qr.NODE_BY_KEY, {"label": label, "key": key})
        for s in start:
            props = {k: v for k, v in (s["props"] or {}).items() if k != "embedding"}
            nodes[s["id"]] = {"id": s["id"], "label": s["label"], "name": _display_name(s["label"], props),
                              "props": jsonable(props)}
    return {"nodes": list(nodes.values()), "edges": edges}


def label_counts(subgraph: dict) -> list[dict]:
    """How many nodes of each label a subgraph holds, most first (ties in order of appearance)."""
    counts: dict[str, int] = {}
    for n in subgraph.get("nodes") or []:
        counts[n["label"]] = counts.get(n["label"], 0) + 1
    return [{"label": k, "nodes": v} for k, v in sorted(counts.items(), key=lambda kv: -kv[1])]


def _display_name(label: str, props: dict) -> str:
    if label == "Clause":
        return f"{props.get('id', '')} {props.get('title', '')}".strip()
    if label == "Address":
        return ", ".join(str(props.get(k)) for k in ("street", "city") if props.get(k))
    return str(props.get("name") or props.get("id") or label)


def graph_stats(db: Database | None = None) -> dict:
    from core.ingest.pipeline import graph_counts

    return graph_counts(db)

"""The compliance-gap report: companies x required clause types, a zero is a gap.

Also the data behind the Compliance-gaps page's heatmap and table (cell counts, labels and
colour scale), so the page only draws what it is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from core import gaps
from core.graph import vocabulary as graph_cache
from core.graph.db import Database, get_database
from core.graph.queries import reports as qr
from core.graph.queries import retrieval as qretrieval
from core.graph.queries.retrieval import used_params
from core.retrieval.retrievers import active_filters, base_params
from core.types import Intent, Mode, Plan, PlanParams

DEFAULT_REQUIRED = ("Termination", "Liability", "Data Protection")
ALL_ROWS = 10_000_000        # "no limit" for the paged gap queries
EXPORT_TIMEOUT_S = 120.0     # ranking every supplier once for an export (names only)


@dataclass
class GapRow:
    company: str
    country: str | None
    industry: str | None
    spend: float | None
    agreements: int
    sla_ids: list[str]
    counts: dict[str, int]
    low_confidence: dict[str, int]
    missing: list[str]
    # of the missing types, those with only low-confidence evidence: type -> clause ids to review
    review: dict[str, list[str]] = field(default_factory=dict)
    paragraph_slas: list[str] = field(default_factory=list)   # agreements split by paragraphs

    def state(self, type_name: str) -> str:
        """"present" (met: core.gaps), "review" (only low-confidence evidence) or "none"."""
        if type_name not in self.missing:
            return "present"
        return "review" if self.review.get(type_name) else "none"


@dataclass
class NoAgreementRow:
    """A supplier in the report's scope with no agreement at all: listed apart, never a gap."""
    company: str
    country: str | None
    industry: str | None
    spend: float | None


@dataclass
class GapReport:
    required: list[str]
    filters: dict[str, Any]
    spend_year: int | None
    rows: list[GapRow] = field(default_factory=list)
    cypher: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    currency: str | None = None       # the base currency of every spend figure (None: the data names none)
    no_agreement: list[NoAgreementRow] = field(default_factory=list)

    @property
    def spend_label(self) -> str:
        """"spend at risk" says which year and currency it adds up, so no one reads it as another."""
        cur = f", {self.currency}" if self.currency else ""
        return f"{self.spend_year or 'latest year on file'}{cur}"

    def definition(self, lang: str = "en") -> str:
        return gaps.statement(lang, self.spend_year, self.currency)

    @property
    def companies_with_gaps(self) -> list[GapRow]:
        return [r for r in self.rows if r.missing]

    @property
    def review_cells(self) -> list[dict]:
        """Missing cells with low-confidence evidence: what a reviewer should look at first."""
        return [{"company": r.company, "type": t, "clause_ids": ids}
                for r in self.rows for t, ids in r.review.items()]

    @property
    def segmentation_warnings(self) -> list[str]:
        """Agreements without recognisable headings: split by paragraphs, types less certain."""
        return [f"{r.company}: {sla} has no recognisable section headings; it was split by paragraphs"
                for r in self.rows for sla in r.paragraph_slas]

    @property
    def spend_at_risk(self) -> float:
        return sum(r.spend or 0 for r in self.companies_with_gaps)

    @property
    def most_often_missing(self) -> tuple[str | None, int]:
        """The required type the most companies lack, with how many; (None, 0) without gaps."""
        worst = max(self.totals()["missing_by_type"].items(), key=lambda kv: kv[1], default=(None, 0))
        return worst if worst[1] else (None, 0)

    def shown_rows(self, only_gaps: bool = False) -> list[GapRow]:
        return self.companies_with_gaps if only_gaps else self.rows

    def row(self, company: str) -> GapRow | None:
        return next((r for r in self.rows if r.company == company), None)

    def totals(self) -> dict:
        return {"companies": len(self.rows), "companies_with_gaps": len(self.companies_with_gaps),
                "spend_at_risk": self.spend_at_risk, "without_agreement": len(self.no_agreement),
                "missing_by_type": {t: sum(1 for r in self.rows if t in r.missing) for t in self.required},
                "review_by_type": {t: sum(1 for r in self.rows if t in r.review) for t in self.required}}

    def to_dict(self, only_gaps: bool = False) -> dict:
        """`only_gaps` lists only the companies with gaps; totals still count every company in scope."""
        filters = {**self.filters, "only_gaps": True} if only_gaps else self.filters
        return {"required": self.required, "filters": filters, "spend_year": self.spend_year,
                "currency": self.currency, "definition": self.definition(), "totals": self.totals(),
                "rows": [r.__dict__ for r in self.shown_rows(only_gaps)],
                "no_agreement": [r.__dict__ for r in self.no_agreement],
                "review": self.review_cells, "warnings": self.segmentation_warnings}

    def filter_statement(self, only_gaps: bool = False) -> str:
        """The scope of the report in words, so an export says what it was cut from (`only_gaps`: the
        rows shown are the companies with gaps, however that was asked)."""
        f = self.filters
        parts = [f"required: {', '.join(self.required)}"]
        for key, label in (("countries", "country"), ("industries", "industry"), ("cities", "city")):
            if f.get(key):
                parts.append(f"{label}: {', '.join(f[key])}")
        cur = f" {self.currency}" if self.currency else ""
        if f.get("min_spend"):
            parts.append(f"spend ≥ {f['min_spend']:,.0f}{cur}")
        if f.get("max_spend"):
            parts.append(f"spend ≤ {f['max_spend']:,.0f}{cur}")
        parts.append(f"spend year: {self.spend_year or 'latest on file'}")
        if only_gaps or f.get("only_gaps"):
            parts.append("only companies with gaps")
        return "; ".join(parts)

    def iter_csv(self, only_gaps: bool = False, rows: Iterable[GapRow] | None = None) -> Iterator[str]:
        """The CSV export line by line (what the page and the CLI write), its scope and the gap
        definition first as `#` comment lines (pandas: `read_csv(..., comment="#")`). `rows`: a
        stream of rows instead of the report's own (see `export_gaps_csv`)."""
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf)

        def flush() -> str:
            out = buf.getvalue()
            buf.seek(0)
            buf.truncate()
            return out

        yield f"# Compliance gaps. {self.filter_statement(only_gaps)}\n"
        yield f"# {self.definition()}\n"
        cur = f" ({self.currency})" if self.currency else ""
        w.writerow(["company", "country", "industry", f"spend_{self.spend_year or 'latest'}{cur}", "agreements"]
                   + [f"{t} clauses" for t in self.required] + ["missing", "low-confidence evidence only"])
        yield flush()
        for r in (self.shown_rows(only_gaps) if rows is None else rows):
            w.writerow([r.company, r.country or "", r.industry or "", "" if r.spend is None else f"{r.spend:.2f}",
                        r.agreements] + [r.counts.get(t, 0) for t in self.required] + ["; ".join(r.missing)]
                       + ["; ".join(f"{t}: {' '.join(ids)}" for t, ids in r.review.items())])
            yield flush()

    def to_csv(self, only_gaps: bool = False) -> str:
        return "".join(self.iter_csv(only_gaps))

    def to_markdown(self, only_gaps: bool = False) -> str:
        t = self.totals()
        cur = f" {self.currency}" if self.currency else ""
        head = (f"# Compliance gaps\n\nRequired clause types: {', '.join(self.required)}. "
                f"{t['companies_with_gaps']} of {t['companies']} companies have gaps; "
                f"spend at risk ({self.spend_label}): {t['spend_at_risk']:,.0f}{cur}. "
                "? marks a missing type with only low-confidence evidence (listed for review).\n\n"
                f"Scope: {self.filter_statement(only_gaps)}.\n\n"
                f"{self.definition()}\n\n")
        head += "".join(f"> Warning: {w}\n" for w in self.segmentation_warnings) + (
            "\n" if self.segmentation_warnings else "")
        cols = ["Company", "Country", "Industry", f"Spend ({self.spend_label})"] + self.required + ["Missing"]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in self.shown_rows(only_gaps):
            cells = [r.company, r.country or "", r.industry or "", "" if r.spend is None else f"{r.spend:,.0f}"]
            cells += [_markdown_cell(r, ty) for ty in self.required]
            cells.append(", ".join(r.missing) or "—")
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        review = [f"- {c['company']}, {c['type']}: {', '.join(c['clause_ids'])}" for c in self.review_cells]
        tail = ("\n## Low-confidence evidence only (review)\n\n" + "\n".join(review) + "\n") if review else ""
        if self.no_agreement:
            tail += ("\n## No agreement on file (not counted as gaps)\n\n"
                     + "\n".join(f"- {r.company}" for r in self.no_agreement) + "\n")
        return head + "\n".join(lines) + "\n" + tail


def _markdown_cell(r: GapRow, t: str) -> str:
    state = r.state(t)
    if state == "present":
        low = r.low_confidence.get(t, 0)
        return f"✓ {r.counts[t]}" + (f" (+{low} low conf.)" if low else "")
    return f"? 0 ({len(r.review[t])} to review)" if state == "review" else "✗ 0"


@dataclass
class GapQuery:
    """A validated gap request: the Cypher parameters and templates every view of it reads."""
    required: list[str]
    spend_year: int | None
    params: dict[str, Any]
    active: set[str]
    currency: str | None
    filters: dict[str, Any]


def _gap_query(required, countries, industries, cities, min_spend, max_spend, year, db: Database) -> GapQuery:
    from core.taxonomy import type_names

    known = type_names()
    required = [t for t in required if t]
    unknown = [t for t in required if t not in known]
    if unknown:
        raise ValueError(f"unknown clause type(s): {', '.join(unknown)}; known: {', '.join(known)}")
    if not required:
        raise ValueError("choose at least one required clause type")
    vocab = graph_cache.vocabulary(db)
    if year is not None and year not in vocab.spend_years:
        raise ValueError(f"no spend data for {year}; years present: {', '.join(map(str, vocab.spend_years)) or 'none'}")
    plan = Plan(intent=Intent.GAP, mode=Mode.ATTRIBUTE, params=PlanParams(
        countries=list(countries), industries=list(industries), cities=list(cities),
        spend_min=min_spend, spend_max=max_spend, spend_year=year))
    params = base_params(plan)
    params.update(types=list(required), skip=0)
    return GapQuery(list(required), year, params, active_filters(params) - {"types"}, vocab.base_currency,
                    {"countries": list(countries), "industries": list(industries), "cities": list(cities),
                     "min_spend": min_spend, "max_spend": max_spend})


def gap_report(required: list[str] | tuple = DEFAULT_REQUIRED, countries=(), industries=(), cities=(),
               min_spend: float | None = None, max_spend: float | None = None, year: int | None = None,
               db: Database | None = None, limit: int | None = None) -> GapReport:
    """Every supplier in scope (or the first `limit`, ranked by spend at risk) x required types,
    by the one definition of a gap (core.gaps), plus the suppliers with no agreement at all."""
    db = db or get_database()
    return _report(db, _gap_query(required, countries, industries, cities, min_spend, max_spend, year, db), limit)


def _report(db: Database, gq: GapQuery, limit: int | None, cypher: str | None = None) -> GapReport:
    """`cypher`: a query for the same rows as `gap_matrix`'s first `limit` (gap_summary's)."""
    cypher = cypher or qr.gap_matrix(gq.active, gq.params["spend_key"])
    params = used_params(cypher, {**gq.params, "limit": limit if limit is not None else ALL_ROWS})
    report = GapReport(required=gq.required, spend_year=gq.spend_year, cypher=cypher, params=params,
                       currency=gq.currency, filters=gq.filters)
    report.rows = [_gap_row(r, gq.required) for r in db.read(cypher, params)]
    _attach_review_clauses(db, report)
    if not qretrieval.agreement_conditions(gq.active):   # an agreement filter leaves them out of scope
        no_agr = qretrieval.no_agreement(gq.active, gq.params["spend_key"])
        report.no_agreement = [NoAgreementRow(r["company"], r["country"], r["industry"],
                                              None if r["spend"] is None else float(r["spend"]))
                               for r in db.read(no_agr, used_params(no_agr, {**gq.params, "limit": ALL_ROWS}))]
    return report


def iter_gap_rows(required: list[str] | tuple = DEFAULT_REQUIRED, countries=(), industries=(), cities=(),
                  min_spend: float | None = None, max_spend: float | None = None, year: int | None = None,
                  db: Database | None = None, page_size: int = 2_000, only_gaps: bool = False) -> Iterator[GapRow]:
    """Every supplier's row in the report's order, read page by page: an export of 100,000
    suppliers streams instead of being built in memory at once. The order is taken once (names
    only), then each page's rows are read by name: the cost grows with the suppliers, not with
    suppliers x pages as paging the ranked query with SKIP did."""
    db = db or get_database()
    gq = _gap_query(required, countries, industries, cities, min_spend, max_spend, year, db)
    order = qr.gap_order(gq.active, gq.params["spend_key"])
    names = [r["company"] for r in db.read(order, used_params(order, gq.params), timeout=EXPORT_TIMEOUT_S)]
    cypher = qr.gap_rows_of(gq.params["spend_key"])
    for start in range(0, len(names), max(1, page_size)):
        chunk = names[start:start + max(1, page_size)]
        got = {r["company"]: r for r in
               db.read(cypher, used_params(cypher, {**gq.params, "page_companies": chunk}))}
        page = GapReport(gq.required, gq.filters, gq.spend_year)
        page.rows = [_gap_row(got[name], gq.required) for name in chunk if name in got]  # gone since: left out
        _attach_review_clauses(db, page)
        for row in page.rows:
            if only_gaps and not row.missing:   # companies with gaps come first: the rest have none
                return
            yield row


def export_gaps_csv(required: list[str] | tuple = DEFAULT_REQUIRED, countries=(), industries=(), cities=(),
                    min_spend: float | None = None, max_spend: float | None = None, year: int | None = None,
                    db: Database | None = None, only_gaps: bool = False) -> Iterator[str]:
    """The full CSV export, streamed: the same lines as `gap_report(...).to_csv(only_gaps)`."""
    db = db or get_database()
    head = gap_report(required, countries, industries, cities, min_spend, max_spend, year, db=db, limit=0)
    head.filters["only_gaps"] = only_gaps
    rows = iter_gap_rows(required, countries, industries, cities, min_spend, max_spend, year, db=db,
                         only_gaps=only_gaps)
    yield from head.iter_csv(rows=rows)


@dataclass
class GapSummary:
    """What the Compliance-gaps page shows first: totals, spend at risk and the first page of
    suppliers ranked by spend at risk, computed in the database (no row per supplier shipped)."""
    report: GapReport               # the first page only (report.rows)
    companies: int
    companies_with_gaps: int
    spend_at_risk: float
    missing_by_type: dict[str, int]
    review_by_type: dict[str, int]


def gap_summary(required: list[str] | tuple = DEFAULT_REQUIRED, countries=(), industries=(), cities=(),
                min_spend: float | None = None, max_spend: float | None = None, year: int | None = None,
                db: Database | None = None, page_size: int = 50) -> GapSummary:
    db = db or get_database()
    gq = _gap_query(required, countries, industries, cities, min_spend, max_spend, year, db)
    cypher = qr.gap_totals(gq.active, gq.params["spend_key"], len(gq.required))
    t = db.read(cypher, used_params(cypher, gq.params))[0]
    # with a page's worth of companies with gaps, the first page holds only those: found from indexes
    only_gaps = 0 < page_size <= int(t["with_gaps"])
    page = qr.gap_first_page(gq.active, gq.params["spend_key"], bool(t["gaps_without_spend"])) if only_gaps else None
    first = _report(db, gq, page_size, page)
    return GapSummary(first, int(t["companies"]), int(t["with_gaps"]), float(t["spend_at_risk"] or 0),
                      dict(zip(gq.required, map(int, t["missing_by_type"]))),
                      dict(zip(gq.required, map(int, t["review_by_type"]))))


def _gap_row(r: dict, required: list[str]) -> GapRow:
    cells = {c["type"]: c for c in r["cells"]}
    return GapRow(company=r["company"], country=r["country"], industry=r["industry"],
                  spend=None if r["spend"] is None else float(r["spend"]), agreements=int(r["agreements"]),
                  sla_ids=list(r["sla_ids"]), counts={t: int(c["count"]) for t, c in cells.items()},
                  low_confidence={t: int(c["low_confidence"]) for t, c in cells.items()},
                  missing=[t for t in required if not cells[t]["met"]],
                  paragraph_slas=list(r.get("paragraph_slas") or []),
                  review={t: [] for t in required if not cells[t]["met"] and cells[t]["review"]})


def _attach_review_clauses(db: Database, report: GapReport) -> None:
    """The clause ids behind each "only low-confidence evidence" cell (only those cells are read)."""
    cells = [{"company": r.company, "type": t} for r in report.rows for t in r.review]
    if not cells:
        return
    by_company = {r.company: r for r in report.rows}   # report.row() is a scan: 100,000 x cells
    for row in db.read(qr.REVIEW_CLAUSES, {"cells": cells}):
        gap_row = by_company.get(row["company"])
        if gap_row is not None and row["clause_ids"]:
            gap_row.review[row["type"]] = list(row["clause_ids"])
    for r in report.rows:   # a review cell whose clauses are gone since the counts were taken is a plain gap
        for t in [t for t, ids in r.review.items() if not ids]:
            del r.review[t]


# ---------------------------------------------------------------------------------------
# what the Compliance-gaps page draws
# ---------------------------------------------------------------------------------------

MISSING_COLOUR = "#cf222e"
PRESENT_COLOURS = ("#c6e6c9", "#1a7f37")   # few -> many clauses


@dataclass
class GapHeatmap:
    """Companies (y) x required types (x); a zero cell is red, any clause is green."""

    companies: list[str]
    types: list[str]
    counts: list[list[int]]
    labels: list[list[str]]
    zmax: int
    colorscale: list[list]


def gap_heatmap(rows: list[GapRow], required: list[str]) -> GapHeatmap:
    # an unmet requirement is red even when low-confidence clauses exist (core.gaps): z = 0
    counts = [[r.counts.get(t, 0) if r.state(t) == "present" else 0 for t in required] for r in rows]
    labels = [[("✗ missing" if r.state(t) == "none" else
                f"? needs review ({len(r.review[t])})" if r.state(t) == "review" else
                f"{r.counts[t]}" + (f" (+{r.low_confidence.get(t, 0)} low conf.)" if r.low_confidence.get(t) else ""))
               for t in required] for r in rows]
    zmax = max(2, max((max(row) for row in counts if row), default=0))
    # a step at 0.5 clause: every zero is red however large the largest count is
    step = 0.5 / zmax
    colorscale = [[0.0, MISSING_COLOUR], [step, MISSING_COLOUR], [step + 1e-9, PRESENT_COLOURS[0]],
                  [1.0, PRESENT_COLOURS[1]]]
    return GapHeatmap([r.company for r in rows], list(required), counts, labels, zmax, colorscale)


def _table_cell(r: GapRow, t: str) -> str:
    n = r.counts.get(t, 0)
    if r.state(t) != "present":
        ids = r.review.get(t)
        return f"? needs review: {', '.join(ids)}" if ids else "✗ missing"
    low = r.low_confidence.get(t, 0)
    return f"✓ {n}" + (f" ⚠ {low} low-confidence" if low else "")


def gap_table(rows: list[GapRow], required: list[str]) -> list[dict]:
    """One dict per company: its facts, a ✓/✗ cell per required type, and what it lacks."""
    return [{"company": r.company, "country": r.country, "industry": r.industry, "spend": r.spend,
             "agreements": r.agreements, **{t: _table_cell(r, t) for t in required},
             "missing": ", ".join(r.missing) or "—"} for r in rows]

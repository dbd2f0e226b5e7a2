"""The compliance-gap report: companies x required clause types, a zero is a gap.

Also the data behind the Compliance-gaps page's heatmap and table (cell counts, labels and
colour scale), so the page only draws what it is given.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.graph import vocabulary as graph_cache
from core.graph.db import Database, get_database
from core.graph.queries import reports as qr
from core.graph.queries.retrieval import used_params
from core.retrieval.retrievers import active_filters, base_params
from core.types import Intent, Mode, Plan, PlanParams

DEFAULT_REQUIRED = ("Termination", "Liability", "Data Protection")


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
        """"present", "review" (only low-confidence evidence) or "none" (no clause of the type)."""
        if self.counts.get(type_name, 0) > 0:
            return "present"
        return "review" if self.review.get(type_name) else "none"


@dataclass
class GapReport:
    required: list[str]
    filters: dict[str, Any]
    spend_year: int | None
    rows: list[GapRow] = field(default_factory=list)
    cypher: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    currency: str | None = None       # the base currency of every spend figure (None: the data names none)

    @property
    def spend_label(self) -> str:
        """"spend at risk" says which year and currency it adds up, so no one reads it as another."""
        cur = f", {self.currency}" if self.currency else ""
        return f"{self.spend_year or 'latest'}{cur}"

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
                "spend_at_risk": self.spend_at_risk,
                "missing_by_type": {t: sum(1 for r in self.rows if t in r.missing) for t in self.required},
                "review_by_type": {t: sum(1 for r in self.rows if t in r.review) for t in self.required}}

    def to_dict(self) -> dict:
        return {"required": self.required, "filters": self.filters, "spend_year": self.spend_year,
                "currency": self.currency, "totals": self.totals(), "rows": [r.__dict__ for r in self.rows],
                "review": self.review_cells, "warnings": self.segmentation_warnings}

    def to_csv(self) -> str:
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf)
        cur = f" ({self.currency})" if self.currency else ""
        w.writerow(["company", "country", "industry", f"spend_{self.spend_year or 'latest'}{cur}", "agreements"]
                   + [f"{t} clauses" for t in self.required] + ["missing", "low-confidence evidence only"])
        for r in self.rows:
            w.writerow([r.company, r.country or "", r.industry or "", "" if r.spend is None else f"{r.spend:.2f}",
                        r.agreements] + [r.counts.get(t, 0) for t in self.required] + ["; ".join(r.missing)]
                       + ["; ".join(f"{t}: {' '.join(ids)}" for t, ids in r.review.items())])
        return buf.getvalue()

    def to_markdown(self) -> str:
        t = self.totals()
        head = (f"# Compliance gaps\n\nRequired clause types: {', '.join(self.required)}. "
                f"{t['companies_with_gaps']} of {t['companies']} companies have gaps; "
                f"spend at risk ({self.spend_label}): {t['spend_at_risk']:,.0f}"
                + (f" {self.currency}" if self.currency else "") + ". "
                "? marks a missing type with only low-confidence evidence (listed for review).\n\n")
        head += "".join(f"> Warning: {w}\n" for w in self.segmentation_warnings) + (
            "\n" if self.segmentation_warnings else "")
        cols = ["Company", "Country", "Industry", f"Spend ({self.spend_label})"] + self.required + ["Missing"]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in self.rows:
            cells = [r.company, r.country or "", r.industry or "", "" if r.spend is None else f"{r.spend:,.0f}"]
            cells += [_markdown_cell(r, ty) for ty in self.required]
            cells.append(", ".join(r.missing) or "—")
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        review = [f"- {c['company']}, {c['type']}: {', '.join(c['clause_ids'])}" for c in self.review_cells]
        tail = ("\n## Low-confidence evidence only (review)\n\n" + "\n".join(review) + "\n") if review else ""
        return head + "\n".join(lines) + "\n" + tail


def _markdown_cell(r: GapRow, t: str) -> str:
    state = r.state(t)
    if state == "present":
        return f"✓ {r.counts[t]}"
    return f"? 0 ({len(r.review[t])} to review)" if state == "review" else "✗ 0"


def gap_report(required: list[str] | tuple = DEFAULT_REQUIRED, countries=(), industries=(), cities=(),
               min_spend: float | None = None, max_spend: float | None = None, year: int | None = None,
               db: Database | None = None) -> GapReport:
    from core.ingest.classifier import REVIEW_THRESHOLD
    from core.taxonomy import type_names

    db = db or get_database()
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
    spend_year = year or vocab.latest_year
    plan = Plan(intent=Intent.GAP, mode=Mode.ATTRIBUTE, params=PlanParams(
        countries=list(countries), industries=list(industries), cities=list(cities),
        spend_min=min_spend, spend_max=max_spend, spend_year=spend_year))
    params = base_params(plan)
    params.update(types=list(required), review_threshold=REVIEW_THRESHOLD)
    cypher = qr.gap_matrix(active_filters(params) - {"types"}, params["spend_key"])
    params = used_params(cypher, params)
    rows = db.read(cypher, params)
    report = GapReport(required=list(required), spend_year=spend_year, cypher=cypher, params=params,
                       currency=vocab.base_currency,
                       filters={"countries": list(countries), "industries": list(industries), "cities": list(cities),
                                "min_spend": min_spend, "max_spend": max_spend})
    review_cells = []
    for r in rows:
        counts = {c["type"]: int(c["count"]) for c in r["cells"]}
        low = {c["type"]: int(c["low_confidence"]) for c in r["cells"]}
        review_cells += [{"company": r["company"], "type": c["type"]} for c in r["cells"]
                         if int(c["count"]) == 0 and int(c.get("review") or 0) > 0]
        report.rows.append(GapRow(company=r["company"], country=r["country"], industry=r["industry"],
                                  spend=None if r["spend"] is None else float(r["spend"]),
                                  agreements=int(r["agreements"]), sla_ids=list(r["sla_ids"]), counts=counts,
                                  low_confidence=low, missing=[t for t in required if counts.get(t, 0) == 0],
                                  paragraph_slas=list(r.get("paragraph_slas") or [])))
    _attach_review_clauses(db, report, review_cells)
    return report


def _attach_review_clauses(db: Database, report: GapReport, cells: list[dict]) -> None:
    """The clause ids behind each "only low-confidence evidence" cell (only those cells are read)."""
    if not cells:
        return
    for row in db.read(qr.REVIEW_CLAUSES, {"cells": cells}):
        gap_row = report.row(row["company"])
        if gap_row is not None and row["clause_ids"]:
            gap_row.review[row["type"]] = list(row["clause_ids"])


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
    counts = [[r.counts.get(t, 0) for t in required] for r in rows]
    labels = [[("✗ missing" if r.state(t) == "none" else
                f"? review {len(r.review[t])}" if r.state(t) == "review" else
                f"{r.counts[t]}" + (f" ({r.low_confidence.get(t, 0)} low conf.)" if r.low_confidence.get(t) else ""))
               for t in required] for r in rows]
    zmax = max(2, max((max(row) for row in counts if row), default=0))
    # a step at 0.5 clause: every zero is red however large the largest count is
    step = 0.5 / zmax
    colorscale = [[0.0, MISSING_COLOUR], [step, MISSING_COLOUR], [step + 1e-9, PRESENT_COLOURS[0]],
                  [1.0, PRESENT_COLOURS[1]]]
    return GapHeatmap([r.company for r in rows], list(required), counts, labels, zmax, colorscale)


def _table_cell(r: GapRow, t: str) -> str:
    n = r.counts.get(t, 0)
    if n == 0:
        ids = r.review.get(t)
        return f"? low-confidence only: {', '.join(ids)}" if ids else "✗ missing"
    low = r.low_confidence.get(t, 0)
    return f"✓ {n}" + (f" ⚠ {low} low-confidence" if low else "")


def gap_table(rows: list[GapRow], required: list[str]) -> list[dict]:
    """One dict per company: its facts, a ✓/✗ cell per required type, and what it lacks."""
    return [{"company": r.company, "country": r.country, "industry": r.industry, "spend": r.spend,
             "agreements": r.agreements, **{t: _table_cell(r, t) for t in required},
             "missing": ", ".join(r.missing) or "—"} for r in rows]

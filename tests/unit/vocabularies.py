"""The small in-memory vocabulary the planner tests route against (two suppliers, three types)."""
from __future__ import annotations

from core.graph.vocabulary import Vocabulary

COMPANIES = [
    {"name": "Kestrel Logistics GmbH", "aliases": ["Kestrel"], "country": "Germany", "industry": "Logistics",
     "cities": ["Hamburg"]},
    {"name": "Belmira Payments SA", "aliases": [], "country": "France", "industry": "Financial Services",
     "cities": ["Paris"]},
]
AGREEMENTS = [{"id": "SLA-001", "company": "Kestrel Logistics GmbH", "governing_law": "German"},
              {"id": "SLA-002", "company": "Belmira Payments SA", "governing_law": "French"}]


def two_suppliers(**overrides) -> Vocabulary:
    """Kestrel (Germany, logistics) and Belmira (France, payments); keyword arguments replace fields."""
    fields = dict(companies=COMPANIES, agreements=AGREEMENTS, clause_types=["Termination", "Liability", "Data Protection"],
                  spend_years=[2023, 2024])
    fields.update(overrides)
    return Vocabulary(**fields)


def corpus_vocabulary(root) -> Vocabulary:
    """The vocabulary a corpus folder would give once ingested, read from its CSV files (the
    planner tests run without a database)."""
    import csv
    from pathlib import Path

    from core.taxonomy import load_taxonomy

    root = Path(root)
    read = lambda name: list(csv.DictReader((root / name).open(encoding="utf-8")))  # noqa: E731
    cities: dict[str, list[str]] = {}
    for r in read("addresses.csv"):
        cities.setdefault(r["company"], []).append(r["city"])
    companies = [{"name": r["name"], "aliases": [a for a in (r.get("aliases") or "").split("|") if a],
                  "country": r["country"], "industry": r["industry"], "cities": cities.get(r["name"], [])}
                 for r in read("companies.csv")]
    agreements = [{"id": r["sla_id"], "company": r["company"], "governing_law": r["governing_law"],
                   "service_name": r.get("service_name")} for r in read("agreements.csv")]
    return Vocabulary(companies=companies, agreements=agreements, clause_types=[t.name for t in load_taxonomy()],
                      spend_years=sorted({int(r["year"]) for r in read("spend.csv")}))


def with_services(*services: str) -> Vocabulary:
    """`two_suppliers` whose agreements SLA-001, SLA-002, ... supply these services (the first
    Kestrel's, the others Belmira's)."""
    return two_suppliers(agreements=[
        {"id": f"SLA-{i:03d}", "company": COMPANIES[0 if i == 1 else 1]["name"], "service_name": name}
        for i, name in enumerate(services, start=1)])

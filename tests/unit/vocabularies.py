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

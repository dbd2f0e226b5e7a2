"""How many clauses a question's filters keep, estimated from the cached vocabulary.

Relay sizes its first vector pool by the filters' share of the corpus. Counting that in the
database cost ~8 ms a question on 100,000 clauses (a tenth of the latency budget), while the
vocabulary already holds every company's attributes and each agreement's clause count. The
figure only sizes the pool and picks exact vs vector search: a stale one costs a second
round, never a wrong answer. Filters the vocabulary cannot see (spend, dates) give `None`
and the caller counts in the database.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

# filters the vocabulary can evaluate; anything else (spend, dates) needs the database
ESTIMABLE = frozenset({"companies", "countries", "industries", "cities", "sla_ids", "governing_laws", "types"})
_COMPANY_KEYS = ("companies", "countries", "industries", "cities")


@dataclass(frozen=True)
class ClauseCounts:
    total: int  # every clause
    typed: int  # clauses of the asked types (all clauses when none is asked)
    n: int      # clauses of the agreements that pass the company and agreement filters
    source: str = "vocabulary"  # or "database" when counted there


class ClauseStatistics:
    """Indexes over one vocabulary: companies by attribute value, agreements by company."""

    def __init__(self, vocab) -> None:
        self.complete = bool(vocab.agreements) and all(
            isinstance(a.get("clause_count"), int) for a in vocab.agreements)
        self.type_counts = vocab.clause_type_counts
        self.agreements = {a["id"]: a for a in vocab.agreements}
        self.by_company: dict[str, list[dict]] = defaultdict(list)
        for a in vocab.agreements:
            self.by_company[a["company"]].append(a)
        self.company_clauses = {name: sum(a.get("clause_count") or 0 for a in agreements)
                                for name, agreements in self.by_company.items()}
        self.total = sum(self.company_clauses.values())
        self.companies: dict[str, dict[str, set[str]]] = {k: defaultdict(set) for k in _COMPANY_KEYS}
        for c in vocab.companies:
            name = c["name"]
            self.companies["companies"][name].add(name)
            if c.get("country"):
                self.companies["countries"][c["country"]].add(name)
            if c.get("industry"):
                self.companies["industries"][c["industry"]].add(name)
            for city in c.get("cities") or []:
                if city:
                    self.companies["cities"][city].add(name)

    def estimate(self, params: dict, active: set[str]) -> ClauseCounts | None:
        """Counts for `active` filters with values in `params`; None when it cannot tell."""
        if not self.complete or active - ESTIMABLE:
            return None
        types = list(params.get("types") or []) if "types" in active else []
        if types and not self.type_counts:
            return None
        typed = sum(self.type_counts.get(t, 0) for t in types) if types else self.total
        return ClauseCounts(total=self.total, typed=typed, n=self._filtered(params, active))

    def _filtered(self, params: dict, active: set[str]) -> int:
        sla_ids = set(params.get("sla_ids") or []) if "sla_ids" in active else None
        laws = set(params.get("governing_laws") or []) if "governing_laws" in active else None
        company_sets = [set().union(*(self.companies[key].get(v, ()) for v in params.get(key) or []))
                        for key in _COMPANY_KEYS if key in active]
        names = set.intersection(*company_sets) if company_sets else None
        if sla_ids is None and laws is None:
            return self.total if names is None else sum(self.company_clauses.get(n, 0) for n in names)
        if names is not None:
            agreements = [a for name in names for a in self.by_company.get(name, ())]
        elif sla_ids is not None:
            agreements = [self.agreements[i] for i in sla_ids if i in self.agreements]
        else:
            agreements = self.agreements.values()
        return sum(a["clause_count"] for a in agreements
                   if (sla_ids is None or a["id"] in sla_ids) and (laws is None or a.get("governing_law") in laws))

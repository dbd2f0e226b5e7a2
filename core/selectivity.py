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
_ONE_VALUE_KEYS = ("companies", "countries", "industries")  # a company has one name, country, industry


@dataclass(frozen=True)
class ClauseCounts:
    total: int  # every clause
    typed: int  # clauses of the asked types (all clauses when none is asked)
    n: int      # clauses of the agreements that pass the company and agreement filters


class ClauseStatistics:
    """Indexes over one vocabulary: companies by attribute value, agreements by company."""

    def __init__(self, vocab) -> None:
        self.complete = bool(vocab.agreements) and all(
            isinstance(a.get("clause_count"), int) for a in vocab.agreements)
        self.type_counts = dict(getattr(vocab, "clause_type_counts", None) or {})
        self.agreements = {a["id"]: a for a in vocab.agreements}
        self.by_company: dict[str, list[dict]] = defaultdict(list)
        for a in vocab.agreements:
            self.by_company[a["company"]].append(a)
        self.total = sum(a.get("clause_count") or 0 for a in vocab.agreements)
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
        self.company_clauses = {name: sum(a.get("clause_count") or 0 for a in agreements)
                                for name, agreements in self.by_company.items()}
        # clauses per country / industry / name: one-filter questions need one lookup per value
        self.value_clauses = {key: {value: sum(self.company_clauses.get(n, 0) for n in names)
                                    for value, names in self.companies[key].items()} for key in _ONE_VALUE_KEYS}

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

        def passes(a: dict) -> bool:
            return (sla_ids is None or a["id"] in sla_ids) and (laws is None or a.get("governing_law") in laws)

        keys = [k for k in _COMPANY_KEYS if k in active]
        if sla_ids is None and laws is None and len(keys) == 1 and keys[0] in self.value_clauses:
            totals = self.value_clauses[keys[0]]
            return sum(totals.get(v, 0) for v in set(params.get(keys[0]) or []))
        company_sets = [set().union(*(self.companies[key].get(v, ()) for v in params.get(key) or []))
                        for key in keys]
        if company_sets:
            company_sets.sort(key=len)
            names = company_sets[0].intersection(*company_sets[1:])
            if sla_ids is None and laws is None:
                return sum(self.company_clauses.get(n, 0) for n in names)
            agreements = (a for name in names for a in self.by_company.get(name, ()))
        elif sla_ids is not None:
            agreements = (self.agreements[i] for i in sla_ids if i in self.agreements)
        else:
            agreements = iter(self.agreements.values())
        if sla_ids is None and laws is None and not company_sets:
            return self.total
        return sum(a["clause_count"] for a in agreements if passes(a))

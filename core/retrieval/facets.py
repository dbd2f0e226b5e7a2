"""Details inside a clause type that a question narrows the type to: "an arbitration clause",
"which contracts renew automatically?", "who has to delete our data when the contract ends?",
"哪些合同约定了仲裁？".

Without them such a question is answered by every supplier with a clause of the type (every
governing-law clause for "arbitration"). The taxonomy lists each type's facets with patterns in
both languages (`core.taxonomy.Facet`); the same patterns find a facet in the question and in a
clause, so a facet an analyst adds to the taxonomy works for questions and clauses at once and
needs no retraining. A facet counts only for a type the question asks about, and only when it
asks about one type (the clause filter applies to every listed clause). Its clause filter is the
one quantities use (`core.graph.queries.retrieval.DETAILS`): the clause's text must match.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from core.taxonomy import ClauseTypeDef, Facet, load_taxonomy


@dataclass(frozen=True)
class FacetHit:
    type: str
    name: str
    words: str       # what in the question named it
    pattern: str     # a Cypher `=~` pattern that a clause with the facet matches (whole text)


def clause_pattern(facet: Facet) -> str:
    """One whole-text pattern, as Neo4j's `=~` reads it (Java regular expressions)."""
    return "(?is).*(?:" + "|".join(f"(?:{p})" for p in facet.patterns) + ").*"


@lru_cache(maxsize=64)
def _question_pattern(patterns: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I | re.S)


def _without_type_name(q: str, t: ClauseTypeDef) -> str:
    """The question with the type's own names blanked: a facet is a detail beside the type."""
    for name in (t.name, t.name_zh):
        if name:
            q = re.sub(re.escape(name), lambda m: " " * len(m.group(0)), q, flags=re.I)
    return q


def question_facets(q: str, types: list[str] | None, taxonomy: list[ClauseTypeDef] | None = None) -> list[FacetHit]:
    """The facets of the asked type that the question names (none when it asks about several types)."""
    if not q or not types or len(types) != 1:
        return []
    by_name = {t.name: t for t in (taxonomy if taxonomy is not None else load_taxonomy())}
    t = by_name.get(types[0])
    if t is None:
        return []
    text = _without_type_name(q, t)
    hits = []
    for facet in t.facets:
        m = _question_pattern(facet.patterns).search(text)
        if m:
            hits.append(FacetHit(t.name, facet.name, m.group(0).strip(), clause_pattern(facet)))
    return hits


def type_by_facet(q: str, taxonomy: list[ClauseTypeDef] | None = None) -> tuple[str | None, str]:
    """The type a question names only by a detail of it ("Which suppliers' prices are indexed?",
    "哪些合同约定了仲裁？"): the one type whose facets the question names; none when facets of
    several types are named ("a data breach" is a detail of Data Protection and of Security)."""
    owners: dict[str, str] = {}
    for t in (taxonomy if taxonomy is not None else load_taxonomy()):
        for facet in t.facets:
            m = _question_pattern(facet.patterns).search(q or "")
            if m:
                owners.setdefault(t.name, m.group(0).strip())
    if len(owners) != 1:
        return None, ""
    (tname, words), = owners.items()
    return tname, f"detail '{words}' of the type"


def facet_patterns(names: list[str] | None, types: list[str] | None,
                   taxonomy: list[ClauseTypeDef] | None = None) -> list[str]:
    """The clause patterns of a plan's facets (its `facets`, by name), for its one asked type."""
    if not names or not types or len(types) != 1:
        return []
    by_name = {t.name: t for t in (taxonomy if taxonomy is not None else load_taxonomy())}
    t = by_name.get(types[0])
    facets = {f.name: f for f in (t.facets if t else ())}
    return [clause_pattern(facets[n]) for n in names if n in facets]


def facet_names(names: list[str] | None, types: list[str] | None, language: str = "en") -> list[str]:
    """The plan's facets as an answer names them (Chinese names from the taxonomy)."""
    if not names or language != "zh" or not types:
        return list(names or [])
    t = next((t for t in load_taxonomy() if t.name == types[0]), None)
    zh = {f.name: f.name_zh for f in (t.facets if t else ())}
    return [zh.get(n, n) for n in names]

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
    anywhere: bool = False   # found in any clause unless the question names the type (`Facet.anywhere`)


def _taxonomy(taxonomy: list[ClauseTypeDef] | None) -> list[ClauseTypeDef]:
    return taxonomy if taxonomy is not None else load_taxonomy()


def _type(tname: str, taxonomy: list[ClauseTypeDef] | None = None) -> ClauseTypeDef | None:
    return next((t for t in _taxonomy(taxonomy) if t.name == tname), None)


def clause_pattern(facet: Facet) -> str:
    """One whole-text pattern, as Neo4j's `=~` reads it (Java regular expressions)."""
    return "(?is).*(?:" + "|".join(f"(?:{p})" for p in facet.patterns) + ").*"


@lru_cache(maxsize=64)
def _question_pattern(patterns: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.I | re.S)


def _name_spans(q: str, t: ClauseTypeDef) -> list[tuple[int, int]]:
    return [m.span() for name in (t.name, t.name_zh) if name for m in re.finditer(re.escape(name), q, re.I)]


# "arbitration rather than in court": the detail after it is the one not asked for
# ("not" and "without" ask for a gap: "which suppliers do not have an arbitration clause?"; not
# "without having to" a detail)
_SET_ASIDE = re.compile(r"\b(?:rather than|instead of|other than|except)\s+(?:\w+\s+){0,2}$|"
                        # "walk away without having to show a breach": a detail not needed
                        r"\bwithout\s+(?:having|needing|being (?:required|obliged)|the need)\s+to\s+\w+\s+(?:\w+\s+){0,2}$|"
                        r"(?:而不是|而非|不是|不通过)\s*$", re.I)


def _named_at(q: str, facet: Facet, t: ClauseTypeDef) -> re.Match | None:
    """Where the question names the facet, unless the words are only the type's own name
    ("security" is the type; "security incidents" a detail of it) or set it aside ("by
    arbitration rather than in court" does not ask for courts)."""
    names = _name_spans(q, t)
    for m in _question_pattern(facet.patterns).finditer(q):
        if not any(a <= m.start() and m.end() <= b for a, b in names) and not _SET_ASIDE.search(q[:m.start()]):
            return m
    return None


def _facets_of(types: list[str], taxonomy: list[ClauseTypeDef] | None) -> list[tuple[ClauseTypeDef, Facet]]:
    """The facets every asked type has (by name): a clause filter applies to each listed clause,
    so a facet of one type only would drop the other types' clauses."""
    asked = [t for name in types if (t := _type(name, taxonomy))]
    if not asked or len(asked) != len(types):
        return []
    # a shared facet is one detail: the types write it alike (one entry's patterns serve them all)
    return [(asked[0], f) for f in asked[0].facets if all(any(g.name == f.name for g in t.facets) for t in asked[1:])]


def question_facets(q: str, types: list[str] | None, taxonomy: list[ClauseTypeDef] | None = None) -> list[FacetHit]:
    """The facets of the asked types that the question names (a facet all of them share)."""
    if not q or not types:
        return []
    hits = []
    for t, facet in _facets_of(list(types), taxonomy):
        if m := _named_at(q, facet, t):
            hits.append(FacetHit(t.name, facet.name, m.group(0).strip(), clause_pattern(facet), facet.anywhere))
    return hits


def facet_spans(q: str, tname: str, taxonomy: list[ClauseTypeDef] | None = None) -> list[tuple[int, int]]:
    """Where the question names a detail of the type ("survive termination" is Confidentiality's
    survival, and its "termination" names no type of its own)."""
    t = _type(tname, taxonomy)
    return [m.span() for f in (t.facets if t else ()) if (m := _named_at(q or "", f, t))]


def facet_owners(name: str, taxonomy: list[ClauseTypeDef] | None = None) -> list[str]:
    """Every type that has a facet of this name ("Breach notification": Data Protection and Security)."""
    return [t.name for t in _taxonomy(taxonomy) if any(f.name == name for f in t.facets)]


def type_by_facet(q: str, taxonomy: list[ClauseTypeDef] | None = None) -> tuple[list[str], str]:
    """The types a question names only by a detail of them ("Which suppliers' prices are
    indexed?": Payment; "who must tell us about a data breach?": Data Protection and Security,
    whose shared facet it is); none when it names details of unrelated types."""
    found: dict[str, re.Match] = {}
    for t in _taxonomy(taxonomy):
        for facet in t.facets:
            m = _named_at(q or "", facet, t)
            if m and facet.name not in found:
                found[facet.name] = m
    # the longer words win: "a data breach" is a breach notification, not a breach that ends a contract
    kept = {name: m for name, m in found.items()
            if not any(o.start() <= m.start() and m.end() <= o.end() and o.end() - o.start() > m.end() - m.start()
                       for o in found.values())}
    if len({tuple(facet_owners(name, taxonomy)) for name in kept}) != 1:
        return [], ""
    name, m = next(iter(kept.items()))
    return facet_owners(name, taxonomy), f"detail '{m.group(0).strip()}' of the type"


def _plan_facets(names: list[str] | None, types: list[str] | None,
                 taxonomy: list[ClauseTypeDef] | None) -> list[Facet]:
    """A plan's facets (its `facets`, by name) as its asked types share them, in the plan's order:
    `facet_patterns` and `facet_types` read the same list, so their entries stay side by side."""
    if not names or not types:
        return []
    shared = {f.name: f for _t, f in _facets_of(list(types), taxonomy)}
    return [shared[n] for n in names if n in shared]


def facet_patterns(names: list[str] | None, types: list[str] | None,
                   taxonomy: list[ClauseTypeDef] | None = None) -> list[str]:
    """The clause patterns of a plan's facets."""
    return [clause_pattern(f) for f in _plan_facets(names, types, taxonomy)]


def facet_types(names: list[str] | None, types: list[str] | None,
                taxonomy: list[ClauseTypeDef] | None = None) -> list[str | None]:
    """For each of `facet_patterns`' patterns, the taxonomy type the facet is also a type of, by
    name ("Change of control" in termination clauses is the type Change of Control), else None: a
    clause typed so has the detail in words the patterns do not list ("if control of the other
    party passes to a third party"), as the provision model read them."""
    by_name = {t.name.casefold(): t.name for t in _taxonomy(taxonomy)}
    return [by_name.get(f.name.casefold()) for f in _plan_facets(names, types, taxonomy)]


def facet_names(names: list[str] | None, types: list[str] | None, language: str = "en") -> list[str]:
    """The plan's facets as an answer names them (Chinese names from the taxonomy)."""
    if not names or language != "zh" or not types:
        return list(names or [])
    t = _type(types[0])
    zh = {f.name: f.name_zh for f in (t.facets if t else ())}
    return [zh.get(n, n) for n in names]

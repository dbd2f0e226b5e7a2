"""Real node names for the Cypher-writing model, and repairs of the values it chose.

Candidate nodes are recalled *before* generation, so the model writes names that exist
(companies by full-text over `company_names` and fuzzy matching, clause types by keyword and
meaning, countries/industries/cities/governing laws from the graph's own values). When a query
finds nothing, first normalize the names in its parameters (case, accents,
aliases, "USA" vs "United States"), then relax exact matches to CONTAINS.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from core.graph.db import Database
from core.graph.vocabulary import Vocabulary
from core.graph.queries import text2cypher as q


@dataclass
class Candidates:
    companies: list[str] = field(default_factory=list)
    clause_types: list[str] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)
    industries: list[str] = field(default_factory=list)
    cities: list[str] = field(default_factory=list)
    governing_laws: list[str] = field(default_factory=list)
    sla_ids: list[str] = field(default_factory=list)
    how: dict[str, str] = field(default_factory=dict)
    from_context: dict[str, list] = field(default_factory=dict)

    def for_prompt(self) -> dict:
        out = {k: v for k, v in (("companies", self.companies), ("clause_types", self.clause_types),
                                 ("countries", self.countries), ("industries", self.industries),
                                 ("cities", self.cities), ("governing_laws", self.governing_laws),
                                 ("agreement_ids", self.sla_ids)) if v}
        if self.from_context:
            out["earlier_in_this_conversation"] = self.from_context
        return out


def recall_candidates(question: str, db: Database, vocab: Vocabulary, context=None, k: int = 5) -> Candidates:
    from core.retrieval import linking, type_links
    from core.retrieval.search import fulltext_query

    c = Candidates()
    linked, how = linking.link_companies(question, vocab)
    c.companies = list(linked)
    c.how.update({name: f"company: {why}" for name, why in how.items()})
    lucene = fulltext_query(question)
    if lucene:
        try:
            for row in db.read(q.COMPANY_CANDIDATES, {"query": lucene, "k": k}):
                if row["name"] not in c.companies and len(c.companies) < k:
                    c.companies.append(row["name"])
                    c.how.setdefault(row["name"], f"company: full-text ({row['score']:.2f})")
        except Exception:  # noqa: BLE001 - a missing index must not stop the question
            pass
    types, type_how, _topic = type_links.link_clause_types(question)
    c.clause_types = list(types)
    c.how.update({t: f"clause type: {why}" for t, why in type_how.items()})
    c.countries = list(linking.match_values(question, linking.alias_map(vocab, "countries")))
    c.industries = list(linking.match_values(question, linking.alias_map(vocab, "industries")))
    c.cities = [city for city in vocab.cities if linking.contains_phrase(question, city)]
    laws = {law.lower(): law for law in vocab.governing_laws}
    c.governing_laws = [law for law in linking.match_values(question, laws, guard_clause_words=False)
                        if re.search(r"\blaw|jurisdiction|governed|法", question, re.I)]
    c.sla_ids = linking.link_sla_ids(question, vocab)
    if context is not None:
        prior = {"companies": list(getattr(context, "companies", []) or []),
                 "clause_types": list(getattr(context, "clause_types", []) or [])}
        c.from_context = {k2: v for k2, v in prior.items() if v}
    return c


# ---------------------------------------------------------------------------------------
# parameter normalization

def fold(text: str) -> str:
    """Case, accents, width and punctuation folded: 'Voltera Énergie SAS' ~ 'voltera energie sas'."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", str(text)))
    text = "".join(ch for ch in text if not unicodedata.combining(ch)).casefold()
    text = re.sub(r"[\s_]+", " ", text)
    return text.strip(" .,;:'\"")


def _lookups(vocab: Vocabulary) -> dict[str, dict[str, str]]:
    from core.retrieval import linking

    companies: dict[str, str] = {}
    for comp in vocab.companies:
        name = comp["name"]
        for variant in [name, linking.core_name(name)] + list(comp.get("aliases") or []):
            if variant:
                companies.setdefault(fold(variant), name)

    def with_synonyms(kind: str) -> dict[str, str]:
        return {fold(k): v for k, v in linking.alias_map(vocab, kind).items()}

    canonical = {"country": {fold(x): x for x in vocab.countries}, "industry": {fold(x): x for x in vocab.industries}}
    return {"company": companies, "canonical": canonical,
            "country": with_synonyms("countries"),
            "industry": with_synonyms("industries"),
            "type": {fold(t): t for t in vocab.clause_types},
            "law": {fold(x): x for x in vocab.governing_laws},
            "city": {fold(x): x for x in vocab.cities},
            "sla": {fold(a["id"]): a["id"] for a in vocab.agreements}}


_KIND_OF_PARAM = [("company", r"compan|supplier|vendor|name|party"), ("country", r"countr|nation"),
                  ("industry", r"industr|sector"), ("type", r"type|clause|category"),
                  ("law", r"law|jurisdiction"), ("city", r"city|town"), ("sla", r"sla|agreement|contract")]
_ANY_KIND_ORDER = ("company", "type", "country", "industry", "law", "city", "sla")


def normalize_params(params: dict, vocab: Vocabulary) -> tuple[dict, list[str]]:
    """Each string value that names a graph value in another spelling becomes that value."""
    tables = _lookups(vocab)
    out, changes = {}, []
    for key, value in (params or {}).items():
        kinds = [kind for kind, pat in _KIND_OF_PARAM if re.search(pat, key, re.I)] or list(_ANY_KIND_ORDER)

        hinted = kinds != list(_ANY_KIND_ORDER)

        def fix(v):
            if not isinstance(v, str) or not v.strip():
                return v
            for kind in kinds:
                # Synonyms ("cloud" -> Technology) only where the parameter's name says what it holds.
                table = tables[kind] if hinted or kind not in tables["canonical"] else tables["canonical"][kind]
                hit = table.get(fold(v))
                if hit is not None:
                    return hit
            if "company" in kinds and len(v) >= 5 and hinted:
                best = max(((fuzz.ratio(fold(v), variant), name) for variant, name in tables["company"].items()),
                           default=(0, None))
                if best[0] >= 90:
                    return best[1]
            return v

        new = [fix(x) for x in value] if isinstance(value, list) else fix(value)
        if new != value:
            changes.append(f"${key}: {value!r} -> {new!r}")
        out[key] = new
    return out, changes


# ---------------------------------------------------------------------------------------
# relaxing exact matches

_EQ = re.compile(r"(?<![\w.$])([A-Za-z_]\w*)\.([A-Za-z_]\w*)\s*=\s*\$([A-Za-z_]\w*)\b")
_MAP = re.compile(r"\(\s*([A-Za-z_]\w*)?\s*:\s*([A-Za-z_]\w*)\s*\{\s*([A-Za-z_]\w*)\s*:\s*\$([A-Za-z_]\w*)\s*\}\s*\)")


def relax_cypher(cypher: str, params: dict) -> tuple[str, list[str]]:
    """`x.p = $v` and `(x:L {p: $v})` with a string $v become case-insensitive CONTAINS matches."""
    changes: list[str] = []
    counter = [0]

    def is_text(name: str) -> bool:
        v = (params or {}).get(name)
        return isinstance(v, str) and len(v.strip()) >= 2

    def eq(m: re.Match) -> str:
        var, prop, p = m.groups()
        if not is_text(p):
            return m.group(0)
        changes.append(f"{var}.{prop} = ${p} relaxed to CONTAINS")
        return f"toLower({var}.{prop}) CONTAINS toLower(${p})"

    def node_map(m: re.Match) -> str:
        var, label, prop, p = m.groups()
        if not is_text(p):
            return m.group(0)
        if not var:
            counter[0] += 1
            var = f"relaxed{counter[0]}"
        changes.append(f"({label} {{{prop}: ${p}}}) relaxed to CONTAINS")
        return f"({var}:{label} WHERE toLower({var}.{prop}) CONTAINS toLower(${p}))"

    relaxed = _MAP.sub(node_map, _EQ.sub(eq, cypher))
    return relaxed, changes

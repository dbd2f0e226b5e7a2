"""The schema summary the Cypher-writing model sees, generated from the live graph.

Seed 002 §2.2: labels with their most used properties (and types), relationship types with
their direction as (:A)-[:R]->(:B), query hints, no entity values; DESIGN §7: generated from
the database and cached. Small categorical values (clause types, countries, industries,
governing laws, spend years) are listed because the model must use them verbatim in
`$parameters`. Cached per database for `REFRESH_S` and dropped whenever
`graph_cache.invalidate()` bumps the generation (every ingest and manual edit does).
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field

from core.gaps import REVIEW_THRESHOLD
from core.graph import vocabulary as graph_cache
from core.graph.db import Database, get_database
from core.text2cypher.llm import estimate_tokens
from core.graph.queries import text2cypher as q

REFRESH_S = 600.0
SAMPLE = 2000
TOP_PROPERTIES = 10
HIDDEN_PROPERTIES = {"embedding", "aliases_text", "content_hash", "text_hash", "heading", "runner_up", "needs_review"}
# Keys a question most often needs come first when a label has more than TOP_PROPERTIES.
PREFERRED = ("name", "id", "title", "text", "position", "country", "industry", "city", "spend_latest",
             "service_name", "effective_date", "governing_law", "confidence")
# (label, property, heading in the summary): properties whose values are listed when small.
CATEGORICAL = [("ClauseType", "name", "clause types (ClauseType.name)"),
               ("Company", "country", "countries (Company.country)"),
               ("Company", "industry", "industries (Company.industry)"),
               ("SLA", "governing_law", "governing laws (SLA.governing_law)"),
               ("Company", "spend_currency", "spend currencies (Company.spend_currency)"),
               ("SpendCategory", "name", "spend categories (SpendCategory.name)")]
MAX_VALUES = 30
_SPEND = re.compile(r"^spend_(\d{4})$")


@dataclass
class SchemaSummary:
    text: str
    token_estimate: int
    labels: dict[str, list[tuple[str, str]]] = field(default_factory=dict)   # label -> [(key, type)]
    patterns: list[tuple[str, str, str]] = field(default_factory=list)
    values: dict[str, list] = field(default_factory=dict)
    spend_years: list[int] = field(default_factory=list)
    generated_at: float = 0.0
    generation: int = 0


def _type_name(types: list[str]) -> str:
    names = {re.sub(r"\s+NOT NULL", "", t).strip() for t in types or []}
    if len(names) > 1:
        names.discard("LIST<NOTHING>")        # an empty list says nothing about the element type
    return "|".join(sorted(names)) or "ANY"


def build_summary(db: Database) -> SchemaSummary:
    counts = {r["label"]: r["n"] for r in db.read(q.LABEL_COUNTS)}
    props: dict[str, list[tuple[str, int, str]]] = {}
    for r in db.read(q.LABEL_PROPERTIES, {"sample": SAMPLE}):
        props.setdefault(r["label"], []).append((r["key"], int(r["uses"]), _type_name(r["types"])))
    spend_years = sorted(db.read(q.SPEND_YEARS)[0]["years"] or [])
    patterns = [(r["start"], r["type"], r["end"], int(r["uses"]))
                for r in db.read(q.RELATIONSHIP_PATTERNS, {"sample": SAMPLE})]
    rel_props: dict[str, list[str]] = {}
    for r in db.read(q.RELATIONSHIP_PROPERTIES, {"sample": SAMPLE}):
        rel_props.setdefault(r["type"], []).append(f"{r['key']} {_type_name(r['types'])}")
    indexes = db.read(q.INDEXES)

    labels: dict[str, list[tuple[str, str]]] = {}
    lines = ["Node labels (most used properties and their types):"]
    for label in sorted(props, key=lambda lab: -counts.get(lab, 0)):
        if not counts.get(label):
            continue
        chosen, spend_type = [], None
        for key, _uses, typ in props[label]:
            if key in HIDDEN_PROPERTIES:
                continue
            if _SPEND.match(key):
                spend_type = typ
                continue
            chosen.append((key, typ))
        rank = {k: i for i, k in enumerate(PREFERRED)}
        chosen.sort(key=lambda kt: rank.get(kt[0], len(PREFERRED)))
        chosen = chosen[:TOP_PROPERTIES]
        if spend_type:
            chosen.append(("spend_<year>", spend_type))
        labels[label] = chosen
        lines.append(f"- {label} ({counts[label]} nodes): " + ", ".join(f"{k} {t}" for k, t in chosen))

    lines.append("Relationships (direction matters):")
    seen = set()
    for start, rtype, end, _ in sorted(patterns, key=lambda p: (p[1], -p[3])):
        if (start, rtype, end) in seen:
            continue
        seen.add((start, rtype, end))
        extra = f" {{{', '.join(rel_props[rtype])}}}" if rel_props.get(rtype) else ""
        lines.append(f"- (:{start})-[:{rtype}{extra}]->(:{end})")

    values: dict[str, list] = {}
    value_lines = []
    for label, key, heading in CATEGORICAL:
        if label not in labels:
            continue
        found = db.read(q.NODE_PROPERTY_VALUES, {"label": label, "key": key, "cap": MAX_VALUES + 1})[0]["values"]
        if found and len(found) <= MAX_VALUES:
            values[f"{label}.{key}"] = found
            value_lines.append(f"- {heading}: " + ", ".join(str(v) for v in found))
    if spend_years:
        value_lines.append("- spend years: " + ", ".join(map(str, spend_years)))
    if value_lines:
        lines.append("Allowed values (use exactly these strings as parameter values):")
        lines += value_lines

    hints = ["Query hints:",
             "- Clause types: (c:Clause)-[:OF_TYPE]->(t:ClauseType) with t.name IN $types; "
             "use OF_TYPE to find clause types, never guess them from the title.",
             "- A clause can have several types (one OF_TYPE edge each; exactly one has primary: true, "
             "c.types lists them all): return each clause once (RETURN DISTINCT, or match the edge "
             "{primary: true} when no type is asked for); r.evidence_start/r.evidence_end locate the "
             "sentence that carries the type in c.text.",
             "- (c:Clause)-[:MAY_BE]->(t:ClauseType) is low-confidence evidence only: it never counts as "
             "having a clause of that type; use it only to list clauses to review.",
             "- A company's clauses: (co:Company)-[:HAS_SLA]->(s:SLA)-[:HAS_CLAUSE]->(c:Clause).",
             "- Clause order inside an agreement: c.position, and (c1:Clause)-[:NEXT]->(c2:Clause).",
             f"- Missing clauses (gaps): WHERE {q.GAP_CONDITION} with params type and review_threshold: "
             f"{REVIEW_THRESHOLD} (an edge that is a clause's main type by the section classifier below that "
             "confidence is low-confidence evidence and does not count as having the clause; "
             "companies without any agreement are not gaps)."]
    if spend_years:
        hints.append(f"- Spend per year is in Company properties spend_<year> (spend_{spend_years[0]} ... "
                     f"spend_{spend_years[-1]}); spend_latest holds the latest year "
                     f"({spend_years[-1]}): use it when the question names no year. Amounts are in the base "
                     "currency Company.spend_currency (return it with the figures).")
    if any(p[1] == "SPENT" for p in patterns):
        hints.append("- Spend per category: (co:Company)-[s:SPENT]->(k:SpendCategory) with s.year and s.amount; "
                     "a company's spend_<year> is the sum of that year's s.amount.")
    for idx in indexes:
        target = f"{(idx['labelsOrTypes'] or ['?'])[0]}.{'/'.join(idx['properties'] or [])}"
        if idx["type"] == "VECTOR":
            hints.append(f"- vector index {idx['name']} on {target}: "
                         f"CALL db.index.vector.queryNodes('{idx['name']}', 20, $question_embedding) "
                         "YIELD node, score (the system fills $question_embedding with the question's embedding).")
        else:
            hints.append(f"- full-text index {idx['name']} on {target}: "
                         f"CALL db.index.fulltext.queryNodes('{idx['name']}', $query) YIELD node, score.")
    hints.append("- Match names case-insensitively when unsure: toLower(co.name) CONTAINS toLower($name).")
    lines += hints
    text = "\n".join(lines)
    return SchemaSummary(text=text, token_estimate=estimate_tokens(text), labels=labels,
                         patterns=sorted(seen), values=values, spend_years=spend_years,
                         generated_at=time.time(), generation=graph_cache.generation())


_lock = threading.Lock()
_cache: dict[str, SchemaSummary] = {}


def schema_summary(db: Database | None = None, refresh_s: float = REFRESH_S) -> SchemaSummary:
    """The cached summary; rebuilt after `refresh_s` or when the graph's generation changed."""
    db = db or get_database()
    key = f"{db.uri}/{db.database}"
    with _lock:
        hit = _cache.get(key)
        if hit and hit.generation == graph_cache.generation() and time.time() - hit.generated_at < refresh_s:
            return hit
    summary = build_summary(db)
    with _lock:
        _cache[key] = summary
    return summary


def invalidate() -> None:
    with _lock:
        _cache.clear()

"""Rows of a generated query -> "entity — relation — target" lines and Evidence items.

A generated query names its columns as it likes (`co.name`, `supplier`, a whole node), so
the columns are mapped onto the evidence fields by name and shape; clauses that came back
as ids only get their full text fetched (evidence always carries the full clause text, see
docs/DATA_MODEL.md). Lines are de-duplicated and capped at `MAX_ITEMS` so the answer prompt stays small.
"""
from __future__ import annotations

import re

from core.graph.db import Database
from core.graph.queries import text2cypher as q
from core.types import Evidence

MAX_ITEMS = 20
_CLAUSE_ID = re.compile(r"^[^#\s]+#\d+$")
_FIELDS = {
    "company": ("company", "company_name", "supplier", "vendor", "co.name", "c.name", "supplier_name", "entity_company"),
    "sla_id": ("sla_id", "sla", "agreement", "agreement_id", "s.id", "contract_id"),
    "clause_id": ("clause_id", "clause", "c.id", "cl.id", "id"),
    "clause_title": ("clause_title", "title", "c.title", "heading"),
    "clause_type": ("clause_type", "type", "t.name", "clause_type_name"),
    "text": ("text", "c.text", "clause_text", "full_text"),
}


def clean_value(value):
    """Vectors dropped (embeddings are never evidence), nested structures kept."""
    if isinstance(value, dict):
        return {k: clean_value(v) for k, v in value.items() if k != "embedding"}
    if isinstance(value, list):
        if len(value) > 32 and all(isinstance(x, float) for x in value[:8]):
            return f"<vector of {len(value)} floats>"
        return [clean_value(v) for v in value]
    return value


def clean_rows(rows: list[dict]) -> list[dict]:
    return [{k: clean_value(v) for k, v in row.items()} for row in rows]


def _fields(row: dict) -> dict:
    out: dict = {}
    lower = {str(k).lower(): v for k, v in row.items()}
    for field, names in _FIELDS.items():
        for name in names:
            v = lower.get(name)
            if isinstance(v, (str, int, float)) and v != "":
                out.setdefault(field, str(v) if field != "text" else v)
                break
    if "clause_id" in out and not _CLAUSE_ID.match(out["clause_id"]):
        out.pop("clause_id")
    for v in row.values():              # whole nodes returned as property maps
        if not isinstance(v, dict):
            continue
        if _CLAUSE_ID.match(str(v.get("id", ""))) and ("text" in v or "title" in v):
            out.setdefault("clause_id", v["id"])
            out.setdefault("clause_title", v.get("title"))
            out.setdefault("text", v.get("text"))
        elif "name" in v and ("country" in v or "industry" in v):
            out.setdefault("company", v["name"])
        elif "service_name" in v and "id" in v:
            out.setdefault("sla_id", v["id"])
    return out


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v[:20]) + (", …" if len(v) > 20 else "") + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_fmt(x)}" for k, x in list(v.items())[:8] if k != "text") + "}"
    if hasattr(v, "iso_format"):
        return v.iso_format()
    return str(v)


def row_line(row: dict, f: dict) -> str:
    lower = {str(k).lower(): k for k in row}
    if {"entity", "relation", "target"} <= set(lower):
        return " — ".join(_fmt(row[lower[k]]) for k in ("entity", "relation", "target"))
    used = {n for field in f for n in _FIELDS[field]} | {"text"}
    rest = "; ".join(f"{k}: {_fmt(v)}" for k, v in row.items()
                     if str(k).lower() not in used and not isinstance(v, dict) and v is not None)
    if "clause_id" in f:
        head = " — ".join(x for x in (f.get("company"), "HAS_SLA" if f.get("company") else None,
                                      f.get("sla_id"), "HAS_CLAUSE" if f.get("sla_id") else None) if x)
        clause = f"{f['clause_id']} \"{f.get('clause_title') or ''}\"" + (
            f" (OF_TYPE {f['clause_type']})" if f.get("clause_type") else "")
        return (head + " — " if head else "") + clause + (f"; {rest}" if rest else "")
    entity = f.get("company") or f.get("sla_id")
    if entity:
        link = f" — HAS_SLA — {f['sla_id']}" if f.get("company") and f.get("sla_id") else ""
        return f"{entity}{link}" + (f" — {rest}" if rest else "")
    return rest or "; ".join(f"{k}: {_fmt(v)}" for k, v in row.items())


def rows_to_evidence(rows: list[dict], db: Database) -> tuple[list[Evidence], list[str]]:
    """Evidence items and their lines (same order, refs S1..Sn), de-duplicated, at most MAX_ITEMS."""
    items: list[tuple[dict, str]] = []
    seen: set = set()
    for row in rows:
        f = _fields(row)
        line = row_line(row, f)
        key = ("clause", f["clause_id"]) if "clause_id" in f else ("line", line)
        if key in seen:
            continue
        seen.add(key)
        items.append((f, line))
        if len(items) >= MAX_ITEMS:
            break
    need = [f["clause_id"] for f, _ in items if "clause_id" in f
            and (not f.get("text") or not f.get("company") or not f.get("clause_type"))]
    full = {r["clause_id"]: r for r in db.read(q.CLAUSES_BY_ID, {"ids": need})} if need else {}
    orphan_slas = [f["sla_id"] for f, _ in items if f.get("sla_id") and not f.get("company")]
    owners = {r["sla_id"]: r["company"] for r in db.read(q.AGREEMENT_COMPANIES, {"ids": orphan_slas})} \
        if orphan_slas else {}
    evidence, lines = [], []
    for n, (f, line) in enumerate(items, 1):
        ref = f"S{n}"
        if "clause_id" in f:
            extra = full.get(f["clause_id"], {})
            evidence.append(Evidence(
                ref=ref, company=f.get("company") or extra.get("company"), sla_id=f.get("sla_id") or extra.get("sla_id"),
                clause_id=f["clause_id"], clause_title=f.get("clause_title") or extra.get("clause_title"),
                clause_type=f.get("clause_type") or extra.get("clause_type"),
                text=f.get("text") if isinstance(f.get("text"), str) and f.get("text") else extra.get("text"),
                confidence=_num(extra.get("confidence")), position=extra.get("position"),
                clause_types=extra.get("clause_types"), highlight=_span(extra)))
        elif f.get("company") or f.get("sla_id"):
            evidence.append(Evidence(ref=ref, company=f.get("company") or owners.get(f.get("sla_id")),
                                     sla_id=f.get("sla_id")))
        else:
            evidence.append(Evidence(ref=ref, text=line))
        lines.append(line)
    return evidence, lines


def _span(row: dict) -> tuple[int, int] | None:
    """The primary type's evidence sentence, when the fetched clause row carries one."""
    a, b, text = row.get("span_start"), row.get("span_end"), row.get("text") or ""
    return (a, b) if isinstance(a, int) and isinstance(b, int) and 0 <= a < b <= len(text) else None


def _num(v):
    try:
        return None if v is None else round(float(v), 4)
    except (TypeError, ValueError):
        return None


def prompt_items(evidence: list[Evidence], lines: list[str], text_chars: int = 1500) -> list[tuple[str, str]]:
    """(ref, text) for the answer prompt: the line, plus the clause text (bounded) for clauses."""
    out = []
    for ev, line in zip(evidence, lines):
        text = line
        if ev.clause_id and ev.text:
            body = " ".join(ev.text.split())
            text += "\n    text: " + (body if len(body) <= text_chars else body[:text_chars] + " …")
        out.append((ev.ref, text))
    return out


def listing(evidence: list[Evidence], lines: list[str]) -> str:
    """The answer without an LLM: every evidence line with its citation."""
    head = f"Found {len(evidence)} result{'s' if len(evidence) != 1 else ''} in the graph:"
    return head + "\n" + "\n".join(f"- {line} [{ev.ref}]" for ev, line in zip(evidence, lines))

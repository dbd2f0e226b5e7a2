"""Evidence, subgraph and a short cited answer from retrieval rows, without an LLM.

The composer only restates what the rows say and cites them as [S1], [S2] ...; when nothing
matched it says so plainly and returns no evidence. Evidence always carries full clause text.
"""
from __future__ import annotations

from core.types import COMPANY_INTENTS, DOCUMENT_INTENTS, SEARCH_INTENTS, Evidence, Intent, Plan

MAX_EVIDENCE = 50


def build_evidence(rows: list[dict], plan: Plan) -> list[Evidence]:
    out: list[Evidence] = []
    seen = set()
    company_level = plan.intent in COMPANY_INTENTS and plan.params.count_unit != "clauses"
    for row in rows:
        if company_level or "clause_id" not in row:
            key = ("company", row.get("company"))
            if key in seen:
                continue
            seen.add(key)
            out.append(Evidence(ref=f"S{len(out) + 1}", company=row.get("company"),
                                score=_f(row.get("spend")), review_only=row.get("review_only") or None,
                                review_clause_ids=row.get("review_clause_ids") or None))
        else:
            key = ("clause", row.get("clause_id"))
            if key in seen:
                continue
            seen.add(key)
            out.append(Evidence(ref=f"S{len(out) + 1}", company=row.get("company"), sla_id=row.get("sla_id"),
                                clause_id=row.get("clause_id"), clause_title=row.get("clause_title"),
                                clause_type=row.get("clause_type"), text=row.get("text"),
                                score=_f(row.get("score")), confidence=_f(row.get("confidence")),
                                position=row.get("position"), highlight=span_of(row),
                                clause_types=row.get("clause_types")))
        if len(out) >= MAX_EVIDENCE:
            break
    return out


def span_of(row: dict) -> tuple[int, int] | None:
    """The evidence sentence's offsets when the row carries a valid span within its text."""
    a, b, text = row.get("span_start"), row.get("span_end"), row.get("text") or ""
    if isinstance(a, int) and isinstance(b, int) and 0 <= a < b <= len(text):
        return (a, b)
    return None


def _f(v):
    try:
        return None if v is None else round(float(v), 4)
    except (TypeError, ValueError):
        return None


def build_subgraph(rows: list[dict], evidence: list[Evidence]) -> dict:
    """The nodes and edges the evidence came from: Company -> SLA -> Clause -> ClauseType, NEXT."""
    nodes: dict[str, dict] = {}
    edges: list[dict] = []
    edge_keys = set()

    def node(nid: str, label: str, name: str, **props):
        if nid not in nodes:
            nodes[nid] = {"id": nid, "label": label, "name": name, **{k: v for k, v in props.items() if v is not None}}

    def edge(a: str, b: str, typ: str):
        if (a, b, typ) not in edge_keys:
            edge_keys.add((a, b, typ))
            edges.append({"source": a, "target": b, "type": typ})

    positions: dict[str, list[tuple[int, str]]] = {}
    for ev in evidence:
        if ev.company:
            node(f"company:{ev.company}", "Company", ev.company)
        if ev.sla_id:
            node(f"sla:{ev.sla_id}", "SLA", ev.sla_id)
            if ev.company:
                edge(f"company:{ev.company}", f"sla:{ev.sla_id}", "HAS_SLA")
        if ev.clause_id:
            node(f"clause:{ev.clause_id}", "Clause", ev.clause_title or ev.clause_id, clause_id=ev.clause_id,
                 confidence=ev.confidence)
            if ev.sla_id:
                edge(f"sla:{ev.sla_id}", f"clause:{ev.clause_id}", "HAS_CLAUSE")
                if ev.position is not None:
                    positions.setdefault(ev.sla_id, []).append((int(ev.position), ev.clause_id))
            if ev.clause_type:
                node(f"type:{ev.clause_type}", "ClauseType", ev.clause_type)
                edge(f"clause:{ev.clause_id}", f"type:{ev.clause_type}", "OF_TYPE")
    for sla, items in positions.items():
        items.sort()
        for (p1, c1), (p2, c2) in zip(items, items[1:]):
            if p2 == p1 + 1:
                edge(f"clause:{c1}", f"clause:{c2}", "NEXT")
    # company-level answers: show which required types are missing/present
    for row in rows:
        comp = row.get("company")
        if comp and f"company:{comp}" in nodes:
            for t in row.get("missing") or []:
                node(f"type:{t}", "ClauseType", t)
                edge(f"company:{comp}", f"type:{t}", "MISSING")
    return {"nodes": list(nodes.values()), "edges": edges}


# ---------------------------------------------------------------------------------------

def _join(items: list[str], lang: str) -> str:
    if lang == "zh":
        return "、".join(items)
    if lang == "list":
        return ", ".join(items)
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + ", and " + items[-1]


def _money(v) -> str:
    try:
        return f"{float(v):,.0f}"
    except (TypeError, ValueError):
        return "n/a"


def describe_filters(plan: Plan) -> str:
    p = plan.params
    parts = []
    if p.countries:
        parts.append("in " + "/".join(p.countries))
    if p.industries:
        parts.append("in " + "/".join(p.industries))
    if p.cities:
        parts.append("located in " + "/".join(p.cities))
    if p.spend_min is not None:
        parts.append(f"with {p.spend_year or 'latest'} spend above {_money(p.spend_min)}")
    if p.spend_max is not None:
        parts.append(f"with {p.spend_year or 'latest'} spend below {_money(p.spend_max)}")
    if p.governing_laws:
        parts.append("governed by " + "/".join(p.governing_laws) + " law")
    if p.date_from:
        parts.append(f"effective from {p.date_from}")
    if p.date_to:
        parts.append(f"effective until {p.date_to}")
    return " ".join(parts)


def zh_type_name(name: str) -> str:
    """A clause type's Chinese name: its first Chinese keyword in the taxonomy."""
    from core.taxonomy import load_taxonomy

    for t in load_taxonomy():
        if t.name == name:
            return t.keywords_zh[0] if t.keywords_zh else ("其他" if name == "Other" else name)
    return name


def _zh_value(kind: str, value: str) -> str:
    """A country or industry in Chinese, from the lexicon's Chinese synonyms (else as stored)."""
    from core.retrieval.linking import CJK, lexicon

    for canon, syns in lexicon().get(kind, {}).items():
        if canon.lower() == str(value).lower():
            return next((x for x in syns if CJK.search(x)), value)
    return value


def describe_filters_zh(plan: Plan) -> str:
    """The question's filters as a Chinese attributive phrase (…的), for the answer sentence."""
    p = plan.params
    parts = []
    if p.countries:
        parts.append("位于" + "/".join(_zh_value("countries", c) for c in p.countries))
    if p.cities:
        parts.append("位于" + "/".join(p.cities))
    if p.industries:
        parts.append("/".join(_zh_value("industries", i) for i in p.industries) + "行业")
    year = f"{p.spend_year}年" if p.spend_year else "最近一年"
    if p.spend_min is not None:
        parts.append(f"{year}支出高于 {_money(p.spend_min)}")
    if p.spend_max is not None:
        parts.append(f"{year}支出低于 {_money(p.spend_max)}")
    if p.governing_laws:
        parts.append("适用" + "/".join(p.governing_laws) + "法律")
    if p.date_from:
        parts.append(f"{p.date_from}起生效")
    if p.date_to:
        parts.append(f"{p.date_to}前生效")
    return "、".join(parts) + "的" if parts else ""


def _type_label(name: str | None, lang: str) -> str | None:
    return zh_type_name(name) if lang == "zh" and name else name


def compose_answer(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    lang = plan.language
    p = plan.params
    types = p.types or []
    tname = _join([_type_label(t, lang) for t in types], lang) if types else ""
    if lang == "zh":
        filt = describe_filters_zh(plan)
        scope = f"{filt}供应商"
    else:
        filt = describe_filters(plan)
        scope = ("suppliers " + filt).strip() if filt else "suppliers"
    intent = plan.intent

    if intent == Intent.UNKNOWN:
        if lang == "zh":
            return "无法把这个问题对应到公司、条款类型或属性。可以试试：" + "；".join(plan.suggestions[:3])
        return ("I could not map this question to companies, clause types or attributes in the graph. "
                "Try, for example: " + " / ".join(plan.suggestions[:3]))

    if intent in {Intent.COUNT, Intent.SUM_SPEND}:
        n = len(rows)
        refs = " ".join(f"[{e.ref}]" for e in evidence)
        what = _subject(plan, tname, scope, lang)
        unit = p.count_unit
        if intent == Intent.COUNT and unit in {"agreements", "clauses"}:
            who = _join(p.companies or [], lang)
            if unit == "agreements":
                n = len({r.get("sla_id") for r in rows})
                what = ("份协议" if lang == "zh" else "agreements") + (f" ({who})" if who else (f" {describe_filters(plan)}" if describe_filters(plan) else ""))
            else:
                what = ("个条款" if lang == "zh" else "clauses") + (f" in the agreements of {who}" if who and lang != "zh" else (f"（{who}）" if who else ""))
            if lang == "zh":
                return f"共有 {n} {what}。" + (f" {refs}" if refs else "")
            return f"{n} {what}." + (f" {refs}" if refs else "")
        per_company = {r.get("company"): r for r in rows}
        n = len(per_company)
        rows = list(per_company.values())
        if intent == Intent.COUNT:
            if lang == "zh":
                return f"共有 {n} 家{what}。" + (f" {refs}" if refs else "")
            return f"{n} {what}." + (f" {refs}" if refs else "")
        total = sum(float(r.get("spend") or 0) for r in rows)
        if lang == "zh":
            return f"{n} 家{what}的总支出为 {_money(total)}。" + (f" {refs}" if refs else "")
        return f"The total {p.spend_year or 'latest'} spend of the {n} {what} is {_money(total)}." + (f" {refs}" if refs else "")

    if not rows:
        return _nothing(plan, tname, scope, lang)

    if intent == Intent.PRESENCE:
        groups: dict[str, list[str]] = {}
        for e in evidence:
            groups.setdefault(e.company or "?", []).append(f"[{e.ref}]")
        items = [f"{comp} ({', '.join(refs)})" for comp, refs in groups.items()]
        what = _subject(plan, tname, scope, lang)
        if lang == "zh":
            return f"{len(items)} 家{what}：" + "；".join(items) + "。"
        return f"{len(items)} {what}: " + "; ".join(items) + "."

    if intent in {Intent.GAP, Intent.NO_AGREEMENT, Intent.COMPANIES}:
        items = []
        for e, r in zip(evidence, rows):
            spend_word, missing_word = ("支出", "缺少") if lang == "zh" else ("spend", "missing")
            extra = f"{spend_word} {_money(r.get('spend'))}" if r.get("spend") is not None else ""
            if intent == Intent.GAP and len(types) > 1 and r.get("missing"):
                extra = (extra + "; " if extra else "") + f"{missing_word} " + _join(
                    [_type_label(t, lang) for t in r["missing"]], lang if lang == "zh" else "list")
            items.append(f"{e.company} ({extra}) [{e.ref}]" if extra else f"{e.company} [{e.ref}]")
        what = _subject(plan, tname, scope, lang)
        if lang == "zh":
            return f"{len(items)} 家{what}：" + "；".join(items) + "。" + _review_note(evidence, lang)
        return f"{len(items)} {what}: " + "; ".join(items) + "." + _review_note(evidence, lang)

    # clause answers
    by_company: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_company.setdefault(e.company or "?", []).append(e)
    lines = []
    for comp, evs in by_company.items():
        cites = ", ".join(f"{e.clause_title or e.clause_id} ({_type_label(e.clause_type, lang)}) [{e.ref}]" for e in evs)
        lines.append(f"{comp}: {cites}")
    if intent == Intent.NEXT_CLAUSE:
        r0 = rows[0]
        e0 = evidence[0]
        rel = "after" if (p.direction or "after") == "after" else "before"
        if lang == "zh":
            return (f"{e0.company} 的协议 {e0.sla_id} 中，“{r0.get('anchor_title')}”{'之后' if rel == 'after' else '之前'}"
                    f"的条款是“{e0.clause_title}”（{_type_label(e0.clause_type, lang)}）[{e0.ref}]。")
        return (f"In {e0.company}'s agreement {e0.sla_id}, the clause {rel} \"{r0.get('anchor_title')}\" is "
                f"\"{e0.clause_title}\" ({e0.clause_type}) [{e0.ref}]: {_lead(e0.text)}")
    head = _clause_head(plan, tname, scope, len(evidence), len(by_company), lang)
    if len(evidence) == 1:
        e = evidence[0]
        return f"{head}\n{e.company}, {e.sla_id} \"{e.clause_title}\" [{e.ref}]: {_lead(e.text, 400)}"
    return head + "\n" + "\n".join(f"- {line}" for line in lines)


def _review_note(evidence: list[Evidence], lang: str) -> str:
    """A gap that is "only low-confidence evidence", not "no clause": said apart, with the
    clauses to review, so an analyst does not chase a gap the contract may not have."""
    notes = []
    for e in evidence:
        if e.review_only:
            types = _join([_type_label(t, lang) for t in e.review_only], lang if lang == "zh" else "list")
            ids = ", ".join(e.review_clause_ids or [])
            notes.append(f"{e.company}：{types}仅有低置信度证据，待复核（{ids}）" if lang == "zh" else
                         f"{e.company} has only low-confidence evidence of {types} (for review: {ids})")
    if not notes:
        return ""
    return (" 其中" + "；".join(notes) + "。") if lang == "zh" else (" Of these, " + "; ".join(notes) + ".")


def _lead(text: str | None, limit: int = 240) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


def _subject(plan: Plan, tname: str, scope: str, lang: str) -> str:
    intent = plan.intent
    gap = intent == Intent.GAP if plan.params.gap is None else plan.params.gap
    if lang == "zh":
        if intent == Intent.NO_AGREEMENT:
            return "没有任何协议的公司"
        if tname:
            return f"{scope.removesuffix('供应商')}{'缺少' if gap else '有'}{tname}条款的供应商"
        return scope if scope != "供应商" else "符合条件的供应商"
    if intent == Intent.NO_AGREEMENT:
        return f"{scope.replace('suppliers', 'companies', 1)} without any agreement"
    if tname:
        verb = "lacking" if gap else "with"
        if len(plan.params.types or []) > 1 and gap:
            verb = "lacking any of" if plan.params.type_match == "any" else "lacking all of"
        return f"{scope} {verb} a {tname} clause"
    return scope


def _clause_head(plan: Plan, tname: str, scope: str, n: int, n_comp: int, lang: str) -> str:
    intent = plan.intent
    p = plan.params
    if lang == "zh":
        who = "、".join(p.companies or []) or scope
        return f"找到 {n_comp} 家公司的 {n} 个{tname or '相关'}条款（{who}）："
    if intent in DOCUMENT_INTENTS:
        who = _join(p.companies or p.sla_ids or [], "en")
        if intent == Intent.DOCUMENT:
            return f"{who}'s agreement has {n} clauses, in order:"
        if intent == Intent.DOCUMENT_TOPIC:
            return f"The most relevant clauses of {who}'s agreement about \"{p.text}\":"
        return f"{who}'s agreement has {n} {tname} clause{'s' if n != 1 else ''}:"
    if intent in SEARCH_INTENTS:
        return f"{n} clause{'s' if n != 1 else ''} of {scope} match \"{p.text}\" (closest first):"
    return f"{n} {tname} clause{'s' if n != 1 else ''} from {n_comp} {scope}:"


def _nothing(plan: Plan, tname: str, scope: str, lang: str) -> str:
    intent = plan.intent
    if lang == "zh":
        if intent == Intent.GAP:
            return f"没有{scope}缺少{tname}条款：所有符合条件的供应商都有该条款。"
        if intent in SEARCH_INTENTS:
            return f"没有{scope}的条款与“{plan.params.text}”相关。"
        return "没有找到符合条件的结果。"
    if intent == Intent.GAP:
        return f"None of the {scope} lacks a {tname} clause (no company matched)."
    if intent == Intent.PRESENCE:
        who = _join(plan.params.companies or [], "en")
        if who:
            return f"No: {who} has no {tname} clause (0 found)."
        return f"No {scope} has a {tname} clause (0 found)."
    if intent == Intent.NO_AGREEMENT:
        return "Every matching company has at least one agreement."
    if intent in DOCUMENT_INTENTS:
        who = _join(plan.params.companies or plan.params.sla_ids or [], "en")
        return f"No {tname + ' ' if tname else ''}clause found in {who}'s agreement."
    if intent == Intent.NEXT_CLAUSE:
        return "No such clause found: the anchor clause was not found or is the last one."
    if intent in SEARCH_INTENTS:
        return f"No clause of {scope} is about \"{plan.params.text}\"."
    return f"No {tname + ' ' if tname else ''}clauses found for {scope}."

"""Evidence, subgraph and a short cited answer from retrieval rows, without an LLM.

The composer only restates what the rows say and cites them as [S1], [S2] ...; when nothing
matched it says so plainly and returns no evidence. Evidence always carries full clause text.
"""
from __future__ import annotations

import re

from core.retrieval.facets import facet_names
from core.retrieval.term_questions import FIELD_WORDS, FIELD_WORDS_ZH
from core.types import COMPANY_INTENTS, DOCUMENT_INTENTS, SEARCH_INTENTS, SPEND_INTENTS, Evidence, Intent, Plan

MAX_EVIDENCE = 50


def build_evidence(rows: list[dict], plan: Plan) -> list[Evidence]:
    out: list[Evidence] = []
    seen = set()
    company_level = plan.intent in COMPANY_INTENTS and plan.params.count_unit != "clauses"
    if plan.intent == Intent.SPEND_BY:
        return _group_evidence(rows, plan)
    for row in rows:
        if company_level or "clause_id" not in row:
            # agreements listed or counted: one item each (a supplier's two agreements are two items)
            sla_id = row.get("sla_id") if plan.params.count_unit == "agreements" else None
            key = ("agreement", sla_id) if sla_id else ("company", row.get("company"))
            if key in seen:
                continue
            seen.add(key)
            out.append(Evidence(ref=f"S{len(out) + 1}", company=row.get("company"), sla_id=sla_id,
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


def _group_evidence(rows: list[dict], plan: Plan) -> list[Evidence]:
    """Spend per group: one item per group (its total and largest suppliers), no clause."""
    out = []
    for row in rows[:MAX_EVIDENCE]:
        largest = ", ".join(f"{c['company']} {_amount(c['spend'], plan.params.currency)}" for c in row.get("largest") or [])
        out.append(Evidence(ref=f"S{len(out) + 1}", score=_f(row.get("spend")),
                            text=f"{row.get('group_name')}: {_amount(row.get('spend'), plan.params.currency)}, "
                                 f"{row.get('companies')} suppliers (largest: {largest})"))
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
    # gap answers: which required types are missing, from the agreement when the gap is one
    # agreement's ("which contracts lack ..."), else from the company
    for row in rows:
        comp, sla = row.get("company"), row.get("sla_id")
        owner = f"sla:{sla}" if sla and not row.get("clause_id") and f"sla:{sla}" in nodes else f"company:{comp}"
        if owner in nodes:
            for t in row.get("missing") or []:
                node(f"type:{t}", "ClauseType", t)
                edge(owner, f"type:{t}", "MISSING")
    return {"nodes": list(nodes.values()), "edges": edges}


# ---------------------------------------------------------------------------------------

def _join(items: list[str], lang: str, word: str = "and") -> str:
    if lang == "zh":
        return ("或" if word == "or" else "、").join(items)
    if lang == "list":
        return ", ".join(items)
    if len(items) <= 2:
        return f" {word} ".join(items)
    return ", ".join(items[:-1]) + f", {word} " + items[-1]


def _amount(v, currency: str | None) -> str:
    """An amount with its currency: every spend figure is in the graph's base currency."""
    return f"{_money(v)} {currency}" if currency else _money(v)


def _money(v) -> str:
    try:
        return f"{float(v):,.0f}"
    except (TypeError, ValueError):
        return "n/a"


def describe_filters(plan: Plan, of_agreements: bool = False) -> str:
    """The filters in words, after the noun they qualify (suppliers, or agreements themselves)."""
    p = plan.params
    dated = "effective" if of_agreements else "with agreements effective"
    parts = []
    if p.countries:
        parts.append("outside " + "/".join(p.countries_left_out) if p.countries_left_out else "in " + "/".join(p.countries))
    if p.industries:
        parts.append("outside " + "/".join(p.industries_left_out) if p.industries_left_out else "in " + "/".join(p.industries))
    if p.cities:
        parts.append("located in " + "/".join(p.cities))
    if p.spend_min is not None:
        parts.append(f"with {p.spend_year or 'latest'} spend above {_money(p.spend_min)}")
    if p.spend_max is not None:
        parts.append(f"with {p.spend_year or 'latest'} spend below {_money(p.spend_max)}")
    if p.governing_laws:
        parts.append("not governed by " + "/".join(p.governing_laws_left_out) + " law" if p.governing_laws_left_out
                     else "governed by " + "/".join(p.governing_laws) + " law")
    if p.law_scope:
        parts.append("governed by " + ("a law other than" if p.law_scope == "foreign" else "the law of")
                     + " the supplier's own country")
    if p.agreements_min or p.agreements_max:
        parts.append("with exactly one agreement" if p.agreements_max == 1 else
                     f"with exactly {p.agreements_max} agreements" if p.agreements_max == p.agreements_min else
                     f"with at least {p.agreements_min} agreements")
    if p.exclude_companies:
        parts.append("other than " + _join(p.exclude_companies, "en"))
    if p.spend_change:
        parts.append(f"whose {p.spend_year} spend is {'above' if p.spend_change == 'up' else 'below'} "
                     f"their {p.spend_from_year} spend")
    if p.date_from and p.date_to:
        window = _date_window(p.date_from, p.date_to)
        parts.append(f"{dated} {'in ' if ' to ' not in window else ''}{window}")
    elif p.date_from:
        parts.append(f"{dated} from {p.date_from}")
    elif p.date_to:
        parts.append(f"{dated} until {p.date_to}")
    if p.top and plan.intent not in SPEND_INTENTS:
        parts.append(f"among the {p.top} with the {_end(p, 'en')} {p.spend_year or 'latest'} spend")
    return " ".join(parts)


def _date_window(date_from: str, date_to: str) -> str:
    """A window as the question said it: "2024", "2024-03", or "2023-05-01 to 2023-08-31"."""
    import datetime as dt

    from core.retrieval.conditions import date_label

    try:
        return date_label(dt.date.fromisoformat(date_from), dt.date.fromisoformat(date_to))
    except ValueError:
        return f"{date_from} to {date_to}"


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

    # a governing law is said by a country or a jurisdiction ("England and Wales": 英格兰)
    for table in (kind, "jurisdictions") if kind == "countries" else (kind,):
        for canon, syns in lexicon().get(table, {}).items():
            if canon.lower() == str(value).lower():
                return next((x for x in syns if CJK.search(x)), value)
    return value


def describe_filters_zh(plan: Plan) -> str:
    """The question's filters as a Chinese attributive phrase (…的), for the answer sentence."""
    p = plan.params
    parts = []
    if p.countries:
        parts.append("位于" + "/".join(_zh_value("countries", c) for c in p.countries_left_out) + "以外" if p.countries_left_out
                     else "位于" + "/".join(_zh_value("countries", c) for c in p.countries))
    if p.cities:
        parts.append("位于" + "/".join(p.cities))
    if p.industries:
        parts.append("/".join(_zh_value("industries", i) for i in p.industries_left_out) + "行业以外" if p.industries_left_out
                     else "/".join(_zh_value("industries", i) for i in p.industries) + "行业")
    year = f"{p.spend_year}年" if p.spend_year else "最近一年"
    if p.spend_min is not None:
        parts.append(f"{year}支出高于 {_money(p.spend_min)}")
    if p.spend_max is not None:
        parts.append(f"{year}支出低于 {_money(p.spend_max)}")
    if p.governing_laws:
        parts.append("不适用" + "/".join(_zh_value("countries", law) for law in p.governing_laws_left_out) + "法律"
                     if p.governing_laws_left_out
                     else "适用" + "/".join(_zh_value("countries", law) for law in p.governing_laws) + "法律")
    if p.law_scope:
        parts.append("适用供应商本国以外的法律" if p.law_scope == "foreign" else "适用供应商本国法律")
    if p.agreements_min or p.agreements_max:
        parts.append("只有一份协议" if p.agreements_max == 1 else f"恰有 {p.agreements_max} 份协议"
                     if p.agreements_max == p.agreements_min else f"至少有 {p.agreements_min} 份协议")
    if p.exclude_companies:
        parts.append("除" + "、".join(p.exclude_companies) + "以外")
    if p.spend_change:
        parts.append(f"{p.spend_year}年支出{'高于' if p.spend_change == 'up' else '低于'}{p.spend_from_year}年")
    window = _date_window(p.date_from, p.date_to) if p.date_from and p.date_to else None
    if window and " to " not in window:   # a year, a month or a day
        parts.append(f"{window}年生效" if window.isdigit() else f"{window}生效")
    else:
        if p.date_from:
            parts.append(f"{p.date_from}起生效")
        if p.date_to:
            parts.append(f"{p.date_to}前生效")
    if p.top and plan.intent not in SPEND_INTENTS:
        parts.append(f"{year}支出{'最低' if p.spend_order == 'lowest' else '排名前'} {p.top} ")
    return "、".join(parts) + "的" if parts else ""


def _type_label(name: str | None, lang: str) -> str | None:
    return zh_type_name(name) if lang == "zh" and name else name


def compose_answer(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    if plan.intent in SPEND_INTENTS or (plan.intent == Intent.SUM_SPEND and plan.params.spend_categories
                                        and not plan.params.types):
        return cite_every_card(spend_answer(plan, rows, evidence), evidence, plan.language)
    return cite_every_card(_compose(plan, rows, evidence), evidence, plan.language)


def compose_presence_rest(plan: Plan, lacking: list[str], n_have: int, review: bool = False) -> str:
    """The rest of a yes-or-no presence answer over a group ("do German suppliers have a
    termination clause?"): the suppliers in scope without the type, or that none lacks it
    (`review`: some listed have only low-confidence evidence, which the answer named)."""
    lang, tname = plan.language, _type_label((plan.params.types or [""])[0], plan.language)
    if lang == "zh":
        if lacking and not n_have:   # "没有…": not "并非全部"
            return f"范围内的 {len(lacking)} 家均缺少{tname}条款：{'、'.join(lacking)}。"
        if lacking:
            return f"并非全部：{len(lacking)} 家缺少{tname}条款：{'、'.join(lacking)}。"
        if review:
            return "没有供应商完全缺少该条款（上文的低置信度证据待复核）。"
        return "范围内没有供应商缺少该条款。" if n_have else ""
    if lacking and not n_have:   # after "No suppliers ... have ...", not "Not all of them"
        return _full_stop(f"The supplier in scope without one: {lacking[0]}" if len(lacking) == 1
                          else f"The {len(lacking)} suppliers in scope without one: {_join(lacking, lang)}")
    if lacking:
        who = "supplier lacks" if len(lacking) == 1 else "suppliers lack"
        return _full_stop(f"Not all of them: {len(lacking)} {who} {_a(tname)} {tname} clause: {_join(lacking, lang)}")
    if review:
        return "None lacks one outright (the low-confidence evidence above needs review)."
    return "No supplier in scope lacks one." if n_have else ""


def _full_stop(sentence: str) -> str:
    """A sentence ending in a name that ends in a stop ("Co., Ltd.") gets no second one."""
    return sentence if sentence.endswith(".") else sentence + "."


def cite_every_card(answer: str, evidence: list[Evidence], lang: str = "en") -> str:
    """The answer with every evidence card cited: a card the sentence does not cite would be
    shown as support for a claim nobody made, so any left over is named at the end."""
    cited = set(re.findall(r"\[(S\d+)\]", answer))
    left = [f"[{e.ref}]" for e in evidence if e.ref not in cited]
    if not left:
        return answer
    return answer + (f"（另见 {' '.join(left)}）" if lang == "zh" else f" (See also {' '.join(left)}.)")


def _compose(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    lang = plan.language
    p = plan.params
    types = p.types or []
    # "with a Force Majeure or Liability clause"; a gap already says "lacking any of"
    either = "or" if p.type_match == "any" and plan.intent != Intent.GAP and not p.gap else "and"
    # a detail found in a clause of any type names no type ("3 clauses on arbitration")
    tname = _join([_type_label(t, lang) for t in types], lang, either) if types and not p.facets_anywhere else ""
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
                what = _agreements_counted(plan, n, tname, who)
            else:
                what = ("个条款" if lang == "zh" else "clauses") + (f" in the agreements of {who}" if who and lang != "zh" else (f"（{who}）" if who else ""))
            listing = _agreement_lines(rows, lang) if unit == "agreements" and 0 < n <= 20 else ""
            if unit == "agreements" and p.agreement_order in {"most", "fewest"} and n:
                return _suppliers_by_agreements_head(plan, rows, lang) + (f" {refs}" if refs else "") + listing
            if unit == "agreements" and p.agreement_order and n:
                return _ranked_agreements_head(plan, n, lang) + (f" {refs}" if refs else "") + listing
            if lang == "zh":
                return f"共有 {n} {what}。" + (f" {refs}" if refs else "") + listing
            return _full_stop(f"{n} {what}") + (f" {refs}" if refs else "") + listing
        per_company = {r.get("company"): r for r in rows}
        n = len(per_company)
        rows = list(per_company.values())
        if intent == Intent.COUNT:
            low = sum(1 for r in rows if r.get("review_only"))
            if lang == "zh":
                note = f"其中 {low} 家仅有低置信度证据，待复核。" if low else ""
                return f"共有 {n} 家{what}。" + note + (f" {refs}" if refs else "")
            note = (f" {low} of them {'has' if low == 1 else 'have'} only low-confidence evidence (for review)."
                    if low else "")
            return f"{_counted(n, what)}." + note + (f" {refs}" if refs else "")
        total = sum(float(r.get("spend") or 0) for r in rows)
        if lang == "zh":
            return f"{n} 家{what}的总支出为 {_amount(total, p.currency)}。" + (f" {refs}" if refs else "")
        return (f"The total {p.spend_year or 'latest'} spend of the {n} {what} is {_amount(total, p.currency)}."
                + (f" {refs}" if refs else ""))

    if not rows:
        return _nothing(plan, tname, scope, lang)

    if intent == Intent.PRESENCE:
        groups: dict[str, list[str]] = {}
        for e in evidence:
            groups.setdefault(e.company or "?", []).append(f"[{e.ref}]")
        items = [f"{comp} ({', '.join(refs)})" for comp, refs in groups.items()]
        what = _subject(plan, tname, scope, lang)
        review = _review_note(_presence_review(rows, evidence), lang)
        if lang == "zh":
            return f"{len(items)} 家{what}：" + "；".join(items) + "。" + review + _unlisted_named(plan, evidence, tname, lang)
        return f"{_counted(len(items), what)}: " + "; ".join(items) + "." + review + _unlisted_named(plan, evidence, tname, lang)

    if intent == Intent.GAP and p.count_unit == "agreements":
        return _agreement_gaps(plan, rows, evidence, tname, scope)

    if intent == Intent.TERMS:
        return _terms_answer(plan, rows, evidence, filt)

    if intent in {Intent.GAP, Intent.NO_AGREEMENT, Intent.COMPANIES}:
        items = []
        by_company = {}
        for r in rows:
            by_company.setdefault(r.get("company"), r)
        for e in evidence:
            extra = _company_extra(plan, by_company.get(e.company) or {}, types)
            items.append(f"{e.company} ({extra}) [{e.ref}]" if extra else f"{e.company} [{e.ref}]")
        what = _subject(plan, tname, scope, lang)
        if lang == "zh":
            return f"{len(items)} 家{what}：" + "；".join(items) + "。" + _review_note(_gap_review(evidence), lang) + \
                _unlisted_named(plan, evidence, tname, lang)
        return f"{_counted(len(items), what)}: " + "; ".join(items) + "." + _review_note(_gap_review(evidence), lang) + \
            _unlisted_named(plan, evidence, tname, lang)

    return _clause_answer(plan, rows, evidence, tname, scope)



def _notice_deadline(r: dict) -> str | None:
    """The last day to give notice: the expiry less the notice period to prevent renewal."""
    from datetime import date, timedelta
    exp, days = r.get("expiration_date"), r.get("renewal_notice_days")
    if not exp or days is None or r.get("auto_renewal") is False:
        return None
    return (date.fromisoformat(exp) - timedelta(days=int(days))).isoformat()


def _terms_answer(plan: Plan, rows: list[dict], evidence: list[Evidence], filt: str) -> str:
    """Agreements by a term: each with its value as read from the contract, cited."""
    terms = plan.params.terms or {}
    field_ = terms.get("field", "")
    en, zh = FIELD_WORDS.get(field_, field_), FIELD_WORDS_ZH.get(field_, field_)
    said = ", ".join(terms.get("said") or [])
    ref = {e.sla_id: e.ref for e in evidence}
    items = []
    for r in rows:
        cite = f" [{ref[r['sla_id']]}]" if r.get("sla_id") in ref else ""
        value = r.get("value") or ""
        if r.get("derived"):
            value += f" ({r['derived']})"
        deadline = _notice_deadline(r) if field_ in ("renewal_notice", "expiration_date") else None
        tail = (f"；最迟通知日 {deadline}" if plan.language == "zh" else f"; give notice by {deadline}") if deadline else ""
        items.append(f"{r.get('company')} ({r.get('sla_id')}): {value}{tail}{cite}")
    if plan.language == "zh":
        cond = f"（{said}）" if said else ""
        if not items:
            return f"没有{filt}合同的{zh}符合条件{cond}（依据从合同文本读取的条款）。"
        return f"{len(items)} 份{filt}合同的{zh}符合条件{cond}：" + "；".join(items) + "。"
    cond = f" {said}" if said else ""
    scope = f" of {filt}" if filt else ""
    if not items:
        return f"No agreements{scope} have a {en}{cond}, as read from the contract texts."
    n = len(items)
    return f"{n} agreement{'' if n == 1 else 's'}{scope} with a {en}{cond}: " + "; ".join(items) + "."


def _clause_answer(plan: Plan, rows: list[dict], evidence: list[Evidence], tname: str, scope: str) -> str:
    """Clauses grouped by company, then every named company, agreement and type that has none."""
    lang = plan.language
    if plan.intent == Intent.NEXT_CLAUSE:
        return _next_clause_answer(plan, rows, evidence)
    by_company: dict[str, list[Evidence]] = {}
    for e in evidence:
        by_company.setdefault(e.company or "?", []).append(e)
    lines = []
    for comp, evs in by_company.items():
        by_agreement: dict[str, list[Evidence]] = {}
        for e in evs:
            by_agreement.setdefault(e.sla_id or "", []).append(e)
        # a company with several agreements: one line each, so their clauses are not read as one document
        groups = by_agreement.items() if len(by_agreement) > 1 else [("", evs)]
        for sla_id, group in groups:
            cites = ", ".join(f"{e.clause_title or e.clause_id} ({_type_label(e.clause_type, lang)}) [{e.ref}]"
                              for e in group)
            lines.append(f"{comp}{', ' + sla_id if sla_id else ''}: {cites}" + _company_type_gaps(plan, group, lang))
    agreements = len({e.sla_id for e in evidence})
    head = _clause_head(plan, tname, scope, len(evidence), list(by_company), lang, agreements)
    missing = _missing_named(plan, rows, tname, lang)
    if len(evidence) == 1:
        e = evidence[0]
        return (f"{head}\n{e.company}, {e.sla_id} \"{e.clause_title}\" [{e.ref}]: {_excerpt(e, 400, plan.params.mentions)}"
                + _company_type_gaps(plan, evidence, lang) + missing)
    return head + "\n" + "\n".join(f"- {line}" for line in lines) + missing


def _agreements_counted(plan: Plan, n: int, tname: str, who: str) -> str:
    """What a count of agreements counts: whose, picked by which filters, lacking which type or
    mentioning no word asked about ("12 agreements none of whose clauses mentions "gdpr"")."""
    p = plan.params
    if plan.language == "zh":
        return (f"份缺少{tname}条款的协议" if p.gap and tname else
                f"份没有提到“{' '.join(p.mentions)}”的协议" if p.mentions and not tname else "份协议"
                ) + _agreements_scope_zh(plan)
    filters = describe_filters(plan, of_agreements=True)
    what = ("agreement" if n == 1 else "agreements") + (f" ({who})" if who else (f" {filters}" if filters else ""))
    if p.gap and tname:   # "how many contracts lack a force majeure clause?"
        return what + f" lacking {_a(tname)} {tname} clause"
    if p.mentions and not tname:   # "which contracts don't mention GDPR?"
        return what + f" none of whose clauses mentions \"{' '.join(p.mentions)}\""
    return what


def _agreement_gaps(plan: Plan, rows: list[dict], evidence: list[Evidence], tname: str, scope: str) -> str:
    """"Which contracts have no governing-law clause?": each agreement that lacks the type, named by
    its id, owner and service, with the review note of a gap answer."""
    lang = plan.language
    by_id = {r.get("sla_id"): r for r in rows}
    items = []
    for e in evidence:
        r = by_id.get(e.sla_id) or {}
        what = ", ".join(x for x in (e.company, r.get("service_name")) if x)
        if len(plan.params.types or []) > 1 and r.get("missing"):   # which of the asked types it lacks
            missing = _join([_type_label(t, lang) for t in r["missing"]], lang)
            what += f"；缺少{missing}" if lang == "zh" else f"; missing {missing}"
        items.append(f"{e.sla_id} ({what}) [{e.ref}]")
    review = _review_note([(f"{e.sla_id} ({e.company})" if lang != "zh" else f"{e.sla_id}（{e.company}）",
                            list(e.review_only or []), list(e.review_clause_ids or [])) for e in evidence
                           if e.review_only], lang)
    subject = _subject(plan, tname, scope, lang)
    if lang == "zh":
        subject = subject.removesuffix("的供应商").removesuffix("供应商")
        return f"{len(items)} 份{subject}的协议：" + "；".join(items) + "。" + review
    subject = subject.replace("suppliers", "agreements of suppliers", 1) if scope != "suppliers" else \
        subject.replace("suppliers", "agreements", 1)
    head = f"1 {subject.replace('agreements', 'agreement', 1)}" if len(items) == 1 else f"{len(items)} {subject}"
    return f"{head}: " + "; ".join(items) + "." + review


def _next_clause_answer(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    r0, e0, lang = rows[0], evidence[0], plan.language
    rel = "after" if (plan.params.direction or "after") == "after" else "before"
    if lang == "zh":
        return (f"{e0.company} 的协议 {e0.sla_id} 中，“{r0.get('anchor_title')}”{'之后' if rel == 'after' else '之前'}"
                f"的条款是“{e0.clause_title}”（{_type_label(e0.clause_type, lang)}）[{e0.ref}]。")
    return (f"In {e0.company}'s agreement {e0.sla_id}, the clause {rel} \"{r0.get('anchor_title')}\" is "
            f"\"{e0.clause_title}\" ({e0.clause_type}) [{e0.ref}]: {_lead(e0.text)}")


def _row_types(item) -> set[str]:
    """Every type a clause row or card counts as (its confident types, else its main type)."""
    if isinstance(item, Evidence):
        return set(item.clause_types or []) | ({item.clause_type} if item.clause_type else set())
    return set(item.get("clause_types") or []) | ({item["clause_type"]} if item.get("clause_type") else set())


def _company_type_gaps(plan: Plan, evs: list[Evidence], lang: str) -> str:
    """With several types asked, the ones this company's cited clauses do not cover."""
    types = plan.params.types or []
    if len(types) < 2 or plan.intent in SEARCH_INTENTS:
        return ""
    have = set().union(*(_row_types(e) for e in evs)) if evs else set()
    lacking = [t for t in types if t not in have]
    if not lacking:
        return ""
    if lang == "zh":
        return "；没有" + "、".join(_type_label(t, lang) for t in lacking) + "条款"
    return "; no " + _join(lacking, "en") + " clause"


def _missing_named(plan: Plan, rows: list[dict], tname: str, lang: str) -> str:
    """Every company, agreement and clause type the question named that the rows do not
    contain, said in so many words: silence would read as "not asked about"."""
    p = plan.params
    found_companies = {str(r.get("company") or "").casefold() for r in rows}
    found_slas = {str(r.get("sla_id") or "").casefold() for r in rows}
    who = [c for c in p.companies or [] if c.casefold() not in found_companies]
    who += [s for s in p.sla_ids or [] if s.casefold() not in found_slas and not p.companies]
    notes = []
    if who:
        names = _join(who, lang)
        if lang == "zh":
            notes.append(f"未找到{names}的{tname or '相关'}条款。" if plan.intent not in SEARCH_INTENTS
                         else f"{names}没有与“{_quote(p.text)}”相关的条款。")
        elif plan.intent in SEARCH_INTENTS:
            notes.append(f"No clause of {names} matches \"{_quote(p.text)}\".")
        elif plan.intent == Intent.DOCUMENT_TOPIC:
            notes.append(_full_stop(f"None of the closest clauses is from {names}"))
        else:
            notes.append(_full_stop(f"No {tname + ' ' if tname else ''}clause was found for {names}"))
    if len(p.types or []) > 1 and plan.intent not in SEARCH_INTENTS:
        have = set().union(*(_row_types(r) for r in rows)) if rows else set()
        for t in (t for t in p.types if t not in have):
            notes.append(f"未找到{_type_label(t, lang)}条款。" if lang == "zh" else f"No {t} clause was found.")
    return ("\n\n" + " ".join(notes)) if notes else ""   # a paragraph of its own, not the last list item's


def _unlisted_named(plan: Plan, evidence: list[Evidence], tname: str, lang: str) -> str:
    """Named companies a company list leaves out: for a gap they have the type, for a
    presence question they do not; either way the answer says so."""
    listed = {str(e.company or "").casefold() for e in evidence}
    others = [c for c in plan.params.companies or [] if c.casefold() not in listed]
    if not others or not tname:
        return ""
    who, one = _join(others, lang), len(others) == 1
    gap = plan.intent == Intent.GAP if plan.params.gap is None else plan.params.gap
    if lang == "zh":
        return f" {who}不缺少{tname}条款。" if gap else f" {who}没有{tname}条款（找到 0 个）。"
    if gap:
        return f" {who} {'does' if one else 'do'} not lack {_a(tname)} {tname} clause."
    return f" {who} {'has' if one else 'have'} no {tname} clause (0 found)."


def _gap_review(evidence: list[Evidence]) -> list[tuple[str, list[str], list[str]]]:
    """(company, types, clause ids) of the gaps that are "only low-confidence evidence"."""
    return [(e.company or "?", e.review_only, e.review_clause_ids or []) for e in evidence if e.review_only]


def _presence_review(rows: list[dict], evidence: list[Evidence]) -> list[tuple[str, list[str], list[str]]]:
    """(company, types, clause ids) of the companies listed as having a type on low-confidence
    clauses alone: the gap answer counts them as gaps for review, so this answer says so too."""
    low = {r.get("company"): r["review_only"] for r in rows if r.get("review_only")}
    out = []
    for company, types in low.items():
        ids = [e.clause_id for e in evidence if e.company == company and e.clause_id
               and _row_types(e) & set(types)]
        out.append((company or "?", types, ids))
    return out


def _review_note(items: list[tuple[str, list[str], list[str]]], lang: str) -> str:
    """Evidence that is only low-confidence, said apart with the clauses to review: a gap that
    may not be one, or a clause found that may not be of the type."""
    notes = []
    for company, review_types, clause_ids in items:
        types = _join([_type_label(t, lang) for t in review_types], lang if lang == "zh" else "list")
        ids = ", ".join(clause_ids)
        notes.append(f"{company}：{types}仅有低置信度证据，待复核（{ids}）" if lang == "zh" else
                     f"{company} has only low-confidence evidence of {types} (for review: {ids})")
    if not notes:
        return ""
    return (" 其中" + "；".join(notes) + "。") if lang == "zh" else (" Of these, " + "; ".join(notes) + ".")


def _counted(n: int, what: str) -> str:
    """"1 supplier lacking ...", "2 suppliers lacking ...": the noun that leads `what` agrees with n."""
    if n == 1:
        for plural, singular in (("suppliers", "supplier"), ("companies", "company")):
            if what.startswith(plural):
                return f"1 {singular}{what[len(plural):]}"
    return f"{n} {what}"


def _a(word: str) -> str:
    """The English article before a type name ("an Insurance clause", "a Liability clause")."""
    return "an" if word[:1].lower() in "aeio" else "a"


def _excerpt(e: Evidence, limit: int = 240, words: list[str] | None = None) -> str:
    """The clause's opening, or, when the sentence that carries the asked type (or the first of the
    `words` asked for) lies beyond it, that sentence: a long "Miscellaneous" section is quoted by
    its governing-law sentence, not its notices."""
    marked = _sentence_with(e.text or "", words or []) or e.highlighted
    if not marked:
        return _lead(e.text, limit)
    before, sentence, after = (" ".join(part.split()) for part in marked)
    if len(before) + len(sentence) + 1 <= limit:
        return _lead(e.text, limit)
    return ("… " if before else "") + _lead(f"{sentence} {after}".strip(), limit)


def _sentence_with(text: str, words: list[str]) -> tuple[str, str, str] | None:
    """(before, sentence, after) around the first sentence holding the first of `words`."""
    at = text.lower().find(words[0].lower()) if words else -1
    if at < 0:
        return None
    start = max(text.rfind(". ", 0, at) + 2, text.rfind("\n", 0, at) + 1, 0)
    end = text.find(". ", at)
    end = len(text) if end < 0 else end + 1
    return text[:start], text[start:end], text[end:]


def _lead(text: str | None, limit: int = 240) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


MANY_TYPES = 5   # more asked types than an answer's first line names one by one


def _subject(plan: Plan, tname: str, scope: str, lang: str) -> str:
    intent = plan.intent
    gap = intent == Intent.GAP if plan.params.gap is None else plan.params.gap
    # "X but no Y": the types the companies have, said before the ones they lack
    held = [_type_label(t, lang) for t in plan.params.present_types or []]
    have = _join(held, lang, "or" if plan.params.present_match == "any" else "and") if gap else ""
    if lang == "zh":
        if intent == Intent.NO_AGREEMENT:
            return "没有任何协议的公司"
        if gap and len(plan.params.types or []) > MANY_TYPES:
            return f"{scope.removesuffix('供应商')}缺少所查 {len(plan.params.types)} 类条款中任一类的供应商"
        if plan.params.facets_anywhere:   # a detail found in a clause of any type
            names = "、".join(facet_names(plan.params.facets, plan.params.types, "zh"))
            return f"{scope.removesuffix('供应商')}{'缺少' if gap else '有'}涉及{names}的条款的供应商"
        if tname:
            held = f"有{have}条款但" if have else ""
            stating = _stating_zh(plan.params, gap)
            return f"{scope.removesuffix('供应商')}{held}{'缺少' if gap else '有'}{tname}条款{stating}的供应商"
        return scope if scope != "供应商" else "符合条件的供应商"
    if intent == Intent.NO_AGREEMENT:
        return f"{scope.replace('suppliers', 'companies', 1)} without any agreement"
    if gap and len(plan.params.types or []) > MANY_TYPES:   # "which types are missing from X's contract?"
        return f"{scope} lacking any of the {len(plan.params.types)} clause types checked"
    if plan.params.facets_anywhere:   # a detail found in a clause of any type
        return f"{scope} {'lacking' if gap else 'with'} a clause" + _stating(plan.params, gap)
    if tname:
        verb = "lacking" if gap else "with"
        if len(plan.params.types or []) > 1 and gap:
            verb = "lacking any of" if plan.params.type_match == "any" else "lacking all of"
        held = f" with {_a(have)} {have} clause but" if have else ""
        return f"{scope}{held} {verb} {_a(tname)} {tname} clause" + _stating(plan.params, gap)
    return scope


def _clause_head(plan: Plan, tname: str, scope: str, n: int, found: list[str], lang: str,
                 agreements: int = 1) -> str:
    """The first line of a clause answer; a named owner is only the companies that have clauses
    (the others are named after the list, as having none); one company's several agreements are
    counted ("Marisol Salud S.L.'s 2 agreements have 15 clauses")."""
    intent = plan.intent
    p = plan.params
    n_comp = len(found)
    if lang == "zh":
        who = "、".join(found) if (p.companies or p.sla_ids) and found else ("、".join(p.sla_ids or []) or scope)
        if intent == Intent.DOCUMENT and not (p.companies or p.sla_ids):
            return f"{scope}（{n_comp} 家）的 {agreements} 份协议共有 {n} 个条款，按顺序："
        if p.mentions and not tname:   # "哪些条款提到了仲裁？"
            return f"找到 {n_comp} 家公司的 {n} 个提到“{' '.join(p.mentions)}”的条款" + (f"（{who}）" if who != "供应商" else "") + "："
        return f"找到 {n_comp} 家公司的 {n} 个{tname or '相关'}条款（{who}）："
    if intent == Intent.DOCUMENT and not (p.companies or p.sla_ids):   # the suppliers a filter picks
        who = scope.replace("suppliers", "supplier", 1) if n_comp == 1 else scope
        return (f"The {agreements} agreement{'s' if agreements != 1 else ''} of {n_comp} {who} "
                f"{'has' if agreements == 1 else 'have'} {n} clauses, in order:")
    if intent in DOCUMENT_INTENTS:
        owner = (_owner(found if found else p.companies, p.sla_ids) if p.sla_ids and not p.companies
                 else _owner(found if p.companies and found else p.companies))
        if agreements > 1 and owner.endswith("'s agreement"):
            owner = f"{owner[:-len('agreement')]}{agreements} agreements"
        if intent == Intent.DOCUMENT:
            return f"{owner[0].upper() + owner[1:]} {'has' if _one_owner(owner) else 'have'} {n} clauses, in order:"
        if intent == Intent.DOCUMENT_TOPIC:
            return f"The most relevant clauses of {owner} about \"{_quote(p.text)}\":"
        if intent == Intent.POSITION and p.position and p.numbered and p.position > 0:
            return f"Section {p.position} of {owner} (by the number in its heading):"
        if intent == Intent.POSITION and p.position:
            place = ("The last clause" if p.position == -1 else
                     "The penultimate clause" if p.position == -2 else
                     f"Clause {-p.position} from the end (counted along NEXT)" if p.position < 0 else
                     f"Clause {p.position} (counted along NEXT)")
            return f"{place} of {owner}:"
        verb = "has" if _one_owner(owner) else "have"
        return f"{owner[0].upper() + owner[1:]} {verb} {n} {tname} clause{'s' if n != 1 else ''}:"
    if intent in SEARCH_INTENTS and not p.mentions:
        return f"{n} clause{'s' if n != 1 else ''} of {scope} match \"{_quote(p.text)}\"{_stating(p, False)} (closest first):"
    mentioning = (f" mentioning \"{' '.join(p.mentions)}\"" if p.mentions else "") + _stating(p, False)
    scope = scope.replace("suppliers", "supplier", 1) if n_comp == 1 and scope.startswith("suppliers") else scope
    return f"{n} {tname + ' ' if tname else ''}clause{'s' if n != 1 else ''}{mentioning} from {n_comp} {scope}:"


def _details_read(p, gap: bool) -> bool:
    """A gap beside a type held is read by type only (the service warns); every other answer reads them."""
    return not (gap and p.present_types)


def _stating(p, gap: bool) -> str:
    """' stating "99.9%" on arbitration': the quantities and facets a listed clause was asked to have."""
    if not _details_read(p, gap):
        return ""
    return "".join(f' stating "{x}"' for x in p.quantities or []) + \
        "".join(f" on {name.lower()}" for name in facet_names(p.facets, p.types, "en"))


def _stating_zh(p, gap: bool) -> str:
    if not _details_read(p, gap):
        return ""
    details = [f"写明{x}" for x in p.quantities or []] + [f"涉及{x}" for x in facet_names(p.facets, p.types, "zh")]
    return f"（{'、'.join(details)}）" if details else ""


def _company_extra(plan: Plan, r: dict, types: list[str]) -> str:
    """What a company line says besides the name: spend (or its change), address, types missing."""
    p, lang = plan.params, plan.language
    spend_word, missing_word = ("支出", "缺少") if lang == "zh" else ("spend", "missing")
    extra = f"{spend_word} {_amount(r.get('spend'), p.currency)}" if r.get("spend") is not None else ""
    if r.get("spend_before") is not None and p.spend_from_year:   # a change between two years
        extra = (f"{spend_word} {p.spend_from_year}: {_amount(r['spend_before'], p.currency)} → "
                 f"{p.spend_year}: {_amount(r.get('spend'), p.currency)}")
    if r.get("locations") is not None:   # "where is X based?"
        extra = _locations(r, lang) + (f"; {extra}" if extra else "")
    if plan.intent == Intent.GAP and len(types) > 1 and r.get("missing"):
        extra = (extra + "; " if extra else "") + f"{missing_word} " + _join(
            [_type_label(t, lang) for t in r["missing"]], lang if lang == "zh" else "list")
    return extra


def _locations(row: dict, lang: str) -> str:
    """Where a company is: its addresses, else its country."""
    places = [", ".join(x for x in (a.get("street"), a.get("city"), a.get("country")) if x) for a in row.get("locations") or []]
    if not places:
        places = [row.get("country") or ("地址不详" if lang == "zh" else "no address on file")]
    return ("位于 " if lang == "zh" else "based at ") + ("；" if lang == "zh" else "; ").join(places)


def _agreements_scope_zh(plan: Plan) -> str:
    """（the named suppliers） or （the filters' suppliers） after 份协议; empty when neither."""
    who, filters = _join(plan.params.companies or [], "zh"), describe_filters_zh(plan)
    return f"（{who}）" if who else (f"（{filters}供应商）" if filters else "")


def _ranked_agreements_head(plan: Plan, n: int, lang: str) -> str:
    """"The earliest agreement by effective date (suppliers in Austria):" and its Chinese."""
    p = plan.params
    early = p.agreement_order == "earliest"
    if lang == "zh":
        return f"按生效日期{'最早' if early else '最新'}的 {n} 份协议{_agreements_scope_zh(plan)}："
    filters = describe_filters(plan)
    scope = f" ({_join(p.companies, lang)})" if p.companies else (f" (suppliers {filters})" if filters else "")
    word = "earliest" if early else "latest"
    return (f"The {word} agreement by effective date{scope}:" if n == 1
            else f"The {n} {word} agreements by effective date{scope}:")


def _suppliers_by_agreements_head(plan: Plan, rows: list[dict], lang: str) -> str:
    """"Klinora has the most agreements: 2. No other one has more than 1." Ties share the place
    ("14 suppliers share the fewest agreements, 1 each"); the next count says how far ahead."""
    p = plan.params
    counts = {r.get("company"): int(r.get("agreements") or 0) for r in rows}
    names, most = list(counts), p.agreement_order == "most"
    next_count = rows[0].get("next_count")
    top_count = counts[names[0]]
    shared = len(names) > 1 and len(set(counts.values())) == 1 and p.agreement_top in (None, 1)
    by_count: dict[int, list[str]] = {}
    for company, k in counts.items():
        by_count.setdefault(k, []).append(company)
    if lang == "zh":
        scope = _agreements_scope_zh(plan)
        word = "最多" if most else "最少"
        groups = "；".join(f"{_join(cs, lang)}（{'各 ' if len(cs) > 1 else ''}{k} 份）" for k, cs in by_count.items())
        head = (f"{len(names)} 家供应商{scope}并列协议{word}，各 {top_count} 份：{_join(names, lang)}" if shared
                else f"协议{word}的供应商{scope}：{groups}")
        return head + (f"。其余供应商{'不超过' if most else '至少'} {next_count} 份。" if next_count is not None else "。")
    filters = describe_filters(plan)
    among = f"Among the suppliers {filters}, " if filters else ""
    word = "most" if most else "fewest"
    if len(names) == 1:
        head = f"{among}{names[0]} has the {word} agreements: {counts[names[0]]}."
    elif shared:
        head = f"{len(names)} suppliers{' ' + filters if filters else ''} share the {word} agreements, {top_count} each."
    else:   # a ranking with ties at its last place: one entry per count
        groups = [f"{cs[0]} ({k})" if len(cs) == 1 else
                  (f"{_join(cs, lang)} ({k} each)" if len(cs) <= 3 else f"{len(cs)} suppliers tied with {k} each")
                  for k, cs in by_count.items()]
        head = f"{among}the suppliers with the {word} agreements: " + "; ".join(groups) + "."
    if next_count is not None:
        head += (f" No other one has more than {next_count}." if most else f" Every other one has at least {next_count}.")
    return head[0].upper() + head[1:]


def _agreement_lines(rows: list[dict], lang: str) -> str:
    """Each agreement counted, with what identifies it to an analyst: service, date, law."""
    lines, seen = [], set()
    for r in rows:
        if r.get("sla_id") in seen or not r.get("sla_id"):
            continue
        seen.add(r["sla_id"])
        facts = [f for f in (r.get("service_name"),
                             (f"生效 {r['effective_date']}" if lang == "zh" else f"effective {r['effective_date']}")
                             if r.get("effective_date") else None,
                             (f"适用{_zh_value('countries', r['governing_law'])}法律" if lang == "zh" else f"{r['governing_law']} law")
                             if r.get("governing_law") else None) if f]
        lines.append(f"- {r.get('company')}, {r['sla_id']}" + (f": {'；'.join(facts) if lang == 'zh' else '; '.join(facts)}"
                                                                if facts else ""))
    return "\n" + "\n".join(lines) if lines else ""


def _owner(names: list[str], sla_ids: list[str] | None = None) -> str:
    """"X's agreement" for one owner, "the agreements of X and Y" for several (never "X, Y,
    and Z's agreement"); an agreement named by its service or id keeps its id beside the owner
    ("Klinora AG's agreement SLA-003"), and one whose owner is unknown is "agreement SLA-003"."""
    ids = _join(list(sla_ids or []), "en")
    if not names:
        return f"agreement{'s' if len(sla_ids or []) > 1 else ''} {ids}".strip()
    if len(names) == 1:
        return f"{names[0]}'s agreement" + (f"{'s' if len(sla_ids or []) > 1 else ''} {ids}" if ids else "")
    return "the agreements of " + _join(names, "en") + (f" ({ids})" if ids else "")


def _one_owner(owner: str) -> bool:
    """Whether the owner phrase takes "has": one agreement, with or without its id."""
    return not owner.startswith("the agreements") and not re.search(r"\bagreements\b", owner)


def _nothing(plan: Plan, tname: str, scope: str, lang: str) -> str:
    intent = plan.intent
    per_agreement = plan.params.count_unit == "agreements"
    if lang == "zh":
        if intent == Intent.GAP and per_agreement:
            return f"没有{scope}的协议缺少{tname}条款：所有符合条件的协议都有该条款。"
        if intent == Intent.GAP:
            return f"没有{scope}缺少{tname}条款：所有符合条件的供应商都有该条款。"
        if intent in SEARCH_INTENTS and plan.params.mentions:
            return f"没有{scope}的条款提到“{' '.join(plan.params.mentions)}”。"
        if intent in SEARCH_INTENTS:
            return f"没有{scope}的条款与“{_quote(plan.params.text)}”相关。"
        who = "、".join(plan.params.companies or plan.params.sla_ids or [])
        if who and intent == Intent.PRESENCE:
            return f"没有：{who}没有{tname}条款{_stating_zh(plan.params, False)}（找到 0 个）。"
        if who and tname:
            return f"在{who}的协议中没有找到{tname}条款。"
        return "没有找到符合条件的结果。"
    clause = f"{_a(tname)} {tname} clause" if tname else "a clause"   # no type: a detail found in any clause
    if intent == Intent.GAP and per_agreement:
        return f"None of the agreements of {scope} lacks {clause}{_stating(plan.params, True)} (no agreement matched)."
    if intent == Intent.GAP:
        return f"None of the {scope} lacks {clause}{_stating(plan.params, True)} (no company matched)."
    if intent == Intent.PRESENCE:
        who = _join(plan.params.companies or [], "en")
        if who:
            return f"No: {who} {'has' if len(plan.params.companies) == 1 else 'have'} no {tname} clause" \
                   f"{_stating(plan.params, False)} (0 found)."
        return f"No {scope} {'has' if scope.startswith('supplier ') else 'have'} {clause}" \
               f"{_stating(plan.params, False)} (0 found)."
    if intent == Intent.NO_AGREEMENT:
        return "Every matching company has at least one agreement."
    if intent in DOCUMENT_INTENTS:
        return f"No {tname + ' ' if tname else ''}clause found in {_owner(plan.params.companies or [], plan.params.sla_ids)}."
    if intent == Intent.NEXT_CLAUSE:
        return "No such clause found: the anchor clause was not found or is the last one."
    if intent in SEARCH_INTENTS and plan.params.mentions:
        return f"No clause of {scope} mentions \"{' '.join(plan.params.mentions)}\"."
    if intent in SEARCH_INTENTS:
        return f"No clause of {scope} is about \"{_quote(plan.params.text)}\"."
    if intent in {Intent.COMPANIES, Intent.COUNT} and not tname:
        return f"No {scope} found."
    return f"No {tname + ' ' if tname else ''}clauses found for {scope}."


# ---------------------------------------------------------------------------------------
# spend figures

_GROUP_ZH = {"country": "国家", "industry": "行业", "category": "支出类别"}


def spend_answer(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    """Spend on categories, rankings, totals per group, one supplier over the years; every
    figure with the base currency."""
    p, lang, intent = plan.params, plan.language, plan.intent
    year = p.spend_year
    cats = _join(p.spend_categories or [], "zh" if lang == "zh" else "en")
    if not rows:
        if lang == "zh":
            return "没有找到符合条件的支出数据。"
        return "No spend data matches this question" + (f" ({cats}" + (f", {year})" if year else ")") if cats else ".")
    if intent == Intent.SPEND_HISTORY:
        return _history_answer(plan, rows, evidence)
    if intent == Intent.SPEND_BY:
        return _group_answer(plan, rows, evidence)
    per_company = {}
    for r in rows:
        per_company.setdefault(r.get("company"), float(r.get("spend") or 0))
    items = [f"{e.company} ({_amount(per_company.get(e.company), p.currency)}) [{e.ref}]" for e in evidence]
    filt = describe_filters_zh(plan) if lang == "zh" else describe_filters(plan)
    if intent == Intent.SUM_SPEND:
        total = _amount(sum(per_company.values()), p.currency)
        if lang == "zh":
            return f"{year}年{filt}在{cats}上的支出为 {total}，涉及 {len(per_company)} 家供应商：" + "；".join(items) + "。"
        scope = f" with suppliers {filt}" if filt else ""
        return (f"The {year} spend on {cats}{scope} is {total}, across {len(per_company)} supplier"
                f"{'s' if len(per_company) != 1 else ''}: " + "; ".join(items) + ".")
    on = f" on {cats}" if cats else ""
    if lang == "zh":
        where_ = f"在{cats}上" if cats else ""
        return f"{year}年{filt}{where_}支出{_end(p, 'zh')}的 {len(items)} 家供应商：" + "；".join(items) + "。"
    scope = f" {filt}" if filt else ""
    if not p.top:
        return f"{len(items)} supplier{'s' if len(items) != 1 else ''}{scope} with {year} spend{on}, {_end(p, 'en')} first: " \
            + "; ".join(items) + "."
    return (f"The {len(items)} supplier{'s' if len(items) != 1 else ''}{scope} with the {_end(p, 'en')} {year} spend{on}: "
            + "; ".join(items) + ".")


def _end(p, lang: str) -> str:
    """Which end of a spend ranking the question asked for."""
    low = p.spend_order == "lowest"
    return ("最低" if low else "最高") if lang == "zh" else ("lowest" if low else "highest")


def _group_answer(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    p, lang = plan.params, plan.language
    group = p.group_by or "category"
    parts = [(r.get("group_name") if not (lang == "zh" and group in {"country", "industry"}) else
              _zh_value("countries" if group == "country" else "industries", r.get("group_name")),
              _amount(r.get("spend"), p.currency), r.get("companies"), e.ref) for r, e in zip(rows, evidence)]
    total = _amount(sum(float(r.get("spend") or 0) for r in rows), p.currency)
    cats = _join(p.spend_categories or [], "zh" if lang == "zh" else "en")
    if lang == "zh":
        on = f"在{cats}上" if cats else ""
        return (f"{p.spend_year}年按{_GROUP_ZH[group]}统计{on}的支出：" + "；".join(
            f"{g} {a}（{n} 家供应商）[{ref}]" for g, a, n, ref in parts) + f"。合计 {total}。")
    on = f" on {cats}" if cats else ""
    return (f"{p.spend_year} spend{on} by {group}: " + "; ".join(
        f"{g} {a} ({n} supplier{'s' if n != 1 else ''}) [{ref}]" for g, a, n, ref in parts) + f". Total: {total}.")


def _history_answer(plan: Plan, rows: list[dict], evidence: list[Evidence]) -> str:
    lang, cur = plan.language, plan.params.currency
    refs = {e.company: e.ref for e in evidence}
    years: dict[str, dict[int, list[tuple[str, float]]]] = {}
    for r in rows:
        years.setdefault(r.get("company"), {}).setdefault(r.get("year"), []).append(
            (r.get("category"), float(r.get("spend") or 0)))
    lines = []
    for company, by_year in years.items():
        parts = []
        for y, cats in sorted(by_year.items()):
            detail = ", ".join(f"{c} {_money(a)}" for c, a in cats)
            total = _amount(sum(a for _, a in cats), cur)
            parts.append(f"{y}年 {total}（{detail}）" if lang == "zh" else f"{y}: {total} ({detail})")
        sep = "；" if lang == "zh" else "; "
        if len(by_year) > 1:   # "over 2023 and 2024 combined": the years' sum as well
            span = f"{min(by_year)}–{max(by_year)}"
            total = _amount(sum(a for cats in by_year.values() for _, a in cats), cur)
            parts.append(f"{span}年合计 {total}" if lang == "zh" else f"total {span}: {total}")
        lines.append(f"{company}{'：' if lang == 'zh' else ': '}" + sep.join(parts) + f" [{refs.get(company, 'S1')}]")
    return ("。".join(lines) + "。") if lang == "zh" else ". ".join(lines) + "."


def _quote(text: str | None, limit: int = 120) -> str:
    """Search words as quoted in an answer: a short excerpt, never a whole pasted text."""
    return _lead(text, limit)

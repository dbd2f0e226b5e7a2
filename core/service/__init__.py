"""The service API used by the CLI and every dashboard page.

Pages call these functions only; they never see Cypher or the driver. Every question goes
through `ask`, which plans (offline planner, or Text2Cypher when an LLM is configured),
retrieves, composes a cited answer, builds the evidence subgraph and logs the request.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.graph import vocabulary as graph_cache
from core.answer.composer import build_evidence, build_subgraph, compose_answer
from core.config import settings
from core.graph.db import Database, DatabaseUnavailable, get_database
from core.retrieval.planner import MODES, SessionContext, plan_question
from core.graph.queries import reports as qr
from core.types import Plan, Result
from core.graph.queries.retrieval import used_params
from core.retrieval.retrievers import RETRIEVERS, RetrievalError, active_filters, base_params

ALL_MODES = ("auto",) + MODES + ("text2cypher",)
_SESSION_ID = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


# ---------------------------------------------------------------------------------------
# sessions (kept on disk so the CLI's --session works across processes)
# ---------------------------------------------------------------------------------------

class SessionStore:
    def __init__(self, folder: Path | None = None):
        self.folder = folder or settings().log_dir.parent / "sessions"
        self._mem: dict[str, SessionContext] = {}
        self._lock = threading.Lock()

    def _path(self, sid: str) -> Path:
        if not _SESSION_ID.match(sid):
            raise ValueError("a session id may only contain letters, digits, '.', '_' and '-' (at most 64)")
        return self.folder / f"{sid}.json"

    def get(self, sid: str | None) -> SessionContext | None:
        if not sid:
            return None
        with self._lock:
            if sid in self._mem:
                return self._mem[sid]
            path = self._path(sid)
            ctx = SessionContext()
            if path.is_file():
                try:
                    ctx = SessionContext.from_dict(json.loads(path.read_text(encoding="utf-8")))
                except (ValueError, TypeError):
                    ctx = SessionContext()
            self._mem[sid] = ctx
            return ctx

    def update(self, sid: str | None, plan: Plan, result: Result | None = None) -> None:
        if not sid or plan.intent == "unknown":
            return
        ctx = self.get(sid)
        p = plan.params
        with self._lock:
            if p.get("companies") or p.get("sla_ids"):
                ctx.companies, ctx.sla_ids = list(p.get("companies") or []), list(p.get("sla_ids") or [])
            if p.get("types"):
                ctx.clause_types = list(p["types"])
            filters = {k: p.get(k) for k in ("countries", "industries", "cities", "spend_min", "spend_max")
                       if p.get(k) not in (None, [], "")}
            if filters:
                ctx.filters = filters
            if result is not None and result.evidence_clause_ids:
                ctx.clause_ids = result.evidence_clause_ids[:5]
                if not (p.get("companies") or p.get("sla_ids")):
                    ctx.companies = result.evidence_companies[:5]
            ctx.last_intent = plan.intent
            ctx.turns += 1
            path = self._path(sid)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(ctx.to_dict(), ensure_ascii=False), encoding="utf-8")

    def reset(self, sid: str) -> None:
        with self._lock:
            self._mem.pop(sid, None)
            self._path(sid).unlink(missing_ok=True)


_sessions: SessionStore | None = None


def sessions() -> SessionStore:
    global _sessions
    if _sessions is None:
        _sessions = SessionStore()
    return _sessions


# ---------------------------------------------------------------------------------------
# asking
# ---------------------------------------------------------------------------------------

_models_ready = False


def _ensure_models() -> None:
    """Load the embedding model and the planner's clause-type prototypes on the first question,
    so that one question pays the one-time cost instead of whichever later one first needs it."""
    global _models_ready
    if not _models_ready:
        from core.retrieval.planner import _prototype_matrix

        _prototype_matrix()
        _models_ready = True


def _embed_fn():
    from core.embeddings import get_embedder

    emb = get_embedder()
    return lambda text: emb.encode_one(text)


def ask(question: str, mode: str = "auto", session: str | None = None, db: Database | None = None,
        log: bool = True) -> Result:
    """Answer one question; never raises for a bad question, only for an unreachable database."""
    if mode not in ALL_MODES:
        raise ValueError(f"unknown mode {mode!r}; choose one of {', '.join(ALL_MODES)}")
    db = db or get_database()
    t_start = time.perf_counter()
    question = question if isinstance(question, str) else str(question)
    result = Result(question=question, mode=mode, session=session)
    if not question.strip():
        result.answer = "Please type a question."
        result.mode = "none"
        return result
    ctx = sessions().get(session)

    use_llm = mode == "text2cypher" or (mode == "auto" and settings().llm_configured)
    if use_llm:
        llm_result = _ask_llm(question, db, ctx, result, forced=mode == "text2cypher")
        if llm_result is not None:
            _finish(llm_result, t_start, log)
            return llm_result

    _ensure_models()
    t0 = time.perf_counter()
    vocab = graph_cache.vocabulary(db)
    plan = plan_question(question, vocab, ctx, forced_mode=None if mode in {"auto", "text2cypher"} else mode)
    result.timings_ms["plan"] = round((time.perf_counter() - t0) * 1000, 2)
    _run_plan(plan, db, result)
    sessions().update(session, plan, result)
    _finish(result, t_start, log)
    return result


def _run_plan(plan: Plan, db: Database, result: Result) -> None:
    if plan.mode in {"relay", "hybrid"} and plan.intent != "unknown":
        if plan.mode == "hybrid":
            # forced onto a typed question: hybrid does not filter by type, so its answer must not
            # read "N <type> clauses" (it did, listing clauses of other types)
            plan.intent = "hybrid"
        if not plan.params.get("text"):
            plan.params["text"] = result.question  # searched for as asked; shown in the plan
    result.plan = plan.to_dict()
    result.mode = plan.mode
    if plan.intent == "unknown" or plan.mode not in RETRIEVERS:
        result.answer = compose_answer(plan, [], [])
        result.warnings.append("the question could not be mapped; nothing was run")
        return
    if plan.mode == "clause_type" and not plan.params.get("types"):
        result.answer = ("Clause-type mode needs a clause type in the question (e.g. 'termination clauses'); "
                         "none was recognised.")
        result.warnings.append("no clause type recognised")
        return
    if plan.mode == "document" and not (plan.params.get("companies") or plan.params.get("sla_ids")):
        result.answer = "Document mode needs a company or agreement in the question; none was recognised."
        result.warnings.append("no company or agreement recognised")
        return
    if plan.mode == "attribute" and plan.intent not in {"gap", "presence", "no_agreement", "companies", "count",
                                                        "sum_spend", "attribute_clauses"}:
        plan.intent = "attribute_clauses" if plan.params.get("types") else "companies"
        result.plan = plan.to_dict()
    t0 = time.perf_counter()
    try:
        retrieval = RETRIEVERS[plan.mode](db).retrieve(plan, embed=_embed_fn())
    except RetrievalError as exc:
        result.answer = f"Cannot answer in {plan.mode} mode: {exc}."
        result.warnings.append(str(exc))
        return
    result.timings_ms["retrieve"] = round((time.perf_counter() - t0) * 1000, 2)
    result.timings_ms.update({f"retrieve.{k}": v for k, v in retrieval.timings_ms.items()})
    result.cypher, result.params, result.rows = retrieval.cypher, retrieval.params, retrieval.rows
    result.warnings.extend(retrieval.warnings)
    result.trace.extend(retrieval.trace)
    t0 = time.perf_counter()
    result.evidence = build_evidence(result.rows, plan)
    result.answer = compose_answer(plan, result.rows, result.evidence)
    result.subgraph = build_subgraph(result.rows, result.evidence)
    result.timings_ms["compose"] = round((time.perf_counter() - t0) * 1000, 2)


def _ask_llm(question: str, db: Database, ctx, result: Result, forced: bool) -> Result | None:
    """Text2Cypher path; falls back to the offline planner (with a warning) on any LLM failure."""
    try:
        from core.text2cypher.pipeline import answer_with_llm
    except ImportError:
        result.warnings.append("Text2Cypher is not available in this build; answered by the offline planner")
        return None
    try:
        return answer_with_llm(question, db=db, context=ctx, session=result.session,
                               mode="text2cypher" if forced else "auto")
    except Exception as exc:  # noqa: BLE001 - any LLM trouble falls back visibly
        if isinstance(exc, DatabaseUnavailable):
            raise
        result.warnings.append(f"LLM unavailable ({exc.__class__.__name__}: {str(exc)[:160]}); "
                               "answered by the offline planner")
        return None


def _finish(result: Result, t_start: float, log: bool) -> None:
    result.timings_ms["total"] = round((time.perf_counter() - t_start) * 1000, 2)
    if log:
        try:
            from core.request_log import log_result

            log_result(result)
        except OSError as exc:
            result.warnings.append(f"request log not written: {exc}")


def plan_only(question: str, session: str | None = None, db: Database | None = None) -> Plan:
    db = db or get_database()
    return plan_question(question, graph_cache.vocabulary(db), sessions().get(session))


# ---------------------------------------------------------------------------------------
# compliance gaps
# ---------------------------------------------------------------------------------------

DEFAULT_REQUIRED = ("Termination", "Liability", "Data Protection")


@dataclass
class GapRow:
    company: str
    country: str | None
    industry: str | None
    spend: float | None
    agreements: int
    sla_ids: list[str]
    counts: dict[str, int]
    low_confidence: dict[str, int]
    missing: list[str]


@dataclass
class GapReport:
    required: list[str]
    filters: dict[str, Any]
    spend_year: int | None
    rows: list[GapRow] = field(default_factory=list)
    cypher: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def companies_with_gaps(self) -> list[GapRow]:
        return [r for r in self.rows if r.missing]

    @property
    def spend_at_risk(self) -> float:
        return sum(r.spend or 0 for r in self.companies_with_gaps)

    def totals(self) -> dict:
        return {"companies": len(self.rows), "companies_with_gaps": len(self.companies_with_gaps),
                "spend_at_risk": self.spend_at_risk,
                "missing_by_type": {t: sum(1 for r in self.rows if t in r.missing) for t in self.required}}

    def to_dict(self) -> dict:
        return {"required": self.required, "filters": self.filters, "spend_year": self.spend_year,
                "totals": self.totals(), "rows": [r.__dict__ for r in self.rows]}

    def to_csv(self) -> str:
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["company", "country", "industry", f"spend_{self.spend_year or 'latest'}", "agreements"]
                   + [f"{t} clauses" for t in self.required] + ["missing"])
        for r in self.rows:
            w.writerow([r.company, r.country or "", r.industry or "", "" if r.spend is None else f"{r.spend:.2f}",
                        r.agreements] + [r.counts.get(t, 0) for t in self.required] + ["; ".join(r.missing)])
        return buf.getvalue()

    def to_markdown(self) -> str:
        t = self.totals()
        head = (f"# Compliance gaps\n\nRequired clause types: {', '.join(self.required)}. "
                f"{t['companies_with_gaps']} of {t['companies']} companies have gaps; "
                f"spend at risk: {t['spend_at_risk']:,.0f}.\n\n")
        cols = ["Company", "Country", "Industry", "Spend"] + self.required + ["Missing"]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in self.rows:
            cells = [r.company, r.country or "", r.industry or "", "" if r.spend is None else f"{r.spend:,.0f}"]
            cells += [("✗ 0" if r.counts.get(ty, 0) == 0 else f"✓ {r.counts[ty]}") for ty in self.required]
            cells.append(", ".join(r.missing) or "—")
            lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
        return head + "\n".join(lines) + "\n"


def gap_report(required: list[str] | tuple = DEFAULT_REQUIRED, countries=(), industries=(), cities=(),
               min_spend: float | None = None, max_spend: float | None = None, year: int | None = None,
               db: Database | None = None) -> GapReport:
    from core.ingest.classifier import REVIEW_THRESHOLD
    from core.taxonomy import type_names

    db = db or get_database()
    known = type_names()
    required = [t for t in required if t]
    unknown = [t for t in required if t not in known]
    if unknown:
        raise ValueError(f"unknown clause type(s): {', '.join(unknown)}; known: {', '.join(known)}")
    if not required:
        raise ValueError("choose at least one required clause type")
    vocab = graph_cache.vocabulary(db)
    if year is not None and year not in vocab.spend_years:
        raise ValueError(f"no spend data for {year}; years present: {', '.join(map(str, vocab.spend_years)) or 'none'}")
    spend_year = year or vocab.latest_year
    plan = Plan(intent="gap", mode="attribute", params={
        "countries": list(countries), "industries": list(industries), "cities": list(cities),
        "spend_min": min_spend, "spend_max": max_spend, "spend_year": spend_year})
    params = base_params(plan)
    params.update(types=list(required), review_threshold=REVIEW_THRESHOLD)
    cypher = qr.gap_matrix(active_filters(params) - {"types"}, params["spend_key"])
    params = used_params(cypher, params)
    rows = db.read(cypher, params)
    report = GapReport(required=list(required), spend_year=spend_year, cypher=cypher, params=params,
                       filters={"countries": list(countries), "industries": list(industries), "cities": list(cities),
                                "min_spend": min_spend, "max_spend": max_spend})
    for r in rows:
        counts = {c["type"]: int(c["count"]) for c in r["cells"]}
        low = {c["type"]: int(c["low_confidence"]) for c in r["cells"]}
        report.rows.append(GapRow(company=r["company"], country=r["country"], industry=r["industry"],
                                  spend=None if r["spend"] is None else float(r["spend"]),
                                  agreements=int(r["agreements"]), sla_ids=list(r["sla_ids"]), counts=counts,
                                  low_confidence=low, missing=[t for t in required if counts.get(t, 0) == 0]))
    return report


# ---------------------------------------------------------------------------------------
# exploration and status
# ---------------------------------------------------------------------------------------

def list_companies(db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.COMPANY_LIST)


def list_agreements(db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.AGREEMENT_LIST)


def list_clause_types(db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.CLAUSE_TYPE_LIST)


def agreement_clauses(sla_id: str, db: Database | None = None) -> list[dict]:
    return (db or get_database()).read(qr.AGREEMENT_CLAUSES, {"sla_id": sla_id})


NODE_LABELS = ("Company", "SLA", "Clause", "ClauseType", "Address")


def neighbourhood(label: str, key: str, depth: int = 2, labels: list[str] | None = None,
                  types: list[str] | None = None, limit: int = 300, db: Database | None = None) -> dict:
    """Subgraph around one node, for the Explore page (nodes with their properties)."""
    if label not in NODE_LABELS:
        raise ValueError(f"label must be one of {', '.join(NODE_LABELS)}")
    depth = max(1, min(int(depth), 3))
    db = db or get_database()
    rows = db.read(qr.NEIGHBOURHOOD, {"label": label, "key": key, "depth": depth, "labels": list(labels or []),
                                      "types": list(types or []), "limit": int(limit)})
    nodes: dict[str, dict] = {}
    edges = []
    for r in rows:
        for side in ("source", "target"):
            nid = r[side]
            if nid not in nodes:
                props = {k: v for k, v in (r[f"{side}_props"] or {}).items() if k != "embedding"}
                nodes[nid] = {"id": nid, "label": r[f"{side}_label"], "name": _display_name(r[f"{side}_label"], props),
                              "props": _plain(props)}
        edges.append({"source": r["source"], "target": r["target"], "type": r["type"]})
    if not nodes:
        start = db.read(qr.NODE_BY_KEY, {"label": label, "key": key})
        for s in start:
            props = {k: v for k, v in (s["props"] or {}).items() if k != "embedding"}
            nodes[s["id"]] = {"id": s["id"], "label": s["label"], "name": _display_name(s["label"], props),
                              "props": _plain(props)}
    return {"nodes": list(nodes.values()), "edges": edges}


def _display_name(label: str, props: dict) -> str:
    if label == "Clause":
        return f"{props.get('id', '')} {props.get('title', '')}".strip()
    if label == "Address":
        return ", ".join(str(props.get(k)) for k in ("street", "city") if props.get(k))
    return str(props.get("name") or props.get("id") or label)


def _plain(props: dict) -> dict:
    from core.types import _jsonable

    return _jsonable(props)


def graph_stats(db: Database | None = None) -> dict:
    from core.ingest.pipeline import graph_counts

    return graph_counts(db)


@dataclass
class Status:
    ok: bool
    message: str
    detail: dict = field(default_factory=dict)


def database_status(db: Database | None = None) -> Status:
    try:
        db = db or get_database()
        db.verify()
        counts = graph_stats(db)
        return Status(True, f"Neo4j at {db.uri}", counts)
    except DatabaseUnavailable as exc:
        return Status(False, str(exc))


def llm_status() -> Status:
    cfg = settings()
    if not cfg.llm_configured:
        return Status(False, "No LLM configured: questions are answered by the offline planner.")
    return Status(True, f"LLM {cfg.openai_model} at {cfg.openai_base_url or 'api.openai.com'}")


def ingest(corpus_dir, reset: bool = False, progress=None):
    from core.ingest.pipeline import ingest_corpus

    return ingest_corpus(corpus_dir, reset=reset, progress=progress)


def review_queue(threshold: float | None = None, limit: int = 500) -> list[dict]:
    from core.ingest.pipeline import low_confidence_clauses

    return low_confidence_clauses(threshold, limit)


def correct_clause_type(clause_id: str, type_name: str) -> dict:
    from core.ingest.pipeline import set_clause_type

    return set_clause_type(clause_id, type_name)


def clause_type_names() -> list[str]:
    from core.taxonomy import type_names

    return type_names()


# ---------------------------------------------------------------------------------------
# dashboard support (added for the Quality and Compliance-gaps pages)
# ---------------------------------------------------------------------------------------

def spend_years(db: Database | None = None) -> list[int]:
    """Years that have spend data, for the gap report's year filter."""
    return list(graph_cache.vocabulary(db or get_database()).spend_years)


@dataclass
class EvaluationRun:
    file: str
    name: str                    # file stem without the date, e.g. "acord-test"
    date: str | None             # date / generated_at as written by the harness
    metrics: dict[str, float]    # flattened numeric leaves, e.g. {"methods.hybrid.ndcg@10": 0.61}
    meta: dict[str, Any]         # top-level scalar fields that are not metrics (split, git_revision, ...)
    error: str | None = None     # why the file could not be read, when it could not


_EVAL_SKIP_KEYS = {"per_query", "per_question", "details", "items", "cases", "hybrid_config", "config"}
_DATE_IN_NAME = re.compile(r"^(?P<name>.*?)-(?P<date>\d{4}-\d{2}-\d{2})$")


def _flatten_metrics(value: Any, prefix: str, out: dict[str, float], depth: int = 0) -> None:
    if depth > 6:
        return
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        if prefix:
            out[prefix] = float(value)
        return
    if isinstance(value, dict):
        for k, v in value.items():
            if str(k) in _EVAL_SKIP_KEYS:
                continue
            _flatten_metrics(v, f"{prefix}.{k}" if prefix else str(k), out, depth + 1)


def evaluation_results(folder: Path | str | None = None) -> list[EvaluationRun]:
    """Every `eval/results/*.json` the harness wrote, oldest first, tolerant of unknown shapes.

    Numbers nested in dicts become dotted metric names; lists (per-query detail) are skipped;
    an unreadable file is returned with `error` set rather than hiding the rest.
    """
    if folder is None:
        try:
            from core.evaluation import results_dir

            folder = results_dir()
        except ImportError:
            folder = settings().log_dir.parent.parent / "eval" / "results"
    folder = Path(folder)
    if not folder.is_dir():
        return []
    runs: list[EvaluationRun] = []
    for path in sorted(folder.glob("*.json")):
        m = _DATE_IN_NAME.match(path.stem)
        name, file_date = (m.group("name"), m.group("date")) if m else (path.stem, None)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            runs.append(EvaluationRun(path.name, name, file_date, {}, {}, f"{exc.__class__.__name__}: {exc}"))
            continue
        if not isinstance(data, dict):
            runs.append(EvaluationRun(path.name, name, file_date, {}, {}, "not a JSON object"))
            continue
        date = data.get("generated_at") or data.get("date") or file_date
        metrics: dict[str, float] = {}
        _flatten_metrics({k: v for k, v in data.items() if k not in {"date", "generated_at"}}, "", metrics)
        meta = {k: v for k, v in data.items() if isinstance(v, (str, bool)) or v is None}
        runs.append(EvaluationRun(path.name, name, str(date) if date is not None else None, metrics, meta))
    runs.sort(key=lambda r: (r.date or "", r.file))
    return runs

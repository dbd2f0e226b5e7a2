"""Answering one question: plan, retrieve, compose, log.

`ask` plans with the offline planner, or hands the question to Text2Cypher when an LLM is
configured (or the user forced text2cypher mode). The fallback policy lives here alone: any
LLM failure falls back to the offline planner with a warning, and so does a Text2Cypher that
found nothing, unless the user forced text2cypher mode (then "nothing found" is the answer).
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import replace

from core import gaps
from core.answer.composer import build_evidence, build_subgraph, compose_answer, compose_presence_rest
from core.config import settings
from core.embeddings import question_vectors
from core.graph import vocabulary as graph_cache
from core.graph.db import Database, DatabaseUnavailable, get_database
from core.request_log import log_result
from core.retrieval.facts import semantic_text, word_tokens
from core.retrieval.linking import STOPWORDS
from core.retrieval.planner import plan_question
from core.retrieval.question_text import QuestionPick, excerpt, find_question
from core.retrieval import rerank
from core.retrieval.retrievers import RELAY_K, RELAY_PER_AGREEMENT, RETRIEVERS, RetrievalError
from core.retrieval.type_links import warm_up
from core.service.session_store import sessions
from core.taxonomy import load_taxonomy
from core.text2cypher.llm import TokenLedger
from core.text2cypher.reader_llm import llm_reading
from core.text2cypher.rerank_llm import llm_rerank, llm_rerank_enabled
from core.types import ASKABLE_MODES, ATTRIBUTE_INTENTS, SEARCH_MODES, Intent, Mode, Plan, Result

ALL_MODES = ASKABLE_MODES

_models_ready = False
_models_lock = threading.Lock()


def _ensure_models() -> None:
    """Load the embedding model and the planner's clause-type prototypes on the first question,
    so that one question pays the one-time cost instead of whichever later one first needs it."""
    global _models_ready
    with _models_lock:  # the server's warm-up thread and a first question may race here
        if not _models_ready:
            warm_up()
            _models_ready = True


def _embed_fn():
    from core.embeddings import embed_kept

    return embed_kept


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
        result.mode = Mode.NONE
        return result
    ctx = sessions().get(session)
    t0 = time.perf_counter()
    vocab = graph_cache.vocabulary(db)
    result.timings_ms["vocabulary"] = _ms(t0)
    # pasted text (an e-mail ending with the real ask): plan on its question, not its first lines
    pick = find_question(question, vocab)
    asked = pick.question

    cfg = settings()
    reads_with_llm = mode == Mode.AUTO and cfg.llm_configured and cfg.llm_reader
    use_llm = mode == Mode.TEXT2CYPHER or (mode == Mode.AUTO and cfg.llm_configured and not cfg.llm_reader)
    if use_llm:
        llm_result = _ask_llm(asked, db, ctx, result, forced=mode == Mode.TEXT2CYPHER)
        if llm_result is not None:
            llm_result.question = question
            _note_pick(llm_result, pick)
            _finish(llm_result, t_start, log)
            return llm_result

    t0 = time.perf_counter()
    result.cold_start = not _models_ready
    _ensure_models()
    result.timings_ms["load_models"] = _ms(t0)
    t0 = time.perf_counter()
    reading = None
    if reads_with_llm:   # the LLM reads the question into the typed plan; on any failure the learned reader does
        ledger = TokenLedger()
        reading = llm_reading(asked, ledger=ledger, trace=result.trace)
        result.usage = ledger.to_dict()
    with question_vectors():   # the planner's vectors serve this question's search, no other's
        plan = plan_question(asked, vocab, ctx, forced_mode=None if mode in {Mode.AUTO, Mode.TEXT2CYPHER} else mode,
                             reading=reading)
        result.timings_ms["plan"] = _ms(t0)
        _note_pick(result, pick, plan)
        _run_plan(plan, db, result, asked)
    sessions().update(session, plan, result)
    _finish(result, t_start, log)
    return result


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


def _note_pick(result: Result, pick: QuestionPick, plan: Plan | None = None) -> None:
    """Which part of a long input was planned on: in the trace and in the plan's linked
    entities, so the page and the log show it."""
    if not pick.extracted:
        return
    result.trace.insert(0, {"strategy": "question_text", **pick.to_dict()})
    plan = plan or result.plan
    if plan is not None:
        plan.linked["question_used"] = {"reason": pick.reason, "text": excerpt(pick.question, 300),
                                        "input_chars": pick.input_chars}


def _run_plan(plan: Plan, db: Database, result: Result, asked: str | None = None) -> None:
    if plan.mode in SEARCH_MODES and plan.intent != Intent.UNKNOWN:
        if plan.mode == Mode.HYBRID:
            # forced onto a typed question: hybrid does not filter by type, so its answer must not
            # read "N <type> clauses" (it did, listing clauses of other types)
            plan.intent = Intent.HYBRID
        if not plan.params.text:
            plan.params.text = asked or result.question  # searched for as asked; shown in the plan
    result.plan = plan
    result.mode = plan.mode
    if plan.intent == Intent.UNKNOWN or plan.mode not in RETRIEVERS:
        result.answer = compose_answer(plan, [], [])
        result.warnings.append("the question could not be mapped; nothing was run")
        return
    if plan.mode == Mode.CLAUSE_TYPE and not plan.params.types:
        result.answer = ("Clause-type mode needs a clause type in the question (e.g. 'termination clauses'); "
                         "none was recognised.")
        result.warnings.append("no clause type recognised")
        return
    if plan.mode == Mode.DOCUMENT and not _picks_documents(plan.params):
        result.answer = "Document mode needs a company or agreement in the question; none was recognised."
        result.warnings.append("no company or agreement recognised")
        return
    if plan.mode == Mode.ATTRIBUTE and plan.intent not in ATTRIBUTE_INTENTS:
        plan.intent = Intent.ATTRIBUTE_CLAUSES if plan.params.types else Intent.COMPANIES
    t0 = time.perf_counter()
    # a list of every clause holding the asked words is complete, not a ranking to cut
    reranking = plan.mode in SEARCH_MODES and rerank.rerank_enabled() and not plan.params.mentions
    try:
        candidates = rerank.rerank_candidates() if reranking else None
        retrieval = RETRIEVERS[plan.mode](db, candidates=candidates).retrieve(plan, embed=_embed_fn())
    except (RetrievalError, rerank.RerankError) as exc:
        result.answer = f"Cannot answer in {plan.mode} mode: {exc}."
        result.warnings.append(str(exc))
        return
    result.timings_ms["retrieve"] = round((time.perf_counter() - t0) * 1000, 2)
    result.timings_ms.update({f"retrieve.{k}": v for k, v in retrieval.timings_ms.items()})
    result.cypher, result.params, result.rows = retrieval.cypher, retrieval.params, retrieval.rows
    result.warnings.extend(retrieval.warnings)
    # a filter value no supplier has, or a place nothing knows: said, not only shown in the plan
    result.warnings.extend(str(plan.linked[k]) for k in ("not_in_graph", "not_recognised", "unknown_type",
                                                                  "unsure_reading")
                           if plan.linked.get(k))
    result.trace.extend(retrieval.trace)
    rows = _rerank(plan, result) if reranking else result.rows
    if plan.intent == Intent.DOCUMENT_TYPE and not rows:
        rows = _closest_when_type_missing(plan, db, result)
        if rows:
            return
    t0 = time.perf_counter()
    result.evidence = build_evidence(rows, plan)
    result.answer = compose_answer(plan, rows, result.evidence)
    result.subgraph = build_subgraph(rows, result.evidence)
    result.timings_ms["compose"] = round((time.perf_counter() - t0) * 1000, 2)
    if plan.intent == Intent.GAP:
        _state_gap_definition(plan, db, result)
    elif plan.intent == Intent.PRESENCE and plan.params.yes_no:
        _name_those_without(plan, db, result)


CLOSEST_CANDIDATES, CLOSEST_SHOWN = 30, 3


def _closest_when_type_missing(plan: Plan, db: Database, result: Result) -> list[dict]:
    """A named agreement with no clause of the asked type ("what does Sakura's agreement say
    about response times?" where the times sit in a clause typed otherwise): say so, then show
    the agreement's clauses closest to the question, from a query that re-runs to them."""
    # ranked by the whole question: the type's word alone ("response time") carries less of it;
    # a Chinese question by what the asked types mean (the English embedder reads Chinese as noise)
    text = plan.params.text or result.question
    if plan.language == "zh":
        text = _types_meaning(plan.params.types) or text
    topic = replace(plan, intent=Intent.DOCUMENT_TOPIC, params=replace(plan.params, types=[], text=text))
    # every clause of the agreement is a candidate: those holding more of the question's own words
    # first ("sub-processors" in a clause headed "Personal data"), then by meaning
    retriever = RETRIEVERS[Mode.DOCUMENT](db)
    retriever.topic_band, retriever.topic_k, retriever.topic_min_score = 2.0, CLOSEST_CANDIDATES, -1.0
    try:
        retrieval = retriever.retrieve(topic, embed=_embed_fn())
    except RetrievalError:
        return []
    if not retrieval.rows:
        return []
    words = _words_asked(plan, result.question)
    shown = _by_words_then_meaning(retrieval.rows, words)[:CLOSEST_SHOWN]
    # an agreement named by its service or id: its owner, read from the clauses found, is named too
    owners = plan.params.companies or sorted({r["company"] for r in retrieval.rows if r.get("company")})
    missing = compose_answer(replace(plan, params=replace(plan.params, companies=owners)), [], [])
    result.cypher, result.params, result.rows = retrieval.cypher, retrieval.params, retrieval.rows
    result.trace.append({"strategy": "closest_when_type_missing", "types": list(plan.params.types),
                         "text": topic.params.text, "returned": len(retrieval.rows)})
    result.warnings.append(f"no {', '.join(plan.params.types)} clause in the named agreement: the query shown "
                           "ranks its clauses by similarity to the question instead; the "
                           f"{len(shown)} shown are those holding most of the question's words, then the closest")
    plan.why = (plan.why + " " if plan.why else "") + (
        "No clause of the type was found, so the agreement's clauses were ranked by the question's words, "
        "then by similarity to the question.")
    result.trace.append({"strategy": "words_then_meaning", "after_query": True, "words": words,
                         "candidates": len(retrieval.rows), "kept": len(shown)})
    result.evidence = build_evidence(shown, topic)
    result.answer = f"{missing}\n\n{compose_answer(topic, shown, result.evidence)}"
    result.subgraph = build_subgraph(shown, result.evidence)
    return shown


def _by_words_then_meaning(rows: list[dict], words: str | None) -> list[dict]:
    """Rows holding more of `words` first (a plural also as its singular), the query's order (by
    meaning) among equals: a named detail ("the status page") is found where it is written."""
    asked = (words or "").split()
    if not asked:
        return list(rows)

    def held(row: dict) -> int:
        text = (row.get("text") or "").lower()
        return sum(1 for w in asked if w in text or (len(w) > 4 and w.endswith("s") and w[:-1] in text)
                   or (len(w) > 5 and w.endswith("ies") and w[:-3] + "y" in text))
    return sorted(rows, key=held, reverse=True)   # stable: the order by meaning among equals


def _words_asked(plan: Plan, question: str) -> str | None:
    """The question without the names of the agreement asked about and its scaffolding: the words a
    clause should share with it ("subcontracting the settlement"), as the re-ranker reads a query."""
    named = [m for key in ("companies", "sla_ids") for how in (plan.linked.get(key) or {}).values()
             for m in re.findall(r"'([^']+)'", str(how))]
    text = semantic_text(question, named) or ""
    words = [w for w in word_tokens(re.sub(r"(?:'s|’s)\b", " ", text)) if w not in STOPWORDS
             and w.upper() not in plan.params.sla_ids]
    return " ".join(words) or None


def _types_meaning(types: list[str]) -> str:
    """The asked types' names and descriptions from the taxonomy, as a text to rank clauses by."""
    by_name = {t.name: t for t in load_taxonomy()}
    return " ".join(f"{by_name[t].name}. {by_name[t].description}" for t in types if t in by_name)


def _state_gap_definition(plan: Plan, db: Database, result: Result) -> None:
    """Gap answers say what a gap is (core.gaps, the gaps page's definition too) and how many
    suppliers in scope have no agreement at all, so the two pages never silently disagree."""
    t0 = time.perf_counter()
    p = plan.params
    apart = 0
    if not (p.sla_ids or p.governing_laws or p.date_from or p.date_to):  # else they are out of scope
        scope = replace(plan, intent=Intent.NO_AGREEMENT, params=replace(p, types=[]))
        try:
            apart = len(RETRIEVERS[Mode.ATTRIBUTE](db).retrieve(scope).rows)
        except RetrievalError:
            apart = 0
    # a paragraph of its own: the answer may end with a list of suppliers
    result.answer = f"{result.answer}\n\n{gaps.short_statement(plan.language, apart)}"
    details = [*(p.quantities or []), *(p.facets or [])]
    if details and p.present_types:   # "a termination clause but no service credits within 30 days"
        result.warnings.append(f"a gap beside a type held is read by clause type: {', '.join(details)} "
                               "was not checked")
    result.timings_ms["gap_scope"] = round((time.perf_counter() - t0) * 1000, 2)


def _name_those_without(plan: Plan, db: Database, result: Result) -> None:
    """"Do German suppliers have a termination clause?" is answered by those that have one and
    those that do not (the gap query, same scope and gap definition; its Cypher is in the trace)."""
    p = plan.params
    if p.companies or p.sla_ids or len(p.types) != 1:
        return
    t0 = time.perf_counter()
    gap = replace(plan, intent=Intent.GAP, params=replace(p, gap=True, yes_no=None))
    try:
        retrieval = RETRIEVERS[Mode.ATTRIBUTE](db).retrieve(gap)
    except RetrievalError:
        return
    have = {r.get("company") for r in result.rows if r.get("company")}
    # a supplier with only low-confidence evidence is a gap, but the presence answer has named it
    # already, with that evidence for review
    in_gap = {r["company"] for r in retrieval.rows if r.get("company")}
    lacking = sorted(in_gap - have)
    result.trace.append({"strategy": "those_without", "types": list(p.types), "lacking": len(lacking),
                         "cypher": retrieval.cypher})
    rest = compose_presence_rest(plan, lacking, len(have), review=bool(in_gap & have))
    if rest:
        result.answer = f"{result.answer}\n\n{rest}"
    result.timings_ms["those_without"] = round((time.perf_counter() - t0) * 1000, 2)


def _rerank(plan: Plan, result: Result) -> list[dict]:
    """The RELAY_K rows shown, chosen from the query's candidate rows after the query ran: the
    learned re-ranker, then (only when configured) the LLM's pointwise stars. `result.rows` stay
    exactly what the Cypher returned, so the Cypher shown still re-runs to them."""
    t0 = time.perf_counter()
    offline = rerank.rerank_rows(plan.params.text or result.question, result.rows, len(result.rows))
    # the shown cap per agreement applies after re-ranking: relay's query capped only loosely
    # (hybrid's already at the shown cap, where this changes nothing)
    rows = rerank.cap_per_agreement(offline.rows, RELAY_PER_AGREEMENT, RELAY_K, limit=len(offline.rows))
    note = offline.note
    result.timings_ms["rerank"] = round((time.perf_counter() - t0) * 1000, 2)
    step = {"strategy": "rerank", "after_query": True, "candidates": offline.candidates, "applied": offline.applied}
    if llm_rerank_enabled():
        t0 = time.perf_counter()
        llm = llm_rerank(plan.params.text or result.question, rows)
        result.timings_ms["rerank.llm"] = round((time.perf_counter() - t0) * 1000, 2)
        rows, note = llm.rows, f"{note}; {llm.note}"
        step.update(llm_applied=llm.applied, llm_tokens=llm.tokens)
        if not llm.applied:
            result.warnings.append(llm.note)
    rows = rows[:RELAY_K]
    step.update(kept=len(rows), note=note)
    result.trace.append(step)
    if offline.applied:
        plan.why = (plan.why + " " if plan.why else "") + (
            f"Re-ranked after the query: the Cypher returned {offline.candidates} candidates, "
            f"the {len(rows)} shown were chosen by the learned re-ranker"
            + (" and the LLM" if step.get("llm_applied") else "") + ".")
    return rows


def _ask_llm(question: str, db: Database, ctx, result: Result, forced: bool) -> Result | None:
    """Text2Cypher's answer, or None after noting on `result` why the offline planner answers
    instead (the Text2Cypher attempts, tokens and timings are kept on it for the log)."""
    try:
        from core.text2cypher.pipeline import answer_with_llm
    except ImportError:
        result.warnings.append("Text2Cypher is not available in this build; answered by the offline planner")
        return None
    try:
        outcome = answer_with_llm(question, db=db, context=ctx, session=result.session)
    except Exception as exc:  # noqa: BLE001 - any LLM trouble falls back visibly
        if isinstance(exc, DatabaseUnavailable):
            raise
        result.warnings.append(f"LLM unavailable ({exc.__class__.__name__}: {str(exc)[:160]}); "
                               "answered by the offline planner")
        return None
    if outcome.failure is None and (forced or not outcome.found_nothing):
        if outcome.context_plan is not None:
            sessions().update(result.session, outcome.context_plan, outcome.result)
        return outcome.result
    reason = outcome.failure or f"Text2Cypher found nothing after {outcome.attempts} attempt(s)"
    partial = outcome.result
    result.warnings[:0] = [f"{reason}; answered by the offline planner"] + partial.warnings
    result.trace[:0] = partial.trace
    result.usage = partial.usage
    result.timings_ms = {**partial.timings_ms, **result.timings_ms}
    return None


def _finish(result: Result, t_start: float, log: bool) -> None:
    result.timings_ms["total"] = round((time.perf_counter() - t_start) * 1000, 2)
    # the stages shown add up to the total: what no stage measured is its own line
    rest = result.timings_ms["total"] - sum(ms for _, ms in stage_timings(result))
    if rest >= 0.01:
        result.timings_ms["other"] = round(rest, 2)
    if log:
        try:
            log_result(result)
        except OSError as exc:
            result.warnings.append(f"request log not written: {exc}")


def stage_timings(result: Result) -> list[tuple[str, float]]:
    """The top-level stages of a result's timings, in order (model load, vocabulary, plan,
    retrieve, rerank, compose, Text2Cypher, other): these add up to its total; the dotted keys
    are their parts."""
    out = []
    for key, ms in result.timings_ms.items():
        if key == "t2c.total":
            out.append(("text2cypher", ms))
        elif "." not in key and key != "total" and isinstance(ms, (int, float)):
            out.append((key, ms))
    return out


def warm_start(db: Database | None = None) -> dict[str, float]:
    """Load the embedding model, the planner's prototypes and the graph vocabulary once, when
    the server starts, so the first question does not pay for them; returns the ms each took."""
    t0 = time.perf_counter()
    _ensure_models()
    out = {"load_models": _ms(t0)}
    t0 = time.perf_counter()
    graph_cache.vocabulary(db or get_database())
    out["vocabulary"] = _ms(t0)
    return out


def _picks_documents(p) -> bool:
    """Document mode reads the agreements of named suppliers, or of those a filter picks ("the
    French suppliers' contracts"); never the whole corpus."""
    return bool(p.companies or p.sla_ids or p.countries or p.industries or p.cities or p.governing_laws
                or p.date_from or p.date_to or p.spend_min is not None or p.spend_max is not None)


def plan_only(question: str, session: str | None = None, db: Database | None = None,
              mode: str = "auto") -> Plan:
    """The plan `ask` would run, without running it (the benchmark's peer searches its words)."""
    db = db or get_database()
    return plan_question(question, graph_cache.vocabulary(db), sessions().get(session),
                         forced_mode=None if mode == "auto" else mode)

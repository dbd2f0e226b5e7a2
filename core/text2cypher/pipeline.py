"""Text2Cypher: an LLM writes the query, the guard vets it, the graph answers (rules: docs/DATA_MODEL.md).

Pipeline: schema summary + dynamic few-shot + recalled candidate names -> the
model's JSON {"cypher", "params"} -> names in params normalized against the graph ->
`CypherGuard.run` (EXPLAIN, read-only, allow-lists, schema check and direction fix, LIMIT
cap, READ transaction with timeout) -> on refusal, error or no rows: relax exact matches,
then ask the model to repair with the error, the failed query and the schema, and on the
last try to split the question into single hops (at most `MAX_ATTEMPTS` model queries) ->
rows to evidence lines -> an evidence-only, must-cite answer whose citations are checked.

`answer_with_llm` returns a `Text2CypherOutcome` and never decides what happens next: the
service (core.service.asking) alone chooses the fallback to the offline planner, writes its
warning and updates the conversation's session. The outcome always carries the attempts,
tokens and timings, so the request log keeps them whichever way the question was answered.
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, replace

from core import gaps
from core.graph import vocabulary as graph_cache
from core.answer.composer import build_subgraph
from core.graph.db import Database, get_database
from core.guard.gates import CypherGuard, GuardRunResult
from core.text2cypher.llm import LLMClient, LLMError, TokenLedger, get_client
from core.types import Intent, Mode, Plan, PlanParams, Result
from core.text2cypher.schema_summary import schema_summary
from core.text2cypher.entities import normalize_params, recall_candidates, relax_cypher
from core.text2cypher.evidence import clean_rows, listing, prompt_items, rows_to_evidence
from core.text2cypher.examples import classify_question, select_examples
from core.text2cypher.prompts import answer_messages, check_citations, cypher_messages, parse_reply, repair_message

MAX_ATTEMPTS = 3
MAX_LIMIT = 50
EMBEDDING_PARAM = "question_embedding"
GAP_THRESHOLD_PARAM = "review_threshold"   # the gap definition's bar (core.graph.queries.text2cypher.GAP_CONDITION)
NOTHING_FOUND = "No matching results were found in the graph for this question."
_NOTHING = re.compile(r"(?i)\bWHERE\s+(false|1\s*=\s*0)\b")


_guards: dict[tuple, CypherGuard] = {}
_guards_lock = threading.Lock()


def guard_for(db: Database) -> CypherGuard:
    """One guard per database and graph generation, so an ingest refreshes the schema it checks."""
    key = (id(db), graph_cache.generation())
    with _guards_lock:
        if key not in _guards:
            for old in [k for k in _guards if k[0] == id(db)]:
                _guards.pop(old)
            _guards[key] = CypherGuard(db, max_limit=MAX_LIMIT)
        return _guards[key]


@dataclass
class Text2CypherOutcome:
    """What Text2Cypher made of one question.

    `result` always records what happened (attempts in `trace`, warnings, token `usage`,
    timings). With `failure` set the LLM could not be used and `result` holds no answer; with
    `found_nothing` every attempt was refused, failed or returned no rows and the answer says
    so (NOTHING_FOUND). Whether either means "answer offline instead" is the caller's policy.
    """

    result: Result
    failure: str | None = None          # e.g. "LLM unavailable (LLMError: HTTP 500 ...)"
    found_nothing: bool = False
    attempts: int = 0                   # model queries made (first try plus repairs)
    context_plan: Plan | None = None    # what a follow-up question inherits; None without an answer

    @property
    def answered(self) -> bool:
        return self.failure is None and not self.found_nothing

    @property
    def trace(self) -> list[dict]:
        return self.result.trace

    @property
    def usage(self) -> dict:
        return self.result.usage


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000, 2)


def answer_with_llm(question: str, db: Database | None = None, context=None, session: str | None = None,
                    client: LLMClient | None = None) -> Text2CypherOutcome:
    """Text2Cypher's outcome for one question. LLM failures while answering are reported in the
    outcome; raises LLMError when no LLM is configured, and lets database errors through."""
    db = db or get_database()
    t_start = time.perf_counter()
    client = client or get_client()
    result = Result(question=question, mode=Mode.TEXT2CYPHER, session=session)
    ledger = TokenLedger()

    t0 = time.perf_counter()
    summary = schema_summary(db)
    result.timings_ms["t2c.schema"] = _ms(t0)
    t0 = time.perf_counter()
    vocab = graph_cache.vocabulary(db)
    cands = recall_candidates(question, db, vocab, context)
    result.timings_ms["t2c.candidates"] = _ms(t0)
    t0 = time.perf_counter()
    qtype = classify_question(question)
    examples = select_examples(question, qtype=qtype)
    result.timings_ms["t2c.examples"] = _ms(t0)
    plan = Plan(intent=Intent.TEXT2CYPHER, mode=Mode.TEXT2CYPHER,
                params=PlanParams(companies=cands.companies, types=cands.clause_types, countries=cands.countries,
                                  industries=cands.industries, cities=cands.cities,
                                  governing_laws=cands.governing_laws, sla_ids=cands.sla_ids),
                why=f"LLM-written Cypher; question type {qtype}; examples: {', '.join(e.id for e in examples)}; "
                    f"schema summary ~{summary.token_estimate} tokens",
                linked=cands.how)
    result.plan = plan

    try:
        run, reply_cypher = _generate_and_run(question, db, client, ledger, result, summary, examples,
                                              cands.for_prompt(), qtype, vocab)
    except LLMError as exc:
        _usage(result, ledger, t_start)
        return Text2CypherOutcome(result, failure=f"LLM unavailable ({exc.__class__.__name__}: {str(exc)[:200]})",
                                  attempts=_model_attempts(result))
    if run is None or not run.rows:
        _usage(result, ledger, t_start)
        result.answer = NOTHING_FOUND
        return Text2CypherOutcome(result, found_nothing=True, attempts=_model_attempts(result))

    t0 = time.perf_counter()
    result.rows = clean_rows(run.rows)
    evidence, lines = rows_to_evidence(result.rows, db)
    result.evidence = evidence
    result.subgraph = build_subgraph(result.rows, evidence)
    result.timings_ms["t2c.evidence"] = _ms(t0)
    t0 = time.perf_counter()
    result.answer = _compose(question, result, lines, client, ledger)
    result.timings_ms["t2c.answer"] = _ms(t0)
    _usage(result, ledger, t_start)
    return Text2CypherOutcome(result, attempts=_model_attempts(result), context_plan=_context_plan(plan, result))


def _model_attempts(result: Result) -> int:
    return len({t["attempt"] for t in result.trace if t.get("stage") == "text2cypher"})


def _usage(result: Result, ledger: TokenLedger, t_start: float) -> None:
    result.usage = ledger.to_dict()
    result.timings_ms["t2c.llm"] = round(sum(c.elapsed_ms for c in ledger.calls), 2)
    result.timings_ms["t2c.total"] = _ms(t_start)


def _prepare(cypher: str, params: dict, question: str, vocab, trace: dict) -> dict:
    params, changes = normalize_params(params, vocab)
    if changes:
        trace["normalized"] = changes
    if re.search(r"\$" + EMBEDDING_PARAM + r"\b", cypher):
        from core.embeddings import get_embedder

        params[EMBEDDING_PARAM] = get_embedder().encode_one(question)
    if re.search(r"\$" + GAP_THRESHOLD_PARAM + r"\b", cypher):
        params[GAP_THRESHOLD_PARAM] = gaps.REVIEW_THRESHOLD   # the product's gap definition, whatever the model sent
    return params


def _shown(params: dict) -> dict:
    return {k: (f"<vector of {len(v)} floats>" if k == EMBEDDING_PARAM and isinstance(v, list) else v)
            for k, v in (params or {}).items()}


def _record(result: Result, n: int, source: str, cypher: str, params: dict, run: GuardRunResult | None,
            extra: dict) -> dict:
    entry = {"stage": "text2cypher", "attempt": n, "source": source, "cypher": cypher, "params": _shown(params)}
    if run is not None:
        entry.update(allowed=run.allowed, reason=run.reason, ran=run.cypher, fixes=list(run.fixes),
                     error=run.error, rows=len(run.rows), elapsed_ms=run.elapsed_ms)
    entry.update(extra)
    result.trace.append(entry)
    return entry


def _problem(run: GuardRunResult) -> str | None:
    if not run.allowed:
        return f"the guard refused the query: {run.reason}"
    if run.error:
        return f"Neo4j error: {run.error}"
    if not run.rows:
        return "the query ran but returned no rows"
    return None


def _generate_and_run(question, db, client, ledger, result, summary, examples, candidates, qtype, vocab):
    guard = guard_for(db)
    messages = cypher_messages(question, summary.text, examples, candidates)
    multi_hop = qtype in {"multi_hop", "gap"}
    t_exec = 0.0
    for n in range(1, MAX_ATTEMPTS + 1):
        split = n + 1 == MAX_ATTEMPTS and multi_hop       # the last repair asks for single hops
        text = client.chat(messages, purpose="cypher" if n == 1 else "repair", ledger=ledger)
        reply = parse_reply(text)
        if reply.error:
            _record(result, n, "llm", text[:500], {}, None, {"problem": reply.error})
            result.warnings.append(f"Text2Cypher attempt {n}: unusable reply ({reply.error})")
            messages += [{"role": "assistant", "content": text},
                         repair_message(reply.error, text[:500], {}, summary.text, split)]
            continue
        t0 = time.perf_counter()
        if reply.steps:
            run, cypher, params = _run_steps(reply.steps, question, vocab, guard, result, n)
        else:
            cypher, entry_extra = reply.cypher, {}
            params = _prepare(cypher, reply.params, question, vocab, entry_extra)
            run = guard.run(cypher, params)
            entry = _record(result, n, "llm", cypher, params, run, entry_extra)
            _note(result, n, entry)
            if run.allowed and not run.error and not run.rows and not _NOTHING.search(cypher):
                relaxed, changes = relax_cypher(run.cypher, params)
                if changes:
                    run2 = guard.run(relaxed, params)
                    entry2 = _record(result, n, "relaxed", relaxed, params, run2, {"relaxed": changes})
                    _note(result, n, entry2)
                    if run2.allowed and not run2.error:
                        run, cypher = run2, relaxed
        t_exec += time.perf_counter() - t0
        result.timings_ms["t2c.execute"] = round(t_exec * 1000, 2)
        problem = _problem(run)
        result.cypher, result.params = run.cypher, _shown(params)
        if problem is None:
            result.params = params
            return run, cypher
        if _NOTHING.search(cypher or ""):
            result.warnings.append("Text2Cypher: the model says the schema cannot answer this question")
            return run, cypher
        messages += [{"role": "assistant", "content": text},
                     repair_message(problem, cypher, _shown(params), summary.text, split)]
    return None, None


def _note(result: Result, n: int, entry: dict) -> None:
    """Every attempt that was not a clean first-try success is also a warning the user sees."""
    clean = entry["source"] == "llm" and n == 1 and entry.get("allowed") and not entry.get("error") \
        and entry.get("rows") and not entry.get("fixes") and not entry.get("normalized")
    if clean:
        return
    bits = []
    if entry.get("normalized"):
        bits.append("names normalized " + ", ".join(entry["normalized"]))
    if entry.get("relaxed"):
        bits.append("relaxed " + ", ".join(entry["relaxed"]))
    if not entry.get("allowed", True):
        bits.append(f"refused by the guard ({entry.get('reason')})")
    elif entry.get("error"):
        bits.append(f"failed ({entry['error'][:160]})")
    else:
        if entry.get("fixes"):
            bits.append("guard fixed: " + "; ".join(entry["fixes"]))
        bits.append(f"{entry.get('rows', 0)} row(s)")
    result.warnings.append(f"Text2Cypher attempt {n} ({entry['source']}): " + "; ".join(bits))


def _run_steps(steps, question, vocab, guard, result, n):
    """A multi-hop question split into single hops: each step gets the previous first column as $previous."""
    previous, run, parts, params = None, None, [], {}
    for i, (cypher, raw) in enumerate(steps, 1):
        extra: dict = {"step": i}
        params = _prepare(cypher, raw, question, vocab, extra)
        if previous is not None:
            params["previous"] = previous
        run = guard.run(cypher, params)
        parts.append(f"// step {i}\n{run.cypher}")
        _note(result, n, _record(result, n, "split", cypher, params, run, extra))
        if _problem(run):
            break
        first = next(iter(run.rows[0])) if run.rows else None
        previous = list(dict.fromkeys(r.get(first) for r in run.rows if r.get(first) is not None))
    if run is not None and not _problem(run):
        run.cypher = "\n".join(parts)
    return run, "\n".join(parts), params


def _compose(question: str, result: Result, lines: list[str], client: LLMClient, ledger: TokenLedger) -> str:
    evidence = result.evidence
    fallback = listing(evidence, lines)
    msgs = answer_messages(question, result.cypher, prompt_items(evidence, lines))
    try:
        text = client.chat(msgs, purpose="answer", ledger=ledger)
    except LLMError as exc:
        result.warnings.append(f"LLM answer failed ({str(exc)[:160]}); the evidence is listed instead")
        return fallback
    answer, invented, cited = check_citations(text, {e.ref for e in evidence})
    if invented:
        result.warnings.append("removed citation(s) not in the evidence: " + ", ".join(f"[{r}]" for r in invented))
    if not cited:
        result.warnings.append("the LLM answer cited no evidence; the evidence is listed instead")
        return fallback
    return answer


def _context_plan(plan: Plan, result: Result) -> Plan:
    """Follow-up questions ("and their liability clause?") see what this answer was about: the
    recalled names, plus the answer's companies when the question named none and they are few."""
    companies = result.evidence_companies
    params = replace(plan.params)
    if not params.companies and 0 < len(companies) <= 3:
        params.companies = companies
    return Plan(intent=Intent.TEXT2CYPHER, mode=Mode.TEXT2CYPHER, params=params)

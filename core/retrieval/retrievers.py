"""One retriever per retrieval mode, behind one interface (`retrieve(plan) -> Retrieval`).

Each runs named, parameterized Cypher from `core.queries.retrieval` and returns the exact
query text and parameters that produced its rows, so every answer can be audited and re-run.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from core import gaps
from core.graph import vocabulary as graph_cache
from core.graph.db import Database
from core.graph.queries import retrieval as q
from core.graph.queries import spend as qs
from core.graph.queries import terms as qterms
from core.numerals import roman_numeral, zh_numeral
from core.types import SPEND_INTENTS, Intent, Mode, Plan
from core.graph.selectivity import ClauseCounts
from core.errors import ClauseGraphError
from core.retrieval.search import DEFAULT_CANDIDATES, DEFAULT_PHRASE_BOOST, DEFAULT_WEIGHTS, fulltext_query, mention_query
from core.retrieval.facets import facet_patterns, facet_types
from core.retrieval.quantities import quantity_patterns

MAX_ROWS = 200
RELAY_K = 6
RELAY_PER_AGREEMENT = 2      # at most this many clauses of one agreement are shown
RELAY_EXACT_MAX = 3000       # filtered sets up to this size are searched exactly
RELAY_POOL_MAX = 1000        # first vector candidate pool at most this large (it grows x4 if short)
RELAY_POOL_FACTOR = 3        # first pool = k x this / the filters' share of the corpus
RELAY_MIN_SCORE = 0.60       # Neo4j cosine score (1 + cos) / 2: below this a clause is off-topic
CLAUSE_TYPE_HITS = 20        # db hits per clause when the pivot starts from the types
COMPANY_WALK_HITS = 2.5      # db hits per company when it walks companies by name


class RetrievalError(ClauseGraphError, RuntimeError):
    pass


@dataclass
class Retrieval:
    cypher: str
    params: dict[str, Any]
    rows: list[dict]
    warnings: list[str] = field(default_factory=list)
    trace: list[dict] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)


FILTER_KEYS = ("companies", "sla_ids", "types", "countries", "industries", "cities", "governing_laws",
               "spend_min", "spend_max", "date_from", "date_to", "require_spend", "spend_categories", "top",
               "foreign_law", "home_law", "agreements_min", "agreements_max", "spend_up", "spend_down",
               "exclude_companies", "lowest", "mentions", "details")


def base_params(plan: Plan) -> dict[str, Any]:
    """The Cypher parameters every retrieval template may use, from the plan's typed parameters
    (the one place a `PlanParams` becomes a query's parameter dict)."""
    p = plan.params
    year = p.spend_year
    spend_key = f"spend_{int(year)}" if year else "spend_latest"
    return {
        "companies": list(p.companies or []), "sla_ids": list(p.sla_ids or []),
        "types": list(p.types or []), "countries": list(p.countries or []),
        "industries": list(p.industries or []), "cities": list(p.cities or []),
        "governing_laws": list(p.governing_laws or []),
        "spend_min": p.spend_min, "spend_max": p.spend_max, "spend_key": spend_key,
        "date_from": p.date_from, "date_to": p.date_to, "limit": MAX_ROWS,
        "foreign_law": p.law_scope == "foreign", "home_law": p.law_scope == "home",
        "law_countries": dict(p.law_countries or {}),
        "agreements_min": p.agreements_min, "agreements_max": p.agreements_max,
        "spend_up": p.spend_change == "up", "spend_down": p.spend_change == "down",
        "exclude_companies": list(p.exclude_companies or []),
        "spend_from_key": f"spend_{int(p.spend_from_year)}" if p.spend_from_year else None,
        "require_spend": bool(p.require_spend), "spend_categories": list(p.spend_categories or []),
        "year": int(year) if year else None,
        "review_threshold": gaps.REVIEW_THRESHOLD,   # read only by templates that test it
        # a ranking that scopes a question about clauses ("which of our 3 biggest suppliers lack ...");
        # a spend ranking itself is a LIMIT (AttributeRetriever._spend), not this filter
        "top": int(p.top) if p.top and plan.intent not in SPEND_INTENTS else None,
        "lowest": p.spend_order == "lowest",   # rankings start from the smallest spend (shapes the query only)
        "agreement_top": int(p.agreement_top or 1),   # read only by an agreement ranking
        "mentions": [w.lower() for w in p.mentions or []],   # read only by the clause lists of a type
        # read only by the clause lists, presence and gaps of a type ("which suppliers promise 99.9%
        # uptime?", "which contracts provide for arbitration?"): patterns a clause of the type matches
        # (hybrid ranks every clause by the question's words and meaning: a facet is no filter there)
        **_details(p, plan.mode != Mode.HYBRID),
    }


def _details(p, with_facets: bool) -> dict:
    """`$details`, and beside each its `$detail_types`: the type a clause typed so has the detail
    by (a facet that is also a type), None for a quantity."""
    quantities = quantity_patterns(p.quantities or [])
    facets = facet_patterns(p.facets, p.types) if with_facets else []
    kinds = facet_types(p.facets, p.types) if with_facets else []
    return {"details": quantities + facets, "detail_types": [None] * len(quantities) + kinds}


def _term_params(terms: dict) -> dict:
    """TERMS_MATCHING's parameters from the plan's term ask (a missing bound is null)."""
    keys = ("date_from", "date_to", "term_min", "term_max", "term_below", "term_above", "term_units", "term_flag")
    out = {k: terms.get(k) for k in keys}
    out.update(field=terms.get("field"), term_text=terms.get("term_text"), or_uncapped=terms.get("or_uncapped"))
    return out


def candidate_cap(k: int) -> int:
    """Clauses of one agreement a search query may return among its `k` rows. Without re-ranking
    (k = RELAY_K) the rows are the answer, so the shown cap applies in the query. With re-ranking
    the shown cap applies after it (`core.retrieval.rerank.cap_per_agreement`): capped in the
    query, the re-ranker never saw an agreement's third-best clause by cosine, which is often the
    one the question's words name (a single filtered agreement gave it 2 candidates of 17). The
    cap grows with k, so the pool still spans k x RELAY_PER_AGREEMENT / RELAY_K agreements.
    Relay only: hybrid's query keeps the shown cap, as `search.hybrid_search` (which the ACORD
    evaluation scores) does."""
    return max(RELAY_PER_AGREEMENT, k * RELAY_PER_AGREEMENT // RELAY_K)


def active_filters(params: dict) -> set[str]:
    return {k for k in FILTER_KEYS if params.get(k) not in (None, [], "", False)}


class Retriever:
    name = "base"

    def __init__(self, db: Database, candidates: int | None = None):
        """`candidates`: how many rows a search mode's query returns when a re-ranking stage after
        it chooses the RELAY_K shown (core.retrieval.rerank); None: the RELAY_K best rows."""
        self.db = db
        self.k = max(RELAY_K, int(candidates or RELAY_K))

    def retrieve(self, plan: Plan, embed=None) -> Retrieval:  # pragma: no cover - interface
        raise NotImplementedError

    @staticmethod
    def _embed_topic(plan: Plan, embed, missing: str) -> tuple[str, Any, float]:
        """The question's topic text, its vector and the ms the embedding took (vector modes)."""
        text = plan.params.text or ""
        if not text or embed is None:
            raise RetrievalError(missing)
        t0 = time.perf_counter()
        vector = embed(text)
        return text, vector, (time.perf_counter() - t0) * 1000

    def _run(self, cypher: str, params: dict) -> Retrieval:
        params = q.used_params(cypher, params)
        t0 = time.perf_counter()
        rows = self.db.read(cypher, params)
        r = Retrieval(cypher.strip(), params, rows)
        r.timings_ms["query"] = round((time.perf_counter() - t0) * 1000, 2)
        if "limit" in params and len(rows) >= params["limit"]:
            r.warnings.append(f"showing the first {params['limit']} rows only")
        return r


class DocumentRetriever(Retriever):
    """Known company or agreement -> its clauses in NEXT order (optionally one type, or a neighbour)."""

    name = Mode.DOCUMENT
    # a topic in a known document: the clauses within `topic_band` of the closest, at most `topic_k`
    topic_band, topic_k, topic_min_score = 0.04, 3, RELAY_MIN_SCORE

    def retrieve(self, plan: Plan, embed=None) -> Retrieval:
        params = base_params(plan)
        active = active_filters(params)
        spend = params["spend_key"]
        if plan.intent == Intent.NEXT_CLAUSE:
            direction = plan.params.direction or "after"
            anchor_ids = list(plan.params.anchor_ids or [])
            params.update(anchor_text=plan.params.anchor_text or "", anchor_ids=anchor_ids)
            if anchor_ids:
                active = (active - {"types"}) | {"anchor_ids"}
            if not anchor_ids and not params["types"] and not params["anchor_text"]:
                raise RetrievalError("name the clause to start from, e.g. 'the clause after the payment clause'")
            return self._run(q.neighbour_clause(active, direction, spend), params)
        if plan.intent == Intent.POSITION:
            position = int(plan.params.position or 1)   # negative: counted from the end (-1: the last)
            params["position"] = abs(position)
            if plan.params.numbered and position > 0:
                return self._numbered(position, active - {"types"}, spend, params)
            return self._run(q.clause_at(active - {"types"}, position < 0, spend), params)
        if plan.intent == Intent.COUNT and plan.params.count_unit == "agreements":
            return self._run(q.count_agreements(active - {"types"}, spend), params)
        if plan.intent == Intent.DOCUMENT_TOPIC and plan.params.text and embed:
            params.update(vector=embed(plan.params.text), min_score=self.topic_min_score, band=self.topic_band,
                          k=self.topic_k)
            result = self._run(q.document_topic(active, spend), params)
            result.warnings.append("clauses ranked by similarity to the topic; the full document is in Explore")
            return result
        return self._run(q.document_clauses(active, spend), params)

    def _numbered(self, n: int, active: set, spend: str, params: dict) -> Retrieval:
        """"Section n": the clause headed n, else the n-th clause, and a warning saying which agreements
        had no heading numbered n (so the user knows the answer is a place, not a number)."""
        params["heading_number"] = q.heading_number_pattern(n, roman_numeral(n), zh_numeral(n))
        r = self._run(q.clause_numbered(active, spend), params)
        by_place = sorted({row["sla_id"] for row in r.rows if not row.get("by_number")})
        if by_place:
            r.warnings.append(f"no heading of {', '.join(by_place)} is numbered {n}: the clause in place {n} is shown")
        return r


class ClauseTypeRetriever(Retriever):
    """A clause type -> its clauses across all agreements, with company context."""

    name = Mode.CLAUSE_TYPE

    def retrieve(self, plan: Plan, embed=None) -> Retrieval:
        params = base_params(plan)
        if not params["types"]:
            raise RetrievalError("clause_type mode needs a clause type in the question")
        if plan.params.facets_anywhere and params["details"]:
            return self._run(q.detail_clauses(active_filters(params) - {"types"}, params["spend_key"]), params)
        return self._run(q.clause_type_clauses(self._start(params["types"], params["limit"]),
                                               mentions=bool(params["mentions"]),
                                               details=bool(params["details"])), params)

    def _start(self, types: list[str], limit: int) -> str:
        """Where the pivot starts: both plans give the same rows, only their cost differs.

        Walking companies in name order reads ~2.5 records a company until `limit` rows are
        filled, about companies x limit / clauses-of-the-types of them; starting from the types
        reads ~20 a clause of theirs (PROFILE at 100,000 suppliers: a type on 340 clauses cost
        149k db hits walking companies, 9k from the type; one on 80,000 clauses 8k vs 1.3M). The
        counts come from the cached vocabulary: a stale one only picks the slower plan.
        """
        try:
            vocab = graph_cache.vocabulary(self.db)
            typed = sum(vocab.clause_type_counts.get(t, 0) for t in types)
            companies = len(vocab.companies)
        except Exception:  # noqa: BLE001 - the choice is an optimisation; either plan answers
            return "companies"
        walked = companies if typed <= limit else companies * limit / typed
        return "types" if CLAUSE_TYPE_HITS * typed < COMPANY_WALK_HITS * walked else "companies"


class AttributeRetriever(Retriever):
    """Filter companies/agreements by attributes; clauses, gaps, presence, counts and sums."""

    name = Mode.ATTRIBUTE

    def retrieve(self, plan: Plan, embed=None) -> Retrieval:
        params = base_params(plan)
        active = active_filters(params)
        spend = params["spend_key"]
        intent = plan.intent
        match = plan.params.type_match or "all"
        if intent == Intent.NO_AGREEMENT:
            return self._run(q.no_agreement(active - {"types"}, spend), params)
        if intent == Intent.TERMS:
            return self._run(qterms.TERMS_MATCHING, {**params, **_term_params(plan.params.terms or {})})
        if intent in SPEND_INTENTS or (intent == Intent.SUM_SPEND and "spend_categories" in active
                                       and not params["types"]):
            return self._spend(plan, params, active - {"types"}, spend)
        aggregate = intent in {Intent.COUNT, Intent.SUM_SPEND}
        per_agreement = plan.params.count_unit == "agreements"
        if params["types"] and (intent == Intent.GAP or (aggregate and plan.params.gap)):
            present = [t for t in plan.params.present_types or [] if t not in params["types"]]
            if present:   # "a termination clause but no service credits"
                params.update(gap_types=list(params["types"]), present_types=present,
                              types=list(params["types"]) + present)
            held = (plan.params.present_match or "all") if present else None
            if present:
                active = active - {"details"}   # read by type only (the service warns)
            # "which contracts lack X?": agreement by agreement; else supplier by supplier
            if per_agreement:
                return self._run(q.agreement_gaps(active - {"types"}, match, spend, present_match=held), params)
            if "details" in active:   # "which suppliers have no arbitration clause?": their clauses are read
                return self._run(q.detail_gaps(active - {"types"}, match, spend,
                                               anywhere=plan.params.facets_anywhere), params)
            return self._run(q.type_gaps(active - {"types"}, match, spend, present_match=held), params)
        if per_agreement and params["mentions"] and not params["types"]:   # "which contracts don't mention X?"
            return self._run(q.agreements_not_mentioning(active, spend), params)
        if per_agreement:
            return self._run(q.count_agreements(active - {"types"}, spend, plan.params.agreement_order), params)
        if params["types"] and plan.params.facets_anywhere and "details" in active:
            # "who has to delete our data when the contract ends?": any clause that says so
            return self._run(q.detail_clauses(active - {"types"}, spend, by_spend=intent == Intent.PRESENCE or aggregate),
                             params)
        if params["types"] and (intent == Intent.PRESENCE or aggregate):
            return self._run(q.presence_clauses(active - {"types"}, match, spend), params)
        if params["types"]:
            return self._run(q.attribute_clauses(active - {"types"}, spend), params)
        return self._run(q.companies(active, spend, with_location=bool(plan.params.show_location)), params)

    def _spend(self, plan: Plan, params: dict, active: set[str], spend: str) -> Retrieval:
        """Spend figures: named suppliers over the years, totals per group, a ranking, or the
        spend on categories (per company; the answer adds them up)."""
        intent = plan.intent
        if intent == Intent.SPEND_HISTORY:
            params["year"] = plan.params.spend_year   # None: every year
            params["years"] = plan.params.spend_years   # None: no list of years named
            return self._run(qs.spend_history(active, spend), params)
        if intent == Intent.SPEND_BY:
            return self._run(qs.spend_by(plan.params.group_by or "category", active, spend), params)
        if intent == Intent.SPEND_TOP and plan.params.top:
            params["limit"] = min(int(plan.params.top), MAX_ROWS)
        cypher = qs.category_spend(active, spend) if "spend_categories" in active else \
            q.companies(active | {"require_spend"}, spend)
        result = self._run(cypher, params)
        if plan.params.top:   # the asked-for top N, not a cut-off list
            result.warnings = [w for w in result.warnings if not w.startswith("showing the first")]
        return result


class RelayRetriever(Retriever):
    """Vector search, then walk back HAS_CLAUSE/HAS_SLA and filter by attributes.

    A filter applied after a top-k vector search silently returns fewer than k, so the
    candidate pool grows until k clauses survive; small filtered sets are searched exactly.
    """

    name = Mode.RELAY

    def retrieve(self, plan: Plan, embed=None) -> Retrieval:
        text, vector, t_embed = self._embed_topic(plan, embed, "relay mode needs a topic to search for")
        params = base_params(plan)
        params.update(vector=vector, k=self.k, per_agreement=candidate_cap(self.k), min_score=RELAY_MIN_SCORE)
        filtered = any(params[k] for k in ("companies", "sla_ids", "countries", "industries", "cities",
                                             "governing_laws")) or params["spend_min"] is not None \
            or params["spend_max"] is not None or params["date_from"] or params["date_to"] or params["types"]
        trace = []
        active = active_filters(params)
        spend = params["spend_key"]
        candidates = max(RELAY_K * 10, 50)  # sized for the k shown: re-ranking takes what survives
        t0 = time.perf_counter()
        counts = self._clause_counts(active, params, spend, filtered)
        t_count = (time.perf_counter() - t0) * 1000
        total, counted_by = counts.total, counts.source
        if params["details"]:
            # "which suppliers promise to fix errors within one business day?": the clauses that state
            # the quantity, in one exact pass (a top-k pool would grow round by round to the whole graph)
            res = self._run(q.relay_exact(active, spend), params)
            trace.append({"strategy": "exact", "quantities": plan.params.quantities, "facets": plan.params.facets,
                          "returned": len(res.rows)})
            return self._finish(res, trace, t_embed, scanned=counts.n)
        if filtered:
            # the exact path walks every clause of the filtered agreements (and scores those of the
            # asked types): its cost follows n
            n_scored = int(counts.n * counts.typed / max(total, 1))
            if counts.n <= RELAY_EXACT_MAX:
                res = self._run(q.relay_exact(active, spend), params)
                res.timings_ms["count"] = round(t_count, 2)
                trace.append({"strategy": "exact", "filtered_clauses": counts.n, "scored_estimate": n_scored,
                              "counted_by": counted_by, "returned": len(res.rows)})
                return self._finish(res, trace, t_embed, scanned=n_scored)
            # size the first pool by the attribute filters' share of the corpus, so that usually one
            # round finds k survivors (x3 for the per-agreement cap and the score floor: x2 left about
            # one question in eight short on a 100,000-clause graph). An asked type does not shrink
            # the share: the topic already steers the vector search to clauses of that type (sized
            # by attributes x types, pools were 5x larger and never needed: 0 of 12 typed questions
            # came up short without it); a short round grows the pool.
            share = counts.n / max(total, 1)
            candidates = max(candidates, min(RELAY_POOL_MAX, int(RELAY_K * RELAY_POOL_FACTOR / max(share, 1e-6))))
        rounds_ms = 0.0
        while True:
            params["candidates"] = min(candidates, max(total, 1))
            res = self._run(q.relay_vector(active, spend), params)
            rounds_ms += res.timings_ms["query"]
            trace.append({"strategy": "vector", "candidates": params["candidates"], "counted_by": counted_by,
                          "returned": len(res.rows)})
            if len(res.rows) >= RELAY_K:
                break
            if params["candidates"] >= total:
                if counted_by == "database":
                    break
                # the vocabulary's total may predate another writer's clauses: ask the database once
                total, counted_by = self.db.read(q.TOTAL_CLAUSES)[0]["n"], "database"
                if params["candidates"] >= total:
                    break
            candidates *= 4
        res.timings_ms.update(count=round(t_count, 2), query=round(rounds_ms, 2))
        return self._finish(res, trace, t_embed, scanned=params["candidates"])

    def _clause_counts(self, active: set[str], params: dict, spend: str, filtered: bool) -> ClauseCounts:
        """Clause counts for pool sizing: from the cached vocabulary when it can tell (no round
        trip), else counted in the database (spend and date filters, graphs without counts)."""
        try:
            est = graph_cache.vocabulary(self.db).clause_statistics.estimate(params, active)
        except Exception:  # noqa: BLE001 - an estimate is an optimisation; the database can always count
            est = None
        if est is not None and est.total > 0:
            return est
        if not filtered:
            total = self.db.read(q.TOTAL_CLAUSES)[0]["n"]
            return ClauseCounts(total, total, total, "database")
        count_q = q.filtered_clause_count(active, spend)
        row = self.db.read(count_q, q.used_params(count_q, params))[0]
        return ClauseCounts(row["total"], row["typed"], row["n"], "database")

    def _finish(self, res: Retrieval, trace: list, t_embed: float, scanned: int) -> Retrieval:
        res.trace = trace
        res.timings_ms["embed"] = round(t_embed, 2)
        asked = f"{RELAY_K}" if self.k == RELAY_K else f"{RELAY_K} ({self.k} candidates for re-ranking)"
        res.warnings.append(f"relay: k asked {asked}, returned {len(res.rows)}, candidates scanned {scanned} "
                            f"(at most {candidate_cap(self.k)} per agreement in the query, {RELAY_PER_AGREEMENT} shown, "
                            f"similarity >= {RELAY_MIN_SCORE})")
        return res


class HybridRetriever(Retriever):
    """Full-text + vector, re-scored by exact cosine and fused linearly (the blend tuned on ACORD
    train, `core.search` defaults) inside one query, filtered, at most 2 clauses per agreement."""

    name = Mode.HYBRID

    def retrieve(self, plan: Plan, embed=None) -> Retrieval:
        params = base_params(plan)
        if params["mentions"] and not params["types"]:
            # "every clause that mentions arbitration": all of them, word for word, not the closest few
            params["mention_query"] = mention_query(params["mentions"])
            active = active_filters(params)
            res = self._run(q.mentioning_clauses(active, params["spend_key"], indexed=bool(params["mention_query"])),
                            params)
            res.trace = [{"strategy": "mentions", "words": params["mentions"],
                          "fulltext_query": params["mention_query"] or None, "returned": len(res.rows)}]
            return res
        text, vector, t_embed = self._embed_topic(plan, embed, "hybrid mode needs words to search for")
        lucene = fulltext_query(text, phrase_boost=DEFAULT_PHRASE_BOOST)
        params.update(vector=vector, query=lucene, candidates=max(DEFAULT_CANDIDATES, self.k), k=self.k,
                      per_agreement=RELAY_PER_AGREEMENT, w_fulltext=DEFAULT_WEIGHTS["fulltext"],
                      w_vector=DEFAULT_WEIGHTS["vector"])
        # a clause type the planner read into the words is searched for, not required
        active = active_filters(params) - {"types"}
        res = self._run(q.hybrid_fused(active, params["spend_key"], fulltext=bool(lucene)), params)
        res.timings_ms["embed"] = round(t_embed, 2)
        res.trace = [{"strategy": "linear", "candidates_per_index": params["candidates"],
                      "weights": dict(DEFAULT_WEIGHTS), "fulltext_query": lucene or None, "returned": len(res.rows)}]
        return res


RETRIEVERS: dict[Mode, type[Retriever]] = {
    Mode.DOCUMENT: DocumentRetriever,
    Mode.CLAUSE_TYPE: ClauseTypeRetriever,
    Mode.ATTRIBUTE: AttributeRetriever,
    Mode.RELAY: RelayRetriever,
    Mode.HYBRID: HybridRetriever,
}

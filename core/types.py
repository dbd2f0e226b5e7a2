"""The typed result every question returns (DESIGN §6), and the vocabulary of modes and intents.

Modes and intents are str enums so that every comparison, CLI choice and page selector reads
one definition, while JSON output, logs and tests keep seeing the plain strings.
"""
from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field, fields, replace
from enum import Enum
from typing import Any


class _StrEnum(str, Enum):
    """`str(x)` and f-strings give the value ("attribute"), as the plain strings did."""

    def __str__(self) -> str:
        return self.value

    __format__ = str.__format__


class Mode(_StrEnum):
    DOCUMENT = "document"
    CLAUSE_TYPE = "clause_type"
    ATTRIBUTE = "attribute"
    RELAY = "relay"
    HYBRID = "hybrid"
    TEXT2CYPHER = "text2cypher"
    AUTO = "auto"        # asked for: let the planner (or the LLM) choose
    NONE = "none"        # answered: nothing was run


RETRIEVAL_MODES = (Mode.DOCUMENT, Mode.CLAUSE_TYPE, Mode.ATTRIBUTE, Mode.RELAY, Mode.HYBRID)
ASKABLE_MODES = (Mode.AUTO,) + RETRIEVAL_MODES + (Mode.TEXT2CYPHER,)   # what a user may choose
RESULT_MODES = RETRIEVAL_MODES + (Mode.TEXT2CYPHER, Mode.NONE)         # what a result can report
SEARCH_MODES = (Mode.RELAY, Mode.HYBRID)                              # the modes that search text


class Intent(_StrEnum):
    DOCUMENT = "document"
    DOCUMENT_TYPE = "document_type"
    DOCUMENT_TOPIC = "document_topic"
    NEXT_CLAUSE = "next_clause"
    POSITION = "position"            # the first / last / n-th clause of a known agreement
    CLAUSE_TYPE = "clause_type"
    ATTRIBUTE_CLAUSES = "attribute_clauses"
    GAP = "gap"
    PRESENCE = "presence"
    COUNT = "count"
    SUM_SPEND = "sum_spend"
    SPEND_TOP = "spend_top"          # suppliers ranked by spend (optionally of some categories)
    SPEND_BY = "spend_by"            # spend totals per country, industry or spend category
    SPEND_HISTORY = "spend_history"  # named suppliers' spend per year and category
    COMPANIES = "companies"
    NO_AGREEMENT = "no_agreement"
    RELAY = "relay"
    HYBRID = "hybrid"
    TERMS = "terms"                  # agreements by what their terms say (expiry, notice, cap, payment days)
    TEXT2CYPHER = "text2cypher"
    UNKNOWN = "unknown"


# intents answered company by company (one evidence line per company, not per clause)
SPEND_INTENTS = frozenset({Intent.SPEND_TOP, Intent.SPEND_BY, Intent.SPEND_HISTORY})
COMPANY_INTENTS = frozenset({Intent.GAP, Intent.NO_AGREEMENT, Intent.COMPANIES, Intent.COUNT,
                             Intent.SUM_SPEND}) | SPEND_INTENTS
# intents the attribute retriever answers; another intent forced onto attribute mode is mapped
ATTRIBUTE_INTENTS = frozenset({Intent.GAP, Intent.PRESENCE, Intent.NO_AGREEMENT, Intent.COMPANIES, Intent.COUNT,
                               Intent.SUM_SPEND, Intent.ATTRIBUTE_CLAUSES, Intent.TERMS}) | SPEND_INTENTS
DOCUMENT_INTENTS = frozenset({Intent.DOCUMENT, Intent.DOCUMENT_TYPE, Intent.DOCUMENT_TOPIC, Intent.POSITION})
SEARCH_INTENTS = frozenset({Intent.RELAY, Intent.HYBRID})


@dataclass
class Evidence:
    ref: str
    company: str | None = None
    sla_id: str | None = None
    clause_id: str | None = None
    clause_title: str | None = None
    clause_type: str | None = None
    text: str | None = None
    score: float | None = None
    confidence: float | None = None
    position: int | None = None
    # (start, end) offsets in `text` of the sentence that carries `clause_type` (None: the
    # whole clause), so a card can highlight it; `clause_types`: every confident type of the clause
    highlight: tuple[int, int] | None = None
    clause_types: list[str] | None = None
    # company-level gap evidence: missing types with only low-confidence evidence, and those clauses
    review_only: list[str] | None = None
    review_clause_ids: list[str] | None = None

    @property
    def highlighted(self) -> tuple[str, str, str] | None:
        """(before, sentence, after) of `text` around the highlight, for a card to mark it."""
        if not self.text or not self.highlight:
            return None
        a, b = self.highlight
        if not (0 <= a < b <= len(self.text)):
            return None
        return self.text[:a], self.text[a:b], self.text[b:]


# PlanParams fields every serialised plan carries (even when empty), in today's JSON order;
# the others appear only when a route set them, as the dict they replace did.
_ALWAYS = ("companies", "sla_ids", "types", "countries", "industries", "cities", "governing_laws",
           "spend_min", "spend_max", "spend_year", "date_from", "date_to", "type_match")


@dataclass
class PlanParams:
    """What the planner linked and decided; the retrievers turn it into query parameters."""

    companies: list[str] = field(default_factory=list)
    sla_ids: list[str] = field(default_factory=list)
    types: list[str] = field(default_factory=list)
    countries: list[str] = field(default_factory=list)
    industries: list[str] = field(default_factory=list)
    cities: list[str] = field(default_factory=list)
    governing_laws: list[str] = field(default_factory=list)
    spend_min: float | None = None
    spend_max: float | None = None
    spend_year: int | None = None
    law_scope: str | None = None      # "foreign" / "home": the agreement's law against the supplier's country
    exclude_companies: list[str] | None = None   # companies named to be left out ("other than X")
    # places / industries named to be left out ("outside Germany"): `countries` / `industries` hold the
    # others, which the query filters by; these only say it in the answer as the question did
    countries_left_out: list[str] | None = None
    industries_left_out: list[str] | None = None
    governing_laws_left_out: list[str] | None = None   # "not governed by Swiss law": the others are filtered by
    spend_change: str | None = None   # "up" / "down": spend in spend_year against spend_from_year
    spend_from_year: int | None = None
    agreements_min: int | None = None  # suppliers with at least / at most this many agreements
    agreements_max: int | None = None
    law_countries: dict[str, str] | None = None   # governing-law value -> its country (for law_scope)
    date_from: str | None = None      # ISO date
    date_to: str | None = None
    agreement_order: str | None = None   # "earliest" | "latest": agreements ranked by effective date;
    #                                      "most" | "fewest": suppliers ranked by their number of agreements
    agreement_top: int | None = None     # ... and how many of them (agreements, or suppliers)
    type_match: str = "all"           # "all": every named type required (both/and); "any": or/either
    mentions: list[str] | None = None   # words a listed clause must contain ("termination clauses that mention notice")
    quantities: list[str] | None = None  # quantities a clause of the type must state ("99.9%", "24 hours")
    facets: list[str] | None = None  # details of the asked types a clause must have ("Arbitration"; core.retrieval.facets)
    facets_anywhere: bool | None = None   # ... in a clause of any type (the question did not name the type)
    # set by some routes only
    count_unit: str | None = None     # "agreements" | "clauses" when a count is of those, not companies
    require_spend: bool | None = None  # True: a company without spend in the year has nothing to compare or add
    gap: bool | None = None           # True: lacks the types; False: has them
    yes_no: bool | None = None        # presence asked as yes or no ("do German suppliers have X?"): those without are named too
    present_types: list[str] | None = None   # gap: types the companies must have ("X but no Y": X)
    present_match: str | None = None  # "all" | "any" of present_types ("X or Y but no Z": any)
    direction: str | None = None      # next_clause: "after" | "before"
    anchor_ids: list[str] | None = None   # next_clause: the clause just shown
    anchor_text: str | None = None    # next_clause: words naming the clause to start from
    position: int | None = None       # position: 1-based place of the clause in its agreement, -1 = the last
    numbered: bool | None = None      # position: the number a heading carries ("section 3"), else the place
    text: str | None = None           # search text (topic, quoted words, the question)
    spend_categories: list[str] | None = None   # spend questions: only these categories' spend
    spend_years: list[int] | None = None   # spend_history: several named years ("2023 and 2024")
    group_by: str | None = None       # spend_by: "country" | "industry" | "category"
    top: int | None = None            # spend_top: how many suppliers
    spend_order: str | None = None    # "lowest": a ranking by spend starts from the smallest
    show_location: bool | None = None  # companies: with their addresses ("where is X based?")
    currency: str | None = None       # the base currency every spend figure is in (for answers)
    terms: dict | None = None         # terms: the field asked about and its bounds (core.retrieval.term_questions)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of the dict this replaced: unset route-only fields are left out."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _ALWAYS or value is not None:
                out[f.name] = copy.deepcopy(value)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PlanParams":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown plan parameter(s): {', '.join(sorted(unknown))}")
        return cls(**{k: v for k, v in d.items() if v is not None or k not in _LIST_FIELDS})


_LIST_FIELDS = {"companies", "sla_ids", "types", "countries", "industries", "cities", "governing_laws"}


@dataclass
class Plan:
    """What the planner understood: shown to the user so routing is auditable."""

    intent: Intent
    mode: Mode
    params: PlanParams = field(default_factory=PlanParams)
    why: str = ""
    language: str = "en"
    linked: dict[str, Any] = field(default_factory=dict)  # how each entity was recognised
    suggestions: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.intent = Intent(self.intent)
        self.mode = Mode(self.mode)

    def to_dict(self) -> dict:
        return {"intent": self.intent.value, "mode": self.mode.value, "params": self.params.to_dict(),
                "why": self.why, "language": self.language, "linked": copy.deepcopy(self.linked),
                "suggestions": list(self.suggestions)}


@dataclass
class Result:
    question: str
    mode: str
    cypher: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    answer: str = ""
    rows: list[dict] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    subgraph: dict[str, list] = field(default_factory=lambda: {"nodes": [], "edges": []})
    timings_ms: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    plan: Plan | None = None          # None until planned (an empty question is never planned)
    session: str | None = None
    trace: list[dict] = field(default_factory=list)  # text2cypher attempts, relay rounds
    usage: dict[str, Any] = field(default_factory=dict)  # LLM tokens/calls/retries of this request
    cold_start: bool = False   # paid the process's one-time model load (e.g. a one-shot CLI question)

    @property
    def plan_dict(self) -> dict[str, Any]:
        """The plan as JSON (an empty object when nothing was planned), for logs and pages."""
        return self.plan.to_dict() if self.plan is not None else {}

    @property
    def intent(self) -> str | None:
        return self.plan.intent.value if self.plan is not None else None

    def to_dict(self) -> dict:
        d = asdict(replace(self, plan=None))
        d["mode"] = str(self.mode)
        d["plan"] = self.plan_dict
        d["params"] = jsonable(self.params)
        d["rows"] = jsonable(self.rows)
        return d

    @property
    def evidence_companies(self) -> list[str]:
        return list(dict.fromkeys(e.company for e in self.evidence if e.company))

    @property
    def evidence_clause_ids(self) -> list[str]:
        return [e.clause_id for e in self.evidence if e.clause_id]


def jsonable(value):
    """Neo4j temporal values and numpy numbers as plain JSON (public: the service shows node
    properties with it, and a result's params and rows go through it)."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "iso_format"):
        return value.iso_format()
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            return value.item()
        except (TypeError, ValueError):
            return str(value)
    return value

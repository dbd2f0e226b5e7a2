"""Follow-up questions: what a question takes from the session ("and their liability clause?")
and what it leaves, so a complete new question starts a new topic."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.retrieval.facts import QuestionFacts, semantic_text

ANAPHORA = re.compile(
    r"^\s*(and|also|what about|how about|then|same for|and for)\b|\b(their|its|they|them|that supplier|"
    r"this supplier|that company|this company|the same|it|that clause|this clause|that one)\b|^\s*(那|那么|还有)|它|他们|该公司|这家|那家|其|该条|这条|那条", re.I)
FOLLOW_UP_LEAD = re.compile(r"^\s*(and|also|what about|how about|then|same for|and for)\b|^\s*(那|那么|还有)", re.I)
# a pronoun that points inside the question ("suppliers ... if they go bankrupt") refers to
# nothing in the conversation
OWN_ANTECEDENT = re.compile(
    r"\b(suppliers?|vendors?|compan(?:y|ies)|providers?|firms?|partners?|agreements?|contracts?|clauses?|"
    r"provisions?|part(?:y|ies))\b.*\b(their|its|they|them|it)\b|(供应商|公司|协议|合同|条款).*(它|他们|其)", re.I)
_FILTER_KEYS = (("countries", "countries"), ("industries", "industries"), ("cities", "cities"))
# a follow-up that says itself whether the clause is had ("and which of them have one?")
HAVING = re.compile(r"\b(have|has|having|with|include[sd]?|including|contain[s]?|offer[s]?|give[s]?)\b|"
                    r"有(?!哪|几|多少)|包含|包括|约定了|规定了", re.I)   # not the 有 of "其中有哪些"


@dataclass
class SessionContext:
    """What a follow-up question may refer back to."""

    companies: list[str] = field(default_factory=list)
    sla_ids: list[str] = field(default_factory=list)
    clause_types: list[str] = field(default_factory=list)
    filters: dict[str, Any] = field(default_factory=dict)
    clause_ids: list[str] = field(default_factory=list)   # the clauses the last answer cited
    last_intent: str | None = None
    turns: int = 0

    def to_dict(self) -> dict:
        return {"companies": self.companies, "sla_ids": self.sla_ids, "clause_types": self.clause_types,
                "filters": self.filters, "clause_ids": self.clause_ids, "last_intent": self.last_intent,
                "turns": self.turns}

    @classmethod
    def from_dict(cls, d: dict) -> "SessionContext":
        return cls(**{k: d.get(k, v) for k, v in cls().to_dict().items()})


def is_follow_up(q: str) -> bool:
    """A question that leans on the previous turn: it opens like a follow-up ("and their ...",
    "那它的…"), or uses a pronoun with nothing in the question itself to refer to."""
    if FOLLOW_UP_LEAD.search(q):
        return True
    if not ANAPHORA.search(q):
        return False
    return not OWN_ANTECEDENT.search(q)


def inherit_context(f: QuestionFacts, context: SessionContext | None) -> QuestionFacts:
    """A follow-up ("and their liability clause?") takes from the session only what it refers
    to and leaves out itself: companies, clause types, each attribute filter. A complete new
    question (no follow-up wording, or its pronouns point inside itself) starts a new topic."""
    f.previous_clause_ids = list(context.clause_ids) if context else []
    if not (context and context.turns):
        return f
    if not is_follow_up(f.q):
        if ANAPHORA.search(f.q):
            f.linked["new_topic"] = "nothing inherited: the question's pronouns refer to its own subject"
        return f
    taken: dict[str, Any] = {}
    own_filters = bool(f.countries or f.industries or f.cities or f.laws or f.spend_min is not None
                       or f.spend_max is not None)
    if not f.companies and not f.sla_ids and not own_filters and (context.companies or context.sla_ids):
        f.companies, f.sla_ids = list(context.companies), list(context.sla_ids)
        taken["companies"] = f.companies + f.sla_ids
    if not f.types and context.clause_types and not _own_topic(f):
        f.types, f.topic = list(context.clause_types), None
        taken["clause types"] = f.types
        if context.last_intent == "gap" and not f.negated and not HAVING.search(f.q):
            # "which suppliers lack X?" then "and which of them are German?": still those that lack it
            f.negated = True
            taken["the gap"] = "lacking " + ", ".join(f.types)
        elif (context.last_intent == "presence" and own_filters and not (f.companies or f.sla_ids)
              and not (f.negated or f.wants_companies or f.yes_no)):
            # "do German suppliers have X?" then "what about France?": the same question of others
            f.yes_no = True
            taken["the question"] = "whether they have " + ", ".join(f.types)
    if not f.companies and context.filters:
        taken.update(_inherit_filters(f, context.filters))
    for key in taken:
        label = key if key in ("companies", "clause types", "the gap", "the question") else "filters"
        if label not in f.inherited:
            f.inherited.append(label)
    if f.inherited:
        f.linked["from_session"] = f.inherited
        f.linked["inherited"] = {k: ", ".join(map(str, v)) if isinstance(v, list) else v for k, v in taken.items()}
    return f


def _own_topic(f: QuestionFacts) -> bool:
    """The question has a topic of its own, not just the filters it names ("what about
    suppliers in France?" has none: it asks the previous question of other suppliers)."""
    if not f.topic:
        return False
    phrases = [ph for key in ("countries", "industries", "cities", "governing_law")
               for ph in (f.linked.get(key) or {}).values()]
    return semantic_text(FOLLOW_UP_LEAD.sub(" ", f.topic), phrases) is not None or \
        (len(f.topic.split()) == 1 and f.topic.lower() not in {ph.lower() for ph in phrases})


def _inherit_filters(f: QuestionFacts, prior: dict[str, Any]) -> dict[str, Any]:
    """Each previous filter the follow-up does not set itself ("what about German ones?" keeps
    the spend threshold and replaces the country)."""
    taken: dict[str, Any] = {}
    for attr, key in _FILTER_KEYS:
        if not getattr(f, attr) and prior.get(key):
            setattr(f, attr, {c: c for c in prior[key]})
            taken[key] = list(prior[key])
    if f.spend_min is None and f.spend_max is None:
        for key in ("spend_min", "spend_max"):
            if prior.get(key) is not None:
                setattr(f, key, prior[key])
                taken[key] = prior[key]
    return taken
